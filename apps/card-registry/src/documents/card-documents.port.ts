/**
 * The registry's view of document validation (CARDS.md §1, §4, §5 "Validation errors"): the shape of
 * `validateDocument` / `summarizeDocument` from `@trustmesh/cards-documents`, so the service depends on
 * the contract, not on who implements it. `cards-documents.adapter.ts` fills it with that library.
 */
import type { CardSummary } from '../domain/registry-namespace.aggregate';

export interface DocumentIssue {
  /** JSON Pointer into the document. */
  path: string;
  code: string;
  severity: 'error' | 'warning';
  message: string;
}

export interface DocumentValidation {
  kind: string;
  form?: string;
  valid: boolean;
  errors: DocumentIssue[];
  warnings: DocumentIssue[];
  value?: unknown;
}

export interface CardDocuments {
  validate(input: Uint8Array, options: { kind?: string }): DocumentValidation;
  summarize(result: DocumentValidation): CardSummary;
}

/** The kinds a card can be published as, with the content type its exact bytes are served with. */
export const PUBLISHABLE_KINDS: Readonly<Record<string, string>> = {
  'ai-card': 'application/json',
  a2a: 'application/a2a-agent-card+json',
  'mcp-server': 'application/json',
};
