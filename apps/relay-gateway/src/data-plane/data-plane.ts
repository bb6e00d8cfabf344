/**
 * The data plane of the relay gateway: the WebSocket endpoints /v1/companion and /v1/browser on the
 * gateway's HTTP(S) server, the routing hub, the frames log on the bus, and metrics.
 *
 * Upgrades are handled here with `ws` in `noServer` mode rather than through a Nest WebSocket gateway:
 * a browser's ticket and Origin must be checked (and the ticket consumed, asynchronously, against the
 * directory) before the upgrade completes, and a refusal must be an HTTP 401/403 with the JSON body
 * `{"code": …}` (§10). ws' `verifyClient` can only answer with a text body, and Nest's adapter hides the
 * upgrade; `noServer` gives the exact response and keeps one `ws` server per endpoint.
 *
 * Admission: sockets that have not proven who they are (a Companion before its credential checked out, a
 * browser upgrade whose ticket is being checked) live in their own budget, per process and per source
 * address, so they can never take the room of authenticated ones (README "Admission").
 *
 * Lifecycle: `start()` subscribes to the bus topics (each process its own consumer groups) and to the
 * directory's revocation and status feeds; `attach(server)` takes the server's upgrades; `shutdown()`
 * stops accepting (503 at the upgrade), closes every socket with 1001, waits for the closing handshakes
 * (`shutdownDrainMs`), publishes what is still queued, and leaves the consumer groups.
 */
import { STATUS_CODES, type IncomingMessage, type Server } from 'node:http';
import type { Duplex } from 'node:stream';

import { WebSocketServer } from 'ws';

import type { EventBus, Subscription } from '@trustmesh/platform-bus';
import { uuidv7 } from '@trustmesh/platform-events';
import { sourceAddress, sourceKey, TrustedProxies } from '@trustmesh/platform-rate-limits';
import { CLOSE_CODES, HANDSHAKE_ERRORS } from '@trustmesh/relay-protocol';

import type { RelayDirectory, Unsubscribe } from '../control/relay-directory.port';
import { securityHeaderLines } from '../http/security-headers';
import { acceptBrowser, type BrowserSessionHandle } from './browser.socket';
import { acceptCompanion } from './companion.socket';
import type { DataPlaneConfig } from './data-plane.config';
import { errorName, type DataPlaneLogger } from './data-plane.log';
import { DataPlaneMetrics } from './data-plane.metrics';
import { COMPANION_INBOUND_TOPIC, WORKSPACE_FRAMES_TOPIC, type CompanionFrameRoutedData } from './frames-bus.records';
import type { PeerSocket } from './peer-socket';
import { WorkspaceHub } from './workspace-hub';

export const COMPANION_PATH = '/v1/companion';
export const BROWSER_PATH = '/v1/browser';
const MAX_TICKET_LENGTH = 4_096;
const SWEEP_INTERVAL_MS = 60_000;
/** Longest start-up waits for the frames log to be read before serving anyway. */
const CATCH_UP_WAIT_MS = 30_000;
/**
 * On one replica the frames log is read only at start, so its appends may linger longer than between replicas
 * (where the linger is cross-replica latency): fewer, larger transactions on the embedded database. A crash
 * loses at most this much more of the log.
 */
export const SINGLE_REPLICA_LOG_LINGER_MS = 250;
/**
 * And one flush takes all that lingered (one bus message per workspace): the cost of the embedded log is per
 * transaction and per message, so every message of a workspace carries its 250 ms of frames.
 */
export const SINGLE_REPLICA_LOG_BATCH_FRAMES = 5_000;

export interface DataPlaneOptions {
  config: DataPlaneConfig;
  directory: RelayDirectory;
  /** The event bus; without one (tests of a single process) the frames log is in memory only. */
  bus: EventBus | undefined;
  /**
   * No other replica can exist (embedded PGlite is one process): the frames log is still written, and read
   * once at start to rebuild the rings, but nothing is consumed or routed through the bus afterwards.
   */
  singleReplica?: boolean;
  replicaId: string;
  producer: string;
  logger: DataPlaneLogger;
  /** Whose X-Forwarded-For to believe for per-source limits (default: nobody's). */
  trustedProxies?: TrustedProxies;
  /** Headers every refused upgrade carries too (the gateway's security headers). */
  responseHeaders?: Readonly<Record<string, string>>;
}

/** A socket that has not proven who it is yet, in the unauthenticated budget. */
interface PendingSlot {
  kind: 'companion' | 'browser';
  source: string;
  /** Closes it to make room if it is a Companion still waiting for its first frame (then true). */
  evict?: () => boolean;
}

export class DataPlane {
  readonly metrics = new DataPlaneMetrics();
  /** Unique per process (the replica id plus a fresh suffix): marks this process's bus records. */
  readonly instanceId: string;
  readonly hub: WorkspaceHub;
  private readonly companionServer = new WebSocketServer({ noServer: true, perMessageDeflate: false, clientTracking: false });
  private readonly browserServer = new WebSocketServer({ noServer: true, perMessageDeflate: false, clientTracking: false });
  private readonly servers = new Set<Server>();
  private readonly unsubscribe: Unsubscribe[] = [];
  private subscriptions: Subscription[] = [];
  private readonly sockets = { companion: new Set<PeerSocket>(), browser: new Set<PeerSocket>() };
  /** Unauthenticated sockets and upgrades, oldest first (a Set keeps insertion order). */
  private readonly pending = new Set<PendingSlot>();
  /** Browser sessions held here, for EndBrowserSessions. */
  private readonly browserSessions = new Set<BrowserSessionHandle>();
  /** Companion sockets not yet authenticated (closed at shutdown like the others). */
  private readonly handshaking = new Set<PeerSocket>();
  private readonly pendingCounts = { companion: 0, browser: 0 };
  private readonly pendingBySource = new Map<string, number>();
  private accepting = true;
  private sweeper: NodeJS.Timeout | undefined;
  private shuttingDown: Promise<void> | undefined;
  private readonly onUpgrade = (request: IncomingMessage, socket: Duplex, head: Buffer) =>
    // An upgrade that throws ends that connection only; a rejection nobody handles would end the process.
    this.upgrade(request, socket, head).catch((error: unknown) => {
      this.options.logger.log('error', 'upgrade-failed', { errorName: errorName(error) });
      socket.destroy();
    });

  constructor(private readonly options: DataPlaneOptions) {
    this.instanceId = `${options.replicaId}.${uuidv7().slice(-12)}`;
    // ws refuses anything past twice the frame limit outright (1009: the memory bound); between the limit
    // and that, the FrameReader refuses the frame before parsing it, so the protocol's answer applies
    // (4002 for a browser, drop for a Companion).
    this.companionServer.options.maxPayload = options.config.maxCompanionFrameBytes * 2;
    this.browserServer.options.maxPayload = options.config.maxBrowserFrameBytes * 2;
    this.hub = new WorkspaceHub({
      config: options.singleReplica
        ? {
            ...options.config,
            publishLingerMs: Math.max(options.config.publishLingerMs, SINGLE_REPLICA_LOG_LINGER_MS),
            publishBatchFrames: Math.max(options.config.publishBatchFrames, SINGLE_REPLICA_LOG_BATCH_FRAMES),
          }
        : options.config,
      directory: options.directory,
      bus: options.bus,
      singleReplica: options.singleReplica ?? false,
      instanceId: this.instanceId,
      replicaId: options.replicaId,
      producer: options.producer,
      metrics: this.metrics,
      logger: options.logger,
    });
  }

  /** Subscribes to the bus and the directory's feeds; resolves once the consumers are in their groups. */
  async start(): Promise<void> {
    const { directory, bus } = this.options;
    this.unsubscribe.push(
      directory.onDeviceRevoked(({ deviceId, workspaceId }) => {
        if (this.hub.deviceRevoked(deviceId, workspaceId)) this.options.logger.log('info', 'companion-revoked', { workspaceId, deviceId });
      }),
      directory.onWorkspaceStatusChanged((view) => this.hub.workspaceStatusChanged(view)),
      directory.onBrowserSessionsEndRequested(({ workspaceId, sessionId, userId }) => {
        for (const session of this.browserSessions) {
          if (session.workspaceId !== workspaceId) continue;
          if (sessionId !== null ? session.sessionId === sessionId : session.userId === userId) this.endIfEnded(session);
        }
      }),
    );
    this.sweeper = setInterval(() => this.hub.sweep(), SWEEP_INTERVAL_MS);
    this.sweeper.unref();
    if (!bus) return;
    const safe = (what: string, run: () => void) => {
      try {
        run();
      } catch (error) {
        // A record this process cannot apply is skipped, never retried into the DLQ: it is routing data.
        this.options.logger.log('warn', 'bus-record-skipped', { topic: what, errorName: error instanceof Error ? error.name : 'unknown' });
      }
    };
    const frames = await bus.subscribe({
      groupId: `relay-gateway.frames.${this.instanceId}`,
      topics: [WORKSPACE_FRAMES_TOPIC],
      // From the earliest retained record: the replica rebuilds its catch-up rings from the log.
      start: 'earliest',
      maxAttempts: 1,
      handler: async (record) =>
        safe(WORKSPACE_FRAMES_TOPIC, () =>
          this.hub.framesRecord(record.key, record.envelope.eventType, record.envelope.data, Date.parse(record.envelope.occurredAt)),
        ),
    });
    this.subscriptions.push(frames);
    await this.caughtUp(frames);
    if (this.options.singleReplica) {
      // Everything later in the log is this process's own: delivered on the fast path already.
      this.subscriptions = [];
      await frames.stop();
      return;
    }
    this.subscriptions.push(
      await bus.subscribe({
        groupId: `relay-gateway.inbound.${this.instanceId}`,
        topics: [COMPANION_INBOUND_TOPIC],
        // From the earliest too, so nothing published while this member joined is missed; records older
        // than this process are skipped by the hub.
        start: 'earliest',
        maxAttempts: 1,
        handler: async (record) =>
          safe(COMPANION_INBOUND_TOPIC, () =>
            this.hub.inboundRecord(record.key, record.envelope.data as CompanionFrameRoutedData, Date.parse(record.envelope.occurredAt)),
          ),
      }),
    );
  }

  /**
   * Waits (bounded) until the frames consumer has read the log to its end, so catch-up rings and stream
   * epochs are rebuilt before the first socket is accepted.
   */
  private async caughtUp(subscription: Subscription): Promise<void> {
    const deadline = Date.now() + CATCH_UP_WAIT_MS;
    while (Date.now() < deadline) {
      const lag = await subscription.lag().catch(() => undefined);
      if (lag && lag.every((partition) => partition.lag <= 0)) return;
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    this.options.logger.log('warn', 'frames-log-catch-up-incomplete', { waitedMs: CATCH_UP_WAIT_MS });
  }

  /** Takes the WebSocket upgrades of an HTTP(S) server. */
  attach(server: Server): void {
    this.servers.add(server);
    server.on('upgrade', this.onUpgrade);
  }

  shutdown(): Promise<void> {
    this.shuttingDown ??= this.runShutdown();
    return this.shuttingDown;
  }

  private async runShutdown(): Promise<void> {
    this.accepting = false;
    if (this.sweeper) clearInterval(this.sweeper);
    const { config, logger } = this.options;
    logger.log('info', 'data-plane-shutdown', { companions: this.sockets.companion.size, browsers: this.sockets.browser.size });
    for (const unsubscribe of this.unsubscribe.splice(0)) unsubscribe();
    this.hub.beginShutdown();
    const peers = [...this.handshaking, ...this.sockets.companion, ...this.sockets.browser];
    for (const peer of peers) peer.close(CLOSE_CODES.GOING_AWAY, 'shutting down');
    const drained = Promise.all(peers.map((peer) => peer.closed));
    const timer = new Promise((resolve) => setTimeout(resolve, config.shutdownDrainMs).unref());
    await Promise.race([drained, timer]);
    for (const peer of peers) peer.terminate();
    await this.hub.drainPublishers(Math.max(1_000, config.shutdownDrainMs));
    await Promise.all(this.subscriptions.splice(0).map((subscription) => subscription.stop().catch(() => undefined)));
    for (const server of this.servers) server.off('upgrade', this.onUpgrade);
    this.companionServer.close();
    this.browserServer.close();
  }

  private async upgrade(request: IncomingMessage, socket: Duplex, head: Buffer): Promise<void> {
    socket.on('error', () => socket.destroy());
    const { config, directory, logger } = this.options;
    let path: string;
    let ticket: string | null;
    try {
      const url = new URL(request.url ?? '/', 'http://relay.invalid');
      path = url.pathname;
      ticket = url.searchParams.get('ticket');
    } catch {
      this.refuse(socket, 400, { code: 'BAD_REQUEST' });
      return;
    }
    if (path !== COMPANION_PATH && path !== BROWSER_PATH) {
      this.refuse(socket, 404, { code: 'NOT_FOUND' });
      return;
    }
    const kind = path === COMPANION_PATH ? 'companion' : 'browser';
    if (!this.accepting) {
      this.metrics.rejections({ socket: kind, code: 'SHUTTING_DOWN' });
      this.refuse(socket, 503, { code: 'SHUTTING_DOWN' });
      return;
    }
    const source = sourceKey(sourceAddress(request, this.options.trustedProxies ?? TrustedProxies.none));
    if (kind === 'companion') {
      // Authenticated Companions are counted (and capped) once their credential checked out, never at the
      // upgrade: unauthenticated sockets live in their own budget and cannot take their room.
      const slot = this.takePending('companion', source);
      if (typeof slot === 'string') {
        this.metrics.rejections({ socket: kind, code: slot });
        this.refuse(socket, slot === 'RATE_LIMITED' ? 429 : 503, { code: slot });
        return;
      }
      // Whatever happens next (ws refusing a malformed handshake never calls back), the place is freed
      // when the connection goes.
      socket.once('close', () => this.releasePending(slot));
      this.companionServer.handleUpgrade(request, socket, head, (ws) => {
        const peer = acceptCompanion(ws, socket, {
          config,
          directory,
          hub: this.hub,
          metrics: this.metrics,
          logger,
          admit: () => {
            this.releasePending(slot);
            this.handshaking.delete(peer.socket);
            if (this.live('companion') >= config.maxCompanionConnections) return false;
            this.sockets.companion.add(peer.socket);
            return true;
          },
        });
        this.handshaking.add(peer.socket);
        slot.evict = () => peer.evict();
        void peer.socket.closed.then(() => {
          this.releasePending(slot);
          this.handshaking.delete(peer.socket);
          this.sockets.companion.delete(peer.socket);
        });
      });
      return;
    }
    if (!ticket || ticket.length > MAX_TICKET_LENGTH) {
      this.metrics.rejections({ socket: 'browser', code: 'SESSION_TICKET_INVALID' });
      this.refuse(socket, HANDSHAKE_ERRORS.SESSION_TICKET_INVALID, { code: 'SESSION_TICKET_INVALID' });
      return;
    }
    // Room is checked (and held) before the ticket is consumed, so a ticket is never spent on an upgrade that
    // is then refused for capacity, and unchecked upgrades cannot pile up directory lookups.
    if (this.sockets.browser.size + this.pendingCounts.browser >= config.maxBrowserConnections) {
      this.metrics.rejections({ socket: 'browser', code: 'CAPACITY' });
      this.refuse(socket, 503, { code: 'CAPACITY' });
      return;
    }
    const slot = this.takePending('browser', source);
    if (typeof slot === 'string') {
      this.metrics.rejections({ socket: 'browser', code: slot });
      this.refuse(socket, slot === 'RATE_LIMITED' ? 429 : 503, { code: slot });
      return;
    }
    const origin = typeof request.headers.origin === 'string' ? request.headers.origin : undefined;
    let verdict: Awaited<ReturnType<RelayDirectory['consumeBrowserTicket']>>;
    try {
      verdict = await directory.consumeBrowserTicket(ticket, origin);
    } catch {
      this.metrics.rejections({ socket: 'browser', code: 'DIRECTORY_UNAVAILABLE' });
      this.refuse(socket, 503, { code: 'RELAY_INTERNAL_ERROR' });
      return;
    } finally {
      this.releasePending(slot);
    }
    if (!verdict.ok) {
      this.metrics.rejections({ socket: 'browser', code: verdict.code });
      logger.log('info', 'browser-upgrade-refused', { code: verdict.code });
      this.refuse(socket, HANDSHAKE_ERRORS[verdict.code], { code: verdict.code });
      return;
    }
    if (socket.destroyed || !this.accepting) {
      this.refuse(socket, 503, { code: 'SHUTTING_DOWN' });
      return;
    }
    this.browserServer.handleUpgrade(request, socket, head, (ws) => {
      const session = acceptBrowser(ws, verdict, { config, hub: this.hub, metrics: this.metrics, logger, transport: socket });
      this.browserSessions.add(session);
      void session.socket.closed.then(() => this.browserSessions.delete(session));
      // An EndBrowserSessions recorded after the ticket check, and heard here before this session was
      // registered, closed nothing: ask once more now that the session is listening.
      this.endIfEnded(session);
      this.track('browser', session.socket);
    });
  }

  /**
   * Closes the session (4008) if an EndBrowserSessions of its person or session was recorded after its ticket
   * was issued. Asked of the store, not decided from the notification: the feed delivers at least once and
   * late, and an end request heard again must not close a session opened afterwards with a fresh ticket. A
   * failed look leaves the session open, as a lost notification would.
   */
  private endIfEnded(session: BrowserSessionHandle): void {
    const { ticket } = session;
    this.options.directory.browserSessionEndedSince(ticket).then(
      (ended) => {
        if (ended) session.endByOperator();
      },
      (error: unknown) => this.options.logger.log('warn', 'browser-end-recheck-failed', { workspaceId: ticket.workspaceId, errorName: errorName(error) }),
    );
  }

  private refuse(socket: Duplex, status: number, body: Record<string, string>): void {
    refuseUpgrade(socket, status, body, this.options.responseHeaders ?? {});
  }

  /** Authenticated sockets of a kind on this process. */
  private live(kind: 'companion' | 'browser'): number {
    return this.sockets[kind].size;
  }

  /**
   * Takes a place in the unauthenticated budget, or says why not: RATE_LIMITED (this source has too many
   * pending) or HANDSHAKE_CAPACITY (the process has too many and none can be evicted). When the Companion
   * budget is full, the oldest Companion still waiting for its first frame is closed to make room: an idle
   * socket gives way to a new one, so a real Companion (whose handshake takes milliseconds) always gets in.
   */
  private takePending(kind: 'companion' | 'browser', source: string): PendingSlot | 'RATE_LIMITED' | 'HANDSHAKE_CAPACITY' {
    const { config } = this.options;
    if ((this.pendingBySource.get(source) ?? 0) >= config.maxPendingPerSource) return 'RATE_LIMITED';
    const limit = kind === 'companion' ? config.maxPendingCompanionHandshakes : config.maxPendingBrowserUpgrades;
    if (this.pendingCounts[kind] >= limit) {
      const idle = kind === 'companion' ? [...this.pending].find((slot) => slot.evict?.() === true) : undefined;
      if (!idle) return 'HANDSHAKE_CAPACITY';
      this.releasePending(idle);
    }
    const slot: PendingSlot = { kind, source };
    this.pending.add(slot);
    this.pendingCounts[kind] += 1;
    this.pendingBySource.set(source, (this.pendingBySource.get(source) ?? 0) + 1);
    return slot;
  }

  private releasePending(slot: PendingSlot): void {
    if (!this.pending.delete(slot)) return;
    this.pendingCounts[slot.kind] -= 1;
    const left = (this.pendingBySource.get(slot.source) ?? 1) - 1;
    if (left <= 0) this.pendingBySource.delete(slot.source);
    else this.pendingBySource.set(slot.source, left);
  }

  private track(kind: 'companion' | 'browser', peer: PeerSocket): void {
    this.sockets[kind].add(peer);
    void peer.closed.then(() => this.sockets[kind].delete(peer));
  }
}

/** Answers a refused upgrade with a status and a JSON body, then closes the connection. */
function refuseUpgrade(socket: Duplex, status: number, body: Record<string, string>, headers: Readonly<Record<string, string>>): void {
  if (socket.destroyed) return;
  const text = JSON.stringify(body);
  socket.end(
    `HTTP/1.1 ${status} ${STATUS_CODES[status] ?? 'Error'}\r\n` +
      'Content-Type: application/json\r\n' +
      securityHeaderLines(headers) +
      `Content-Length: ${Buffer.byteLength(text)}\r\n` +
      'Connection: close\r\n\r\n' +
      text,
  );
}
