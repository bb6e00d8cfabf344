/**
 * Reads inbound frames on one socket, in the order BEHAVIOUR.md §13 prescribes:
 *
 * 1. text JSON — binary frames, bytes that are not UTF-8, frames over the byte limit (checked before
 *    anything is decoded or parsed) and bad JSON are refused, and so are objects with a repeated key and
 *    nesting past `MAX_FRAME_DEPTH`, while the text is read (see `readFrameText`);
 * 2. the schema of the socket's Wire version (or Control 1.0 for relay-to-browser control messages);
 * 3. the direction allowlist;
 * 4. the first-frame rules (`device.connect` first on a companion socket, `session.ready` first and
 *    once on a browser socket), and `workspaceId` against the socket's bound workspace.
 *
 * A reader keeps the little state those rules need, so use one per socket. Without a fixed version, a
 * companion socket takes its version from the first `device.connect` (§2: the first frame's version
 * fixes the schema for the socket) and a browser socket from `session.ready.relayProtocolVersion`.
 */
import { parseStrictJson, type StrictJsonOptions } from '@trustmesh/shared-strict-json';

import type * as Control10 from '../generated/control-1.0.types';
import {
  allowedFrameTypes,
  carriesControl,
  isAllowedOnSocket,
  isBrowserSocket,
  type Direction,
} from '../rules/direction.rules';
import { CONTROL_REGISTRY } from '../generated/registry';
import { isWireVersion, REMOTE_WIRE_VERSIONS, WIRE_VERSIONS, type WireVersion } from '../wire-version';
import { issue, reject, type FrameIssue, type Verdict } from './frame-issue';
import { validateControlMessage, validateWireFrame, type AnyWireFrame, type ValidationChecks } from './frame-validator';
import { MAX_FRAME_DEPTH } from './json-value';
import { exceedsUtf8Bytes } from './utf8-length';

export { MAX_FRAME_DEPTH };

/** The relay's inbound limit from companions, and the Companion's outbound plaintext limit (§11). */
export const DEFAULT_MAX_FRAME_BYTES = 1_048_576;

export type InboundFrame = AnyWireFrame | Control10.ControlMessage;

export interface FrameReaderOptions {
  /** The side of which socket is reading. */
  direction: Direction;
  /** A fixed Wire version; omit to take it from the first frame (see above). */
  wire?: WireVersion;
  /** Versions a first frame may choose; defaults to 1.2 and 1.1 on browser sockets, all otherwise. */
  acceptVersions?: readonly WireVersion[];
  maxFrameBytes?: number;
  checks?: ValidationChecks;
  /** The socket uses an end-to-end encryption profile, so `runtime.encrypted` may cross it (§7). */
  encryption?: boolean;
  /** The workspace the socket is bound to, when the reader's owner already knows it. */
  workspaceId?: string;
}

const CONTROL_TYPES: ReadonlySet<string> = new Set(CONTROL_REGISTRY.messageTypes);

export class FrameReader {
  private version: WireVersion | undefined;
  private boundWorkspace: string | undefined;
  private framesAccepted = 0;
  private readonly accept: readonly WireVersion[];
  private readonly maxBytes: number;

  constructor(private readonly options: FrameReaderOptions) {
    this.accept = options.acceptVersions ?? (isBrowserSocket(options.direction) ? REMOTE_WIRE_VERSIONS : WIRE_VERSIONS);
    if (options.wire && isBrowserSocket(options.direction) && !REMOTE_WIRE_VERSIONS.includes(options.wire)) {
      throw new Error(`Wire ${options.wire} is never bridged to a browser (BEHAVIOUR.md §2).`);
    }
    this.version = options.wire;
    this.boundWorkspace = options.workspaceId;
    this.maxBytes = options.maxFrameBytes ?? DEFAULT_MAX_FRAME_BYTES;
  }

  /** The socket's Wire version, once known. */
  get wire(): WireVersion | undefined {
    return this.version;
  }

  get workspaceId(): string | undefined {
    return this.boundWorkspace;
  }

  /** Binds the socket to a workspace (a relay does so once a device credential is verified). */
  bindWorkspace(workspaceId: string): void {
    this.boundWorkspace = workspaceId;
  }

  /**
   * Reads one WebSocket message. `data` is the message text, or its UTF-8 bytes; `binary` says the
   * peer sent a binary frame, which the protocol never allows.
   */
  read(data: string | Uint8Array, binary = false): Verdict<InboundFrame> {
    const parsed = readFrameText(data, binary, this.maxBytes);
    if (!parsed.ok) return parsed;
    const verdict = this.validate(parsed.value);
    if (verdict.ok) this.framesAccepted += 1;
    return verdict;
  }

  private validate(value: unknown): Verdict<InboundFrame> {
    const { direction } = this.options;
    const type = value !== null && typeof value === 'object' ? (value as { type?: unknown }).type : undefined;
    if (typeof type === 'string' && CONTROL_TYPES.has(type) && carriesControl(direction)) return this.admitControl(value);
    const version = this.version ?? this.versionFromFirstFrame(value, type);
    if (typeof version !== 'string') return version;
    const verdict = checkParsedFrame(value, version, direction, this.options.checks, this.options.encryption === true);
    if (!verdict.ok) return verdict;
    const frame = verdict.value as AnyWireFrame;
    const problem = this.orderIssue(frame.type) ?? this.workspaceIssue(frame);
    if (problem) return reject(problem);
    if (frame.type === 'device.connect') this.version = version;
    return verdict;
  }

  /** Before the version is known, only a `device.connect` on a companion socket can name it. */
  private versionFromFirstFrame(value: unknown, type: unknown): WireVersion | Verdict<never> {
    const { direction } = this.options;
    if (direction === 'relay-to-browser') {
      return reject(issue('FRAME_ORDER_VIOLATION', '', 'The first frame on a browser socket must be `session.ready`.'));
    }
    if (direction !== 'companion-to-relay' || type !== 'device.connect') {
      if (direction === 'companion-to-relay') {
        return reject(issue('FRAME_ORDER_VIOLATION', '', 'The first frame on a companion socket must be `device.connect`.'));
      }
      return reject(issue('PROTOCOL_VERSION_UNSUPPORTED', '', 'The reader has no Wire version; give one for this direction.'));
    }
    const requested = (value as { protocolVersion?: unknown }).protocolVersion;
    if (!isWireVersion(requested) || !this.accept.includes(requested)) {
      return reject(
        issue(
          'PROTOCOL_VERSION_UNSUPPORTED',
          '/protocolVersion',
          `Wire version ${JSON.stringify(requested)} is not supported here (supported: ${this.accept.join(', ')}).`,
        ),
      );
    }
    return requested;
  }

  private admitControl(value: unknown): Verdict<InboundFrame> {
    const verdict = validateControlMessage(value);
    if (!verdict.ok) return verdict;
    const message = verdict.value;
    if (message.type === 'session.ready') {
      if (this.framesAccepted > 0) {
        return reject(issue('FRAME_ORDER_VIOLATION', '/type', '`session.ready` is sent exactly once, as the first frame.'));
      }
      if (this.version && this.version !== message.relayProtocolVersion) {
        return reject(issue('FIELD_VALUE', '/relayProtocolVersion', `This socket speaks Wire ${this.version}.`));
      }
      if (!this.accept.includes(message.relayProtocolVersion)) {
        return reject(issue('PROTOCOL_VERSION_UNSUPPORTED', '/relayProtocolVersion', `Wire ${message.relayProtocolVersion} is not accepted here.`));
      }
      if (this.boundWorkspace && this.boundWorkspace !== message.workspaceId) {
        return reject(issue('WORKSPACE_MISMATCH', '/workspaceId', 'The session is for another workspace.'));
      }
      this.version = message.relayProtocolVersion;
      this.boundWorkspace = message.workspaceId;
      return verdict;
    }
    if (this.framesAccepted === 0) {
      return reject(issue('FRAME_ORDER_VIOLATION', '/type', 'The first frame on a browser socket must be `session.ready`.'));
    }
    if (message.type === 'workspace.status' && message.workspaceId !== this.boundWorkspace) {
      return reject(issue('WORKSPACE_MISMATCH', '/workspaceId', 'The status is for another workspace.'));
    }
    return verdict;
  }

  private orderIssue(type: string): FrameIssue | undefined {
    const { direction } = this.options;
    if (direction === 'companion-to-relay') {
      if (this.framesAccepted === 0 && type !== 'device.connect') {
        return issue('FRAME_ORDER_VIOLATION', '/type', 'The first frame on a companion socket must be `device.connect`.');
      }
      if (this.framesAccepted > 0 && type === 'device.connect') {
        return issue('FRAME_ORDER_VIOLATION', '/type', '`device.connect` is allowed only as the first frame.');
      }
    }
    if (direction === 'relay-to-browser' && this.framesAccepted === 0) {
      return issue('FRAME_ORDER_VIOLATION', '/type', 'The first frame on a browser socket must be `session.ready`.');
    }
    return undefined;
  }

  private workspaceIssue(frame: AnyWireFrame): FrameIssue | undefined {
    if (!('workspaceId' in frame) || this.boundWorkspace === undefined) return undefined;
    return frame.workspaceId === this.boundWorkspace
      ? undefined
      : issue('WORKSPACE_MISMATCH', '/workspaceId', 'The frame names a workspace this socket is not bound to.');
  }
}

const utf8 = new TextDecoder('utf-8', { fatal: true });
/** Built once: `readFrameText` runs for every inbound frame. */
const FRAME_JSON_OPTIONS: StrictJsonOptions = Object.freeze({ maxDepth: MAX_FRAME_DEPTH });

export function frameTooLargeIssue(maxBytes: number): FrameIssue {
  return issue('FRAME_TOO_LARGE', '', `The frame exceeds the ${maxBytes}-byte limit and was not read.`);
}

/**
 * Step 1 of every read: refuses binary frames and frames over `maxBytes` before decoding or parsing
 * them, then decodes UTF-8 and parses JSON strictly:
 *
 * - a key repeated in one object (compared after unescaping) is `FRAME_DUPLICATE_KEY`. `JSON.parse`
 *   keeps the last one, so a peer that validates the value and forwards the text (the relay forwards the
 *   bytes it read, which keeps replays byte-for-byte comparable and envelopes untouched) would forward a
 *   first copy nobody validated: a secret in a `tool.started` ahead of a valid `event`, a second `method`.
 *   Refusing the frame makes what is forwarded exactly what was validated;
 * - nesting past `MAX_FRAME_DEPTH` is `FRAME_TOO_DEEP`, found without recursion, so no recursive walker
 *   (schema checks, canonical JSON, projections) ever sees a value deep enough to overflow its stack.
 */
export function readFrameText(data: string | Uint8Array, binary: boolean, maxBytes: number): Verdict<unknown> {
  if (binary) return reject(issue('FRAME_NOT_TEXT', '', 'Binary frames are not allowed; send one JSON object per text frame.'));
  const tooLarge = typeof data === 'string' ? exceedsUtf8Bytes(data, maxBytes) : data.byteLength > maxBytes;
  if (tooLarge) return reject(frameTooLargeIssue(maxBytes));
  let text: string;
  if (typeof data === 'string') {
    text = data;
  } else {
    try {
      text = utf8.decode(data);
    } catch {
      return reject(issue('FRAME_NOT_TEXT', '', 'The frame is not valid UTF-8 text.'));
    }
  }
  const parsed = parseStrictJson(text, FRAME_JSON_OPTIONS);
  if (parsed.ok) return parsed;
  const { code, pointer } = parsed.issue;
  switch (code) {
    case 'JSON_TOO_DEEP':
      return reject(issue('FRAME_TOO_DEEP', pointer, `Arrays and objects nest more than ${MAX_FRAME_DEPTH} deep here; the frame was not read.`));
    case 'JSON_DUPLICATE_KEY':
      return reject(issue('FRAME_DUPLICATE_KEY', pointer, `${parsed.issue.message} The frame was not read.`));
    default:
      return reject(issue('FRAME_NOT_JSON', '', 'The frame is not valid JSON.'));
  }
}

export interface FrameCheckOptions {
  wire: WireVersion;
  direction?: Direction;
  checks?: ValidationChecks;
  encryption?: boolean;
}

/**
 * Checks one parsed frame with no socket state: the schema of `wire` (Control 1.0 for control
 * messages on the relay-to-browser direction) and, when a direction is given, its allowlist. The
 * first-frame and workspace rules need a `FrameReader`.
 */
export function checkFrame(value: unknown, options: FrameCheckOptions): Verdict<InboundFrame> {
  return checkParsedFrame(value, options.wire, options.direction, options.checks, options.encryption === true);
}

/** `checkFrame` with its options spelled out: it runs for every frame, and an options object per frame was a measurable cost. */
function checkParsedFrame(
  value: unknown,
  wire: WireVersion,
  direction: Direction | undefined,
  checks: ValidationChecks | undefined,
  encryption: boolean,
): Verdict<InboundFrame> {
  const type = value !== null && typeof value === 'object' ? (value as { type?: unknown }).type : undefined;
  if (typeof type === 'string' && CONTROL_TYPES.has(type)) {
    if (!direction || !carriesControl(direction)) {
      return reject(issue('FRAME_DIRECTION_FORBIDDEN', '/type', `\`${type}\` is a Control message; only the relay sends it, to a browser.`));
    }
    return validateControlMessage(value);
  }
  const verdict = validateWireFrame(wire, value, checks);
  if (!verdict.ok || !direction) return verdict;
  const problem = directionIssue(direction, verdict.value.type, encryption);
  return problem ? reject(problem) : verdict;
}

function directionIssue(direction: Direction, type: string, encryption: boolean): FrameIssue | undefined {
  if (isAllowedOnSocket(direction, type, encryption)) return undefined;
  const allowed = allowedFrameTypes(direction, { encryption }).join(', ');
  return issue('FRAME_DIRECTION_FORBIDDEN', '/type', `\`${type}\` may not be sent ${direction} (allowed: ${allowed}).`);
}

/** Size check, parse and `checkFrame` in one call, for tools and tests. */
export function decodeFrame(data: string | Uint8Array, options: FrameCheckOptions & { maxFrameBytes?: number; binary?: boolean }): Verdict<InboundFrame> {
  const parsed = readFrameText(data, options.binary ?? false, options.maxFrameBytes ?? DEFAULT_MAX_FRAME_BYTES);
  return parsed.ok ? checkFrame(parsed.value, options) : parsed;
}
