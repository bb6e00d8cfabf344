/**
 * The only error this library throws. Messages are fixed per code and never carry the crypto library's
 * own text, so nothing about keys or plaintext can leak through an error shown to a person or a peer.
 */
export const ENCRYPTION_ERROR_MESSAGES = {
  /** An envelope could not be opened: bad shape, wrong algorithm, wrong workspace, wrong key, tampering, or an inner frame that disagrees with its envelope. Same code as the Wire error (§7, §10). */
  ENCRYPTED_PAYLOAD_INVALID: 'The encrypted payload could not be opened.',
  /** An authentic envelope this receiver opened before, or one sealed before the receiver's replay window began (a restart): a relay replaying what it recorded. Receivers drop it without answering. */
  ENCRYPTED_PAYLOAD_REPLAYED: 'The encrypted payload was received before.',
  /** A key is not an X25519 key in one of the accepted forms (base64url raw public key, PKCS#8 or JWK private key). */
  ENCRYPTION_KEY_INVALID: 'The key is not a valid X25519 key for this encryption profile.',
  /** `seal` was given something this profile cannot encrypt (a frame type without a payload kind, another workspace, mismatched metadata). */
  ENCRYPTION_INPUT_INVALID: 'The frame cannot be sealed for this workspace.',
  /** An authentic, fresh envelope was not handed out because its opening could not be written to the replay journal (a restart would forget it). */
  ENCRYPTION_STATE_UNAVAILABLE: 'The replay journal could not be written; the encrypted payload was not opened.',
  /** The platform has no WebCrypto with X25519, HKDF and AES-GCM. */
  ENCRYPTION_UNAVAILABLE: 'WebCrypto with X25519, HKDF and AES-GCM is not available here.',
} as const;

export type EncryptionErrorCode = keyof typeof ENCRYPTION_ERROR_MESSAGES;

export class EncryptionError extends Error {
  override readonly name = 'EncryptionError';

  constructor(
    readonly code: EncryptionErrorCode,
    /** A short, fixed hint for logs and tests (never key material or plaintext). */
    readonly reason?: string,
  ) {
    super(ENCRYPTION_ERROR_MESSAGES[code]);
  }
}
