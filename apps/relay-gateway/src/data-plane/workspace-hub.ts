/**
 * The data plane's routing core: which Companion and which browser sessions this replica holds for
 * each workspace, and what happens to every frame that passed validation (BEHAVIOUR.md §6, §8, §12, §13).
 *
 * Routing:
 * - `runtime.request` (and encrypted requests) → the workspace's Companion, here or on another replica
 *   (through `relay.companion-inbound.v1`); the route back (requestId → session, method) is remembered. A request
 *   routed to another replica that sends no receipt in time is lost: the Companion is reported unreachable and the
 *   requester's session ends with `WORKSPACE_OFFLINE` (`route-receipts.ts`, `receiptMissing`).
 * - `runtime.response` → only the session that sent the request (through the frames topic when that
 *   session is on another replica), checked against the request's method and downgraded for a 1.1
 *   session (`companion-response.rules.ts`); a refused one is answered with `COMPANION_ERROR`.
 * - sequenced frames (`runtime.event`, `interaction.*`, sequenced `runtime.encrypted`) and
 *   `runtime.gap` → every browser session of the workspace, in order, each frame at most once per
 *   session and stream epoch; written to the frames log (`relay.workspace-frames.v1`) off the latency
 *   path.
 * - `runtime.ack` → the Companion, unchanged; dropped while it is offline. The relay never originates
 *   ACKs. An ACK reaches the Companion only once the frames it covers are durable in the frames log
 *   (`forwardAck`): until then it is held (the highest one per workspace), so the Companion keeps in its
 *   replay buffer whatever the relay could still lose in a crash, and re-sends it after a restart.
 *
 * Several browser sessions on one workspace (the policy §13 leaves open): every session is a full peer.
 * Each receives every sequenced frame, may send requests, and gets the responses to its own requests
 * only; CONTROLLER_CONFLICT is never sent. Mutations stay safe because the Companion's idempotency
 * (§5) is keyed by requestId, and interactions settle once (§8), whichever session answers first.
 *
 * Catch-up from the frames log, on a session's first ACK (cursor c):
 * - c is trusted to belong to the current stream epoch when it is −1, or when every earlier session of
 *   the same user on this workspace that ended here ended in the current epoch. Then the session gets
 *   the retained frames above c, with a `runtime.gap` only for frames older than the retention.
 * - otherwise (c might be from before a Companion restart) the session gets one
 *   `runtime.gap {0 … head}`, which makes the browser rebuild from snapshots instead of applying frames
 *   of one epoch on top of state from another.
 * Live frames are held back from a session until its first ACK (or `firstAckTimeoutMs`) so catch-up
 * and live traffic never interleave. A catch-up is paced by what the browser reads (`pump`): frames go out
 * while the socket's unsent bytes stay under a low-water mark and resume once they have been written, and
 * live frames reach a session still catching up through the same ring, behind the catch-up. A large
 * catch-up therefore never trips the slow-reader limit, and responses never wait behind more than the
 * low-water mark of it. The redelivery of retained interactions and the frames that replace a Companion's
 * gap go out through the same pump.
 */
import type { EventBus } from '@trustmesh/platform-bus';
import { uuidv7 } from '@trustmesh/platform-events';
import { activeTraceparent } from '@trustmesh/platform-tracing';
import {
  CLOSE_CODES,
  negotiateWireVersion,
  sessionErrorRetryable,
  validateWireFrame,
  type AnyWireFrame,
  type SessionErrorCode,
  type WireVersion,
} from '@trustmesh/relay-protocol';

import type {
  CompanionDisconnectReason,
  RelayDirectory,
  WorkspaceStatusView,
  BrowserSessionEndReason,
} from '../control/relay-directory.port';
import { BatchingPublisher } from './batching-publisher';
import { ByteBudget, relieve } from './byte-budget';
import type { DataPlaneConfig } from './data-plane.config';
import type { DataPlaneLogger } from './data-plane.log';
import type { DataPlaneMetrics } from './data-plane.metrics';
import {
  COMPANION_FRAME_ROUTED,
  COMPANION_INBOUND_TOPIC,
  FRAMES_SEQUENCED,
  REQUEST_RECEIVED,
  RESPONSE_ROUTED,
  WORKSPACE_FRAMES_TOPIC,
  type CandidateContext,
  type CompanionFrameRoutedData,
  type FramesSequencedData,
  type RequestReceivedData,
  type ResponseRoutedData,
  type SequencedItem,
} from './frames-bus.records';
import { checkCompanionResponse } from './companion-response.rules';
import { readBusFrame } from './frames-bus.validation';
import { InteractionRetention } from './interaction-retention';
import type { PeerSocket } from './peer-socket';
import { RequestRoutes } from './request-routes';
import { RouteReceipts, type AwaitedReceipt } from './route-receipts';
import { text11Of, WorkspaceFrameLog, type LoggedFrame } from './workspace-frame-log';

export interface CompanionPeer {
  readonly connectionId: string;
  readonly workspaceId: string;
  readonly deviceId: string;
  readonly wire: WireVersion;
  readonly encrypted: boolean;
  readonly socket: PeerSocket;
  readonly connectedAt: number;
  /** Set once the connection's end was reported. */
  ended?: boolean;
  /** Set when a newer connection replaces this one: its end is reported as `replaced`, once the successor is live. */
  replaced?: boolean;
}

export interface BrowserPeer {
  readonly sessionId: string;
  readonly workspaceId: string;
  readonly userId: string;
  readonly acceptedWireVersions: readonly string[];
  readonly encrypted: boolean;
  readonly socket: PeerSocket;
  /** Set when the session opens (negotiated). */
  wire: WireVersion;
}

/**
 * One replica (embedded database): bus messages (one workspace's lingered frames each) per transaction of the
 * frames log. PGlite is one connection: a flush in a few short transactions lets other work on the database
 * (ticket checks, status reads) in between, where one transaction for all 50 workspaces made it wait tens of ms.
 */
const SINGLE_REPLICA_LOG_MESSAGES_PER_TRANSACTION = 12;

/** Frames of the Workspace sequence: each one the relay sends a browser entitles it to one ACK. */
const ACKABLE = new Set(['runtime.event', 'runtime.gap', 'interaction.request', 'interaction.resolved', 'interaction.cancelled', 'runtime.encrypted']);

interface SessionState {
  peer: BrowserPeer;
  epoch: string | null;
  deliveredThrough: number;
  awaitingFirstAck: boolean;
  firstAckTimer: NodeJS.Timeout | undefined;
  /**
   * Held while the stream is unconfirmed (see `WorkspaceState.streamUnconfirmed`): the first ACK's cursor
   * to catch up from, or 'live' when the first ACK never came; acted on when the stream is confirmed.
   */
  parkedCursor: number | 'live' | undefined;
  /**
   * ACKs this session may still send without touching its request budget: one per frame of the Workspace
   * sequence (event, interaction, gap, envelope) the relay sent it (see `takeAckCredit`).
   */
  ackCredits: number;
  /** The retained interaction requests are redelivered once the stream is confirmed. */
  redeliveryDeferred: boolean;
  /**
   * Sequences of the retained interaction requests this session got by redelivery (§8), above its cursor
   * maybe, and the epoch they belong to: catch-up and live fan-out skip them, so each frame reaches a
   * session at most once (`alreadyRedelivered`).
   */
  redelivered: { epoch: string | null; sequences: Set<number> };
  /**
   * Retained interaction requests still to be redelivered, in order, sent by `pump` as the browser reads (their
   * sequences are already in `redelivered`, so nothing else sends them). The first ACK's catch-up, or the
   * start of live frames, waits behind them (`afterRedelivery`).
   */
  redelivery: LoggedFrame[];
  /** The first ACK's cursor (or 'live' for its timeout) that came while the redelivery was still going out. */
  afterRedelivery: number | 'live' | undefined;
  /**
   * Being caught up from the ring (`pump`): live frames are not sent directly but read from the ring after
   * the catch-up, so they queue behind it in order; bounded by the ring itself.
   */
  catchingUp: boolean;
  /** The catch-up waits for the socket to write what it has (see `pump`). */
  pumpWaiting: boolean;
  /** Catch-up frames handed to the socket and not yet written to the kernel. */
  pumpUnwritten: number;
  lastStatus: 'online' | 'offline';
  ended: boolean;
}

interface WorkspaceState {
  readonly id: string;
  readonly log: WorkspaceFrameLog;
  /** Unresolved interaction requests (§8 retention). */
  readonly retained: InteractionRetention;
  readonly sessions: Map<string, SessionState>;
  companion: CompanionPeer | undefined;
  /** The directory's latest view (all replicas). */
  view: WorkspaceStatusView | undefined;
  /** Companion connections of this replica that ended (a late "online" view naming one is stale). */
  readonly endedConnections: string[];
  /** Per user: the epochs in which this user's sessions ended here, and when, newest last (catch-up trust). */
  readonly endedSessions: Map<string, Array<{ epoch: string | null; at: number }>>;
  /** The Companion connection the workspace was last seen online with. */
  streamConnection: string | null;
  /**
   * A Companion connected since the log's last frame: it may continue the logged stream (a reconnect) or
   * start a new one at 0 (a restart). Until its first sequenced frame or gap tells which, new sessions get
   * nothing of the log (neither catch-up nor retained interactions): frames of a dead stream would consume
   * the browser's reset detection (§6 `resync`) and make the new stream's first frames look like duplicates.
   */
  streamUnconfirmed: boolean;
  /**
   * The Companion connection whose frames the ring's current stream last came from (from this replica's own
   * Companion, or from the log's records): a live connection other than this one has not confirmed the stream.
   */
  logConnection: string | null;
  /**
   * The highest sequence of the log's current epoch known to be in the durable frames log (`forwardAck`), and
   * the first sequence of that epoch the publish queue gave up (`framesDropped`): the mark never passes it,
   * whatever is published after it, until a new epoch.
   */
  durable: { epoch: string | null; through: number; lostFrom?: number };
  /** The highest browser ACK not yet forwarded because it covers frames not yet durable. */
  heldAck: { through: number; text: string } | undefined;
  /** This replica is reporting the remote live connection unreachable (one report at a time). */
  reportingUnreachable: Promise<void> | undefined;
  /** This replica is re-asserting its own Companion's presence (one at a time). */
  reasserting: Promise<void> | undefined;
}

const SUPPORTED_FOR: Record<WireVersion, WireVersion[]> = { '1.2': ['1.2', '1.1'], '1.1': ['1.1'], '1.0': [] };
const SEQUENCED_TYPES = new Set(['runtime.event', 'interaction.request', 'interaction.resolved', 'interaction.cancelled']);
const MAX_ENDED_PER_USER = 16;
/** Ring items a catch-up takes per step between two checks of the socket's unsent bytes. */
const CATCH_UP_SLICE = 64;
/** A catch-up waiting on a socket whose unsent bytes are not its own looks again after this long. */
const CATCH_UP_RECHECK_MS = 20;

export interface WorkspaceHubOptions {
  config: DataPlaneConfig;
  directory: RelayDirectory;
  bus: EventBus | undefined;
  /** No other replica can exist (embedded database): nothing is routed through the bus, only logged. */
  singleReplica?: boolean;
  /** Unique per process: marks this process's bus records and addresses responses to it. */
  instanceId: string;
  replicaId: string;
  producer: string;
  metrics: DataPlaneMetrics;
  logger: DataPlaneLogger;
  now?: () => number;
}

export class WorkspaceHub {
  private readonly workspaces = new Map<string, WorkspaceState>();
  private readonly routes: RequestRoutes;
  private readonly receipts: RouteReceipts;
  private readonly framesPublisher: BatchingPublisher | undefined;
  private readonly inboundPublisher: BatchingPublisher | undefined;
  private readonly now: () => number;
  private readonly startedAt: number;
  /** The process's memory bounds over every workspace's frames ring and retained interactions. */
  private readonly framesBudget: ByteBudget;
  private readonly interactionsBudget: ByteBudget;

  constructor(private readonly options: WorkspaceHubOptions) {
    const { config, bus } = options;
    this.now = options.now ?? Date.now;
    this.startedAt = this.now();
    this.framesBudget = new ByteBudget(config.retentionProcessBytes);
    this.interactionsBudget = new ByteBudget(config.retainedInteractionsProcessBytes);
    this.routes = new RequestRoutes({
      ttlMs: config.requestRouteTtlMs,
      maxTotal: config.maxPendingRequests,
      maxPerSession: config.maxPendingRequestsPerSession,
      maxPerWorkspace: config.maxPendingRequestsPerWorkspace,
    });
    this.receipts = new RouteReceipts(config.routeReceiptTimeoutMs, (receipt) => this.receiptMissing(receipt));
    if (bus) {
      const common = {
        bus,
        producer: options.producer,
        origin: options.instanceId,
        batchFrames: config.publishBatchFrames,
        lingerMs: config.publishLingerMs,
        maxQueued: config.publishQueueFrames,
        maxQueuedBytes: config.publishQueueBytes,
        metrics: options.metrics,
        logger: options.logger,
      };
      this.framesPublisher = new BatchingPublisher({
        ...common,
        topic: WORKSPACE_FRAMES_TOPIC,
        // The embedded database is one connection: a flush in a few transactions, other work in between.
        ...(options.singleReplica ? { maxEnvelopesPerPublish: SINGLE_REPLICA_LOG_MESSAGES_PER_TRANSACTION } : {}),
        onPublished: (records) => this.framesPublished(records),
        onDropped: (records) => this.framesDropped(records),
      });
      // Requests to a Companion on another replica wait for no batch: the linger is the latency.
      if (!options.singleReplica) this.inboundPublisher = new BatchingPublisher({ ...common, topic: COMPANION_INBOUND_TOPIC, lingerMs: 0 });
    }
    options.metrics.registry.collected('relay_connections', 'Open WebSocket connections, by socket kind.', ['socket'], () => {
      let companions = 0;
      let browsers = 0;
      for (const workspace of this.workspaces.values()) {
        if (workspace.companion) companions += 1;
        browsers += workspace.sessions.size;
      }
      return [
        { labels: { socket: 'companion' }, value: companions },
        { labels: { socket: 'browser' }, value: browsers },
      ];
    });
    options.metrics.registry.collected('relay_frames_log_retained', 'Frames held in memory for catch-up, over all workspaces.', [], () => {
      let frames = 0;
      for (const workspace of this.workspaces.values()) frames += workspace.log.size;
      return [{ labels: {}, value: frames }];
    });
    const gauge = (name: string, help: string, value: () => number) => options.metrics.registry.collected(name, help, [], () => [{ labels: {}, value: value() }]);
    gauge('relay_frames_log_retained_bytes', 'Bytes of frames held for catch-up, over all workspaces (bounded by RELAY_FRAMES_RETENTION_PROCESS_BYTES).', () => this.framesBudget.used);
    gauge('relay_retained_interactions', 'Unresolved interaction requests held for redelivery, over all workspaces.', () => {
      let count = 0;
      for (const workspace of this.workspaces.values()) count += workspace.retained.size;
      return count;
    });
    gauge('relay_retained_interactions_bytes', 'Bytes of retained interaction requests, over all workspaces (bounded by RELAY_RETAINED_INTERACTIONS_PROCESS_BYTES).', () => this.interactionsBudget.used);
    gauge('relay_request_routes', 'Requests awaiting a response (routes back), over all workspaces.', () => this.routes.size);
    options.metrics.registry.collected('relay_bus_queue_bytes', 'Characters of frame text awaiting publication, by topic.', ['topic'], () => [
      ...(this.framesPublisher ? [{ labels: { topic: WORKSPACE_FRAMES_TOPIC }, value: this.framesPublisher.pendingBytes }] : []),
      ...(this.inboundPublisher ? [{ labels: { topic: COMPANION_INBOUND_TOPIC }, value: this.inboundPublisher.pendingBytes }] : []),
    ]);
  }

  // ---------------------------------------------------------------- Companions

  /** The Companion of a workspace held by this replica, if any. */
  localCompanion(workspaceId: string): CompanionPeer | undefined {
    return this.workspaces.get(workspaceId)?.companion;
  }

  /** The Companion's version as this replica knows it: live here, live elsewhere, or last known. */
  companionWire(workspaceId: string): WireVersion | null {
    const workspace = this.workspaces.get(workspaceId);
    if (workspace?.companion) return workspace.companion.wire;
    const view = workspace?.view;
    return view ? (view.status === 'online' ? view.wireVersion : null) ?? view.lastKnownWireVersion : null;
  }

  /** A Companion authenticated: it becomes the workspace's live one, replacing an older one here. */
  async companionConnected(peer: CompanionPeer): Promise<void> {
    const workspace = this.workspace(peer.workspaceId);
    const previous = workspace.companion;
    workspace.companion = peer;
    if (previous && previous !== peer) {
      this.options.logger.log('info', 'companion-replaced', { workspaceId: peer.workspaceId, connectionId: previous.connectionId });
      previous.replaced = true;
      previous.socket.close(CLOSE_CODES.NORMAL, 'replaced');
    }
    await this.directoryCall('companionConnected', () =>
      this.options.directory.companionConnected({
        connectionId: peer.connectionId,
        workspaceId: peer.workspaceId,
        deviceId: peer.deviceId,
        wireVersion: peer.wire,
      }),
    );
    // Reported after the successor is live, so the workspace never looks offline in between.
    if (previous && previous !== peer) this.companionClosed(previous, 'replaced');
    if (workspace.companion === peer) this.statusChanged(workspace);
  }

  /** A Companion socket closed (for whatever reason). */
  companionClosed(peer: CompanionPeer, reason: CompanionDisconnectReason): void {
    if (peer.ended || (peer.replaced && reason !== 'replaced')) return;
    peer.ended = true;
    const workspace = this.workspaces.get(peer.workspaceId);
    if (workspace) {
      workspace.endedConnections.push(peer.connectionId);
      if (workspace.endedConnections.length > 8) workspace.endedConnections.shift();
    }
    if (workspace?.companion === peer) {
      workspace.companion = undefined;
      // Until the directory says otherwise, the workspace is offline as far as this replica knows.
      if (workspace.view?.connectionId === peer.connectionId) workspace.view = { ...workspace.view, status: 'offline', connectionId: null };
      this.statusChanged(workspace);
      this.collect(workspace);
    }
    void this.directoryCall('companionDisconnected', () =>
      this.options.directory.companionDisconnected({ connectionId: peer.connectionId, workspaceId: peer.workspaceId, deviceId: peer.deviceId, reason }),
    );
  }

  /** Closes a revoked device's socket if this replica holds it. */
  deviceRevoked(deviceId: string, workspaceId: string): boolean {
    const companion = this.workspaces.get(workspaceId)?.companion;
    if (!companion || companion.deviceId !== deviceId) return false;
    this.companionClosed(companion, 'revoked');
    companion.socket.close(1008, 'revoked');
    return true;
  }

  /** A frame from a Companion, validated for its socket (version, direction, workspace). */
  companionFrame(peer: CompanionPeer, frame: AnyWireFrame, text: string): void {
    const workspace = this.workspace(peer.workspaceId);
    if (workspace.companion !== peer) return; // a replaced connection's late frames go nowhere
    switch (frame.type) {
      case 'runtime.response':
        this.routeResponse(workspace, frame.requestId, text, peer.wire, frame);
        return;
      case 'runtime.gap':
        this.sequencedGap(workspace, frame.fromRelaySequence, frame.throughRelaySequence, text, peer.wire, true, peer.connectionId);
        return;
      case 'runtime.encrypted':
        if ((frame.payloadKind === 'event' || frame.payloadKind === 'interaction') && frame.relaySequence !== undefined) {
          this.sequencedFrame(workspace, frame, frame.relaySequence, text, peer.wire);
        } else if (frame.payloadKind === 'response' && frame.requestId !== undefined) {
          this.routeResponse(workspace, frame.requestId, text, peer.wire, undefined);
        } else {
          this.drop('companion', 'ENCRYPTED_UNROUTABLE');
        }
        return;
      default:
        if (SEQUENCED_TYPES.has(frame.type)) {
          this.sequencedFrame(workspace, frame, (frame as { relaySequence: number }).relaySequence, text, peer.wire);
        } else {
          this.drop('companion', 'FRAME_UNROUTABLE');
        }
    }
  }

  /**
   * The trace of the request a Companion's response frame answers (kept with its route), for the frame's span
   * to join; null for any other frame, or a response nobody awaits (it then starts a trace of its own).
   */
  requestTraceOf(peer: CompanionPeer, frame: AnyWireFrame): string | null {
    const requestId = frame.type === 'runtime.response' || (frame.type === 'runtime.encrypted' && frame.payloadKind === 'response') ? frame.requestId : undefined;
    if (requestId === undefined) return null;
    return this.routes.peek(peer.workspaceId, requestId)?.traceparent ?? null;
  }

  // ---------------------------------------------------------------- Browsers

  /**
   * Opens a browser session: negotiates its version (§2), sends `session.ready` and the retained
   * interaction requests (§8), and starts waiting for its first ACK.
   */
  async browserOpened(peer: BrowserPeer): Promise<'open' | 'refused'> {
    const workspace = this.workspace(peer.workspaceId);
    let lookup: 'known' | 'unknown' | 'failed' = 'known';
    if (!workspace.companion && !workspace.view) {
      const view = await this.options.directory.getWorkspaceStatus(peer.workspaceId).then(
        (found) => found,
        () => undefined,
      );
      if (view) {
        workspace.view = view;
        this.noteLiveConnection(workspace);
      } else {
        lookup = view === null ? 'unknown' : 'failed';
      }
    }
    if (!peer.socket.isOpen) return 'refused';
    const companionWire = this.companionWire(peer.workspaceId);
    const negotiated = negotiateWireVersion(peer.acceptedWireVersions, companionWire ? SUPPORTED_FOR[companionWire] : ['1.2', '1.1']);
    peer.wire = negotiated ?? negotiateWireVersion(peer.acceptedWireVersions, ['1.2', '1.1']) ?? '1.1';
    const status = this.statusOf(workspace);
    const session: SessionState = {
      peer,
      epoch: workspace.log.epoch,
      deliveredThrough: -1,
      awaitingFirstAck: true,
      firstAckTimer: undefined,
      parkedCursor: undefined,
      redeliveryDeferred: false,
      redelivered: { epoch: null, sequences: new Set() },
      redelivery: [],
      afterRedelivery: undefined,
      catchingUp: false,
      pumpWaiting: false,
      pumpUnwritten: 0,
      ackCredits: 0,
      lastStatus: status,
      ended: false,
    };
    workspace.sessions.set(peer.sessionId, session);
    this.sendControl(session, {
      type: 'session.ready',
      controlVersion: '1.0',
      relayProtocolVersion: peer.wire,
      sessionId: peer.sessionId,
      workspaceId: peer.workspaceId,
      workspaceStatus: status,
    });
    // session.error comes only after session.ready (§10).
    if (lookup !== 'known') {
      this.sessionError(session, lookup === 'unknown' ? 'WORKSPACE_NOT_FOUND' : 'RELAY_INTERNAL_ERROR');
      return 'refused';
    }
    if (negotiated === null) {
      this.sessionError(session, 'RELAY_PROTOCOL_VERSION_UNSUPPORTED', false);
      return 'refused';
    }
    if (workspace.streamUnconfirmed) session.redeliveryDeferred = true;
    else this.redeliverInteractions(workspace, session);
    session.firstAckTimer = setTimeout(() => this.startLive(workspace, session), this.options.config.firstAckTimeoutMs);
    session.firstAckTimer.unref();
    void this.directoryCall('browserSessionStarted', () =>
      this.options.directory.browserSessionStarted({ sessionId: peer.sessionId, workspaceId: peer.workspaceId, userId: peer.userId, wireVersion: peer.wire }),
    );
    return 'open';
  }

  /** A frame from a browser session, validated for its socket (negotiated version, direction, workspace). */
  browserFrame(peer: BrowserPeer, frame: AnyWireFrame, text: string): void {
    const workspace = this.workspaces.get(peer.workspaceId);
    const session = workspace?.sessions.get(peer.sessionId);
    if (!workspace || !session || session.ended) return;
    switch (frame.type) {
      case 'runtime.ack':
        this.toCompanion(workspace, session, 'ack', text, null, null, null);
        if (session.awaitingFirstAck) {
          if (workspace.streamUnconfirmed) this.park(session, frame.throughRelaySequence);
          else this.catchUp(workspace, session, frame.throughRelaySequence);
        }
        return;
      case 'runtime.request': {
        const companionWire = this.companionWire(workspace.id);
        if (companionWire && companionWire !== peer.wire && !validateWireFrame(companionWire, frame).ok) {
          // Never forward a request the Companion's schema rejects (§2).
          this.drop('browser', 'REQUEST_NOT_IN_COMPANION_VERSION');
          return;
        }
        this.toCompanion(workspace, session, 'request', text, frame.requestId, frame.method, candidateContext(frame));
        return;
      }
      case 'runtime.encrypted':
        if (frame.payloadKind === 'request' && frame.requestId !== undefined) {
          this.toCompanion(workspace, session, 'request', text, frame.requestId, null, null);
        } else {
          this.drop('browser', 'ENCRYPTED_UNROUTABLE');
        }
        return;
      default:
        this.drop('browser', 'FRAME_UNROUTABLE');
    }
  }

  browserClosed(peer: BrowserPeer, reason: BrowserSessionEndReason, closeCode: number | undefined): void {
    const workspace = this.workspaces.get(peer.workspaceId);
    const session = workspace?.sessions.get(peer.sessionId);
    if (!workspace || !session) return;
    session.ended = true;
    if (session.firstAckTimer) clearTimeout(session.firstAckTimer);
    workspace.sessions.delete(peer.sessionId);
    this.routes.dropSession(peer.sessionId);
    if (!session.awaitingFirstAck) {
      const ended = workspace.endedSessions.get(peer.userId) ?? [];
      ended.push({ epoch: session.epoch, at: this.now() });
      if (ended.length > MAX_ENDED_PER_USER) ended.shift();
      workspace.endedSessions.set(peer.userId, ended);
    }
    void this.directoryCall('browserSessionEnded', () =>
      this.options.directory.browserSessionEnded({ sessionId: peer.sessionId, workspaceId: peer.workspaceId, reason, ...(closeCode !== undefined ? { closeCode } : {}) }),
    );
    this.collect(workspace);
  }

  /**
   * Takes one ACK credit of the session: false when it has none. A browser ACKs what it applies (§6), so its
   * ACKs are bounded by what the relay sent it — at most one per sequenced frame or gap delivered since — and
   * never count against its request budget: a busy Workspace cannot rate-limit a browser that follows it.
   */
  takeAckCredit(peer: BrowserPeer): boolean {
    const session = this.workspaces.get(peer.workspaceId)?.sessions.get(peer.sessionId);
    if (!session || session.ended || session.ackCredits < 1) return false;
    session.ackCredits -= 1;
    return true;
  }

  /** Ends a session with `session.error` and the matching close code (§10). */
  sessionError(session: SessionState | BrowserPeer, code: SessionErrorCode, retryable = sessionErrorRetryable(code)): void {
    const state = 'peer' in session ? session : this.workspaces.get(session.workspaceId)?.sessions.get(session.sessionId);
    const socket = 'peer' in session ? session.peer.socket : session.socket;
    socket.sendFinal(JSON.stringify({ type: 'session.error', code, retryable }));
    socket.close(retryable ? CLOSE_CODES.SESSION_ERROR_RETRYABLE : CLOSE_CODES.SESSION_ERROR_FATAL);
    if (state) state.ended = true;
    this.options.metrics.rejections({ socket: 'browser', code });
  }

  // ---------------------------------------------------------------- status

  /** The directory reports a workspace's status as all replicas see it. */
  workspaceStatusChanged(view: WorkspaceStatusView): void {
    const workspace = this.workspaces.get(view.workspaceId);
    if (!workspace) return;
    if (workspace.companion && view.status === 'offline') {
      // Our Companion is live, yet the directory says offline: another replica reported it unreachable (or
      // swept this replica as dead) while this one was slow or cut off. Whatever the views' clocks say, the
      // holder's word wins: it records the connection again, and every replica sees it online.
      this.reassertPresence(workspace, workspace.companion);
      return;
    }
    // Feeds deliver at least once: ignore views older than the one held, and "online" for a connection
    // that this replica already saw end.
    const held = workspace.view?.changedAt?.getTime();
    if (held !== undefined && view.changedAt && view.changedAt.getTime() < held) return;
    if (view.status === 'online' && view.connectionId && workspace.endedConnections.includes(view.connectionId)) return;
    const local = workspace.companion;
    if (local && view.status === 'online' && view.connectionId && view.connectionId !== local.connectionId && view.changedAt && view.changedAt.getTime() > local.connectedAt) {
      // A newer Companion connection of this workspace is live on another replica: it replaces ours.
      workspace.view = view;
      workspace.companion = undefined;
      local.replaced = true;
      this.companionClosed(local, 'replaced');
      local.socket.close(CLOSE_CODES.NORMAL, 'replaced');
    } else if (local && view.connectionId !== local.connectionId) {
      return; // an older or stale view: ours is live
    }
    workspace.view = view;
    this.statusChanged(workspace);
  }

  private reassertPresence(workspace: WorkspaceState, peer: CompanionPeer): void {
    if (workspace.reasserting) return;
    this.options.logger.log('warn', 'companion-presence-reasserted', { workspaceId: workspace.id, connectionId: peer.connectionId });
    workspace.reasserting = this.directoryCall('companionConnected', () =>
      this.options.directory.companionConnected({ connectionId: peer.connectionId, workspaceId: peer.workspaceId, deviceId: peer.deviceId, wireVersion: peer.wire }),
    ).finally(() => {
      workspace.reasserting = undefined;
    });
  }

  private statusOf(workspace: WorkspaceState): 'online' | 'offline' {
    return workspace.companion || workspace.view?.status === 'online' ? 'online' : 'offline';
  }

  /** The Companion connection that is live (here or on another replica), if any. */
  private liveConnection(workspace: WorkspaceState): string | null {
    return workspace.companion?.connectionId ?? (workspace.view?.status === 'online' ? (workspace.view.connectionId ?? null) : null);
  }

  /**
   * Learns which Companion connection is live (however the view came: this replica's own Companion, the
   * directory's feed, or a lookup when a session opens). A connection other than the one whose frames the ring
   * holds may be a restart: the stream is unconfirmed until the live connection's first frame is classified.
   */
  private noteLiveConnection(workspace: WorkspaceState): void {
    const connection = this.liveConnection(workspace);
    if (connection === null || connection === workspace.streamConnection) return;
    workspace.streamConnection = connection;
    if (workspace.log.head >= 0 && workspace.logConnection !== connection) workspace.streamUnconfirmed = true;
  }

  /**
   * A frame or gap of `connection` was classified into the ring: the ring now holds that connection's stream.
   * It confirms the stream only when it is the live connection's (or of unknown origin: records of older
   * gateways); a dead connection's frames read from the log leave the stream unconfirmed instead.
   */
  private streamFrom(workspace: WorkspaceState, connection: string | null | undefined): void {
    if (connection) workspace.logConnection = connection;
    const live = this.liveConnection(workspace);
    if (!connection || connection === live) {
      this.confirmStream(workspace);
    } else if (live !== null && workspace.log.head >= 0) {
      workspace.streamUnconfirmed = true;
    }
  }

  private statusChanged(workspace: WorkspaceState): void {
    const status = this.statusOf(workspace);
    this.noteLiveConnection(workspace);
    const companionWire = this.companionWire(workspace.id);
    for (const session of workspace.sessions.values()) {
      if (session.ended) continue;
      if (status === 'online' && companionWire && !SUPPORTED_FOR[companionWire].includes(session.peer.wire)) {
        // The Companion came back below the session's version (§2): a reconnect renegotiates only if
        // the browser's list admits what the Companion speaks now.
        const renegotiates = negotiateWireVersion(session.peer.acceptedWireVersions, SUPPORTED_FOR[companionWire]) !== null;
        this.sessionError(session, 'RELAY_PROTOCOL_VERSION_UNSUPPORTED', renegotiates);
        continue;
      }
      if (session.lastStatus === status) continue;
      session.lastStatus = status;
      this.sendControl(session, { type: 'workspace.status', workspaceId: workspace.id, status });
    }
  }

  // ---------------------------------------------------------------- requests and responses

  private toCompanion(
    workspace: WorkspaceState,
    session: SessionState,
    kind: 'request' | 'ack',
    text: string,
    requestId: string | null,
    method: string | null,
    candidate: CandidateContext | null,
  ): void {
    const companion = workspace.companion;
    const remoteOnline = !companion && workspace.view?.status === 'online';
    if (!companion && !remoteOnline) {
      // Offline: the relay forwards nothing and fabricates nothing (§12 step 8).
      this.options.metrics.frames({ type: kind === 'ack' ? 'runtime.ack' : 'runtime.request', direction: 'dropped-offline' });
      return;
    }
    if (requestId !== null) {
      const added = this.routes.add(
        {
          workspaceId: workspace.id,
          requestId,
          sessionId: session.peer.sessionId,
          replicaId: this.options.instanceId,
          method: method ?? undefined,
          ...(candidate ? { interaction: candidate } : {}),
          ...traceOfRequest(),
        },
        this.now(),
      );
      if (added === 'session-full' || added === 'workspace-full' || added === 'full') {
        // Too many requests awaiting responses (this session's, its workspace's or the process's): refused
        // openly rather than by evicting an older route, which would lose someone else's response.
        this.sessionError(session, 'RATE_LIMITED');
        return;
      }
      if (added === 'in-use') {
        // Another session awaits this requestId's response: never forward a request whose response would
        // go to someone else. Browsers use fresh requestIds (§5), so only a misbehaving client gets here.
        this.drop('browser', 'REQUEST_ID_IN_USE');
        return;
      }
    }
    if (companion) {
      if (kind === 'ack') this.forwardAck(workspace, companion, text);
      else this.sendToCompanion(companion, text, 'runtime.request');
      return;
    }
    if (!this.inboundPublisher) return;
    this.inboundPublisher.enqueue(workspace.id, COMPANION_FRAME_ROUTED, {
      origin: this.options.instanceId,
      sessionId: session.peer.sessionId,
      kind,
      requestId,
      method,
      candidate,
      text,
    } satisfies CompanionFrameRoutedData);
    // A request must not vanish with a dead holder; an ACK may (the browser's next one covers it).
    if (requestId !== null) {
      this.receipts.expect({ workspaceId: workspace.id, requestId, sessionId: session.peer.sessionId, connectionId: workspace.view?.connectionId ?? null });
    }
  }

  /**
   * A request routed to another replica got neither a receipt nor a response in time: the replica holding the
   * Companion is dead or cut off, and the request is lost. The connection it was routed to is reported gone
   * (`unreachable`, conditional on that connection still being the live one), so every replica, GetWorkspaceStatus
   * and new sessions say offline at once instead of after the liveness sweep; then the requester gets the
   * protocol's `session.error WORKSPACE_OFFLINE` (retryable: the browser reconnects, a lost query fails as lost
   * and a mutation waits to be re-sent once the workspace is online). A holder that was only slow re-asserts its
   * connection when it hears of the report (`workspaceStatusChanged`).
   */
  private receiptMissing(receipt: AwaitedReceipt): void {
    const workspace = this.workspaces.get(receipt.workspaceId);
    this.options.metrics.rejections({ socket: 'bus', code: 'ROUTE_RECEIPT_MISSING' });
    this.options.logger.log('warn', 'companion-unreachable', { workspaceId: receipt.workspaceId, connectionId: receipt.connectionId ?? undefined });
    const reported = workspace ? this.reportUnreachable(workspace, receipt.connectionId) : Promise.resolve();
    void reported.then(() => {
      const session = this.workspaces.get(receipt.workspaceId)?.sessions.get(receipt.sessionId);
      if (session && !session.ended) this.sessionError(session, 'WORKSPACE_OFFLINE');
    });
  }

  private reportUnreachable(workspace: WorkspaceState, connectionId: string | null): Promise<void> {
    const view = workspace.view;
    if (workspace.companion || !view || view.status !== 'online' || !connectionId || view.connectionId !== connectionId || !view.deviceId) {
      return workspace.reportingUnreachable ?? Promise.resolve();
    }
    const { deviceId } = view;
    // Until the directory says otherwise, the workspace is offline as far as this replica knows (as when a
    // Companion of its own closes): its sessions hear it now, and a browser reconnecting here is told offline.
    workspace.view = { ...view, status: 'offline', connectionId: null };
    this.statusChanged(workspace);
    workspace.reportingUnreachable ??= this.directoryCall('companionDisconnected', () =>
      this.options.directory.companionDisconnected({ connectionId, workspaceId: workspace.id, deviceId, reason: 'unreachable' }),
    ).finally(() => {
      workspace.reportingUnreachable = undefined;
    });
    return workspace.reportingUnreachable;
  }

  private sendToCompanion(companion: CompanionPeer, text: string, type: string): void {
    if (companion.socket.send(text)) this.options.metrics.frames({ type, direction: 'outbound' });
  }

  private routeResponse(workspace: WorkspaceState, requestId: string, text: string, wire: WireVersion, frame: AnyWireFrame | undefined): void {
    const route = this.routes.take(workspace.id, requestId, this.now());
    if (!route) {
      this.drop('companion', 'RESPONSE_UNROUTABLE');
      return;
    }
    let checked = text;
    let parsed = frame;
    if (frame?.type === 'runtime.response') {
      // Checked here against the Companion's version, before it is forwarded anywhere (the bus included).
      const verdict = checkCompanionResponse(frame, route.method, wire, wire);
      if (!verdict.ok) {
        this.drop('companion', verdict.refusal);
        parsed = undefined;
      }
      checked = verdict.text;
    }
    if (route.replicaId === this.options.instanceId) {
      this.deliverResponse(workspace, route.sessionId, checked, wire, route.method ?? null, route.interaction ?? null, parsed);
      return;
    }
    this.framesPublisher?.enqueue(workspace.id, RESPONSE_ROUTED, {
      origin: this.options.instanceId,
      targetInstance: route.replicaId,
      sessionId: route.sessionId,
      requestId,
      method: route.method ?? null,
      candidate: route.interaction ?? null,
      text: checked,
      wire,
    } satisfies ResponseRoutedData);
  }

  private deliverResponse(
    workspace: WorkspaceState,
    sessionId: string,
    text: string,
    wire: WireVersion,
    method: string | null,
    candidate: CandidateContext | null,
    parsed: AnyWireFrame | undefined,
  ): void {
    const session = workspace.sessions.get(sessionId);
    if (!session || session.ended) return;
    let out = text;
    let frame = parsed;
    if (session.peer.wire === '1.1' && wire === '1.2') {
      frame ??= JSON.parse(text) as AnyWireFrame;
      if (frame.type === 'runtime.response') {
        // The result was checked in the Companion's version; a 1.1 session needs it to hold in 1.1 too.
        const verdict = checkCompanionResponse(frame, method ?? undefined, wire, session.peer.wire);
        if (!verdict.ok) this.drop('companion', verdict.refusal);
        out = verdict.text;
        if (!verdict.ok) frame = undefined;
      }
    }
    this.sendToBrowser(session, out, 'runtime.response');
    if (candidate) {
      frame ??= JSON.parse(out) as AnyWireFrame;
      const error = frame.type === 'runtime.response' ? frame.error : undefined;
      void this.directoryCall('recordInteraction', () =>
        this.options.directory.recordInteraction({
          workspaceId: workspace.id,
          interactionId: candidate.interactionId,
          method: candidate.method,
          phase: 'candidate',
          sessionId,
          userId: session.peer.userId,
          outcomeKind: candidate.outcomeKind,
          responseKind: error ? error.code : 'accepted',
          occurredAt: new Date(this.now()),
        }),
      );
    }
  }

  // ---------------------------------------------------------------- sequenced frames

  private sequencedFrame(workspace: WorkspaceState, frame: AnyWireFrame, relaySequence: number, text: string, wire: WireVersion): void {
    const { log } = workspace;
    const classification = log.classify(relaySequence, text, frame.type === 'runtime.encrypted');
    if (classification === 'new-epoch') this.newEpoch(workspace, uuidv7(this.now()));
    const entry = loggedFrame(frame, relaySequence, text, wire, this.now());
    if (classification !== 'replay') {
      log.append(entry, this.now());
      if (this.framesBudget.over) this.relieve('frames-log');
      // Before confirmStream: sessions that joined meanwhile get the retained interactions as of this frame.
      this.retain(workspace, entry, true);
    }
    const connectionId = workspace.companion?.connectionId;
    this.streamFrom(workspace, connectionId);
    // Browsers first: the frames log is written after the sends, off the latency path.
    this.fanOut(workspace, classification === 'replay' ? (log.get(relaySequence) ?? entry) : entry);
    if (classification === 'replay') return;
    this.framesPublisher?.enqueue(workspace.id, FRAMES_SEQUENCED, {
      epoch: log.epoch,
      item: { relaySequence, text, wire, at: entry.at, ...(connectionId ? { connectionId } : {}) } satisfies SequencedItem,
    });
  }

  private sequencedGap(
    workspace: WorkspaceState,
    from: number,
    through: number,
    text: string,
    wire: WireVersion,
    publish: boolean,
    connectionId: string | undefined,
  ): void {
    const { log } = workspace;
    if (log.epoch === null) this.newEpoch(workspace, uuidv7(this.now()));
    log.noteGap(through);
    this.streamFrom(workspace, connectionId);
    if (publish) {
      this.framesPublisher?.enqueue(workspace.id, FRAMES_SEQUENCED, {
        epoch: log.epoch,
        item: { gap: { from, through }, text, wire, at: this.now(), ...(connectionId ? { connectionId } : {}) } satisfies SequencedItem,
      });
    }
    for (const session of workspace.sessions.values()) {
      if (!this.ready(workspace, session) || through <= session.deliveredThrough) continue;
      // Frames this replica still holds are better than a gap: the browser needs no snapshot.
      // They go out paced by what the browser reads, as a catch-up from the ring (they may be many and large).
      if (log.holdsContiguous(session.deliveredThrough, through)) {
        session.catchingUp = true;
        this.pump(workspace, session);
        continue;
      }
      this.sendToBrowser(session, text, 'runtime.gap');
      this.options.metrics.gaps({ origin: 'companion' });
      session.deliveredThrough = through;
    }
  }

  private newEpoch(workspace: WorkspaceState, epoch: string): void {
    workspace.log.startEpoch(epoch);
    // An ACK held for the previous stream says nothing about the new one.
    workspace.heldAck = undefined;
    // Interactions of a previous epoch died with the Companion that raised them.
    workspace.retained.clear();
    this.options.logger.log('info', 'stream-epoch-started', { workspaceId: workspace.id, epoch });
  }

  /** Interaction retention (§8) and its audit. */
  private retain(workspace: WorkspaceState, entry: LoggedFrame, audit: boolean): void {
    if (!entry.interactionId) return;
    const { evicted, clamped } = workspace.retained.note(entry);
    if (evicted > 0) this.options.metrics.retentionEvictions({ structure: 'interactions', bound: 'workspace' }, evicted);
    if (clamped) this.options.metrics.retentionClamped();
    if (this.interactionsBudget.over) this.relieve('interactions');
    if (!audit) return;
    const phase = entry.type === 'interaction.request' ? 'requested' : entry.type === 'interaction.resolved' ? 'resolved' : 'cancelled';
    void this.directoryCall('recordInteraction', () =>
      this.options.directory.recordInteraction({
        workspaceId: workspace.id,
        interactionId: entry.interactionId as string,
        method: entry.interactionMethod ?? 'unknown',
        phase,
        relaySequence: entry.relaySequence,
        occurredAt: new Date(entry.at),
      }),
    );
  }

  private redeliverInteractions(workspace: WorkspaceState, session: SessionState): void {
    const now = this.now();
    const { live, expired } = workspace.retained.redeliverable(now);
    this.auditExpired(workspace, expired, now);
    session.redelivered = { epoch: workspace.log.epoch, sequences: new Set() };
    // Paced like a catch-up (1,000 requests of 641 KiB would pass any send high-water mark at once). Marked as
    // delivered now, so the catch-up and live frames that follow never send them again.
    session.redelivery = live.filter((entry) => this.textFor(session, entry) !== null);
    for (const entry of session.redelivery) session.redelivered.sequences.add(entry.relaySequence);
    this.pump(workspace, session);
  }

  /** Retained requests given up at their (clamped) expiry (§8: expired requests may be dropped). */
  private auditExpired(workspace: WorkspaceState, expired: readonly LoggedFrame[], now: number): void {
    for (const entry of expired) {
      void this.directoryCall('recordInteraction', () =>
        this.options.directory.recordInteraction({
          workspaceId: workspace.id,
          interactionId: entry.interactionId as string,
          method: entry.interactionMethod ?? 'unknown',
          phase: 'expired',
          relaySequence: entry.relaySequence,
          occurredAt: new Date(now),
        }),
      );
    }
  }

  /**
   * A process-wide memory bound is passed: the workspaces holding the most give up their oldest entries
   * first (`relieve`), so one tenant's volume cannot push another's small ring or interactions out.
   */
  private relieve(structure: 'frames-log' | 'interactions'): void {
    const holders = [...this.workspaces.values()].map((workspace) => (structure === 'frames-log' ? workspace.log : workspace.retained));
    const count = () => holders.reduce((sum, holder) => sum + holder.size, 0);
    const before = count();
    relieve(structure === 'frames-log' ? this.framesBudget : this.interactionsBudget, holders);
    const evicted = before - count();
    if (evicted > 0) {
      this.options.metrics.retentionEvictions({ structure, bound: 'process' }, evicted);
      this.options.logger.log('warn', 'retention-process-bound', { structure, evicted });
    }
  }

  private fanOut(workspace: WorkspaceState, entry: LoggedFrame): void {
    for (const session of workspace.sessions.values()) {
      if (!this.ready(workspace, session) || entry.relaySequence <= session.deliveredThrough) continue;
      this.sendSequenced(session, entry);
    }
  }

  /** Whether live frames may go to the session; moves it to the log's current epoch. */
  private ready(workspace: WorkspaceState, session: SessionState): boolean {
    // A session still catching up takes live frames from the ring, behind its catch-up (`pump`).
    if (session.awaitingFirstAck || session.ended || session.catchingUp) return false;
    if (session.epoch !== workspace.log.epoch) {
      session.epoch = workspace.log.epoch;
      session.deliveredThrough = -1;
    }
    return true;
  }

  private sendSequenced(session: SessionState, entry: LoggedFrame): void {
    session.deliveredThrough = Math.max(session.deliveredThrough, entry.relaySequence);
    if (this.alreadyRedelivered(session, entry.relaySequence)) return;
    const text = this.textFor(session, entry);
    if (text !== null) this.sendToBrowser(session, text, entry.type);
  }

  /** The frame's text for the session's version: 1.2 data is downgraded for a 1.1 session (§2). */
  private textFor(session: SessionState, entry: LoggedFrame): string | null {
    if (entry.type === 'runtime.encrypted') return session.peer.encrypted ? entry.text : null;
    if (session.peer.wire !== '1.1' || entry.wire !== '1.2') return entry.text;
    if (entry.text11 !== undefined) return entry.text11;
    // A copy of its own counts against the ring's and the retention's bounds like the frame itself.
    const workspace = this.workspaces.get(session.peer.workspaceId);
    const { text, invalid } = text11Of(entry, workspace ? [workspace.log, workspace.retained] : []);
    if (invalid) this.drop('companion', 'DOWNGRADE_INVALID');
    workspace?.log.prune(this.now());
    if (this.framesBudget.over) this.relieve('frames-log');
    if (this.interactionsBudget.over) this.relieve('interactions');
    return text;
  }

  /** The first ACK of a session: catch it up from the frames log, then let live frames flow. */
  private catchUp(workspace: WorkspaceState, session: SessionState, cursor: number): void {
    if (session.firstAckTimer) clearTimeout(session.firstAckTimer);
    if (session.redelivery.length > 0) {
      // The retained interactions are still going out: the catch-up follows them.
      session.afterRedelivery = cursor;
      return;
    }
    session.awaitingFirstAck = false;
    const { log } = workspace;
    session.epoch = log.epoch;
    const head = log.head;
    const trusted = cursor === -1 || this.trustCursor(workspace, session.peer.userId);
    if (head < 0) {
      session.deliveredThrough = trusted ? cursor : -1;
      return;
    }
    if (!trusted) {
      this.sendGap(workspace, session, 0, head);
      session.deliveredThrough = head;
      return;
    }
    if (cursor >= head) {
      session.deliveredThrough = cursor;
      return;
    }
    session.deliveredThrough = cursor;
    session.catchingUp = true;
    this.pump(workspace, session);
  }

  /**
   * Sends a session's catch-up from the ring, paced by what the browser reads: while the socket's unsent
   * bytes stay under the low-water mark (a quarter of the high-water mark), a slice at a time; then it waits
   * until its frames have been written to the kernel and goes on. Frames that arrive meanwhile are in the
   * ring, so they follow in order; frames the ring dropped meanwhile (retention) become a gap; a new epoch
   * meanwhile restarts the catch-up at the new stream's start. It ends at the head: live frames then flow.
   */
  private pump(workspace: WorkspaceState, session: SessionState): void {
    if ((!session.catchingUp && session.redelivery.length === 0) || session.pumpWaiting) return;
    const { log } = workspace;
    const socket = session.peer.socket;
    const lowWater = Math.max(16 * 1024, Math.floor(this.options.config.sendHighWaterBytes / 4));
    const written = () => {
      session.pumpUnwritten -= 1;
      if (session.pumpWaiting && session.pumpUnwritten === 0) this.resumePump(workspace, session);
    };
    const wait = () => {
      session.pumpWaiting = true;
      // What fills the socket is not ours (responses, control): look again shortly.
      if (session.pumpUnwritten === 0) setTimeout(() => this.resumePump(workspace, session), CATCH_UP_RECHECK_MS).unref();
    };
    for (;;) {
      if (session.ended || !socket.isOpen) {
        session.catchingUp = false;
        session.redelivery = [];
        return;
      }
      if (session.redelivery.length > 0) {
        // Retained interactions first (§8: right after session.ready), unless their epoch has ended meanwhile.
        if (session.redelivered.epoch !== log.epoch) session.redelivery = [];
        if (socket.bufferedAmount >= lowWater) return wait();
        let taken = 0;
        while (taken < session.redelivery.length && taken < CATCH_UP_SLICE) {
          const entry = session.redelivery[taken] as LoggedFrame;
          taken += 1;
          const text = this.textFor(session, entry);
          if (text === null) continue;
          session.pumpUnwritten += 1;
          if (!this.sendToBrowser(session, text, entry.type, written)) session.pumpUnwritten -= 1;
          this.options.metrics.redelivered();
          if (socket.bufferedAmount >= lowWater) break;
        }
        session.redelivery.splice(0, taken);
        if (session.redelivery.length > 0) continue;
        // Done: the first ACK's catch-up (or the start of live frames) that waited behind them.
        const next = session.afterRedelivery;
        session.afterRedelivery = undefined;
        if (next === undefined) continue;
        if (workspace.streamUnconfirmed) this.park(session, next);
        else if (next === 'live') this.startLive(workspace, session);
        else this.catchUp(workspace, session, next);
        return;
      }
      if (!session.catchingUp) return;
      if (session.epoch !== log.epoch) {
        session.epoch = log.epoch;
        session.deliveredThrough = -1;
      }
      if (session.deliveredThrough >= log.head) {
        session.catchingUp = false;
        return;
      }
      if (socket.bufferedAmount >= lowWater) return wait();
      for (const item of log.catchUp(session.deliveredThrough, this.now(), CATCH_UP_SLICE)) {
        if (item.kind === 'gap') {
          session.pumpUnwritten += 1;
          if (!this.sendGap(workspace, session, item.from, item.through, written)) session.pumpUnwritten -= 1;
          session.deliveredThrough = item.through;
          continue;
        }
        // Already sent to this session by the redelivery of retained interactions (§8): at most once.
        if (this.alreadyRedelivered(session, item.frame.relaySequence)) {
          session.deliveredThrough = item.frame.relaySequence;
          continue;
        }
        const text = this.textFor(session, item.frame);
        if (text !== null) {
          session.pumpUnwritten += 1;
          if (!this.sendToBrowser(session, text, item.frame.type, written)) session.pumpUnwritten -= 1;
        }
        this.options.metrics.replayed();
        session.deliveredThrough = item.frame.relaySequence;
        if (socket.bufferedAmount >= lowWater) break;
      }
    }
  }

  private resumePump(workspace: WorkspaceState, session: SessionState): void {
    if (!session.pumpWaiting) return;
    session.pumpWaiting = false;
    this.pump(workspace, session);
  }

  /**
   * Whether the frame already reached the session as a redelivered interaction request: sent once, never
   * again by catch-up or fan-out. Only for the epoch of the redelivery (a new epoch reuses the numbers).
   */
  private alreadyRedelivered(session: SessionState, relaySequence: number): boolean {
    const { redelivered } = session;
    if (redelivered.sequences.size === 0) return false;
    if (redelivered.epoch !== session.epoch) {
      redelivered.sequences.clear();
      return false;
    }
    return redelivered.sequences.delete(relaySequence);
  }

  /** The first ACK while the stream is unconfirmed: held until `confirmStream`. */
  private park(session: SessionState, cursor: number | 'live'): void {
    if (session.firstAckTimer) clearTimeout(session.firstAckTimer);
    session.firstAckTimer = undefined;
    session.parkedCursor = cursor;
  }

  /**
   * The live Companion's first sequenced frame or gap has been classified (and a new epoch started if it
   * is one): sessions that joined meanwhile get the retained interactions and their catch-up now, from the
   * stream that is actually live.
   */
  private confirmStream(workspace: WorkspaceState): void {
    if (!workspace.streamUnconfirmed) return;
    workspace.streamUnconfirmed = false;
    for (const session of workspace.sessions.values()) {
      if (session.ended) continue;
      if (session.redeliveryDeferred) {
        session.redeliveryDeferred = false;
        this.redeliverInteractions(workspace, session);
      }
      const parked = session.parkedCursor;
      session.parkedCursor = undefined;
      if (parked === 'live') this.startLive(workspace, session);
      else if (parked !== undefined) this.catchUp(workspace, session, parked);
    }
  }

  /** No first ACK in time: live frames start from the head (the browser heals any hole itself). */
  private startLive(workspace: WorkspaceState, session: SessionState): void {
    if (!session.awaitingFirstAck || session.ended) return;
    if (session.redelivery.length > 0) {
      session.afterRedelivery ??= 'live';
      return;
    }
    if (workspace.streamUnconfirmed) {
      this.park(session, 'live');
      return;
    }
    session.awaitingFirstAck = false;
    session.epoch = workspace.log.epoch;
    session.deliveredThrough = workspace.log.head;
  }

  private trustCursor(workspace: WorkspaceState, userId: string): boolean {
    const ended = workspace.endedSessions.get(userId);
    if (!ended || ended.length === 0 || workspace.log.epoch === null) return false;
    const trusted = ended.every((entry) => entry.epoch === workspace.log.epoch);
    ended.pop();
    if (ended.length === 0) workspace.endedSessions.delete(userId);
    return trusted;
  }

  private sendGap(workspace: WorkspaceState, session: SessionState, from: number, through: number, written?: () => void): boolean {
    const sent = this.sendToBrowser(
      session,
      JSON.stringify({ type: 'runtime.gap', workspaceId: workspace.id, fromRelaySequence: from, throughRelaySequence: through, recovery: 'thread.snapshot' }),
      'runtime.gap',
      written,
    );
    this.options.metrics.gaps({ origin: 'relay-retention' });
    return sent;
  }

  // ---------------------------------------------------------------- bus records from other replicas

  /**
   * A record of `relay.workspace-frames.v1` (any replica, including earlier processes). Every frame in it is
   * checked again (`readBusFrame`) before it reaches a peer or the ring.
   */
  framesRecord(workspaceId: string, eventType: string, data: unknown, occurredAt: number): void {
    if ((data as { origin?: unknown }).origin === this.options.instanceId) return; // delivered on the fast path
    if (eventType === FRAMES_SEQUENCED) {
      const { epoch, items } = data as FramesSequencedData;
      if (typeof epoch !== 'string' || !Array.isArray(items)) {
        this.drop('bus', 'BUS_RECORD_INVALID');
        return;
      }
      const workspace = this.workspace(workspaceId);
      if (workspace.log.epoch !== epoch) {
        // Epoch ids are UUIDv7, ordered by creation: a late record of an older epoch (a previous holder of
        // the Companion, or the start-up rebuild still reading) never rolls the stream back.
        if (workspace.log.epoch !== null && epoch < workspace.log.epoch) return;
        this.newEpoch(workspace, epoch);
      }
      for (const item of items) {
        const checked = this.sequencedItem(workspaceId, item);
        if (!checked) continue;
        if ('gap' in item) {
          this.sequencedGap(workspace, item.gap.from, item.gap.through, item.text, checked.wire, false, item.connectionId);
          this.markDurable(workspace, epoch, item.gap.through);
          continue;
        }
        const entry = loggedFrame(checked.frame, item.relaySequence, item.text, checked.wire, typeof item.at === 'number' ? item.at : occurredAt);
        // Read from the log: durable.
        this.markDurable(workspace, epoch, item.relaySequence);
        if (!workspace.log.append(entry, this.now())) continue;
        if (this.framesBudget.over) this.relieve('frames-log');
        this.retain(workspace, entry, false);
        this.streamFrom(workspace, item.connectionId);
        this.fanOut(workspace, entry);
      }
      this.collect(workspace);
      return;
    }
    if (eventType === REQUEST_RECEIVED) {
      const receipt = data as RequestReceivedData;
      if (receipt.targetInstance === this.options.instanceId && typeof receipt.requestId === 'string') this.receipts.arrived(workspaceId, receipt.requestId);
      return;
    }
    if (eventType === RESPONSE_ROUTED) {
      const response = data as ResponseRoutedData;
      if (response.targetInstance !== this.options.instanceId) return;
      if (typeof response.requestId === 'string') this.receipts.arrived(workspaceId, response.requestId);
      const workspace = this.workspaces.get(workspaceId);
      if (!workspace) return;
      const checked = readBusFrame(response.text, { direction: 'companion-to-relay', workspaceId, wire: response.wire, maxFrameBytes: this.options.config.maxCompanionFrameBytes });
      if (!checked.ok) {
        this.drop('bus', checked.code);
        return;
      }
      const { frame } = checked;
      const requestId = frame.type === 'runtime.response' || (frame.type === 'runtime.encrypted' && frame.payloadKind === 'response') ? frame.requestId : undefined;
      // Only an answer to a request this replica forwarded for that session: the route it made then is taken
      // (freeing the session's budget) and names the method, whatever the record says.
      const route = requestId === undefined || requestId !== response.requestId ? undefined : this.routes.take(workspaceId, requestId, this.now());
      if (!route || route.sessionId !== response.sessionId || route.replicaId !== this.options.instanceId) {
        this.drop('bus', 'RESPONSE_UNROUTABLE');
        return;
      }
      let text = response.text;
      let parsed: AnyWireFrame | undefined = frame;
      if (frame.type === 'runtime.response') {
        const verdict = checkCompanionResponse(frame, route.method, checked.wire, checked.wire);
        if (!verdict.ok) {
          this.drop('bus', verdict.refusal);
          parsed = undefined;
        }
        text = verdict.text;
      }
      this.deliverResponse(workspace, route.sessionId, text, checked.wire, route.method ?? null, route.interaction ?? null, parsed);
    }
  }

  /** A sequenced item of a frames record, checked as the Companion's socket checked it; undefined (counted) when it fails. */
  private sequencedItem(workspaceId: string, item: SequencedItem): { frame: AnyWireFrame; wire: WireVersion } | undefined {
    const checked = readBusFrame(item?.text, { direction: 'companion-to-relay', workspaceId, wire: item?.wire, maxFrameBytes: this.options.config.maxCompanionFrameBytes });
    if (!checked.ok) {
      this.drop('bus', checked.code);
      return undefined;
    }
    const { frame } = checked;
    const fits =
      'gap' in item
        ? frame.type === 'runtime.gap' && frame.fromRelaySequence === item.gap?.from && frame.throughRelaySequence === item.gap?.through
        : (SEQUENCED_TYPES.has(frame.type) || (frame.type === 'runtime.encrypted' && (frame.payloadKind === 'event' || frame.payloadKind === 'interaction'))) &&
          (frame as { relaySequence?: unknown }).relaySequence === item.relaySequence;
    if (!fits) {
      this.drop('bus', 'BUS_RECORD_INVALID');
      return undefined;
    }
    return checked;
  }

  /**
   * A record of `relay.companion-inbound.v1`: forwarded if this replica holds the workspace's Companion, once
   * its frame passes the browser socket's checks again in the Companion's version. The route back is made from
   * the frame itself (requestId, method), and refused as on one replica when another session awaits that
   * requestId (REQUEST_ID_IN_USE) or the routes are full.
   */
  inboundRecord(workspaceId: string, data: CompanionFrameRoutedData, occurredAt: number): void {
    if (data.origin === this.options.instanceId || occurredAt < this.startedAt) return;
    const companion = this.workspaces.get(workspaceId)?.companion;
    if (!companion) return;
    if (data.kind === 'request' && typeof data.requestId === 'string' && typeof data.origin === 'string') {
      // The holder of the Companion is alive and took the request: the requester's replica stops waiting for it.
      this.framesPublisher?.enqueue(workspaceId, REQUEST_RECEIVED, {
        origin: this.options.instanceId,
        targetInstance: data.origin,
        requestId: data.requestId,
      } satisfies RequestReceivedData);
    }
    const checked = readBusFrame(data.text, {
      direction: 'browser-to-relay',
      workspaceId,
      wire: companion.wire,
      maxFrameBytes: this.options.config.maxBrowserFrameBytes,
      encryption: companion.encrypted,
    });
    if (!checked.ok) {
      this.drop('bus', checked.code);
      return;
    }
    const { frame } = checked;
    const requestId = frame.type === 'runtime.request' || (frame.type === 'runtime.encrypted' && frame.payloadKind === 'request') ? frame.requestId : undefined;
    const kindFits = data.kind === 'ack' ? frame.type === 'runtime.ack' : data.kind === 'request' && requestId !== undefined && requestId === data.requestId;
    if (!kindFits || typeof data.sessionId !== 'string' || typeof data.origin !== 'string') {
      this.drop('bus', 'BUS_RECORD_INVALID');
      return;
    }
    if (requestId !== undefined) {
      const added = this.routes.add(
        {
          workspaceId,
          requestId,
          sessionId: data.sessionId,
          replicaId: data.origin,
          method: frame.type === 'runtime.request' ? frame.method : undefined,
          ...(frame.type === 'runtime.request' && candidateContext(frame) ? { interaction: candidateContext(frame) as CandidateContext } : {}),
          ...traceOfRequest(),
        },
        this.now(),
      );
      if (added === 'in-use') {
        // Another session (on any replica) awaits this requestId's response: never forward a request whose
        // response would go to someone else.
        this.drop('browser', 'REQUEST_ID_IN_USE');
        return;
      }
      if (added !== 'added') {
        this.drop('browser', 'REQUEST_ROUTES_FULL');
        return;
      }
    }
    if (data.kind === 'ack') this.forwardAck(this.workspace(workspaceId), companion, data.text);
    else this.sendToCompanion(companion, data.text, 'runtime.request');
  }

  // ---------------------------------------------------------------- ACKs and the log's durability

  /**
   * A browser ACK for the workspace's Companion (held by this replica, which also writes the frames log).
   * Browsers get frames before the log write (the latency path), so an ACK can cover frames the relay would
   * lose in a crash; the Companion trims its replay buffer by it. So an ACK goes on, unchanged, only once
   * the log holds every frame it covers; until then the highest one waits (lower ones add nothing to it).
   */
  private forwardAck(workspace: WorkspaceState, companion: CompanionPeer, text: string): void {
    const through = ackThrough(text);
    if (!this.framesPublisher || through === undefined || through <= this.durableThrough(workspace)) {
      this.sendToCompanion(companion, text, 'runtime.ack');
      return;
    }
    if (!workspace.heldAck || through > workspace.heldAck.through) workspace.heldAck = { through, text };
  }

  /** The highest sequence of the current epoch in the durable log (−1 if none). */
  private durableThrough(workspace: WorkspaceState): number {
    return workspace.durable.epoch === workspace.log.epoch ? workspace.durable.through : -1;
  }

  /** Frames of an epoch reached the durable log (published here, or read from the bus): held ACKs may go. */
  private markDurable(workspace: WorkspaceState, epoch: string | null, through: number): void {
    if (epoch === null || epoch !== workspace.log.epoch) return;
    if (workspace.durable.epoch !== epoch) workspace.durable = { epoch, through: -1 };
    // Frames the publish queue gave up are not in the log, whatever was published after them.
    const { lostFrom } = workspace.durable;
    const capped = lostFrom === undefined ? through : Math.min(through, lostFrom - 1);
    if (capped > workspace.durable.through) workspace.durable.through = capped;
    const held = workspace.heldAck;
    if (held && held.through <= workspace.durable.through) {
      workspace.heldAck = undefined;
      if (workspace.companion) this.sendToCompanion(workspace.companion, held.text, 'runtime.ack');
    }
  }

  private framesPublished(records: ReadonlyArray<{ workspaceId: string; eventType: string; data: unknown }>): void {
    for (const record of records) {
      if (record.eventType !== FRAMES_SEQUENCED) continue;
      const workspace = this.workspaces.get(record.workspaceId);
      if (!workspace) continue;
      const { epoch, item } = record.data as { epoch: string | null; item: SequencedItem };
      this.markDurable(workspace, epoch, 'gap' in item ? item.gap.through : item.relaySequence);
    }
  }

  /**
   * The frames publisher gave up records (a bus outage past its queue bound): those frames never reach the log,
   * so no ACK covering them may reach the Companion, which would trim them from its replay buffer. The durable
   * mark stops below the first lost sequence of the current epoch until a new epoch starts; ACKs beyond it are
   * held (the Companion keeps those frames and re-sends them after a restart).
   */
  private framesDropped(records: ReadonlyArray<{ workspaceId: string; eventType: string; data: unknown }>): void {
    for (const record of records) {
      if (record.eventType !== FRAMES_SEQUENCED) continue;
      const workspace = this.workspaces.get(record.workspaceId);
      if (!workspace) continue;
      const { epoch, item } = record.data as { epoch: string | null; item: SequencedItem };
      if (epoch === null || epoch !== workspace.log.epoch) continue;
      const first = 'gap' in item ? item.gap.from : item.relaySequence;
      if (workspace.durable.epoch !== epoch) workspace.durable = { epoch, through: -1 };
      const { lostFrom } = workspace.durable;
      if (lostFrom !== undefined && lostFrom <= first) continue;
      workspace.durable.lostFrom = first;
      workspace.durable.through = Math.min(workspace.durable.through, first - 1);
      this.options.logger.log('warn', 'frames-log-hole', { workspaceId: workspace.id, epoch, fromRelaySequence: first });
    }
  }

  // ---------------------------------------------------------------- plumbing

  private sendControl(session: SessionState, message: Record<string, unknown>): void {
    this.sendToBrowser(session, JSON.stringify(message), message['type'] as string);
  }

  private sendToBrowser(session: SessionState, text: string, type: string, written?: () => void): boolean {
    if (!session.peer.socket.send(text, written)) return false;
    this.options.metrics.frames({ type, direction: 'outbound' });
    if (ACKABLE.has(type)) session.ackCredits += 1;
    return true;
  }

  private drop(socket: 'companion' | 'browser' | 'bus', code: string): void {
    this.options.metrics.rejections({ socket, code });
    this.options.logger.log('debug', 'frame-dropped', { socket, code });
  }

  private workspace(workspaceId: string): WorkspaceState {
    let workspace = this.workspaces.get(workspaceId);
    if (!workspace) {
      const { retentionFrames, retentionBytes, retentionMs } = this.options.config;
      workspace = {
        id: workspaceId,
        log: new WorkspaceFrameLog({ frames: retentionFrames, bytes: retentionBytes, ms: retentionMs }, this.framesBudget),
        retained: new InteractionRetention(
          {
            maxCount: this.options.config.maxRetainedInteractions,
            maxBytes: this.options.config.retainedInteractionsBytes,
            maxAgeMs: this.options.config.interactionRetentionMaxMs,
          },
          this.interactionsBudget,
        ),
        sessions: new Map(),
        companion: undefined,
        view: undefined,
        endedSessions: new Map(),
        endedConnections: [],
        streamConnection: null,
        streamUnconfirmed: false,
        logConnection: null,
        durable: { epoch: null, through: -1 },
        heldAck: undefined,
        reportingUnreachable: undefined,
        reasserting: undefined,
      };
      this.workspaces.set(workspaceId, workspace);
    }
    return workspace;
  }

  /**
   * Periodic upkeep: prunes every ring by age, gives up expired interactions, forgets catch-up trust records
   * older than the retention, and drops workspaces that hold nothing (so idle workspaces cost no memory).
   */
  sweep(): void {
    const now = this.now();
    const horizon = now - this.options.config.retentionMs;
    for (const workspace of [...this.workspaces.values()]) {
      // Expired interactions free their memory now, not when the next session happens to open. Every replica
      // holds a copy: the one holding the Companion (or the only one) records the expiry, once.
      const expired = workspace.retained.expire(now);
      if (workspace.companion || this.options.singleReplica) this.auditExpired(workspace, expired, now);
      for (const [userId, ended] of workspace.endedSessions) {
        const kept = ended.filter((entry) => entry.at >= horizon);
        if (kept.length === 0) workspace.endedSessions.delete(userId);
        else workspace.endedSessions.set(userId, kept);
      }
      this.collect(workspace);
    }
  }

  /** Forgets a workspace that holds nothing worth keeping. */
  private collect(workspace: WorkspaceState): void {
    workspace.log.prune(this.now());
    if (!workspace.companion && workspace.sessions.size === 0 && workspace.log.size === 0 && workspace.retained.size === 0 && workspace.endedSessions.size === 0) {
      this.workspaces.delete(workspace.id);
    }
  }

  private async directoryCall(what: string, call: () => Promise<void>): Promise<void> {
    try {
      await call();
    } catch (error) {
      this.options.logger.log('warn', 'directory-call-failed', { call: what, errorName: error instanceof Error ? error.name : 'unknown' });
    }
  }

  /** Shutdown: records every session's and Companion's end as `shutdown` before the sockets close. */
  beginShutdown(): void {
    this.receipts.clear();
    for (const workspace of [...this.workspaces.values()]) {
      for (const session of [...workspace.sessions.values()]) this.browserClosed(session.peer, 'shutdown', CLOSE_CODES.GOING_AWAY);
      if (workspace.companion) this.companionClosed(workspace.companion, 'shutdown');
    }
  }

  /** Every open browser session and Companion (for shutdown). */
  peers(): PeerSocket[] {
    const out: PeerSocket[] = [];
    for (const workspace of this.workspaces.values()) {
      if (workspace.companion) out.push(workspace.companion.socket);
      for (const session of workspace.sessions.values()) out.push(session.peer.socket);
    }
    return out;
  }

  async drainPublishers(timeoutMs: number): Promise<void> {
    await Promise.all([this.framesPublisher?.drain(timeoutMs), this.inboundPublisher?.drain(timeoutMs)]);
  }
}

function loggedFrame(frame: AnyWireFrame, relaySequence: number, text: string, wire: WireVersion, at: number): LoggedFrame {
  const entry: LoggedFrame = { relaySequence, text, wire, type: frame.type, bytes: Buffer.byteLength(text), at };
  if (frame.type === 'interaction.request' || frame.type === 'interaction.resolved' || frame.type === 'interaction.cancelled') {
    entry.interactionId = frame.interactionId;
    entry.interactionMethod = frame.method;
    if (frame.type === 'interaction.request') entry.expiresAt = Date.parse(frame.expiresAt);
  }
  return entry;
}

/** The cursor of a validated `runtime.ack` text. */
function ackThrough(text: string): number | undefined {
  const through = (JSON.parse(text) as { throughRelaySequence?: unknown }).throughRelaySequence;
  return typeof through === 'number' ? through : undefined;
}

function candidateContext(frame: AnyWireFrame & { type: 'runtime.request' }): CandidateContext | null {
  if (frame.method !== 'interaction.candidate') return null;
  const params = frame.params as { interactionId?: unknown; method?: unknown; candidate?: { decision?: unknown; status?: unknown } } | null;
  if (!params || typeof params.interactionId !== 'string' || typeof params.method !== 'string') return null;
  const kind = params.candidate?.decision ?? params.candidate?.status;
  return { interactionId: params.interactionId, method: params.method, outcomeKind: typeof kind === 'string' ? kind : 'unknown' };
}

/** The active span's trace (the request frame's, or the bus record's that carried it here) for a route to keep. */
function traceOfRequest(): { traceparent?: string } {
  const traceparent = activeTraceparent();
  return traceparent ? { traceparent } : {};
}
