/**
 * Delegated service credentials: one bearer credential per trusted service (the console) with which it acts for
 * its own users, each of them an account of the app it calls, named in the `trustmesh-on-behalf-of` header (gRPC
 * metadata or HTTP header) as `<service><separator><id>`. The app configures them like operators
 * (`<APP>_SERVICE_CREDENTIALS` = `service:sha256hex` pairs, only digests) and checks, on every call, that the
 * account named lies inside the calling service's own prefix: a service can never act as an operator account or
 * as another service's user.
 *
 * Service names are lower-case letters and digits only, so `<service><separator>` can never be the start of
 * another service's prefix, whatever the separator (the registry's `-` is also allowed inside ids).
 */
import { parseOperatorCredentials } from './operator-credentials';

/** The header (HTTP) and metadata key (gRPC) naming the account a service credential acts for. */
export const ON_BEHALF_OF_HEADER = 'trustmesh-on-behalf-of';

export interface ServiceCredential {
  service: string;
  /** SHA-256 of the bearer credential (32 bytes). */
  digest: Buffer;
}

const SERVICE = /^[a-z][a-z0-9]{0,31}$/;
/** The longest `trustmesh-on-behalf-of` value looked at: longer ones are refused unparsed. */
export const MAX_ON_BEHALF_OF = 128;

/**
 * The pairs of `raw` (`service:sha256hex`, separated by commas or white space), or what is wrong with it as a
 * sentence that never echoes an entry.
 */
export function parseServiceCredentials(raw: string): { ok: true; credentials: ServiceCredential[] } | { ok: false; problem: string } {
  const parsed = parseOperatorCredentials(raw);
  if (!parsed.ok) return { ok: false, problem: parsed.problem.replace(/account/g, 'service') };
  const bad = parsed.credentials.filter((credential) => !SERVICE.test(credential.accountId)).length;
  if (bad > 0) return { ok: false, problem: `must name services of 1-32 lower-case letters and digits, starting with a letter (${bad} entr${bad === 1 ? 'y does' : 'ies do'} not)` };
  const services = parsed.credentials.map((credential) => credential.accountId);
  if (new Set(services).size !== services.length) return { ok: false, problem: 'names a service twice: give each service one credential' };
  return { ok: true, credentials: parsed.credentials.map(({ accountId, digest }) => ({ service: accountId, digest })) };
}

export type DelegatedAccount =
  | { ok: true; account: string }
  /** `missing`: no header; `malformed`: too long or not `<service><separator><id>` with a valid id; `foreign`: another prefix. */
  | { ok: false; reason: 'missing' | 'malformed' | 'foreign' };

/**
 * The account `onBehalfOf` names for `service`: `<service><separator><id>` where `id` matches `idPattern` (the
 * app's own rule for the rest of an account name). The value is compared whole: no trimming, no case folding.
 */
export function delegatedAccount(onBehalfOf: string | undefined, service: string, separator: string, idPattern: RegExp): DelegatedAccount {
  if (onBehalfOf === undefined || onBehalfOf === '') return { ok: false, reason: 'missing' };
  if (onBehalfOf.length > MAX_ON_BEHALF_OF) return { ok: false, reason: 'malformed' };
  const prefix = `${service}${separator}`;
  if (!onBehalfOf.startsWith(prefix)) {
    // A well-formed name of another service is foreign; anything else is malformed.
    const at = onBehalfOf.indexOf(separator);
    return at > 0 && SERVICE.test(onBehalfOf.slice(0, at)) && idPattern.test(onBehalfOf.slice(at + separator.length)) ? { ok: false, reason: 'foreign' } : { ok: false, reason: 'malformed' };
  }
  return idPattern.test(onBehalfOf.slice(prefix.length)) ? { ok: true, account: onBehalfOf } : { ok: false, reason: 'malformed' };
}
