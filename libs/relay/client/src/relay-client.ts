/**
 * The Browser side of the Roll Relay Protocol (BEHAVIOUR.md §5, §6, §8, §10, §11, §13) for web pages and
 * Node: one `RelayClient` per Workspace session. It owns the connection loop (fresh descriptor per
 * attempt, bounded connect attempts, reconnect backoff), Control handling, inbound validation, the typed
 * request API with the idempotency duties, and wires the pure parts together:
 * `StreamSequencer` (ack cursor, buffer, recovery, resets), `InteractionTracker`, `ThreadActivity`.
 *
 * No Node built-ins and no `ws`: the caller passes a WebSocket constructor or factory.
 */
import {
  CLOSE_CODES,
  FrameReader,
  isMutation,
  REMOTE_WIRE_VERSIONS,
  validateMethodParams,
  type BrowserSessionDescriptor,
  type Control10,
  type FrameIssue,
  type InboundFrame,
  type Wire12,
  type WireVersion,
} from '@trustmesh/relay-protocol';
import type { WorkspaceCipher } from '@trustmesh/relay-encryption';

import { RelayClientError } from './client-error';
import { systemClock, type Clock } from './connection/clock';
import { reconnectDelayMs } from './connection/reconnect-backoff';
import { checkSessionDescriptor } from './connection/session-descriptor';
import { WEBSOCKET_OPEN, type WebSocketConstructorLike, type WebSocketLike, type WebSocketMessageEventLike } from './connection/websocket.port';
import { approvalCandidate, userInputCancellation, userInputCandidate, type UserInputValues } from './interactions/interaction-candidates';
import { InteractionTracker, type InteractionProblemCode, type TrackedInteraction } from './interactions/interaction-tracker';
import { PendingRequests, type PendingRequest } from './requests/pending-requests';
import { StreamSequencer, type SnapshotReason } from './sequencing/stream-sequencer';
import { ThreadActivity, type ApprovalNotice, type MessageUpdate, type ReasoningUpdate, type ToolActivity, type TurnUpdate } from './timeline/thread-activity';
import { TypedEmitter } from './typed-emitter';

export type BrowserWireVersion = '1.1' | '1.2';
export type ConnectionState = 'idle' | 'connecting' | 'ready' | 'waiting' | 'closed';
export type WorkspaceStatus = 'online' | 'offline' | 'unknown';
type MethodParams = Wire12.MethodParams;
type MethodResults = Wire12.MethodResults;
export type RequestMethod = Exclude<keyof MethodParams, 'initialize'>;
type SequencedFrame = Wire12.RuntimeEventFrame | Wire12.InteractionRequestFrame | Wire12.InteractionResolvedFrame | Wire12.InteractionCancelledFrame;
export type ThreadSnapshot = Wire12.ThreadSnapshotResult;
export type SnapshotEventReason = SnapshotReason | 'open' | 'turn-ended';

export interface RelayClientOptions {
  /** Fetches a fresh, single-use session descriptor from the app backend; called once per attempt. */
  descriptor: () => Promise<BrowserSessionDescriptor>;
  /** The WebSocket constructor: `globalThis.WebSocket` in browsers, `WebSocket` from `ws` in Node. */
  WebSocket?: WebSocketConstructorLike;
  /** Or a factory, e.g. to set an `Origin` header with `ws` in Node. */
  createSocket?: (url: string) => WebSocketLike;
  /** Versions the backend forwarded when minting the ticket; default ["1.2", "1.1"]. */
  acceptedWireVersions?: readonly BrowserWireVersion[];
  /** End-to-end encryption: requests go out sealed, envelopes are opened, plaintext sequenced frames are refused. */
  cipher?: WorkspaceCipher;
  clock?: Clock;
  /** Per request (§11: 30 s). */
  requestTimeoutMs?: number;
  /** Per connect attempt: descriptor, WebSocket open and `session.ready` (§11: 30 s). */
  connectTimeoutMs?: number;
  /** Reconnect after a lost connection (default true). */
  reconnect?: boolean;
  /** Accept `ws://` descriptors for loopback hosts (development and tests only). */
  allowInsecureLoopback?: boolean;
  /** Inbound frame limit in bytes (default 1 MiB). */
  maxFrameBytes?: number;
  /** Request ids, Runtime request ids and turn ids; default `crypto.randomUUID`. */
  newId?: () => string;
}

export interface RequestOptions {
  signal?: AbortSignal;
  timeoutMs?: number;
}

export interface InteractionChange {
  change: 'pending' | 'responding' | 'offered-again' | 'resolved' | 'cancelled' | 'expired';
  interaction: TrackedInteraction;
}

export interface RelayClientEvents {
  state: { state: ConnectionState; workspaceStatus: WorkspaceStatus; attempt: number };
  ready: { sessionId: string; workspaceId: string; wireVersion: BrowserWireVersion; workspaceStatus: 'online' | 'offline' };
  workspace: { status: 'online' | 'offline' };
  message: MessageUpdate;
  reasoning: ReasoningUpdate;
  tool: ToolActivity;
  turn: TurnUpdate;
  /** Read-only approval notices of the timeline; answer through `interaction` events. */
  approval: ApprovalNotice;
  capabilities: { threadId: string };
  interaction: InteractionChange;
  'interaction-problem': { code: InteractionProblemCode; interactionId: string };
  snapshot: { threadId: string; snapshot: ThreadSnapshot; reason: SnapshotEventReason };
  'snapshot-failed': { threadId: string; reason: SnapshotEventReason; error: RelayClientError };
  gap: { from: number; through: number; inverted: boolean };
  reset: { epoch: number };
  recovery: { phase: 'started' | 'completed' | 'failed'; through: number; epoch: number };
  /** Every applied sequenced frame, in order (after decryption). */
  frame: SequencedFrame;
  /** Connection-level problems: protocol errors, session errors, failed attempts, listener errors. */
  error: RelayClientError;
}

const SNAPSHOT_LIMIT = 100;
const MAX_OUTBOUND_BYTES = 1_048_576;
const SEQUENCED = new Set(['runtime.event', 'interaction.request', 'interaction.resolved', 'interaction.cancelled']);
const RELAY_TO_BROWSER_INNER = new Set(['runtime.response', ...SEQUENCED]);
const utf8 = new TextEncoder();

interface Connection {
  id: number;
  socket?: WebSocketLike;
  reader: FrameReader;
  ready: boolean;
  connectTimer?: unknown;
}

export class RelayClient {
  private readonly emitter = new TypedEmitter<RelayClientEvents>((error) => this.reportListenerError(error));
  private readonly clock: Clock;
  private readonly accepted: readonly BrowserWireVersion[];
  private readonly requestTimeoutMs: number;
  private readonly connectTimeoutMs: number;
  private readonly newId: () => string;
  private readonly pending: PendingRequests;
  private readonly sequencer: StreamSequencer<SequencedFrame>;
  /** The ACK to send at the end of this turn of the event loop (see `sendAck`). */
  private ackDue: { connection: Connection; through: number } | undefined;
  private readonly tracker = new InteractionTracker();
  private readonly activity = new ThreadActivity();
  private readonly openThreads = new Map<string, ThreadSnapshot | undefined>();
  private readonly expiryTimers = new Map<string, unknown>();

  private stateValue: ConnectionState = 'idle';
  private workspaceStatusValue: WorkspaceStatus = 'unknown';
  private connection: Connection | undefined;
  private connectionCounter = 0;
  private attempt = 0;
  private reconnectTimer: unknown;
  private inbound: Promise<void> = Promise.resolve();
  private flushing: Promise<void> | undefined;
  private flushQueued: { resend: boolean } | undefined;
  private workspaceIdValue: string | undefined;
  private sessionIdValue: string | undefined;
  private wire: BrowserWireVersion | undefined;
  private readyWaiters: Array<{ resolve(): void; reject(error: RelayClientError): void }> = [];
  private fatalError: RelayClientError | undefined;

  constructor(private readonly options: RelayClientOptions) {
    if (!options.WebSocket && !options.createSocket) throw RelayClientError.usage('CLIENT_MISCONFIGURED');
    this.clock = options.clock ?? systemClock;
    this.accepted = (options.acceptedWireVersions ?? ['1.2', '1.1']).filter((version) => REMOTE_WIRE_VERSIONS.includes(version));
    if (this.accepted.length === 0) throw RelayClientError.usage('CLIENT_MISCONFIGURED');
    this.requestTimeoutMs = options.requestTimeoutMs ?? 30_000;
    this.connectTimeoutMs = options.connectTimeoutMs ?? 30_000;
    this.newId = options.newId ?? (() => globalThis.crypto.randomUUID());
    this.pending = new PendingRequests(this.clock);
    this.sequencer = new StreamSequencer<SequencedFrame>({
      apply: (frame) => this.applyFrame(frame),
      ack: (through) => this.sendAck(through),
      snapshotOpenThreads: (reason) => this.snapshotOpenThreads(reason),
      recoveryFailed: () => this.onRecoveryFailed(),
      protocolError: (reason) => this.protocolFailure([{ code: 'WORKSPACE_MISMATCH', path: '/workspaceId', message: reason }]),
      notify: (notice) => {
        switch (notice.type) {
          case 'gap':
            this.emitter.emit('gap', { from: notice.from, through: notice.through, inverted: notice.inverted });
            break;
          case 'reset':
            this.activity.clear();
            this.emitter.emit('reset', { epoch: notice.epoch });
            break;
          case 'recovery-started':
          case 'recovery-completed':
          case 'recovery-failed':
            this.emitter.emit('recovery', { phase: notice.type.slice('recovery-'.length) as 'started', through: notice.through, epoch: notice.epoch });
            break;
          default:
            break;
        }
      },
    });
  }

  // ---- public surface -------------------------------------------------------------------------------

  get state(): ConnectionState {
    return this.stateValue;
  }

  get workspaceStatus(): WorkspaceStatus {
    return this.workspaceStatusValue;
  }

  /** The ack cursor: the highest contiguous relaySequence applied (−1: nothing yet). */
  get cursor(): number {
    return this.sequencer.cursor;
  }

  /** Stream epoch, incremented by every detected reset. */
  get epoch(): number {
    return this.sequencer.epoch;
  }

  get workspaceId(): string | undefined {
    return this.workspaceIdValue;
  }

  get sessionId(): string | undefined {
    return this.sessionIdValue;
  }

  get wireVersion(): BrowserWireVersion | undefined {
    return this.wire;
  }

  on<K extends keyof RelayClientEvents>(event: K, listener: (payload: RelayClientEvents[K]) => void): () => void {
    return this.emitter.on(event, listener);
  }

  once<K extends keyof RelayClientEvents>(event: K, listener: (payload: RelayClientEvents[K]) => void): () => void {
    return this.emitter.once(event, listener);
  }

  /** Starts the connection loop; resolves at the first `session.ready`, rejects if the client ends first. */
  connect(): Promise<void> {
    if (this.stateValue === 'closed') return Promise.reject(this.fatalError ?? RelayClientError.local('CLIENT_CLOSED'));
    const ready = new Promise<void>((resolve, reject) => {
      if (this.connection?.ready) resolve();
      else this.readyWaiters.push({ resolve, reject });
    });
    if (this.stateValue === 'idle') void this.startAttempt();
    return ready;
  }

  /** Closes for good (1000). Sent mutations settle `OUTCOME_UNKNOWN`, everything else `CLIENT_CLOSED`. */
  close(): void {
    this.shutdown(CLOSE_CODES.NORMAL, RelayClientError.local('CLIENT_CLOSED'));
  }

  /** Interactions a UI should offer now (pending or responding, not expired), in sequence order. */
  pendingInteractions(): TrackedInteraction[] {
    return this.tracker.offered(this.clock.now());
  }

  /** The last snapshot of each thread this client keeps open (refreshed on recovery, reset, online). */
  openThreadSnapshots(): ReadonlyMap<string, ThreadSnapshot | undefined> {
    return this.openThreads;
  }

  liveMessages(threadId: string): MessageUpdate[] {
    return this.activity.liveMessages(threadId);
  }

  /** Any request method of the session's version, params checked against its schema before sending. */
  request<M extends RequestMethod>(method: M, params: MethodParams[M], options: RequestOptions = {}): Promise<MethodResults[M]> {
    return this.enqueue(method, params, options, false) as Promise<MethodResults[M]>;
  }

  readonly threads = {
    list: (params: { cursor?: string; limit?: number } = {}, options?: RequestOptions) =>
      this.request('thread.list', { ...(params.cursor === undefined ? {} : { cursor: params.cursor }), limit: params.limit ?? SNAPSHOT_LIMIT }, options),
    create: (params: { title?: string } = {}, options?: RequestOptions) =>
      this.request('thread.create', { requestId: this.newId(), ...(params.title === undefined ? {} : { title: params.title }) }, options),
    /** Opens a thread and keeps it open: it is snapshotted on every recovery, reset and online transition. */
    open: async (threadId: string, options?: RequestOptions) => {
      const snapshot = await this.request('thread.open', { threadId }, options);
      this.openThreads.set(threadId, snapshot);
      this.emitter.emit('snapshot', { threadId, snapshot, reason: 'open' });
      return snapshot;
    },
    snapshot: (params: Omit<MethodParams['thread.snapshot'], 'limit'> & { limit?: number }, options?: RequestOptions) =>
      this.request('thread.snapshot', { ...params, limit: params.limit ?? SNAPSHOT_LIMIT }, options),
    rename: (threadId: string, title: string, options?: RequestOptions) => this.request('thread.rename', { requestId: this.newId(), threadId, title }, options),
    delete: async (threadId: string, options?: RequestOptions) => {
      const result = await this.request('thread.delete', { requestId: this.newId(), threadId }, options);
      this.openThreads.delete(threadId);
      return result;
    },
    detach: (threadId: string, options?: RequestOptions) => this.request('thread.detach', { requestId: this.newId(), threadId }, options),
    capabilities: (threadId: string, options?: RequestOptions) => this.request('thread.capabilities', { threadId }, options),
    /** Stops keeping a thread open locally (no request). */
    close: (threadId: string) => {
      this.openThreads.delete(threadId);
    },
  };

  readonly turns = {
    /** Starts a turn with fresh Runtime `requestId` and `turnId` (unless a `turnId` is given). */
    start: (params: { threadId: string; text: string; turnId?: string }, options?: RequestOptions) =>
      this.request('turn.start', { requestId: this.newId(), threadId: params.threadId, turnId: params.turnId ?? this.newId(), input: { text: params.text } }, options),
    cancel: (params: { threadId: string; turnId: string }, options?: RequestOptions) =>
      this.request('turn.cancel', { requestId: this.newId(), threadId: params.threadId, turnId: params.turnId }, options),
  };

  readonly operations = {
    get: (params: { threadId: string; operationId: string }, options?: RequestOptions) => this.request('operation.get', params, options),
    /** Wire 1.2 only; fails locally with PROTOCOL_ERROR on a 1.1 session. */
    result: (params: { threadId: string; operationId: string }, options?: RequestOptions) => this.request('operation.result.get', params, options),
  };

  readonly interactions = {
    list: () => this.pendingInteractions(),
    approve: (interactionId: string, options?: RequestOptions) => this.answer(interactionId, (interaction) => approvalCandidate(interaction, { decision: 'approve' }), options),
    reject: (interactionId: string, reason?: string, options?: RequestOptions) =>
      this.answer(interactionId, (interaction) => approvalCandidate(interaction, reason === undefined ? { decision: 'reject' } : { decision: 'reject', reason }), options),
    /** Submits user input, normalised against the original form first (invalid answers fail locally). */
    submit: (interactionId: string, values: UserInputValues, options?: RequestOptions) =>
      this.answer(interactionId, (interaction) => userInputCandidate(interaction, values), options),
    /** Declines a user-input request. */
    cancel: (interactionId: string, reason?: string, options?: RequestOptions) =>
      this.answer(interactionId, (interaction) => userInputCancellation(interaction, reason), options),
  };

  // ---- requests -------------------------------------------------------------------------------------

  private async answer(
    interactionId: string,
    build: (interaction: TrackedInteraction) => { ok: true; value: MethodParams['interaction.candidate'] } | { ok: false; issues: FrameIssue[] },
    options?: RequestOptions,
  ): Promise<MethodResults['interaction.candidate']> {
    const check = this.tracker.canRespond(interactionId, this.clock.now());
    if (!this.connection?.ready && this.stateValue !== 'closed') {
      // §10: no connection to answer on; retrying makes sense only while the interaction is still live.
      const stale = !check.ok && check.code !== 'INTERACTION_NOT_PENDING';
      throw RelayClientError.local('CONNECTION_UNAVAILABLE', [], !stale);
    }
    if (!check.ok) throw RelayClientError.usage(check.code);
    const candidate = build(check.interaction);
    if (!candidate.ok) throw RelayClientError.usage('INVALID_REQUEST', candidate.issues);
    const responding = this.tracker.beginResponse(interactionId, this.clock.now());
    if (!responding.ok) throw RelayClientError.usage(responding.code);
    this.emitter.emit('interaction', { change: 'responding', interaction: responding.interaction });
    try {
      return await this.request('interaction.candidate', candidate.value, options);
    } catch (error) {
      const again = this.tracker.responseFailed(interactionId);
      if (again) this.emitter.emit('interaction', { change: 'offered-again', interaction: again });
      throw error;
    }
  }

  private enqueue(method: string, params: unknown, options: RequestOptions, internal: boolean): Promise<unknown> {
    if (this.stateValue === 'closed') return Promise.reject(RelayClientError.local('CLIENT_CLOSED'));
    if (this.stateValue === 'idle') return Promise.reject(RelayClientError.local('CONNECTION_UNAVAILABLE'));
    const versionProblem = this.versionProblem(method);
    if (versionProblem) return Promise.reject(versionProblem);
    if (!internal && this.connection?.ready && this.workspaceStatusValue === 'offline') return Promise.reject(RelayClientError.local('WORKSPACE_OFFLINE'));
    const checked = validateMethodParams(this.wire ?? this.accepted[0] ?? '1.1', method, params);
    if (!checked.ok) return Promise.reject(RelayClientError.usage('INVALID_REQUEST', checked.issues));
    if (options.signal?.aborted) return Promise.reject(RelayClientError.local('ABORTED'));
    return new Promise<unknown>((resolve, reject) => {
      const entry: PendingRequest = {
        requestId: this.newId(),
        method,
        params,
        mutation: isMutation(this.wire ?? '1.1', method),
        internal,
        sent: false,
        resolve,
        reject,
      };
      this.pending.add(entry, options.timeoutMs ?? this.requestTimeoutMs, options.signal);
      this.scheduleFlush(false);
    });
  }

  /** operation.result.get exists only in 1.2 sessions (§4); other methods are in every browser version. */
  private versionProblem(method: string): RelayClientError | undefined {
    if (method !== 'operation.result.get') return undefined;
    const possible = this.wire ? this.wire === '1.2' : this.accepted.includes('1.2');
    if (possible) return undefined;
    return RelayClientError.local('PROTOCOL_ERROR', [{ code: 'METHOD_UNKNOWN', path: '/method', message: '`operation.result.get` needs a Wire 1.2 session.' }]);
  }

  /**
   * Sends what is due, in creation order, on the ready connection: with `resend`, every pending mutation
   * again (verbatim) plus anything unsent; otherwise only what this connection has not carried yet.
   */
  private scheduleFlush(resend: boolean): void {
    if (this.flushing) {
      this.flushQueued = { resend: resend || (this.flushQueued?.resend ?? false) };
      return;
    }
    this.flushing = this.flush(resend).finally(() => {
      this.flushing = undefined;
      const queued = this.flushQueued;
      this.flushQueued = undefined;
      if (queued) this.scheduleFlush(queued.resend);
    });
  }

  private async flush(resend: boolean): Promise<void> {
    for (const entry of this.pending.list()) {
      const connection = this.connection;
      if (!connection?.ready || this.workspaceStatusValue !== 'online') return;
      const due = entry.sentOn !== connection.id || (resend && entry.mutation);
      if (!due) continue;
      if (entry.method === 'operation.result.get' && this.wire !== '1.2') {
        this.pending.fail(entry, this.versionProblem(entry.method) ?? RelayClientError.local('PROTOCOL_ERROR'));
        continue;
      }
      // A sealed request is sealed again for every send: the Companion opens each envelope once (replay
      // window), and its idempotency, not the envelope's bytes, makes a re-sent mutation safe.
      const reseal = this.options.cipher !== undefined && entry.sent;
      if ((entry.wireText === undefined || reseal) && !(await this.prepare(entry))) continue;
      if (this.connection !== connection || !connection.ready || entry.wireText === undefined) return;
      if (!this.send(connection, entry.wireText)) return;
      entry.sent = true;
      entry.sentOn = connection.id;
    }
  }

  /** Builds the exact frame once (the Workspace is known only after `session.ready`), sealing it if encrypted. */
  private async prepare(entry: PendingRequest): Promise<boolean> {
    const workspaceId = this.workspaceIdValue;
    if (workspaceId === undefined) return false;
    const frame = { type: 'runtime.request', requestId: entry.requestId, workspaceId, method: entry.method, params: entry.params } as Wire12.RuntimeRequestFrame;
    let text: string;
    try {
      text = JSON.stringify(this.options.cipher ? await this.options.cipher.seal(frame) : frame);
    } catch {
      this.pending.fail(entry, RelayClientError.usage('CLIENT_MISCONFIGURED'));
      return false;
    }
    if (utf8.encode(text).byteLength > MAX_OUTBOUND_BYTES) {
      this.pending.fail(entry, RelayClientError.usage('INVALID_REQUEST', [{ code: 'FRAME_TOO_LARGE', path: '', message: 'The request exceeds 1 MiB.' }]));
      return false;
    }
    entry.frame = frame;
    entry.wireText = text;
    return true;
  }

  private send(connection: Connection, text: string): boolean {
    // An ACK due goes out before anything sent after it: the relay sees the cursor before, say, the snapshot
    // requests that applying those frames started.
    if (this.ackDue?.connection === connection) this.flushAck();
    const socket = connection.socket;
    if (!socket || socket.readyState !== WEBSOCKET_OPEN) return false;
    try {
      socket.send(text);
      return true;
    } catch {
      return false;
    }
  }

  /**
   * ACKs are coalesced: every frame applied (and every session.ready or recovery) in one turn of the event
   * loop yields one `runtime.ack` of the cursor as it stands at the end of that turn — the highest contiguous
   * applied sequence, which is all an ACK means (§6). A busy stream then costs the relay one ACK per burst,
   * not one per frame. An ACK due on a connection that is gone by then is dropped (the next session.ready ACKs).
   */
  private sendAck(throughRelaySequence: number): void {
    const connection = this.connection;
    if (!connection?.ready || this.workspaceIdValue === undefined) return;
    const scheduled = this.ackDue !== undefined;
    this.ackDue = { connection, through: throughRelaySequence };
    if (scheduled) return;
    const flush = () => this.flushAck();
    if (this.clock.defer) this.clock.defer(flush);
    else void Promise.resolve().then(flush);
  }

  /** Sends the ACK due, if any (the deferred flush, or at once after session.ready). */
  private flushAck(): void {
    const due = this.ackDue;
    this.ackDue = undefined;
    if (!due || due.connection !== this.connection || !due.connection.ready || this.workspaceIdValue === undefined) return;
    this.send(due.connection, JSON.stringify({ type: 'runtime.ack', workspaceId: this.workspaceIdValue, throughRelaySequence: due.through }));
  }

  // ---- connection loop ------------------------------------------------------------------------------

  private setState(state: ConnectionState): void {
    this.stateValue = state;
    this.emitter.emit('state', { state, workspaceStatus: this.workspaceStatusValue, attempt: this.attempt });
  }

  private async startAttempt(): Promise<void> {
    this.reconnectTimer = undefined;
    const id = ++this.connectionCounter;
    const connection: Connection = {
      id,
      ready: false,
      reader: new FrameReader({
        direction: 'relay-to-browser',
        acceptVersions: this.accepted,
        encryption: this.options.cipher !== undefined,
        ...(this.options.maxFrameBytes === undefined ? {} : { maxFrameBytes: this.options.maxFrameBytes }),
        ...(this.workspaceIdValue === undefined ? {} : { workspaceId: this.workspaceIdValue }),
      }),
    };
    this.connection = connection;
    this.setState('connecting');
    connection.connectTimer = this.clock.setTimeout(() => this.attemptFailed(connection, RelayClientError.local('REQUEST_TIMEOUT')), this.connectTimeoutMs);

    let descriptor: unknown;
    try {
      descriptor = await this.options.descriptor();
    } catch {
      this.attemptFailed(connection, RelayClientError.local('TRANSPORT_ERROR'));
      return;
    }
    if (this.connection !== connection) return;
    const checked = checkSessionDescriptor(descriptor, this.clock.now(), { allowInsecureLoopback: this.options.allowInsecureLoopback ?? false });
    if (!checked.ok) {
      this.shutdown(CLOSE_CODES.NORMAL, RelayClientError.local('INVALID_SESSION', checked.issues));
      return;
    }
    let socket: WebSocketLike;
    try {
      socket = this.options.createSocket ? this.options.createSocket(checked.value.connectUrl) : new (this.options.WebSocket as WebSocketConstructorLike)(checked.value.connectUrl);
    } catch {
      this.attemptFailed(connection, RelayClientError.local('TRANSPORT_ERROR'));
      return;
    }
    connection.socket = socket;
    socket.onmessage = (event) => this.onSocketMessage(connection, event);
    socket.onclose = () => this.onSocketClosed(connection);
    socket.onerror = () => undefined; // a close event follows
  }

  /** A connect attempt failed before `session.ready`: retryable, reconnect with backoff. */
  private attemptFailed(connection: Connection, error: RelayClientError): void {
    if (this.connection !== connection) return;
    this.emitter.emit('error', error);
    this.dropConnection(CLOSE_CODES.NORMAL);
  }

  private onSocketClosed(connection: Connection): void {
    if (this.connection !== connection) return;
    if (!connection.ready) {
      // Handshake refusals (ticket, origin) surface only as a close before ready: a retryable TRANSPORT_ERROR.
      this.attemptFailed(connection, RelayClientError.local('TRANSPORT_ERROR'));
      return;
    }
    this.dropConnection(undefined);
  }

  /** Ends the current connection (closing the socket with `code` if given) and schedules a reconnect. */
  private dropConnection(code: number | undefined): void {
    const connection = this.connection;
    if (!connection) return;
    this.connection = undefined;
    this.detach(connection, code);
    this.pending.connectionLost(connection.id);
    if (this.stateValue === 'closed') return;
    if (this.options.reconnect === false) {
      this.shutdown(CLOSE_CODES.NORMAL, RelayClientError.local('TRANSPORT_ERROR'));
      return;
    }
    this.attempt += 1;
    this.setState('waiting');
    this.reconnectTimer = this.clock.setTimeout(() => void this.startAttempt(), reconnectDelayMs(this.attempt));
  }

  private detach(connection: Connection, code: number | undefined): void {
    connection.ready = false;
    if (connection.connectTimer !== undefined) this.clock.clearTimeout(connection.connectTimer);
    const socket = connection.socket;
    if (!socket) return;
    socket.onmessage = null;
    socket.onclose = null;
    socket.onopen = null;
    if (code !== undefined) {
      try {
        socket.close(code);
      } catch {
        // already closing
      }
    }
  }

  /** Ends the client for good. */
  private shutdown(code: number, error: RelayClientError): void {
    if (this.stateValue === 'closed') return;
    const terminal = error.code !== 'CLIENT_CLOSED';
    if (terminal) this.fatalError = error;
    if (this.reconnectTimer !== undefined) this.clock.clearTimeout(this.reconnectTimer);
    const connection = this.connection;
    this.connection = undefined;
    if (connection) this.detach(connection, code);
    this.stateValue = 'closed';
    this.pending.closeAll();
    for (const timer of this.expiryTimers.values()) this.clock.clearTimeout(timer);
    this.expiryTimers.clear();
    for (const waiter of this.readyWaiters.splice(0)) waiter.reject(error);
    if (terminal) this.emitter.emit('error', error);
    this.setState('closed');
  }

  private protocolFailure(issues: readonly FrameIssue[]): void {
    if (!this.connection) return;
    this.emitter.emit('error', RelayClientError.local('PROTOCOL_ERROR', issues));
    this.dropConnection(CLOSE_CODES.INVALID_FRAME);
  }

  private onRecoveryFailed(): void {
    if (!this.connection?.ready) return;
    this.dropConnection(CLOSE_CODES.SESSION_ERROR_RETRYABLE);
  }

  // ---- inbound --------------------------------------------------------------------------------------

  private onSocketMessage(connection: Connection, event: WebSocketMessageEventLike): void {
    const data = event.data;
    // Frames are handled strictly in arrival order, including the asynchronous opening of envelopes.
    this.inbound = this.inbound.then(() => this.handleMessage(connection, data)).catch((error: unknown) => this.reportListenerError(error));
  }

  private async handleMessage(connection: Connection, data: unknown): Promise<void> {
    if (this.connection !== connection) return;
    const verdict = typeof data === 'string' ? connection.reader.read(data) : connection.reader.read(new Uint8Array(0), true);
    if (!verdict.ok) {
      this.protocolFailure(verdict.issues);
      return;
    }
    const frame = verdict.value;
    switch (frame.type) {
      case 'session.ready':
        this.onSessionReady(connection, frame);
        return;
      case 'workspace.status':
        this.onWorkspaceStatus(frame.status);
        return;
      case 'session.error':
        this.onSessionError(frame);
        return;
      case 'runtime.encrypted':
        await this.onEnvelope(connection, frame);
        return;
      default:
        this.onWireFrame(frame, false);
    }
  }

  private onSessionReady(connection: Connection, message: Control10.SessionReadyMessage): void {
    const cipher = this.options.cipher;
    if (cipher && cipher.workspaceId !== message.workspaceId) {
      this.shutdown(CLOSE_CODES.NORMAL, RelayClientError.usage('CLIENT_MISCONFIGURED'));
      return;
    }
    if (connection.connectTimer !== undefined) this.clock.clearTimeout(connection.connectTimer);
    connection.ready = true;
    this.attempt = 0;
    this.workspaceIdValue = message.workspaceId;
    this.sessionIdValue = message.sessionId;
    this.wire = message.relayProtocolVersion;
    this.workspaceStatusValue = message.workspaceStatus;
    this.setState('ready');
    this.emitter.emit('ready', { sessionId: message.sessionId, workspaceId: message.workspaceId, wireVersion: message.relayProtocolVersion, workspaceStatus: message.workspaceStatus });
    this.sequencer.sessionReady(message.workspaceId);
    // The session's first ACK goes out at once, before re-sent mutations: the relay holds live frames until it.
    this.flushAck();
    if (message.workspaceStatus === 'online') this.scheduleFlush(true);
    for (const waiter of this.readyWaiters.splice(0)) waiter.resolve();
  }

  private onWorkspaceStatus(status: 'online' | 'offline'): void {
    const previous = this.workspaceStatusValue;
    this.workspaceStatusValue = status;
    this.emitter.emit('workspace', { status });
    this.emitter.emit('state', { state: this.stateValue, workspaceStatus: status, attempt: this.attempt });
    if (status !== 'online') return;
    if (previous === 'offline') this.sequencer.workspaceOnline();
    this.scheduleFlush(true);
  }

  private onSessionError(message: Control10.SessionErrorMessage): void {
    const error = RelayClientError.session(message.code, message.retryable);
    if (message.retryable) {
      this.emitter.emit('error', error);
      this.dropConnection(CLOSE_CODES.SESSION_ERROR_RETRYABLE);
    } else {
      this.shutdown(CLOSE_CODES.SESSION_ERROR_FATAL, error);
    }
  }

  private async onEnvelope(connection: Connection, envelope: Wire12.RuntimeEncryptedFrame): Promise<void> {
    const cipher = this.options.cipher;
    if (!cipher) return; // the reader refuses envelopes without a cipher
    let inner: InboundFrame;
    try {
      inner = (await cipher.open(envelope, this.wire ? { wire: this.wire } : {})) as InboundFrame;
    } catch {
      if (this.connection === connection) {
        this.protocolFailure([{ code: 'FIELD_VALUE', path: '', message: 'An encrypted payload could not be opened (ENCRYPTED_PAYLOAD_INVALID).' }]);
      }
      return;
    }
    if (this.connection !== connection) return;
    if (!RELAY_TO_BROWSER_INNER.has(inner.type)) {
      this.protocolFailure([{ code: 'FRAME_DIRECTION_FORBIDDEN', path: '/type', message: `An envelope carried \`${inner.type}\`, which never travels to a browser.` }]);
      return;
    }
    this.onWireFrame(inner, true);
  }

  private onWireFrame(frame: InboundFrame, decrypted: boolean): void {
    const encrypted = this.options.cipher !== undefined;
    if (encrypted && !decrypted && (SEQUENCED.has(frame.type) || (frame.type === 'runtime.response' && frame.result !== undefined))) {
      this.protocolFailure([{ code: 'FRAME_DIRECTION_FORBIDDEN', path: '/type', message: `Plaintext \`${frame.type}\` on an encrypted session.` }]);
      return;
    }
    switch (frame.type) {
      case 'runtime.response':
        this.pending.onResponse(frame as Wire12.RuntimeResponseFrame, this.wire ?? '1.1');
        return;
      case 'runtime.gap':
        this.sequencer.receiveGap(frame);
        return;
      case 'runtime.event':
      case 'interaction.request':
      case 'interaction.resolved':
      case 'interaction.cancelled':
        this.sequencer.receiveFrame(frame as SequencedFrame);
        return;
      default:
        this.protocolFailure([{ code: 'FRAME_DIRECTION_FORBIDDEN', path: '/type', message: `\`${frame.type}\` never travels to a browser.` }]);
    }
  }

  // ---- applying the sequence ------------------------------------------------------------------------

  private applyFrame(frame: SequencedFrame): void {
    this.emitter.emit('frame', frame);
    switch (frame.type) {
      case 'runtime.event':
        for (const activity of this.activity.apply(frame.event)) {
          this.emitter.emit(activity.kind, activity.update as never);
          if (activity.kind === 'turn' && activity.update.state !== 'started') this.refreshThread(activity.update.threadId, 'turn-ended');
        }
        return;
      case 'interaction.request': {
        const outcome = this.tracker.onRequest(frame);
        if (outcome.outcome === 'problem') this.emitter.emit('interaction-problem', { code: outcome.code, interactionId: outcome.interactionId });
        else if (outcome.outcome === 'pending') {
          this.emitter.emit('interaction', { change: 'pending', interaction: outcome.interaction });
          this.armExpiry(outcome.interaction);
        }
        return;
      }
      case 'interaction.resolved':
      case 'interaction.cancelled': {
        const outcome = this.tracker.onTerminal(frame);
        if (outcome.outcome === 'problem') this.emitter.emit('interaction-problem', { code: outcome.code, interactionId: outcome.interactionId });
        else if (outcome.outcome !== 'duplicate') {
          this.clearExpiry(frame.interactionId);
          this.emitter.emit('interaction', { change: outcome.outcome, interaction: outcome.interaction });
        }
        return;
      }
    }
  }

  private armExpiry(interaction: TrackedInteraction): void {
    const delay = interaction.expiresAtMs - this.clock.now();
    if (delay > 0) {
      // Re-armed until due: a host clock may cap long delays (setTimeout's limit is about 24.8 days).
      this.expiryTimers.set(interaction.interactionId, this.clock.setTimeout(() => this.armExpiry(interaction), delay));
      return;
    }
    this.expiryTimers.delete(interaction.interactionId);
    const current = this.tracker.get(interaction.interactionId);
    if (current && (current.state === 'pending' || current.state === 'responding')) this.emitter.emit('interaction', { change: 'expired', interaction: current });
  }

  private clearExpiry(interactionId: string): void {
    const timer = this.expiryTimers.get(interactionId);
    if (timer !== undefined) this.clock.clearTimeout(timer);
    this.expiryTimers.delete(interactionId);
  }

  /** Snapshots every open thread; each one that fails is reported (`snapshot-failed`) before the whole fails. */
  private async snapshotOpenThreads(reason: SnapshotReason): Promise<void> {
    await Promise.all(
      [...this.openThreads.keys()].map((threadId) =>
        this.snapshotThread(threadId, reason).catch((error: unknown) => {
          throw this.snapshotFailed(threadId, reason, error);
        }),
      ),
    );
  }

  /**
   * Reports a failed snapshot. A thread the Companion refused for good (a remote, non-retryable error, e.g.
   * it no longer exists after a Companion restart) stops being kept open: snapshotting it again could only
   * fail again, and a recovery that includes it would fail (4012) on every reconnect.
   */
  private snapshotFailed(threadId: string, reason: SnapshotEventReason, error: unknown): RelayClientError {
    const failure = error instanceof RelayClientError ? error : RelayClientError.local('PROTOCOL_ERROR');
    if (failure.kind === 'remote' && !failure.retryable) this.openThreads.delete(threadId);
    this.emitter.emit('snapshot-failed', { threadId, reason, error: failure });
    return failure;
  }

  private async snapshotThread(threadId: string, reason: SnapshotEventReason): Promise<void> {
    const snapshot = (await this.enqueue('thread.snapshot', { threadId, limit: SNAPSHOT_LIMIT }, {}, true)) as ThreadSnapshot;
    if (this.openThreads.has(threadId)) this.openThreads.set(threadId, snapshot);
    this.emitter.emit('snapshot', { threadId, snapshot, reason });
  }

  private refreshThread(threadId: string, reason: SnapshotEventReason): void {
    if (!this.openThreads.has(threadId)) return;
    this.snapshotThread(threadId, reason).catch((error: unknown) => this.snapshotFailed(threadId, reason, error));
  }

  private reportListenerError(_error: unknown): void {
    // A throwing UI listener must not break the protocol; it is reported once, without its text.
    if (this.reportingListenerError) return;
    this.reportingListenerError = true;
    try {
      this.emitter.emit('error', new RelayClientError('usage', 'LISTENER_FAILED', false, 'An event listener threw; the client kept running.'));
    } finally {
      this.reportingListenerError = false;
    }
  }

  private reportingListenerError = false;
}

export type { WireVersion };
