// How the card registry's gRPC services refuse a call (proto/trustmesh/registry/v1/card_registry.proto,
// header): a status code plus the UTF-8 JSON `{ error, code, issues, retryAfterSeconds? }` in the trailing
// metadata `registry-issues-bin`, the shield's `shield-issues-bin` convention with a stable top-level code.
// One definition here so the server that writes the trailer and every client that reads it agree.
export const REGISTRY_ISSUES_METADATA = 'registry-issues-bin';
/**
 * With ABORTED `CATALOG_PARTIALLY_STORED` (PublishCatalog): the binary-encoded `PublishCatalogResponse`,
 * each namespace's and each entry's outcome, so a client knows exactly what was stored.
 */
export const REGISTRY_CATALOG_RESULT_METADATA = 'registry-catalog-result-bin';

export interface RegistryRefusalIssue {
  /** JSON Pointer into the document or the request; '' for the whole. */
  path: string;
  code: string;
  severity: 'error' | 'warning';
  message: string;
}

export interface RegistryRefusal {
  /** The status message: what went wrong, for a person. */
  error: string;
  /** Stable machine code, e.g. REVISION_CONFLICT, RATE_LIMITED. */
  code: string;
  issues: RegistryRefusalIssue[];
  /** With RESOURCE_EXHAUSTED / RATE_LIMITED: whole seconds to wait before retrying. */
  retryAfterSeconds?: number;
}

/** The trailer value for a refusal. */
export function encodeRegistryRefusal(refusal: RegistryRefusal): Buffer {
  return Buffer.from(JSON.stringify(refusal), 'utf8');
}

/**
 * Reads a `registry-issues-bin` value (as `metadata.get(REGISTRY_ISSUES_METADATA)[0]` gives it); undefined
 * when it is missing or not a refusal of this shape, never an exception: a client reading a peer's trailer
 * must not fail on it.
 */
export function decodeRegistryRefusal(value: Buffer | string | undefined): RegistryRefusal | undefined {
  if (value === undefined) return undefined;
  let parsed: unknown;
  try {
    parsed = JSON.parse(typeof value === 'string' ? value : value.toString('utf8'));
  } catch {
    return undefined;
  }
  if (!isRecord(parsed) || typeof parsed['error'] !== 'string' || typeof parsed['code'] !== 'string' || !Array.isArray(parsed['issues'])) return undefined;
  const issues = parsed['issues'];
  if (!issues.every(isIssue)) return undefined;
  const retryAfterSeconds = parsed['retryAfterSeconds'];
  if (retryAfterSeconds !== undefined && !(Number.isSafeInteger(retryAfterSeconds) && (retryAfterSeconds as number) >= 0)) return undefined;
  return {
    error: parsed['error'],
    code: parsed['code'],
    issues: issues.map(({ path, code, severity, message }) => ({ path, code, severity, message })),
    ...(retryAfterSeconds === undefined ? {} : { retryAfterSeconds: retryAfterSeconds as number }),
  };
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function isIssue(value: unknown): value is RegistryRefusalIssue {
  return (
    isRecord(value) &&
    typeof value['path'] === 'string' &&
    typeof value['code'] === 'string' &&
    (value['severity'] === 'error' || value['severity'] === 'warning') &&
    typeof value['message'] === 'string'
  );
}
