/**
 * The gateway's kinds of secret. Minting, SHA-256 verifiers and constant-time comparison are the platform's
 * (`@trustmesh/platform-credentials`); what is the gateway's own is the prefix of each kind, so a secret
 * presented in the wrong place (a pairing code as a device credential, §12 step 5) is recognised and refused
 * before any lookup, and leaked strings are easy to spot.
 */
import { looksLikeSecret, mintSecret as mintPrefixed } from '@trustmesh/platform-credentials';

export const SECRET_PREFIXES = {
  pairingCode: 'tmpc_',
  deviceCredential: 'tmdc_',
  browserTicket: 'tmbt_',
  serviceCredential: 'tmsc_',
} as const;
export type SecretKind = keyof typeof SECRET_PREFIXES;

export function mintSecret(kind: SecretKind): string {
  return mintPrefixed(SECRET_PREFIXES[kind]);
}

/** Whether `value` has the shape of a secret of `kind` (prefix and 256-bit body). */
export function looksLike(kind: SecretKind, value: string): boolean {
  return looksLikeSecret(value, SECRET_PREFIXES[kind]);
}
