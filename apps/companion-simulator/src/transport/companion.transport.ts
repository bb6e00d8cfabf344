/**
 * The Companion's WebSocket transport to the relay's `/v1/companion` (§6, §11, §12):
 *
 * - every socket starts with `device.connect` (`pairingToken` = the device credential, never a pairing
 *   code), then becomes a new connection generation of the core, which replays and streams through it;
 * - the WSS open times out after 15 s; a lost or failed transport reconnects after 500 ms doubling to
 *   30 s, and the schedule resets once a transport opens;
 * - a failed send ends the generation (the socket is terminated and the core told at once);
 * - heartbeats: `ws` answers the relay's pings; a socket that receives nothing at all for
 *   `heartbeatTimeoutMs` is treated as dead;
 * - a socket the relay closes with 1008 (policy violation: the device credential was refused or revoked)
 *   does not count as an opened transport: the schedule keeps growing instead of retrying every 500 ms,
 *   and the log says to enroll again;
 * - `stop()` closes cleanly (1000) and reconnects no more.
 *
 * Nothing here logs a frame's content or the credential.
 */
import WebSocket, { type RawData } from 'ws';

import type { TlsTrust, SimulatorWireVersion } from '../config/simulator-config';
import type { CompanionCore } from './companion-core.port';
import { ReconnectBackoff } from './reconnect-backoff';

export const WSS_OPEN_TIMEOUT_MS = 15_000;
/** Inbound frames above this are refused by the socket itself (the relay's own limit is lower). */
const MAX_INBOUND_FRAME_BYTES = 4 * 1024 * 1024;
const CLOSE_GRACE_MS = 2_000;
/** The relay closes with this when it refuses `device.connect`'s credential (§12 step 6 gives no error frame). */
const POLICY_VIOLATION = 1008;

export type CompanionConnectionState = 'stopped' | 'connecting' | 'connected' | 'backing-off';

export interface CompanionTransportStats {
  state: CompanionConnectionState;
  generation: number;
  framesSent: number;
  gapsSent: number;
  acksReceived: number;
  requestsReceived: number;
  reconnects: number;
  connectedSince: Date | null;
}

/** Taps for measurements (load mode); called synchronously, must not throw. */
export interface TransportObserver {
  frameSent?(frameText: string): void;
  frameReceived?(frameText: string): void;
  stateChanged?(state: CompanionConnectionState): void;
  /** A reconnect was scheduled with the backoff's delay (before any test override). */
  reconnectScheduled?(backoffDelayMs: number): void;
  /** The socket failed or closed; `reason` is safe to log (no frame content). */
  transportLost?(reason: string): void;
}

export type TransportLog = (level: 'log' | 'warn', message: string) => void;

export interface CompanionTransportOptions {
  companionUrl: string;
  deviceId: string;
  /** The long-lived device credential (a secret). */
  deviceCredential: string;
  wireVersion: SimulatorWireVersion;
  tls: TlsTrust;
  core: CompanionCore;
  heartbeatTimeoutMs?: number;
  openTimeoutMs?: number;
  /** For tests: replaces the backoff schedule's delays (the schedule itself still counts attempts). */
  delayFor?: (backoffDelayMs: number) => number;
  observer?: TransportObserver;
  log?: TransportLog;
}

export class CompanionTransport {
  private core: CompanionCore;
  private socket: WebSocket | null = null;
  private generation = 0;
  private readonly backoff = new ReconnectBackoff();
  private retryTimer: NodeJS.Timeout | null = null;
  private livenessTimer: NodeJS.Timeout | null = null;
  private stopped = true;
  private paused = false;
  private nextDelayOverrideMs: number | null = null;
  private readonly counters: Omit<CompanionTransportStats, 'state' | 'generation' | 'connectedSince'> = {
    framesSent: 0,
    gapsSent: 0,
    acksReceived: 0,
    requestsReceived: 0,
    reconnects: 0,
  };
  private state: CompanionConnectionState = 'stopped';
  private connectedSince: Date | null = null;
  /** Why the current socket failed, for the 'close' report (never frame content). */
  private lastError: string | null = null;

  constructor(private readonly options: CompanionTransportOptions) {
    this.core = options.core;
  }

  get stats(): CompanionTransportStats {
    return { ...this.counters, state: this.state, generation: this.generation, connectedSince: this.connectedSince };
  }

  /** Starts connecting (idempotent). */
  start(): void {
    if (!this.stopped) return;
    this.stopped = false;
    this.open();
  }

  /**
   * Drops the current socket as a network failure would (terminate, no close handshake) and reconnects
   * through the backoff, or after `reconnectAfterMs` when given. Returns the dropped generation (0: none).
   */
  dropConnection(reconnectAfterMs?: number): number {
    if (reconnectAfterMs !== undefined && reconnectAfterMs > 0) this.nextDelayOverrideMs = reconnectAfterMs;
    const socket = this.socket;
    if (socket && socket.readyState === WebSocket.CONNECTING) {
      // Fails the attempt in progress; its close handler schedules the next one.
      socket.terminate();
      return 0;
    }
    if (!socket || socket.readyState !== WebSocket.OPEN) {
      if (this.nextDelayOverrideMs !== null && this.retryTimer) {
        // Already waiting: wait the requested time from now instead.
        this.clearRetry();
        this.armRetry(this.nextDelayOverrideMs);
        this.nextDelayOverrideMs = null;
      }
      return 0;
    }
    const dropped = this.generation;
    socket.terminate();
    return dropped;
  }

  /**
   * First half of a Companion restart: the socket closes (1001, as a process exit would) and the current
   * generation ends, and nothing reconnects until `resume`.
   */
  pause(): void {
    const socket = this.socket;
    this.paused = true;
    this.clearRetry();
    this.detachSocket(socket, 'restart');
    if (socket) {
      if (socket.readyState === WebSocket.CONNECTING) socket.terminate();
      else socket.close(1001, 'restart');
      if (this.generation !== 0) this.core.disconnect(this.generation);
    }
    if (!this.stopped) this.setState('backing-off');
  }

  /**
   * Second half of a restart: continues with `core` (its generations start again at 1), connecting after
   * `downMs` (0: at once) with a fresh backoff schedule.
   */
  resume(core: CompanionCore, downMs = 0): void {
    this.paused = false;
    this.core = core;
    this.generation = 0;
    this.backoff.reset();
    this.clearRetry();
    if (this.stopped) return;
    if (downMs > 0) this.armRetry(downMs);
    else this.open();
  }

  /** Closes cleanly (1000) and stops reconnecting. Resolves when the socket is closed. */
  async stop(): Promise<void> {
    this.stopped = true;
    this.clearRetry();
    const socket = this.socket;
    this.detachSocket(socket, 'stopped');
    if (socket && this.generation !== 0) this.core.disconnect(this.generation);
    this.setState('stopped');
    if (!socket || socket.readyState === WebSocket.CLOSED) return;
    await new Promise<void>((resolve) => {
      const force = setTimeout(() => {
        socket.terminate();
        resolve();
      }, CLOSE_GRACE_MS);
      force.unref();
      socket.once('close', () => {
        clearTimeout(force);
        resolve();
      });
      if (socket.readyState === WebSocket.CONNECTING) socket.terminate();
      else socket.close(1000, 'shutdown');
    });
  }

  private open(): void {
    this.setState('connecting');
    const { companionUrl, tls } = this.options;
    const socket = new WebSocket(companionUrl, {
      handshakeTimeout: this.options.openTimeoutMs ?? WSS_OPEN_TIMEOUT_MS,
      maxPayload: MAX_INBOUND_FRAME_BYTES,
      perMessageDeflate: false,
      ...(companionUrl.startsWith('wss:') ? { ca: tls.ca, rejectUnauthorized: !tls.insecureDev } : {}),
    });
    this.socket = socket;
    // `handshakeTimeout` covers the HTTP upgrade; this covers TCP + TLS too, so the whole open has one budget.
    const openTimer = setTimeout(() => socket.terminate(), this.options.openTimeoutMs ?? WSS_OPEN_TIMEOUT_MS);
    openTimer.unref();

    let generation = 0;
    let attemptsBeforeOpen = 0;
    socket.on('open', this.guarded(socket, () => {
      clearTimeout(openTimer);
      if (this.socket !== socket) return;
      attemptsBeforeOpen = this.backoff.attempts;
      this.backoff.reset();
      const { deviceId, deviceCredential, wireVersion } = this.options;
      // device.connect first; no reply is awaited (§6 step 1). ws keeps send order, so everything the core
      // sends below goes after it.
      const connectFrame = JSON.stringify({ type: 'device.connect', protocolVersion: wireVersion, deviceId, pairingToken: deviceCredential });
      socket.send(connectFrame, (error) => {
        if (error) socket.terminate();
      });
      this.counters.framesSent += 1;
      this.connectedSince = new Date();
      this.setState('connected');
      this.armLiveness(socket);
      generation = this.core.connect(
        (frameText) => this.sendOn(socket, frameText),
        // The relay stopped reading and the core gave this generation up: close, and the close handler reconnects.
        (end) => {
          if (end.reason === 'send-backlog' && this.socket === socket) socket.terminate();
        },
      );
      this.generation = generation;
    }));
    socket.on('message', this.guarded(socket, (data: RawData, isBinary: boolean) => {
      if (this.socket !== socket) return;
      this.armLiveness(socket);
      // Binary frames are violations (§ conventions); the relay never sends them, so drop silently.
      if (isBinary || generation === 0) return;
      const text = Buffer.isBuffer(data) ? data.toString('utf8') : Array.isArray(data) ? Buffer.concat(data).toString('utf8') : Buffer.from(data).toString('utf8');
      if (text.includes('"type":"runtime.ack"')) this.counters.acksReceived += 1;
      else if (text.includes('"type":"runtime.request"')) this.counters.requestsReceived += 1;
      this.options.observer?.frameReceived?.(text);
      // The core resolves once the frame's response went out; the transport does not wait for it.
      void Promise.resolve(this.core.receive(text, generation)).catch(() => undefined);
    }));
    socket.on('ping', () => this.armLiveness(socket));
    socket.on('pong', () => this.armLiveness(socket));
    socket.on('error', (error: Error & { code?: string }) => {
      // Always followed by 'close', which reports it; keep only a safe summary (no frame content).
      this.lastError = error.code ?? error.message.slice(0, 120);
    });
    socket.on('close', (code: number) => {
      clearTimeout(openTimer);
      if (this.socket !== socket) return;
      let reason = this.lastError ? `transport error ${this.lastError}` : `closed with code ${code}`;
      this.lastError = null;
      if (code === POLICY_VIOLATION) {
        this.backoff.restore(attemptsBeforeOpen);
        reason = 'the relay refused the device credential (1008): the device was revoked or its credential is wrong; unenroll and enroll again';
      }
      this.detachSocket(socket, reason);
      if (generation !== 0) this.core.disconnect(generation);
      if (!this.stopped && !this.paused) this.scheduleReconnect();
    });
  }

  /**
   * A socket listener whose exception ends that socket only: the close handler reports it and reconnects.
   * `ws` emits from the socket's data handler, where an exception nothing catches ends the process.
   */
  private guarded<A extends unknown[]>(socket: WebSocket, listener: (...args: A) => void): (...args: A) => void {
    return (...args: A) => {
      try {
        listener(...args);
      } catch (error) {
        this.lastError = `internal error (${error instanceof Error ? error.name : typeof error})`;
        socket.terminate();
      }
    };
  }

  private sendOn(socket: WebSocket, frameText: string): Promise<void> {
    return new Promise((resolve, reject) => {
      if (this.socket !== socket || socket.readyState !== WebSocket.OPEN) {
        reject(new Error('the transport of this generation is closed'));
        return;
      }
      this.counters.framesSent += 1;
      if (frameText.includes('"type":"runtime.gap"')) this.counters.gapsSent += 1;
      this.options.observer?.frameSent?.(frameText);
      socket.send(frameText, (error) => {
        if (error) {
          // A failed send ends the generation (§6); the close handler reconnects.
          socket.terminate();
          reject(new Error('send failed'));
        } else {
          resolve();
        }
      });
    });
  }

  /** Forgets `socket` as the current one: timers off, state updated. */
  private detachSocket(socket: WebSocket | null, reason: string): void {
    if (!socket || this.socket !== socket) return;
    this.socket = null;
    this.connectedSince = null;
    if (this.livenessTimer) clearTimeout(this.livenessTimer);
    this.livenessTimer = null;
    this.options.observer?.transportLost?.(reason);
    // Closing on purpose (stop, restart) is news, not a warning.
    if (reason === 'stopped' || reason === 'restart') this.options.log?.('log', `companion transport closed: ${reason}`);
    else this.options.log?.('warn', `companion transport lost: ${reason}`);
  }

  private armLiveness(socket: WebSocket): void {
    const timeout = this.options.heartbeatTimeoutMs ?? 0;
    if (timeout <= 0) return;
    if (this.livenessTimer) clearTimeout(this.livenessTimer);
    this.livenessTimer = setTimeout(() => {
      if (this.socket === socket) {
        this.lastError = `no heartbeat for ${Math.round(timeout / 1000)} s`;
        socket.terminate();
      }
    }, timeout);
    this.livenessTimer.unref();
  }

  private scheduleReconnect(): void {
    this.clearRetry();
    this.counters.reconnects += 1;
    const scheduled = this.backoff.nextDelay();
    this.options.observer?.reconnectScheduled?.(scheduled);
    const delay = this.nextDelayOverrideMs ?? this.options.delayFor?.(scheduled) ?? scheduled;
    this.nextDelayOverrideMs = null;
    this.setState('backing-off');
    this.armRetry(delay);
  }

  private armRetry(delay: number): void {
    this.retryTimer = setTimeout(() => {
      this.retryTimer = null;
      if (!this.stopped && !this.paused) this.open();
    }, delay);
  }

  private clearRetry(): void {
    if (this.retryTimer) clearTimeout(this.retryTimer);
    this.retryTimer = null;
  }

  private setState(state: CompanionConnectionState): void {
    if (this.state === state) return;
    this.state = state;
    this.options.observer?.stateChanged?.(state);
  }
}
