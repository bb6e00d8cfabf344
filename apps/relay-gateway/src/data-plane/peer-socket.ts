/**
 * One accepted WebSocket with the data plane's liveness and memory rules:
 *
 * - heartbeats: a ping every interval; a peer that has not answered the previous ping is terminated;
 * - a high-water mark on the send buffer: before a frame is queued, `bufferedAmount` (bytes the socket
 *   has not handed to the kernel) plus the frame must stay under the mark, else the peer is too slow
 *   and `onSlow` runs (it closes the socket); nothing is queued past the mark, so memory stays bounded;
 * - for senders that pace themselves by what the peer reads (a catch-up), `bufferedAmount` and a callback
 *   once a frame has been handed to the kernel;
 * - close with a code, then terminate if the closing handshake does not finish in time;
 * - frames sent in one turn of the event loop leave in one write (see `transport`).
 */
import type { Duplex } from 'node:stream';

import type { WebSocket } from 'ws';

export interface PeerSocketOptions {
  heartbeatIntervalMs: number;
  sendHighWaterBytes: number;
  /** Called once when a send would pass the high-water mark. */
  onSlow: () => void;
  /** Called once when the peer missed a heartbeat (the socket is then terminated). */
  onDead: () => void;
  /** How long a closing handshake may take before the socket is terminated. */
  closeTimeoutMs?: number;
  /**
   * The upgraded TCP/TLS socket under `ws`. When given, what is sent during one turn of the event loop is
   * corked and handed to the kernel in one write at the end of that turn: one TLS record and one system call
   * instead of one per frame. A Companion's frames reach the relay in bursts whenever its loop was held up (a
   * garbage collection, a burst of connections), and each was otherwise written to every browser on its own,
   * so the backlog behind a pause took longest to clear exactly when latency was already worst. Nothing waits
   * beyond the current turn, and the order of frames is the order of `send` calls, as before.
   */
  transport?: Duplex;
}

export class PeerSocket {
  private alive = true;
  private heartbeat: NodeJS.Timeout | undefined;
  private closing = false;
  private slow = false;
  private corked = false;
  readonly closed: Promise<void>;

  constructor(
    readonly ws: WebSocket,
    private readonly options: PeerSocketOptions,
  ) {
    this.closed = new Promise((resolve) => ws.once('close', () => resolve()));
    ws.on('pong', () => {
      this.alive = true;
    });
    this.heartbeat = setInterval(() => {
      // A socket the relay paused (a Companion whose credential is being checked) cannot have its pongs
      // read; its own deadline bounds that phase.
      if (ws.isPaused) {
        this.alive = true;
        return;
      }
      if (!this.alive) {
        this.stopHeartbeat();
        this.options.onDead();
        ws.terminate();
        return;
      }
      this.alive = false;
      try {
        ws.ping();
      } catch {
        // The socket is closing; the close event ends everything.
      }
    }, options.heartbeatIntervalMs);
    this.heartbeat.unref();
    ws.once('close', () => this.stopHeartbeat());
  }

  get isOpen(): boolean {
    return !this.closing && this.ws.readyState === this.ws.OPEN;
  }

  /** Bytes queued on this socket that the kernel has not taken yet. */
  get bufferedAmount(): number {
    return this.ws.bufferedAmount;
  }

  /**
   * Queues a text frame; false (and the socket closed as slow) when it would pass the high-water mark.
   * `written` runs once the frame was handed to the kernel (or the socket failed).
   */
  send(text: string, written?: () => void): boolean {
    if (!this.isOpen) return false;
    // String length is a lower bound of the UTF-8 size and exact for ASCII JSON: cheap on the hot path.
    if (this.ws.bufferedAmount + text.length > this.options.sendHighWaterBytes) {
      if (!this.slow) {
        this.slow = true;
        this.options.onSlow();
      }
      return false;
    }
    this.coalesce();
    if (written) this.ws.send(text, () => written());
    else this.ws.send(text);
    return true;
  }

  /** Corks the transport until the end of this turn of the event loop (once per turn). */
  private coalesce(): void {
    const { transport } = this.options;
    if (!transport || this.corked) return;
    this.corked = true;
    transport.cork();
    process.nextTick(this.uncork);
  }

  private readonly uncork = (): void => {
    this.corked = false;
    this.options.transport?.uncork();
  };

  /** Sends a last frame past the high-water mark check (a short Control message before a close). */
  sendFinal(text: string): void {
    if (this.isOpen) this.ws.send(text);
  }

  close(code: number, reason = ''): void {
    if (this.closing) return;
    this.closing = true;
    this.stopHeartbeat();
    try {
      this.ws.close(code, reason);
    } catch {
      this.ws.terminate();
      return;
    }
    const timer = setTimeout(() => this.ws.terminate(), this.options.closeTimeoutMs ?? 2_000);
    timer.unref();
    this.ws.once('close', () => clearTimeout(timer));
  }

  terminate(): void {
    this.closing = true;
    this.stopHeartbeat();
    this.ws.terminate();
  }

  private stopHeartbeat(): void {
    if (this.heartbeat) clearInterval(this.heartbeat);
    this.heartbeat = undefined;
  }
}
