/**
 * A Companion socket on /v1/companion (§12): `device.connect` first, with a wire version this relay
 * speaks (1.2 or 1.1) and a valid, unrevoked device credential; then the socket is bound to the device's
 * workspace and every frame is validated (size, text JSON, the version's schema, the companion→relay
 * allowlist, the bound workspace) before the hub routes it.
 *
 * Refusals close the socket without an error frame (§12 step 6):
 * - 1002 (protocol error): the first frame is not a valid `device.connect`, or names Wire 1.0 (frozen and
 *   unredacted: a relay never bridges it, §2) or an unknown version;
 * - 1008 (policy violation): the credential is wrong or revoked, or the device was revoked while connected;
 * - 1013 (try again later): the Companion passed its frame rate or is too slow to read what is sent to it,
 *   no authenticated place is free (`CAPACITY`), or it was still silent when its handshake place was given
 *   to a newer socket (`HANDSHAKE_EVICTED`, see data-plane.ts);
 * - no close frame at all (terminated): more than `companionHandshakeMaxBytes` before `device.connect`;
 * - 1011: the directory could not be asked (infrastructure failure), or handling one of this Companion's
 *   frames threw (only this socket ends; the process and every other tenant go on).
 * After the handshake, an invalid frame is dropped and logged by its issue code, never its content.
 * While the credential is being checked the socket is paused: the Companion's replay (up to its whole
 * buffer, sent right after `device.connect`) waits in TCP, not in the relay's memory, and is read in order
 * once the device is live. Only the frames already read from the socket's last chunk wait here (bounded).
 */
import type { Duplex } from 'node:stream';

import type { RawData, WebSocket } from 'ws';

import { uuidv7 } from '@trustmesh/platform-events';
import { FrameReader, type AnyWireFrame, type WireVersion } from '@trustmesh/relay-protocol';

import type { CompanionDisconnectReason, RelayDirectory } from '../control/relay-directory.port';
import type { DataPlaneConfig } from './data-plane.config';
import { errorName, type DataPlaneLogger } from './data-plane.log';
import { traceInboundFrame } from './frame-tracing';
import type { DataPlaneMetrics } from './data-plane.metrics';
import { PeerSocket } from './peer-socket';
import { TokenBucket } from './token-bucket';
import type { CompanionPeer, WorkspaceHub } from './workspace-hub';

const REMOTE_VERSIONS: readonly WireVersion[] = ['1.2', '1.1'];
const MAX_WAITING_FRAMES = 1_024;

export interface CompanionSocketDeps {
  config: DataPlaneConfig;
  directory: RelayDirectory;
  hub: WorkspaceHub;
  metrics: DataPlaneMetrics;
  logger: DataPlaneLogger;
  /**
   * Called once the credential checked out: the socket leaves the unauthenticated budget and takes a place
   * among authenticated Companions, or false when there is none (closed 1013, try again later).
   */
  admit: () => boolean;
}

/** An accepted Companion socket, still in its handshake until `admit` took it. */
export interface CompanionHandshake {
  socket: PeerSocket;
  /** Closes the socket if it has not sent its first frame yet (to make room for another handshake): true then. */
  evict(): boolean;
}

/**
 * `raw` is the upgraded TCP/TLS socket under `ws`: its bytes are counted until `device.connect` has been
 * read, so an unauthenticated peer can make the relay hold `companionHandshakeMaxBytes` at most (rather
 * than a frame of twice the frame limit, which `ws` would otherwise buffer while it arrives).
 */
export function acceptCompanion(ws: WebSocket, raw: Duplex, deps: CompanionSocketDeps): CompanionHandshake {
  const { config, directory, hub, metrics, logger } = deps;
  const connectionId = uuidv7();
  let peer: CompanionPeer | undefined;
  let state: 'awaiting-connect' | 'authenticating' | 'live' | 'closed' = 'awaiting-connect';
  let closeReason: CompanionDisconnectReason = 'closed';
  const waiting: Array<[RawData, boolean]> = [];
  const bucket = new TokenBucket(config.companionFramesPerSecond, config.companionFrameBurst, Date.now());
  const handshakeReader = new FrameReader({ direction: 'companion-to-relay', acceptVersions: REMOTE_VERSIONS, maxFrameBytes: config.maxCompanionFrameBytes });
  let reader = handshakeReader;

  const socket = new PeerSocket(ws, {
    heartbeatIntervalMs: config.heartbeatIntervalMs,
    sendHighWaterBytes: config.sendHighWaterBytes,
    onSlow: () => {
      metrics.sendBufferDrops({ socket: 'companion' });
      closeReason = 'error';
      socket.close(1013, 'slow');
    },
    onDead: () => {
      closeReason = 'heartbeat-timeout';
    },
  });
  metrics.connectionsOpened({ socket: 'companion' });

  const refuse = (code: number, rejection: string) => {
    metrics.rejections({ socket: 'companion', code: rejection });
    logger.log('info', 'companion-refused', { connectionId, code: rejection });
    state = 'closed';
    // Reads resume so the closing handshake can finish; whatever else arrives is ignored.
    ws.resume();
    socket.close(code);
  };
  const connectTimer = setTimeout(() => {
    if (state === 'awaiting-connect' || state === 'authenticating') refuse(1002, 'CONNECT_TIMEOUT');
  }, config.companionHandshakeTimeoutMs);
  connectTimer.unref();
  // The verdict waits for the current I/O to be handled: a chunk that completes device.connect (and carries
  // the start of the replay right behind it) has moved the socket past 'awaiting-connect' by then.
  let handshakeBytes = 0;
  const countHandshakeBytes = (chunk: Buffer) => {
    if (state !== 'awaiting-connect') return;
    handshakeBytes += chunk.length;
    if (handshakeBytes <= config.companionHandshakeMaxBytes) return;
    setImmediate(() => {
      if (state !== 'awaiting-connect') return;
      metrics.rejections({ socket: 'companion', code: 'HANDSHAKE_TOO_LARGE' });
      logger.log('info', 'companion-refused', { connectionId, code: 'HANDSHAKE_TOO_LARGE' });
      state = 'closed';
      // No closing handshake: that would mean reading (and buffering) what the peer is still sending.
      socket.terminate();
    });
  };
  raw.on('data', countHandshakeBytes);
  const stopCounting = () => raw.off('data', countHandshakeBytes);

  const readLive = (data: RawData, binary: boolean) => {
    if (!peer) return;
    if (!bucket.take(Date.now())) {
      metrics.rejections({ socket: 'companion', code: 'RATE_LIMITED' });
      closeReason = 'error';
      state = 'closed';
      socket.close(1013, 'rate limited');
      return;
    }
    const text = binary ? '' : rawText(data);
    const verdict = reader.read(binary ? toBytes(data) : text, binary);
    if (!verdict.ok) {
      const code = verdict.issues[0]?.code ?? 'FRAME_INVALID';
      metrics.rejections({ socket: 'companion', code });
      logger.log('debug', 'companion-frame-dropped', { connectionId, workspaceId: peer.workspaceId, code });
      return;
    }
    const frame = verdict.value as AnyWireFrame;
    metrics.frames({ type: frame.type, direction: 'inbound' });
    const live = peer;
    traceInboundFrame('companion', frame, live.wire, () => hub.companionFrame(live, frame, text), hub.requestTraceOf(live, frame));
  };

  const handshake = async (data: RawData, binary: boolean) => {
    const text = binary ? '' : rawText(data);
    const verdict = handshakeReader.read(binary ? toBytes(data) : text, binary);
    if (!verdict.ok) {
      refuse(1002, verdict.issues[0]?.code ?? 'FRAME_INVALID');
      return;
    }
    const frame = verdict.value as AnyWireFrame;
    if (frame.type !== 'device.connect') {
      refuse(1002, 'FRAME_ORDER_VIOLATION');
      return;
    }
    state = 'authenticating';
    // Unauthenticated bytes stay in the kernel (TCP backpressure) until the credential is known to be good.
    ws.pause();
    let device: Awaited<ReturnType<RelayDirectory['authenticateDevice']>>;
    try {
      device = await directory.authenticateDevice(frame.deviceId, frame.pairingToken);
    } catch {
      refuse(1011, 'DIRECTORY_UNAVAILABLE');
      return;
    }
    if ((state as string) === 'closed') return;
    if (!device) {
      refuse(1008, 'DEVICE_CREDENTIAL_REFUSED');
      return;
    }
    const wire = frame.protocolVersion as WireVersion;
    // The steady reader knows the version, the workspace and the encryption profile from the start; it
    // reads the same device.connect so its first-frame rule is satisfied.
    reader = new FrameReader({
      direction: 'companion-to-relay',
      wire,
      workspaceId: device.workspaceId,
      encryption: device.endToEndEncrypted,
      maxFrameBytes: config.maxCompanionFrameBytes,
    });
    reader.read(text);
    clearTimeout(connectTimer);
    stopCounting();
    if (!deps.admit()) {
      refuse(1013, 'CAPACITY');
      return;
    }
    peer = {
      connectionId,
      workspaceId: device.workspaceId,
      deviceId: device.deviceId,
      wire,
      encrypted: device.endToEndEncrypted,
      socket,
      connectedAt: Date.now(),
    };
    metrics.frames({ type: 'device.connect', direction: 'inbound' });
    logger.log('info', 'companion-connected', { connectionId, workspaceId: device.workspaceId, deviceId: device.deviceId, wire });
    await hub.companionConnected(peer);
    if ((state as string) === 'closed') return;
    state = 'live';
    for (const [queued, queuedBinary] of waiting.splice(0)) readLive(queued, queuedBinary);
    ws.resume();
  };

  // An exception while handling this Companion's frames ends this socket only (1011, counted, logged by
  // error name), never the process: `ws` emits from the socket's data handler, where nothing else catches,
  // and the handshake is asynchronous, where a rejection nobody handles ends the process too.
  const failed = (error: unknown) => {
    metrics.rejections({ socket: 'companion', code: 'RELAY_INTERNAL_ERROR' });
    logger.log('error', 'companion-socket-failed', { connectionId, workspaceId: peer?.workspaceId, errorName: errorName(error) });
    closeReason = 'error';
    state = 'closed';
    ws.resume();
    socket.close(1011);
  };

  ws.on('message', (data, binary) => {
    try {
      onMessage(data, binary);
    } catch (error) {
      failed(error);
    }
  });
  const onMessage = (data: RawData, binary: boolean) => {
    switch (state) {
      case 'awaiting-connect':
        handshake(data, binary).catch(failed);
        return;
      case 'authenticating':
        if (waiting.length >= MAX_WAITING_FRAMES) refuse(1013, 'RATE_LIMITED');
        else waiting.push([data, binary]);
        return;
      case 'live':
        readLive(data, binary);
        return;
      default:
        return;
    }
  };
  ws.on('error', (error: Error & { code?: string }) => {
    // Past `maxPayload` (twice the frame limit) `ws` has already closed with 1009: a frame cannot be skipped
    // unread, so the memory bound ends the socket where §13 would drop the frame. Counted like a dropped one.
    if (error.code === 'WS_ERR_UNSUPPORTED_MESSAGE_LENGTH') metrics.rejections({ socket: 'companion', code: 'FRAME_TOO_LARGE' });
    closeReason = 'error';
  });
  ws.once('close', (code) => {
    clearTimeout(connectTimer);
    stopCounting();
    state = 'closed';
    if (peer) {
      logger.log('info', 'companion-disconnected', { connectionId, workspaceId: peer.workspaceId, closeCode: code, reason: closeReason });
      try {
        hub.companionClosed(peer, closeReason);
      } catch (error) {
        logger.log('error', 'companion-close-failed', { connectionId, workspaceId: peer.workspaceId, errorName: errorName(error) });
      }
    }
  });
  return {
    socket,
    evict: () => {
      if (state !== 'awaiting-connect') return false;
      refuse(1013, 'HANDSHAKE_EVICTED');
      return true;
    },
  };
}

export function rawText(data: RawData): string {
  if (Array.isArray(data)) return Buffer.concat(data).toString('utf8');
  return Buffer.isBuffer(data) ? data.toString('utf8') : Buffer.from(data).toString('utf8');
}

export function toBytes(data: RawData): Uint8Array {
  if (Array.isArray(data)) return Buffer.concat(data);
  return Buffer.isBuffer(data) ? data : new Uint8Array(data);
}
