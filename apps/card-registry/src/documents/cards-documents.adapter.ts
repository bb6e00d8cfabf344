/**
 * The registry's document port filled by `@trustmesh/cards-documents`: `validateDocument` over the raw
 * bytes (strict JSON, every issue at once) and `summarizeDocument` for the fields a revision is keyed and
 * shown by. The registry's own size bound comes first (the HTTP edge), so the library's is set to match.
 */
import { summarizeDocument, validateDocument, type DocumentKind, type ValidationResult } from '@trustmesh/cards-documents';

import type { CardSummary } from '../domain/registry-namespace.aggregate';
import type { CardDocuments, DocumentValidation } from './card-documents.port';

export function cardsDocuments(maxBytes: number): CardDocuments {
  return {
    validate(input, options): DocumentValidation {
      const result = validateDocument(input, { kind: (options.kind as DocumentKind | undefined) ?? 'auto', maxBytes });
      return {
        kind: result.kind ?? 'unknown',
        ...(result.form !== undefined ? { form: result.form } : {}),
        valid: result.valid,
        errors: result.errors,
        warnings: result.warnings,
        ...(result.value !== undefined ? { value: result.value } : {}),
      };
    },
    summarize(validation): CardSummary {
      // The port's result is the library's own, widened to strings: narrow it back.
      const summary = summarizeDocument(validation as ValidationResult);
      if (!summary) return { kind: validation.kind, name: '', description: '', tags: [], skills: [], tools: [], protocols: [] };
      const { entries: _entries, form: _form, identifier, ...rest } = summary;
      return { ...rest, ...(identifier !== undefined ? { identifier } : {}) };
    },
  };
}
