/**
 * What the core needs from an end-to-end cipher (BEHAVIOUR.md §7). `WorkspaceCipher` of
 * `@trustmesh/relay-encryption` (profile x25519-hkdf-sha256-aes-256-gcm) satisfies it as is; the port
 * keeps the core independent of one profile.
 */
import type { Wire12 } from '@trustmesh/relay-protocol';

/** Frames the Companion seals: responses and sequenced frames. */
export type CompanionSealableFrame =
  | Wire12.RuntimeResponseFrame
  | Wire12.RuntimeEventFrame
  | Wire12.InteractionRequestFrame
  | Wire12.InteractionResolvedFrame
  | Wire12.InteractionCancelledFrame;

export interface CompanionCipher {
  /** The workspace the cipher is bound to (the session's). */
  readonly workspaceId: string;
  /** Seals a whole plaintext frame into a `runtime.encrypted` envelope (fresh envelopeId and nonce). */
  seal(frame: CompanionSealableFrame): Promise<Wire12.RuntimeEncryptedFrame>;
  /**
   * Authenticates and decrypts an envelope, returning the inner frame (an object, or its JSON text).
   * Throws on any failure; an error whose `code` is `ENCRYPTED_PAYLOAD_REPLAYED` marks an authentic envelope
   * opened before (or sealed before this cipher began): the core drops it without answering. Create the
   * relay-encryption cipher with `role: 'companion'` so it keeps that window, and with a `replayJournal`
   * so the window survives restarts. `ENCRYPTION_STATE_UNAVAILABLE` (the journal could not be written) is
   * answered `COMPANION_ERROR`: nothing was executed.
   */
  open(envelope: Wire12.RuntimeEncryptedFrame): Promise<unknown>;
}
