/**
 * Proof by HTTPS well-known file (CARDS.md §5): `https://<domain>/.well-known/trustmesh-registry-auth` holds the token
 * on a line of its own (other lines, e.g. other registries' tokens, are ignored). Fetched through SafeFetcher with the
 * rules the MCP Registry applies to its own file: no redirects, at most 4 KiB, 10 s. It grants the domain only.
 */
import type { SafeFetcher } from '@trustmesh/cards-fetcher';

import type { OwnershipIssueCode, ProofOutcome } from './ownership.types';

export const WELL_KNOWN_AUTH_PATH = '/.well-known/trustmesh-registry-auth';
export const AUTH_FILE_MAX_BYTES = 4096;
export const AUTH_FILE_TIMEOUT_MS = 10_000;

const FETCH_TO_OWNERSHIP: Readonly<Record<string, OwnershipIssueCode>> = {
  FETCH_REDIRECT_REFUSED: 'OWNERSHIP_FILE_REDIRECTED',
  FETCH_TOO_MANY_REDIRECTS: 'OWNERSHIP_FILE_REDIRECTED',
  FETCH_TOO_LARGE: 'OWNERSHIP_FILE_TOO_LARGE',
  FETCH_ADDRESS_REFUSED: 'OWNERSHIP_FILE_ADDRESS_REFUSED',
  FETCH_SCHEME_REFUSED: 'OWNERSHIP_FILE_ADDRESS_REFUSED',
};

export function wellKnownAuthUrl(domain: string, port?: number): string {
  return `https://${domain}${port === undefined ? '' : `:${port}`}${WELL_KNOWN_AUTH_PATH}`;
}

export async function checkHttpsFileProof(domain: string, token: string, fetcher: SafeFetcher, now: () => Date, port?: number): Promise<ProofOutcome> {
  const url = wellKnownAuthUrl(domain, port);
  const outcome = await fetcher.fetch(url, { maxRedirects: 0, maxBytes: AUTH_FILE_MAX_BYTES, timeoutMs: AUTH_FILE_TIMEOUT_MS, accept: 'text/plain' });
  if (!outcome.ok) {
    const { error } = outcome;
    const code: OwnershipIssueCode =
      FETCH_TO_OWNERSHIP[error.code] ?? (error.code === 'FETCH_HTTP_STATUS' && error.status === 404 ? 'OWNERSHIP_FILE_MISSING' : 'OWNERSHIP_FILE_UNREACHABLE');
    return { ok: false, method: 'https-file', code, message: `${url}: ${error.message}`, cause: error.code };
  }
  const text = new TextDecoder('utf-8', { fatal: false }).decode(outcome.response.bytes);
  if (text.split(/\r?\n/).some((line) => line.trim() === token)) {
    return { ok: true, method: 'https-file', checkedAt: now().toISOString(), grantsSubdomains: false };
  }
  return { ok: false, method: 'https-file', code: 'OWNERSHIP_FILE_TOKEN_MISMATCH', message: `${url} does not contain the challenge token on a line of its own` };
}
