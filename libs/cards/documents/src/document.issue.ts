/**
 * The issue vocabulary of document validation (CARDS.md §5 "Validation errors"): every finding is
 * `{path (RFC 6901 JSON pointer), code, severity, message}`, all of them are reported at once, and
 * warnings never make a document invalid. `ALL_ISSUE_CODES` lists every code this library can emit,
 * so a registry can map codes to documentation and a test can prove each one reachable.
 */

export const ALL_ISSUE_CODES = [
  // Reading the bytes (strict JSON, §3.7 and §2.3 "valid I-JSON/JCS input").
  'DOCUMENT_TOO_LARGE',
  'DOCUMENT_NOT_UTF8',
  'DOCUMENT_BOM',
  'JSON_SYNTAX',
  'JSON_TOO_DEEP',
  'JSON_DUPLICATE_KEY',
  'JSON_LONE_SURROGATE',
  'JSON_UNSAFE_INTEGER',
  // Which kind of document it is.
  'KIND_UNKNOWN',
  'DOCUMENT_NOT_OBJECT',
  // Shape, shared by every kind.
  'FIELD_MISSING',
  'FIELD_TYPE',
  'FIELD_EMPTY',
  'FIELD_UNKNOWN',
  'FIELD_TOO_LONG',
  'FIELD_PATTERN',
  'VALUE_NOT_ALLOWED',
  'URI_NOT_ABSOLUTE',
  'URL_NOT_HTTPS',
  'TIMESTAMP_INVALID',
  'TIMESTAMP_ORDER',
  // Versions (§1.1 specVersion, §2.3 Versions).
  'SPEC_VERSION_INVALID',
  'SPEC_VERSION_UNSUPPORTED',
  // AI Card v1 (§1.1, §1.2).
  'IDENTITY_TYPE_MISMATCH',
  'LOGO_URL_SCHEME',
  'LOGO_URL_SVG',
  'SERVICES_EMPTY',
  'SERVICE_KEY_MISMATCH',
  'ATTESTATION_NO_CREDENTIAL',
  'PROTOCOL_SPECIFIC_SHAPE',
  // Seed catalog (§2.1).
  'CATALOG_DRAFT_FORM',
  // Final AI Catalog (§2.3).
  'ENTRY_CONTENT_MISSING',
  'ENTRY_CONTENT_BOTH',
  'ENTRY_DUPLICATE_IDENTIFIER',
  'ENTRY_DUPLICATE_VERSION',
  'IDENTIFIER_OPAQUE',
  'DIGEST_INVALID',
  'DIGEST_WEAK',
  'EXTENSION_KEY_INVALID',
  'TRUST_MANIFEST_EMPTY',
  'SUBJECT_REQUIRED',
  'SUBJECT_MISMATCH',
  'SUBJECT_BINDING_MISSING',
  'SIGNATURE_PROFILE_INVALID',
  'NESTED_CATALOG_TOO_DEEP',
  // A2A AgentCard (§4.1) and MCP server.json (§4.2).
  'MCP_VERSION_RANGE',
  'MCP_PACKAGE_VERSION_LATEST',
  'MCP_FILE_SHA256_REQUIRED',
] as const;

export type IssueCode = (typeof ALL_ISSUE_CODES)[number];

export interface DocumentIssue {
  /** JSON pointer (RFC 6901) of the member at fault; `""` for the whole document. */
  path: string;
  code: string;
  severity: 'error' | 'warning';
  message: string;
}

/** The pointer of `key` inside the member at `base` (RFC 6901 escaping: `~` → `~0`, `/` → `~1`). */
export function childPointer(base: string, key: string | number): string {
  return `${base}/${String(key).replace(/~/g, '~0').replace(/\//g, '~1')}`;
}

/** Collects issues in document order; the validators only ever append. */
export class IssueList {
  readonly errors: DocumentIssue[] = [];
  readonly warnings: DocumentIssue[] = [];

  error(path: string, code: IssueCode, message: string): void {
    this.errors.push({ path, code, severity: 'error', message });
  }

  warn(path: string, code: IssueCode, message: string): void {
    this.warnings.push({ path, code, severity: 'warning', message });
  }

  /** An error, or a warning when `asWarning` (rules whose strictness depends on the document's minor version). */
  report(asWarning: boolean, path: string, code: IssueCode, message: string): void {
    if (asWarning) this.warn(path, code, message);
    else this.error(path, code, message);
  }
}
