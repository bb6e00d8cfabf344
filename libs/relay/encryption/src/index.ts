/**
 * @trustmesh/relay-encryption: the end-to-end encryption profile `x25519-hkdf-sha256-aes-256-gcm` for
 * Relay `runtime.encrypted` envelopes (BEHAVIOUR.md §7), on WebCrypto only, so browsers and Node share it.
 */
export {
  createWorkspaceCipher,
  payloadKindOf,
  E2EE_ALGORITHM,
  E2EE_HKDF_INFO,
  E2EE_BODY_VERSION,
  MAX_CIPHERTEXT_CHARS,
  type WorkspaceCipher,
  type WorkspaceCipherOptions,
  type SealOptions,
  type OpenOptions,
  type SealableFrame,
  type EncryptedEnvelope,
  type PayloadKind,
  type EnvelopeDirection,
} from './workspace-cipher';
export { ReplayWindow, type ReplayWindowOptions, type ReplayVerdict, type ReplayJournal, type ReplayJournalEntry } from './replay-window';
export {
  generateRelayKeyPair,
  exportPublicKey,
  importPublicKey,
  exportPrivateKey,
  importPrivateKey,
  type RelayKeyPair,
} from './relay-keys';
export { EncryptionError, ENCRYPTION_ERROR_MESSAGES, type EncryptionErrorCode } from './encryption-error';
export { encodeBase64Url, decodeBase64Url } from './base64url';
