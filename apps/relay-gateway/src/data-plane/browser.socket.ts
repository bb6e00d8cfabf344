/**
 * A browser session on /v1/browser (§13). The ticket was consumed at the HTTP upgrade (see
 * data-plane.ts); here the session opens (`session.ready` first and once, sent by the hub), and every
 * inbound frame is validated in the order of §13 (text JSON, the negotiated version's schema, the
 * browser→relay allowlist, the bound workspace) before the hub routes it.
 *
 * - An invalid frame closes the session with 4002 and is never forwarded.
 * - Past its frame rate, or with too many requests awaiting responses, a session gets
 *   `session.error RATE_LIMITED` (retryable) and the close 4012: the browser reconnects later.
 * - A browser too slow to read (its send buffer passed the high-water mark) gets the same: a retryable
 *   `session.error RATE_LIMITED` and 4012; nothing more is queued for it.
 * - An exception while handling the session's frames ends that session only: `session.error
 *   RELAY_INTERNAL_ERROR` (retryable) and 4012, logged by error name and counted, never the process.
 * - A session lives at most `browserSessionMaxSeconds`: then it is closed with 4012 (retryable, §10) and the
 *   browser reconnects with a fresh descriptor, so no ticket admits a socket forever. An operator's
 *   EndBrowserSessions closes it with 4008 (for good). Neither sends a `session.error`: none of its codes
 *   says "expired" or "ended", and a wrong code would mislead the client more than the close code alone.
 * - Until the session is open (the workspace's status may need a directory lookup first) the socket is
 *   paused: what the browser sends early waits in TCP, not in the relay's memory. Only the frames already
 *   read from the socket's last chunk wait here (bounded), and they are read in order once it opens.
 */
import type { Duplex } from 'node:stream';

import type { RawData, WebSocket } from 'ws';

import { CLOSE_CODES, FrameReader, type AnyWireFrame } from '@trustmesh/relay-protocol';

import type { AcceptedBrowserTicket, BrowserSessionEndReason } from '../control/relay-directory.port';
import type { DataPlaneConfig } from './data-plane.config';
import { errorName, type DataPlaneLogger } from './data-plane.log';
import { traceInboundFrame } from './frame-tracing';
import type { DataPlaneMetrics } from './data-plane.metrics';
import { rawText, toBytes } from './companion.socket';
import { PeerSocket } from './peer-socket';
import { TokenBucket } from './token-bucket';
import type { BrowserPeer, WorkspaceHub } from './workspace-hub';

const MAX_WAITING_FRAMES = 256;
/** A session still not open after this long (the directory does not answer) is closed, retryable. */
const DEFAULT_OPEN_TIMEOUT_MS = 15_000;
const ACK_EXTRA_BURST = 16;
const ACK_EXTRA_PER_SECOND = 1;

export interface BrowserSocketDeps {
  config: DataPlaneConfig;
  hub: WorkspaceHub;
  metrics: DataPlaneMetrics;
  logger: DataPlaneLogger;
  /** How long the session may take to open (default 15 s). */
  openTimeoutMs?: number;
  /** The upgraded TCP/TLS socket under `ws`: frames sent in one turn leave in one write (`PeerSocket`). */
  transport?: Duplex;
}

/** An accepted browser socket, and the way to end its session from outside (EndBrowserSessions). */
export interface BrowserSessionHandle {
  socket: PeerSocket;
  sessionId: string;
  workspaceId: string;
  userId: string;
  /** The ticket it was opened with (EndBrowserSessions ends only sessions whose ticket it post-dates). */
  ticket: AcceptedBrowserTicket;
  /** Closes the session with 4008 and records it as ended by the operator. */
  endByOperator(): void;
}

export function acceptBrowser(ws: WebSocket, ticket: AcceptedBrowserTicket, deps: BrowserSocketDeps): BrowserSessionHandle {
  const { config, hub, metrics, logger } = deps;
  let endReason: BrowserSessionEndReason = 'closed';
  let state: 'opening' | 'open' | 'closed' = 'opening';
  const waiting: Array<[RawData, boolean]> = [];
  const bucket = new TokenBucket(config.browserFramesPerSecond, config.browserFrameBurst, Date.now());
  // ACKs beyond the frames sent (the first one after session.ready, a repeated cursor): a few, slowly refilled.
  const acks = new TokenBucket(ACK_EXTRA_PER_SECOND, ACK_EXTRA_BURST, Date.now());

  const socket = new PeerSocket(ws, {
    heartbeatIntervalMs: config.heartbeatIntervalMs,
    sendHighWaterBytes: config.sendHighWaterBytes,
    ...(deps.transport ? { transport: deps.transport } : {}),
    onSlow: () => {
      metrics.sendBufferDrops({ socket: 'browser' });
      endReason = 'slow-consumer';
      state = 'closed';
      hub.sessionError(peer, 'RATE_LIMITED', true);
    },
    onDead: () => {
      endReason = 'heartbeat-timeout';
    },
  });
  const peer: BrowserPeer = {
    sessionId: ticket.sessionId,
    workspaceId: ticket.workspaceId,
    userId: ticket.userId,
    acceptedWireVersions: ticket.acceptedWireVersions,
    encrypted: ticket.encrypted,
    socket,
    wire: '1.1',
  };
  metrics.connectionsOpened({ socket: 'browser' });
  let reader: FrameReader | undefined;
  // Paused until the session opens; resumed on every way out of 'opening' (the closing handshake needs reads).
  ws.pause();
  const openTimer = setTimeout(() => {
    if (state !== 'opening') return;
    metrics.rejections({ socket: 'browser', code: 'OPEN_TIMEOUT' });
    endReason = 'session-error';
    state = 'closed';
    ws.resume();
    socket.close(CLOSE_CODES.SESSION_ERROR_RETRYABLE);
  }, deps.openTimeoutMs ?? DEFAULT_OPEN_TIMEOUT_MS);
  openTimer.unref();
  const end = (reason: 'ended-by-operator' | 'lifetime-reached', code: number) => {
    if (state === 'closed') return;
    metrics.rejections({ socket: 'browser', code: reason === 'lifetime-reached' ? 'SESSION_LIFETIME_REACHED' : 'SESSION_ENDED' });
    logger.log('info', 'browser-session-ended', { sessionId: peer.sessionId, workspaceId: peer.workspaceId, reason });
    endReason = reason;
    state = 'closed';
    ws.resume();
    socket.close(code);
  };
  const lifetimeTimer = setTimeout(() => end('lifetime-reached', CLOSE_CODES.SESSION_ERROR_RETRYABLE), config.browserSessionMaxSeconds * 1000);
  lifetimeTimer.unref();

  // Defined once per session, not in `read`: a closure made per frame (every ACK) is garbage on the latency path.
  const limited = () => {
    endReason = 'session-error';
    state = 'closed';
    hub.sessionError(peer, 'RATE_LIMITED', true);
  };
  const read = (data: RawData, binary: boolean) => {
    if (state !== 'open' || !reader) return;
    if (binary && !bucket.take(Date.now())) {
      limited();
      return;
    }
    const text = binary ? '' : rawText(data);
    const verdict = reader.read(binary ? toBytes(data) : text, binary);
    // ACKs have their own bound (one per sequenced frame sent to the session, plus a small burst) and leave
    // the request budget alone; every other text frame, valid or not, pays from the budget.
    const paid = binary || (verdict.ok && verdict.value.type === 'runtime.ack' ? hub.takeAckCredit(peer) || acks.take(Date.now()) : bucket.take(Date.now()));
    if (!paid) {
      limited();
      return;
    }
    if (!verdict.ok) {
      const code = verdict.issues[0]?.code ?? 'FRAME_INVALID';
      metrics.rejections({ socket: 'browser', code });
      logger.log('info', 'browser-frame-refused', { sessionId: peer.sessionId, workspaceId: peer.workspaceId, code });
      endReason = 'invalid-frame';
      state = 'closed';
      socket.close(CLOSE_CODES.INVALID_FRAME);
      return;
    }
    const frame = verdict.value as AnyWireFrame;
    metrics.frames({ type: frame.type, direction: 'inbound' });
    traceInboundFrame('browser', frame, peer.wire, () => hub.browserFrame(peer, frame, text));
  };

  // An exception while handling this session's frames ends this session only (§13's retryable internal
  // error), never the process: `ws` emits from the socket's data handler, where nothing else catches.
  const failed = (error: unknown) => {
    logger.log('error', 'browser-session-failed', { sessionId: peer.sessionId, workspaceId: peer.workspaceId, errorName: errorName(error) });
    if (state === 'closed' && !socket.isOpen) return;
    endReason = 'error';
    state = 'closed';
    ws.resume();
    try {
      hub.sessionError(peer, 'RELAY_INTERNAL_ERROR', true);
    } catch {
      metrics.rejections({ socket: 'browser', code: 'RELAY_INTERNAL_ERROR' });
      socket.close(1011);
    }
  };

  ws.on('message', (data, binary) => {
    try {
      onMessage(data, binary);
    } catch (error) {
      failed(error);
    }
  });
  const onMessage = (data: RawData, binary: boolean) => {
    if (state === 'opening') {
      if (waiting.length >= MAX_WAITING_FRAMES) {
        endReason = 'session-error';
        state = 'closed';
        ws.resume();
        socket.close(CLOSE_CODES.SESSION_ERROR_RETRYABLE);
      } else {
        waiting.push([data, binary]);
      }
      return;
    }
    read(data, binary);
  };
  // `ws` answers a frame past `maxPayload` (twice the frame limit: the memory bound) by closing with 1009
  // itself, before any listener runs; §13 answers every invalid frame, oversized ones included, with 4002,
  // so that one close code is renamed for this socket. Frames between the limit and `maxPayload` are
  // refused by the reader, with the same 4002.
  const wsClose = ws.close.bind(ws);
  ws.close = (code?: number, data?: string | Buffer) => wsClose(code === 1009 ? CLOSE_CODES.INVALID_FRAME : code, data);
  ws.on('error', (error: Error & { code?: string }) => {
    if (error.code === 'WS_ERR_UNSUPPORTED_MESSAGE_LENGTH') {
      metrics.rejections({ socket: 'browser', code: 'FRAME_TOO_LARGE' });
      logger.log('info', 'browser-frame-refused', { sessionId: peer.sessionId, workspaceId: peer.workspaceId, code: 'FRAME_TOO_LARGE' });
      endReason = 'invalid-frame';
      state = 'closed';
      return;
    }
    endReason = 'error';
  });
  ws.once('close', (code) => {
    clearTimeout(openTimer);
    clearTimeout(lifetimeTimer);
    state = 'closed';
    try {
      hub.browserClosed(peer, endReason, code);
    } catch (error) {
      logger.log('error', 'browser-close-failed', { sessionId: peer.sessionId, workspaceId: peer.workspaceId, errorName: errorName(error) });
    }
  });

  void hub.browserOpened(peer).then(
    (outcome) => {
      clearTimeout(openTimer);
      if (outcome === 'refused') {
        endReason = 'session-error';
        state = 'closed';
        ws.resume();
        return;
      }
      if (state === 'closed') {
        ws.resume();
        return;
      }
      reader = new FrameReader({
        direction: 'browser-to-relay',
        wire: peer.wire,
        workspaceId: peer.workspaceId,
        encryption: peer.encrypted,
        maxFrameBytes: config.maxBrowserFrameBytes,
      });
      state = 'open';
      logger.log('info', 'browser-session-opened', { sessionId: peer.sessionId, workspaceId: peer.workspaceId, wire: peer.wire });
      for (const [data, binary] of waiting.splice(0)) read(data, binary);
      ws.resume();
    },
    () => {
      clearTimeout(openTimer);
      endReason = 'error';
      state = 'closed';
      ws.resume();
      hub.sessionError(peer, 'RELAY_INTERNAL_ERROR', true);
    },
  ).catch(failed);
  return {
    socket,
    sessionId: peer.sessionId,
    workspaceId: peer.workspaceId,
    userId: peer.userId,
    ticket,
    endByOperator: () => end('ended-by-operator', CLOSE_CODES.SESSION_ERROR_FATAL),
  };
}
