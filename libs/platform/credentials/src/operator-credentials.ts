/**
 * Operator accounts as the shield and the registry configure them: `<APP>_OPERATOR_CREDENTIALS` holds
 * `account:sha256hex` pairs (the SHA-256 of each operator's bearer credential, never the credential), and an
 * embedded development start with none configured mints one credential for the `development` account, shown
 * once and valid until restart.
 */
import { mintSecret, sha256 } from './secrets';

export interface OperatorCredential {
  accountId: string;
  /** SHA-256 of the bearer credential (32 bytes). */
  digest: Buffer;
}

export const DEVELOPMENT_OPERATOR_ACCOUNT = 'development';

const ACCOUNT = /^[A-Za-z0-9._-]{1,64}$/;
const SHA256_HEX = /^[0-9a-f]{64}$/i;

/**
 * The pairs of `raw` (separated by commas or white space), or what is wrong with it as a sentence that never
 * echoes an entry: a misplaced plaintext credential must not reach the logs.
 */
export function parseOperatorCredentials(raw: string): { ok: true; credentials: OperatorCredential[] } | { ok: false; problem: string } {
  const credentials: OperatorCredential[] = [];
  let bad = 0;
  for (const entry of raw.split(/[\s,]+/).filter(Boolean)) {
    const separator = entry.lastIndexOf(':');
    const account = entry.slice(0, separator);
    const digest = entry.slice(separator + 1);
    if (separator < 1 || !ACCOUNT.test(account) || !SHA256_HEX.test(digest)) bad += 1;
    else credentials.push({ accountId: account, digest: Buffer.from(digest, 'hex') });
  }
  if (bad > 0) {
    return {
      ok: false,
      problem: `must hold account:sha256hex pairs (account 1-64 of A-Z a-z 0-9 . _ -, then 64 hex characters), separated by commas (${bad} entr${bad === 1 ? 'y is' : 'ies are'} not)`,
    };
  }
  if (credentials.length === 0) return { ok: false, problem: 'is set but holds no account:sha256hex pair' };
  return { ok: true, credentials };
}

/**
 * The configured operators, or, when there are none, the development account with a freshly minted credential
 * (`developmentCredential`, to be shown once). Only for an embedded development start: server configuration
 * requires operators.
 */
export function withDevelopmentOperator(configured: readonly OperatorCredential[]): { operators: OperatorCredential[]; developmentCredential: string | null } {
  if (configured.length > 0) return { operators: [...configured], developmentCredential: null };
  const developmentCredential = mintSecret();
  return { operators: [{ accountId: DEVELOPMENT_OPERATOR_ACCOUNT, digest: sha256(developmentCredential) }], developmentCredential };
}
