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
import { CLOSE_CODES, HANDSHAKE_ERRORS } from '@trustmesh/relay-protocol';

import type { RelayDirectory, Unsubscribe } from '../control/relay-directory.port';
import { acceptBrowser } from './browser.socket';
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

  metricsText(): string {
    return this.metrics.render();
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
    const peers = [...this.sockets.companion, ...this.sockets.browser];
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
      refuseUpgrade(socket, 400, { code: 'BAD_REQUEST' });
      return;
    }
    if (path !== COMPANION_PATH && path !== BROWSER_PATH) {
      refuseUpgrade(socket, 404, { code: 'NOT_FOUND' });
      return;
    }
    const kind = path === COMPANION_PATH ? 'companion' : 'browser';
    if (!this.accepting) {
      this.metrics.rejections({ socket: kind, code: 'SHUTTING_DOWN' });
      refuseUpgrade(socket, 503, { code: 'SHUTTING_DOWN' });
      return;
    }
    const limit = kind === 'companion' ? config.maxCompanionConnections : config.maxBrowserConnections;
    if (this.sockets[kind].size >= limit) {
      this.metrics.rejections({ socket: kind, code: 'CAPACITY' });
      refuseUpgrade(socket, 503, { code: 'CAPACITY' });
      return;
    }
    if (kind === 'companion') {
      this.companionServer.handleUpgrade(request, socket, head, (ws) => {
        const peer = acceptCompanion(ws, request, { config, directory, hub: this.hub, metrics: this.metrics, logger });
        this.track('companion', peer);
      });
      return;
    }
    if (!ticket || ticket.length > MAX_TICKET_LENGTH) {
      this.metrics.rejections({ socket: 'browser', code: 'SESSION_TICKET_INVALID' });
      refuseUpgrade(socket, HANDSHAKE_ERRORS.SESSION_TICKET_INVALID, { code: 'SESSION_TICKET_INVALID' });
      return;
    }
    const origin = typeof request.headers.origin === 'string' ? request.headers.origin : undefined;
    let verdict: Awaited<ReturnType<RelayDirectory['consumeBrowserTicket']>>;
    try {
      verdict = await directory.consumeBrowserTicket(ticket, origin);
    } catch {
      this.metrics.rejections({ socket: 'browser', code: 'DIRECTORY_UNAVAILABLE' });
      refuseUpgrade(socket, 503, { code: 'RELAY_INTERNAL_ERROR' });
      return;
    }
    if (!verdict.ok) {
      this.metrics.rejections({ socket: 'browser', code: verdict.code });
      logger.log('info', 'browser-upgrade-refused', { code: verdict.code });
      refuseUpgrade(socket, HANDSHAKE_ERRORS[verdict.code], { code: verdict.code });
      return;
    }
    if (socket.destroyed || !this.accepting) {
      refuseUpgrade(socket, 503, { code: 'SHUTTING_DOWN' });
      return;
    }
    this.browserServer.handleUpgrade(request, socket, head, (ws) => {
      const peer = acceptBrowser(ws, verdict, { config, hub: this.hub, metrics: this.metrics, logger });
      this.track('browser', peer);
    });
  }

  private track(kind: 'companion' | 'browser', peer: PeerSocket): void {
    this.sockets[kind].add(peer);
    void peer.closed.then(() => this.sockets[kind].delete(peer));
  }
}

/** Answers a refused upgrade with a status and a JSON body, then closes the connection. */
function refuseUpgrade(socket: Duplex, status: number, body: Record<string, string>): void {
  if (socket.destroyed) return;
  const text = JSON.stringify(body);
  socket.end(
    `HTTP/1.1 ${status} ${STATUS_CODES[status] ?? 'Error'}\r\n` +
      'Content-Type: application/json\r\n' +
      `Content-Length: ${Buffer.byteLength(text)}\r\n` +
      'Connection: close\r\n\r\n' +
      text,
  );
}
