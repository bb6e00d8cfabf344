/**
 * Shapes shared by the ownership proofs (CARDS.md §5 "Ownership verification": "Proof by DNS TXT, HTTPS well-known
 * file or did:web signature, re-checked periodically"). Every failure is a value with a stable OWNERSHIP_* code.
 */
export type ProofMethod = 'dns-txt' | 'https-file' | 'did-web';

export const OWNERSHIP_ISSUE_CODES = [
  'OWNERSHIP_DOMAIN_INVALID',
  'OWNERSHIP_TOKEN_INVALID',
  'OWNERSHIP_METHOD_UNAVAILABLE',
  'OWNERSHIP_DNS_RECORD_MISSING',
  'OWNERSHIP_DNS_TOKEN_MISMATCH',
  'OWNERSHIP_DNS_TIMEOUT',
  'OWNERSHIP_DNS_FAILED',
  'OWNERSHIP_FILE_MISSING',
  'OWNERSHIP_FILE_REDIRECTED',
  'OWNERSHIP_FILE_TOO_LARGE',
  'OWNERSHIP_FILE_ADDRESS_REFUSED',
  'OWNERSHIP_FILE_UNREACHABLE',
  'OWNERSHIP_FILE_TOKEN_MISMATCH',
  'OWNERSHIP_DID_SIGNATURE_INVALID',
  'OWNERSHIP_DID_UNAVAILABLE',
] as const;
export type OwnershipIssueCode = (typeof OWNERSHIP_ISSUE_CODES)[number];

export type ProofOutcome =
  | {
      readonly ok: true;
      readonly method: ProofMethod;
      /** RFC 3339 instant of the successful check. */
      readonly checkedAt: string;
      /** DNS TXT on a domain also covers its subdomains (MCP Registry practice, §5); the file and did:web do not. */
      readonly grantsSubdomains: boolean;
    }
  | {
      readonly ok: false;
      readonly method: ProofMethod;
      readonly code: OwnershipIssueCode;
      readonly message: string;
      /** For failures of the HTTPS file: the SafeFetcher code underneath (FETCH_TLS, FETCH_TIMEOUT, ...). */
      readonly cause?: string;
    };

/** One proof method bound to its dependencies. */
export type ProofCheck = (domain: string, token: string) => Promise<ProofOutcome>;
