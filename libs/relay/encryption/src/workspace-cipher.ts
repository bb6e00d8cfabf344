/**
 * The workspace cipher of profile `x25519-hkdf-sha256-aes-256-gcm` (see README): seals whole inner Wire
 * frames into `runtime.encrypted` envelopes and opens them again (BEHAVIOUR.md §7).
 *
 * - key: HKDF-SHA256 over the X25519 shared secret of the two peers, salt = UTF-8 workspaceId,
 *   info = "trustmesh/relay-e2ee/v2"; AES-256-GCM, derived once per cipher, the same in both directions;
 * - nonce: 96 random bits per envelope;
 * - AAD: canonical JSON of the visible metadata without `nonce` and `ciphertext`, plus the direction
 *   (browser-to-companion for requests, companion-to-browser for the rest), so the relay can route on that
 *   metadata but not change it, nor turn an envelope around;
 * - plaintext: `{"v":2,"sender","counter","sentAt","frame"}`: the inner frame, bound to its sender (a random
 *   id per cipher instance), a per-sender counter and the sealing time, which the receiver's
 *   `ReplayWindow` checks (replay-window.ts), and a `ReplayJournal` carries across the receiver's restarts.
 *
 * `open` authenticates first, then reads the inner frame as strict JSON (no repeated key, nesting within
 * the protocol's `MAX_FRAME_DEPTH`) and checks that it is a valid frame of the payload kind whose
 * `workspaceId` and `requestId`/`relaySequence` equal the envelope's. Every failure is the same
 * `EncryptionError('ENCRYPTED_PAYLOAD_INVALID')`, whatever went wrong underneath, except a replay (an
 * authentic envelope opened before, or sealed before the receiver's window began):
 * `ENCRYPTED_PAYLOAD_REPLAYED`, which a receiver drops without answering.
 */
import { canonicalJson, MAX_FRAME_DEPTH, validateWireFrame, type Wire12, type WireFrameOf, type WireVersion } from '@trustmesh/relay-protocol';
import { parseStrictJson } from '@trustmesh/shared-strict-json';

import { decodeBase64Url, encodeBase64Url } from './base64url';
import { EncryptionError } from './encryption-error';
import { subtle, toPrivateKey, toPublicKey } from './relay-keys';
import { ReplayWindow, type ReplayJournal, type ReplayWindowOptions } from './replay-window';

export const E2EE_ALGORITHM = 'x25519-hkdf-sha256-aes-256-gcm';
export const E2EE_HKDF_INFO = 'trustmesh/relay-e2ee/v2';
/** The sealed body's format revision (README "Replays"). */
export const E2EE_BODY_VERSION = 2;
const NONCE_BYTES = 12;
const TAG_BYTES = 16;
/** Envelopes above this many ciphertext characters are refused before any decoding (≈ 3 MiB of plaintext). */
export const MAX_CIPHERTEXT_CHARS = 4 * 1024 * 1024;

export type PayloadKind = Wire12.RuntimeEncryptedFrame['payloadKind'];
export type EncryptedEnvelope = Wire12.RuntimeEncryptedFrame;

type AnyFrame = WireFrameOf[WireVersion];
/** The frames an envelope may carry: requests, responses and the sequenced frames (§7). */
export type SealableFrame = Extract<
  AnyFrame,
  { type: 'runtime.request' | 'runtime.response' | 'runtime.event' | 'interaction.request' | 'interaction.resolved' | 'interaction.cancelled' }
>;

const KIND_OF_TYPE: Readonly<Record<string, PayloadKind>> = {
  'runtime.request': 'request',
  'runtime.response': 'response',
  'runtime.event': 'event',
  'interaction.request': 'interaction',
  'interaction.resolved': 'interaction',
  'interaction.cancelled': 'interaction',
};

/** The payload kind an inner frame travels as, or `undefined` if it cannot be sealed. */
export function payloadKindOf(frameType: string): PayloadKind | undefined {
  return Object.prototype.hasOwnProperty.call(KIND_OF_TYPE, frameType) ? KIND_OF_TYPE[frameType] : undefined;
}

const carriesRequestId = (kind: PayloadKind) => kind === 'request' || kind === 'response';

/** Which way an envelope travels: requests go to the Companion, everything else to browsers (§7). */
export type EnvelopeDirection = 'browser-to-companion' | 'companion-to-browser';
const directionOf = (kind: PayloadKind): EnvelopeDirection => (kind === 'request' ? 'browser-to-companion' : 'companion-to-browser');
const UUID_TEXT = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

export interface WorkspaceCipherOptions {
  workspaceId: string;
  /** This side's X25519 private key: a CryptoKey, base64url PKCS#8 or a JWK. */
  privateKey: CryptoKey | string | JsonWebKey;
  /** The other side's X25519 public key, exchanged out of band: a CryptoKey or base64url raw bytes. */
  peerPublicKey: CryptoKey | string;
  /** The Wire version inner frames are validated against when opened; default 1.2 (a superset of 1.1 for these frames). */
  wire?: WireVersion;
  /**
   * This side: a `browser` seals requests and opens the rest, a `companion` the other way round; envelopes
   * of the other direction are refused by both `seal` and `open`. Unset: either (tests, tools).
   */
  role?: 'browser' | 'companion';
  /**
   * Refuse replays on `open` (`ENCRYPTED_PAYLOAD_REPLAYED`), with these limits. Default: on for a
   * `companion` (it executes what it opens), off otherwise (a browser's duplicates are settled by
   * `relaySequence` and `requestId`, and the relay's catch-up legitimately delivers an envelope again).
   */
  replayProtection?: boolean | ReplayWindowOptions;
  /**
   * Where the replay window survives restarts (README "Replays across restarts"): loaded here, written
   * before `open` returns. Needs replay protection; without a journal, what was sealed within the clock
   * skew allowance before a restart opens once more after it.
   */
  replayJournal?: ReplayJournal;
}

export interface SealOptions {
  /** Defaults to a fresh random UUID; pass one only to make an envelope reproducible in tests. */
  envelopeId?: string;
}

export interface OpenOptions {
  /** Overrides the cipher's Wire version for this envelope (a browser learns it from `session.ready`). */
  wire?: WireVersion;
}

export interface WorkspaceCipher {
  readonly workspaceId: string;
  readonly algorithm: typeof E2EE_ALGORITHM;
  /** Encrypts a whole inner frame of this workspace into a `runtime.encrypted` envelope. */
  seal(frame: SealableFrame, options?: SealOptions): Promise<EncryptedEnvelope>;
  /** Authenticates and decrypts an envelope; throws `EncryptionError('ENCRYPTED_PAYLOAD_INVALID')` on any failure. */
  open(envelope: unknown, options?: OpenOptions): Promise<SealableFrame>;
}

const utf8Encoder = new TextEncoder();
const utf8Decoder = new TextDecoder('utf-8', { fatal: true });

/** Derives the workspace key from this side's private key and the peer's public key. */
export async function createWorkspaceCipher(options: WorkspaceCipherOptions): Promise<WorkspaceCipher> {
  const { workspaceId } = options;
  if (typeof workspaceId !== 'string' || workspaceId.length === 0 || workspaceId.length > 64) {
    throw new EncryptionError('ENCRYPTION_INPUT_INVALID', 'workspaceId must be a UUID');
  }
  const [privateKey, peerPublicKey] = await Promise.all([toPrivateKey(options.privateKey), toPublicKey(options.peerPublicKey)]);
  const key = await deriveKey(workspaceId, privateKey, peerPublicKey);
  const protection = options.replayProtection ?? options.role === 'companion';
  const window = protection === false ? null : new ReplayWindow(protection === true ? {} : protection);
  const journal = options.replayJournal ?? null;
  if (journal) {
    if (!window) throw new EncryptionError('ENCRYPTION_INPUT_INVALID', 'a replay journal needs replay protection');
    window.restore(await journal.load(window.staleBefore));
  }
  return new AesGcmWorkspaceCipher(workspaceId, key, options.wire ?? '1.2', options.role ?? null, window && { window, journal });
}

async function deriveKey(workspaceId: string, privateKey: CryptoKey, peerPublicKey: CryptoKey): Promise<CryptoKey> {
  let shared: ArrayBuffer;
  try {
    shared = await subtle().deriveBits({ name: 'X25519', public: peerPublicKey }, privateKey, 256);
  } catch {
    // Low-order peer keys (an all-zero shared secret) are refused by WebCrypto and land here too.
    throw new EncryptionError('ENCRYPTION_KEY_INVALID', 'key agreement failed');
  }
  const material = await subtle().importKey('raw', shared, 'HKDF', false, ['deriveKey']);
  return subtle().deriveKey(
    { name: 'HKDF', hash: 'SHA-256', salt: utf8Encoder.encode(workspaceId), info: utf8Encoder.encode(E2EE_HKDF_INFO) },
    material,
    { name: 'AES-GCM', length: 256 },
    false,
    ['encrypt', 'decrypt'],
  );
}

type VisibleMetadata = Omit<EncryptedEnvelope, 'nonce' | 'ciphertext'>;

/** The additional authenticated data: every visible field except nonce and ciphertext, and the direction, canonically. */
function associatedData(metadata: VisibleMetadata): Uint8Array<ArrayBuffer> {
  const { type, workspaceId, envelopeId, payloadKind, requestId, relaySequence, algorithm } = metadata;
  const visible: Record<string, unknown> = { type, workspaceId, envelopeId, payloadKind, algorithm, direction: directionOf(payloadKind) };
  if (requestId !== undefined) visible['requestId'] = requestId;
  if (relaySequence !== undefined) visible['relaySequence'] = relaySequence;
  return utf8Encoder.encode(canonicalJson(visible));
}

/** The direction a role sends in. */
const SENDS: Readonly<Record<'browser' | 'companion', EnvelopeDirection>> = { browser: 'browser-to-companion', companion: 'companion-to-browser' };

class AesGcmWorkspaceCipher implements WorkspaceCipher {
  readonly algorithm = E2EE_ALGORITHM;
  /** This instance's sender id: a fresh random UUID, so counters never repeat under one id. */
  private readonly sender = globalThis.crypto.randomUUID();
  private counter = 0;

  constructor(
    readonly workspaceId: string,
    private readonly key: CryptoKey,
    private readonly wire: WireVersion,
    private readonly role: 'browser' | 'companion' | null,
    private readonly replays: { window: ReplayWindow; journal: ReplayJournal | null } | null,
  ) {}

  async seal(frame: SealableFrame, options: SealOptions = {}): Promise<EncryptedEnvelope> {
    const payloadKind = frame && typeof frame === 'object' ? payloadKindOf(frame.type) : undefined;
    if (!payloadKind) throw new EncryptionError('ENCRYPTION_INPUT_INVALID', 'only requests, responses, events and interactions are sealed');
    if (frame.workspaceId !== this.workspaceId) throw new EncryptionError('ENCRYPTION_INPUT_INVALID', 'the frame belongs to another workspace');
    if (this.role !== null && directionOf(payloadKind) !== SENDS[this.role]) throw new EncryptionError('ENCRYPTION_INPUT_INVALID', 'this side does not send that kind');
    const metadata: VisibleMetadata = {
      type: 'runtime.encrypted',
      workspaceId: this.workspaceId,
      envelopeId: options.envelopeId ?? globalThis.crypto.randomUUID(),
      payloadKind,
      algorithm: E2EE_ALGORITHM,
    };
    if (carriesRequestId(payloadKind)) metadata.requestId = (frame as { requestId: string }).requestId;
    else metadata.relaySequence = (frame as { relaySequence: number }).relaySequence;

    const nonce = globalThis.crypto.getRandomValues(new Uint8Array(NONCE_BYTES));
    const ciphertext = await subtle().encrypt(
      { name: 'AES-GCM', iv: nonce, additionalData: associatedData(metadata), tagLength: TAG_BYTES * 8 },
      this.key,
      utf8Encoder.encode(JSON.stringify({ v: E2EE_BODY_VERSION, sender: this.sender, counter: this.counter++, sentAt: Date.now(), frame })),
    );
    return { ...metadata, nonce: encodeBase64Url(nonce), ciphertext: encodeBase64Url(new Uint8Array(ciphertext)) };
  }

  async open(envelope: unknown, options: OpenOptions = {}): Promise<SealableFrame> {
    const invalid = (reason: string) => new EncryptionError('ENCRYPTED_PAYLOAD_INVALID', reason);
    const shape = validateWireFrame('1.2', envelope);
    if (!shape.ok || shape.value.type !== 'runtime.encrypted') throw invalid('not a runtime.encrypted envelope');
    const sealed = shape.value;
    if (sealed.algorithm !== E2EE_ALGORITHM) throw invalid('unsupported algorithm');
    if (sealed.workspaceId !== this.workspaceId) throw invalid('envelope for another workspace');
    if (this.role !== null && directionOf(sealed.payloadKind) === SENDS[this.role]) throw invalid('envelope travels the other way');
    const byRequest = carriesRequestId(sealed.payloadKind);
    if (byRequest ? sealed.requestId === undefined || sealed.relaySequence !== undefined : sealed.relaySequence === undefined || sealed.requestId !== undefined) {
      throw invalid('metadata does not fit the payload kind');
    }
    if (sealed.ciphertext.length > MAX_CIPHERTEXT_CHARS) throw invalid('ciphertext too large');
    const nonce = decodeBase64Url(sealed.nonce);
    const ciphertext = decodeBase64Url(sealed.ciphertext);
    if (!nonce || nonce.length !== NONCE_BYTES || !ciphertext || ciphertext.length <= TAG_BYTES) throw invalid('malformed nonce or ciphertext');

    let plaintext: string;
    try {
      const opened = await subtle().decrypt(
        { name: 'AES-GCM', iv: nonce, additionalData: associatedData(sealed), tagLength: TAG_BYTES * 8 },
        this.key,
        ciphertext,
      );
      plaintext = utf8Decoder.decode(opened);
    } catch {
      throw invalid('authentication failed');
    }
    // Read as strictly as a relay reads a socket: a repeated key would let the frame say more than what is
    // validated, and depth past the frame bound (one level more for the body around the frame) is refused
    // before anything walks the value.
    const parsed = parseStrictJson(plaintext, { maxDepth: MAX_FRAME_DEPTH + 1 });
    if (!parsed.ok) throw invalid(`sealed body refused: ${parsed.issue.code}`);
    const body = parsed.value;
    const { v, sender, counter, sentAt, frame: inner } = (body !== null && typeof body === 'object' ? body : {}) as Record<string, unknown>;
    if (
      v !== E2EE_BODY_VERSION ||
      typeof sender !== 'string' ||
      !UUID_TEXT.test(sender) ||
      typeof counter !== 'number' ||
      !Number.isSafeInteger(counter) ||
      counter < 0 ||
      typeof sentAt !== 'number' ||
      !Number.isSafeInteger(sentAt)
    ) {
      throw invalid('sealed body is not a bound frame');
    }
    if (this.replays && this.replays.window.check(sender, counter, sentAt) !== 'fresh') {
      throw new EncryptionError('ENCRYPTED_PAYLOAD_REPLAYED', 'envelope opened before, or sealed before this receiver started');
    }
    const verdict = validateWireFrame(options.wire ?? this.wire, inner);
    if (!verdict.ok) throw invalid('inner frame fails the Wire schema');
    const frame = verdict.value;
    if (payloadKindOf(frame.type) !== sealed.payloadKind) throw invalid('inner frame type does not match the payload kind');
    const bound = frame as SealableFrame & { requestId?: string; relaySequence?: number };
    if (bound.workspaceId !== sealed.workspaceId) throw invalid('inner workspaceId differs from the envelope');
    if (byRequest ? bound.requestId !== sealed.requestId : bound.relaySequence !== sealed.relaySequence) {
      throw invalid('inner requestId or relaySequence differs from the envelope');
    }
    await this.remember(sender, counter, sentAt);
    return frame as SealableFrame;
  }

  /**
   * Records an opening: in memory at once (a concurrent `open` of the same envelope is then a replay), and
   * in the journal before the frame is handed out, so whatever the caller acts on survives a crash. If
   * the journal cannot be written the frame is withheld; the envelope stays spent, the sender seals again.
   */
  private async remember(sender: string, counter: number, sentAt: number): Promise<void> {
    if (!this.replays) return;
    const { window, journal } = this.replays;
    window.record(sender, counter);
    if (!journal) return;
    try {
      await journal.append({ sender, counter, sentAt }, window.keepSince());
    } catch {
      throw new EncryptionError('ENCRYPTION_STATE_UNAVAILABLE', 'replay journal not written');
    }
  }
}
