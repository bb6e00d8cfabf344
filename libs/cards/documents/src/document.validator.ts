/**
 * `validateDocument`: raw bytes (or text) in, every issue out, never a throw (CARDS.md §5 "Validation
 * errors"). Steps: size bound → strict UTF-8 → strict JSON over the raw text (duplicate keys, lone
 * surrogates, unsafe integers and excessive depth refused: §2.3 I-JSON, §3.7) → kind (given or detected)
 * → the kind's validator. Warnings never make a document invalid.
 */
import { parseStrictJson } from '@trustmesh/shared-strict-json';
import { validateA2aCard } from './a2a-card.validator';
import { validateAiCard } from './ai-card.validator';
import { validateAiCatalog } from './ai-catalog.validator';
import { type DocumentIssue, IssueList } from './document.issue';
import { FieldReader, isObject, type JsonObject } from './document-fields.reader';
import { catalogForm, detectKind, type CatalogForm, type DetectedKind, type DocumentKind } from './document-kind.detector';
import { validateMcpServer } from './mcp-server.validator';
import { validateSeedCatalog } from './seed-catalog.validator';

/** Default size bound: 1 MiB, far above any real card or catalog, far below what hurts a registry. */
export const DEFAULT_MAX_DOCUMENT_BYTES = 1024 * 1024;
/** Nesting bound for the JSON reader; catalogs nest 4 levels of about 4 containers each, cards far fewer. */
export const MAX_DOCUMENT_DEPTH = 64;

export interface ValidateOptions {
  /** The kind to validate as; `'auto'` (the default) detects it from the document's shape. */
  kind?: DocumentKind | 'auto';
  /** Size bound in bytes (UTF-8); larger input is DOCUMENT_TOO_LARGE. Default 1 MiB. */
  maxBytes?: number;
  /** Accept the draft seed-catalog forms (`agents`/`services`/`records`, `specVersion`), as warnings. */
  compatibility?: boolean;
}

export interface ValidationResult {
  kind: DocumentKind | undefined;
  /** For `kind: 'ai-catalog'`: the seed (`aiCards`) or the final (`entries`) model. */
  form?: CatalogForm;
  valid: boolean;
  errors: DocumentIssue[];
  warnings: DocumentIssue[];
  /** The parsed JSON, whenever it parsed (even when invalid). */
  value?: unknown;
}

const ENCODER = new TextEncoder();

export function validateDocument(input: Uint8Array | string, options: ValidateOptions = {}): ValidationResult {
  const issues = new IssueList();
  const requested = options.kind ?? 'auto';
  const declared = requested === 'auto' ? undefined : requested;
  const maxBytes = options.maxBytes ?? DEFAULT_MAX_DOCUMENT_BYTES;

  const byteLength = typeof input === 'string' ? utf8Length(input, maxBytes) : input.byteLength;
  if (byteLength > maxBytes) {
    issues.error('', 'DOCUMENT_TOO_LARGE', `The document is larger than ${maxBytes} bytes; it was not read.`);
    return finish(declared, undefined, issues);
  }
  const decoded = typeof input === 'string' ? input : decodeUtf8(input);
  if (decoded === undefined) {
    issues.error('', 'DOCUMENT_NOT_UTF8', 'The document is not valid UTF-8.');
    return finish(declared, undefined, issues);
  }
  // RFC 8259 §8.1: a parser may ignore a byte order mark; ignored alike for bytes and text, with a warning.
  const text = decoded.startsWith('\uFEFF') ? decoded.slice(1) : decoded;
  if (text !== decoded) issues.warn('', 'DOCUMENT_BOM', 'The document starts with a byte order mark, which JSON forbids senders to add; it was ignored.');
  const parsed = parseStrictJson(text, { maxDepth: MAX_DOCUMENT_DEPTH, loneSurrogates: 'refuse', unsafeIntegers: 'refuse' });
  if (!parsed.ok) {
    issues.error(parsed.issue.pointer, parsed.issue.code, parsed.issue.message);
    return finish(declared, undefined, issues);
  }
  const value = parsed.value;
  if (!isObject(value)) {
    issues.error('', declared ? 'DOCUMENT_NOT_OBJECT' : 'KIND_UNKNOWN', `The document must be a JSON object, not ${describe(value)}.`);
    return finish(declared, undefined, issues, value);
  }
  const detected: DetectedKind | undefined = declared
    ? { kind: declared, ...(declared === 'ai-catalog' ? { form: catalogForm(value) } : {}) }
    : detectKind(value);
  if (!detected) {
    issues.error('', 'KIND_UNKNOWN', 'The document is not recognisably an AI Card, AI Catalog, A2A AgentCard or MCP server.json; name its kind explicitly.');
    return finish(undefined, undefined, issues, value);
  }
  validateAs(value, detected, issues, options.compatibility === true);
  return finish(detected.kind, detected.form, issues, value);
}

function validateAs(document: JsonObject, detected: DetectedKind, issues: IssueList, compatibility: boolean): void {
  switch (detected.kind) {
    case 'ai-card':
      return validateAiCard(document, issues);
    case 'ai-catalog':
      return detected.form === 'seed' ? validateSeedCatalog(document, issues, compatibility) : validateAiCatalog(document, '', issues);
    case 'a2a':
      validateA2aCard(document, new FieldReader(issues));
      return;
    case 'mcp-server':
      return validateMcpServer(document, new FieldReader(issues));
  }
}

function finish(kind: DocumentKind | undefined, form: CatalogForm | undefined, issues: IssueList, value?: unknown): ValidationResult {
  return {
    kind,
    ...(form ? { form } : {}),
    valid: issues.errors.length === 0,
    errors: issues.errors,
    warnings: issues.warnings,
    ...(value !== undefined ? { value } : {}),
  };
}

/** UTF-8 length of `text` when it may exceed `bound`; a text short enough to fit whatever it holds skips the encoding. */
function utf8Length(text: string, bound: number): number {
  if (text.length * 3 <= bound) return text.length;
  return ENCODER.encode(text).byteLength;
}

function decodeUtf8(bytes: Uint8Array): string | undefined {
  try {
    return new TextDecoder('utf-8', { fatal: true, ignoreBOM: true }).decode(bytes);
  } catch {
    return undefined;
  }
}

function describe(value: unknown): string {
  if (value === null) return 'null';
  return Array.isArray(value) ? 'an array' : `a ${typeof value}`;
}
