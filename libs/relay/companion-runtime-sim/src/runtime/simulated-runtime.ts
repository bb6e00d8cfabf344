/**
 * A simulated agent runtime behind the Companion's `AgentRuntime` port: threads with transcripts and
 * operations, turns that stream the raw Runtime timeline over (injected) time, approvals and user-input
 * server requests that wait for an answer, expire, or are answered at the machine, cancellation, and
 * Runtime 1.5 app results.
 *
 * Everything it emits is RAW Runtime data, with the configured sentinel in every secret-bearing field;
 * the Companion core's projections decide what crosses the relay.
 *
 * Turns are played by generators: a step yields a delay (a timer on the injected clock) or a wait for a
 * server request's outcome, so a manual clock drives a whole turn deterministically. Events that follow
 * a port call (turn start, an answered request) are emitted from a timer, never from inside the call,
 * as a runtime behind a stdio pipe would.
 */
import {
  type AgentRuntime,
  type AgentRuntimeListener,
  type RuntimeCapabilitiesManifest,
  type RuntimeDescription,
  type RuntimeOperation,
  type RuntimeOperationResult,
  type RuntimePendingApproval,
  type RuntimeProtocolVersion,
  type RuntimeServerRequest,
  type RuntimeServerRequestEnd,
  type RuntimeServerRequestPayload,
  type RuntimeThread,
  type RuntimeThreadPage,
  type RuntimeThreadSnapshot,
  type ServerRequestCancelReason,
  type ServerRequestResolution,
} from '@trustmesh/relay-companion';
import type { RuntimeEventEnvelope, RuntimeTimelineEvent, Wire12 } from '@trustmesh/relay-protocol';

import { systemClock, type SimClock, type TimerId } from '../clock/sim-clock';
import { capabilitiesManifest, DEFAULT_AGENTS, type SimAgentConfig } from './capabilities';
import { createSeededRandom, type SeededRandom } from './seeded-random';
import { SecretMarker } from './secret-marker';
import { simRuntimeError } from './sim-runtime.error';
import { iso, nextSequence, pageBefore, threadView, type OperationRecord, type ThreadRecord } from './thread-store';
import { echoTurnScripts } from './default-turn-scripts';
import type {
  AppOutputDescriptor,
  AppOutputScript,
  ApprovalScript,
  FailureStage,
  JsonValue,
  MessageStep,
  OutcomeKind,
  ReasoningStep,
  ToolStep,
  TurnScript,
  TurnScriptSource,
  TurnStep,
  UserInputStep,
} from './turn-script';

/** What the simulated runtime asks its host (the Companion's transport) to do. */
export type SimDirective = { kind: 'disconnect'; forMs: number } | { kind: 'restart'; downMs: number };

/** How a server request ended: answered (approve, reject, submitted, cancelled), expired, or aborted. */
export type SettledAs = 'approve' | 'reject' | 'submitted' | 'cancelled' | 'expire' | 'aborted';

/** An expectation a script stated about a person's answer, and what happened. */
export interface ExpectationRecord {
  threadId: string;
  turnId: string;
  method: 'approval.request' | 'userInput.request';
  expected: string;
  actual: string;
  met: boolean;
}

export interface SimulatedRuntimeOptions {
  /** Time source for every delay and deadline (default: the system clock). */
  clock?: SimClock;
  /** Seed for ids and generated content (default: random). */
  seed?: number;
  /** Marker planted in every secret-bearing raw field (default: none). Tests use "relay-security-sentinel". */
  sentinel?: string;
  /** Runtime protocol the simulated runtime speaks (default "1.5": app results and `operationId`). */
  runtimeProtocolVersion?: RuntimeProtocolVersion;
  /** Fixed runtime instance id (default: drawn from the seed). */
  runtimeInstanceId?: string;
  model?: string;
  agents?: readonly SimAgentConfig[];
  /** Script of a turn a person starts (default: a short echo turn with reasoning and a tool call). */
  turnScripts?: TurnScriptSource;
  /** Default lifetime of approvals and user-input requests (default 5 minutes). */
  interactionTimeoutMs?: number;
  /**
   * The Companion expires interactions at `expiresAt` with its own timer; the runtime gives up on an
   * unanswered request this long after it, as a backstop (default 1 s).
   */
  expiryGraceMs?: number;
  /** Time between `cancelTurn` and `turn.cancelled` (default 20 ms). */
  cancelDelayMs?: number;
  /** Most threads kept (default 10 000). */
  maxThreads?: number;
  /** Most messages, and most operations, kept per thread; the oldest go first (default 10 000 each). */
  maxItemsPerThread?: number;
  /** Receives disconnect/restart directives from scripts. */
  onDirective?: (directive: SimDirective) => void;
}

type Outcome =
  | { kind: 'approve' }
  | { kind: 'reject'; reason?: string }
  | { kind: 'submitted'; values: { id: string; value: unknown }[] }
  | { kind: 'cancelled'; reason?: string }
  | { kind: 'expired' }
  | { kind: 'aborted'; reason: string };

type Wait = { kind: 'delay'; ms: number } | { kind: 'interaction' };
type TurnEnd = { kind: 'completed' } | { kind: 'failed'; stage: FailureStage; message: string } | { kind: 'cancelled'; reason: string; message: string };
type TurnPlay = Generator<Wait, TurnEnd, Outcome | undefined>;

interface PendingRequest {
  serverRequestId: string;
  run: TurnRun;
  method: 'approval.request' | 'userInput.request';
  request: RuntimeServerRequest;
  approval?: RuntimePendingApproval;
  timers: TimerId[];
  expect?: string;
  settled: boolean;
}

interface TurnRun {
  id: string;
  thread: ThreadRecord;
  startedAtMs: number;
  status: 'starting' | 'running' | 'waiting-for-user' | 'cancelling' | 'ended';
  play?: TurnPlay;
  timer?: TimerId;
  pending?: PendingRequest;
  openMessage?: { streamId: string; text: string };
  openTool?: { toolCallId: string; agentName: string; toolName: string; input: JsonValue; output: string };
  /** Tool calls made since the last assistant message; the next message lists them (raw parts). */
  toolCallParts: Array<Record<string, unknown>>;
  stepsDone: number;
  observers: TurnObserver[];
  /** `turn.started` was emitted. */
  started: boolean;
  /** The generator is executing (a listener may call back into the runtime from inside it). */
  driving: boolean;
  /** A stop requested while `driving`; carried out as soon as the generator yields. */
  deferredStop?: () => void;
}

/** Follows one turn (scenario runs and load drivers use it). */
export interface TurnObserver {
  stepDone?(step: TurnStep): void;
  /** A server request with an `expect` ended (met or not). */
  expectation?(record: ExpectationRecord): void;
  /** A server request of the turn ended, however it ended (`aborted`: cancelled by the turn or the Companion). */
  requestSettled?(settled: { method: 'approval.request' | 'userInput.request'; actual: SettledAs }): void;
  ended?(end: { kind: TurnEnd['kind'] }): void;
}

export interface LocalTurnOptions {
  threadId: string;
  /** What the person typed at the machine (recorded as the user message). */
  input: string;
  script: TurnScript;
  turnId?: string;
  observer?: TurnObserver;
}

export interface SeedThreadOptions {
  id?: string;
  title?: string;
  model?: string;
  /** Past transcript: messages and completed tool calls, oldest first. */
  history?: Array<{ role: 'user' | 'assistant'; text: string } | ToolStep>;
}

const DEFAULT_TIMEOUT_MS = 5 * 60_000;
const IDEMPOTENCY_ENTRIES = 10_000;

/**
 * Creates a simulated runtime. It implements `AgentRuntime` and adds what hosts and tests need to
 * drive it: local turns, seeded threads, scripted turns for a thread, directives.
 */
export function createSimulatedRuntime(options: SimulatedRuntimeOptions = {}): SimulatedRuntime {
  return new SimulatedRuntime(options);
}

export class SimulatedRuntime implements AgentRuntime {
  readonly clock: SimClock;
  readonly marker: SecretMarker;
  private readonly random: SeededRandom;
  private readonly version: RuntimeProtocolVersion;
  private readonly instanceId: string;
  private readonly model: string;
  private readonly agents: readonly SimAgentConfig[];
  private readonly timeoutMs: number;
  private readonly graceMs: number;
  private readonly cancelDelayMs: number;
  private readonly maxThreads: number;
  private readonly maxItems: number;
  private turnScripts: TurnScriptSource;

  private readonly threads = new Map<string, ThreadRecord>();
  private readonly runs = new Map<string, TurnRun>(); // by thread id
  private readonly pending = new Map<string, PendingRequest>();
  private readonly queuedScripts = new Map<string, Array<{ match?: RegExp; script: TurnScript; observer?: TurnObserver }>>();
  private readonly listeners = new Set<AgentRuntimeListener>();
  private readonly directiveListeners = new Set<(directive: SimDirective) => void>();
  private readonly idempotent = new Map<string, unknown>();
  private readonly expectationLog: ExpectationRecord[] = [];
  private eventSequence = 0;
  private threadOrdinal = 0;
  private serverRequestCounter = 0;
  private workspaceId: string | undefined;
  private stopped = false;

  constructor(options: SimulatedRuntimeOptions = {}) {
    this.clock = options.clock ?? systemClock();
    this.random = createSeededRandom(options.seed ?? Math.floor(Math.random() * 2 ** 32));
    this.marker = new SecretMarker(options.sentinel);
    this.version = options.runtimeProtocolVersion ?? '1.5';
    this.instanceId = options.runtimeInstanceId ?? this.random.uuid();
    this.model = options.model ?? 'sim-agent-1';
    this.agents = options.agents ?? DEFAULT_AGENTS;
    this.timeoutMs = options.interactionTimeoutMs ?? DEFAULT_TIMEOUT_MS;
    this.graceMs = options.expiryGraceMs ?? 1000;
    this.cancelDelayMs = options.cancelDelayMs ?? 20;
    this.maxThreads = options.maxThreads ?? 10_000;
    this.maxItems = Math.max(1, options.maxItemsPerThread ?? 10_000);
    this.turnScripts = options.turnScripts ?? echoTurnScripts();
    if (options.onDirective) this.directiveListeners.add(options.onDirective);
  }

  // ------------------------------------------------------------------------------------------------
  // AgentRuntime
  // ------------------------------------------------------------------------------------------------

  describe(): RuntimeDescription {
    return { runtimeInstanceId: this.instanceId, runtimeProtocolVersion: this.version, appResults: this.appResults };
  }

  async bindWorkspace(workspaceId: string): Promise<void> {
    this.workspaceId = workspaceId;
  }

  async unbindWorkspace(): Promise<void> {
    this.workspaceId = undefined;
  }

  async shutdown(): Promise<void> {
    this.stopped = true;
    for (const run of this.runs.values()) this.haltRun(run);
    this.runs.clear();
    this.pending.clear();
  }

  subscribe(listener: AgentRuntimeListener): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  async listThreads(params: Wire12.ThreadListParams): Promise<RuntimeThreadPage> {
    this.ensureRunning();
    // Offset cursors over newest-updated-first order: a thread updated between two pages may move.
    const ordered = [...this.threads.values()].sort((a, b) => b.updatedAtMs - a.updatedAtMs || b.ordinal - a.ordinal);
    const offset = params.cursor !== undefined ? Number(params.cursor) : 0;
    const limit = clampLimit(params.limit);
    const items = ordered.slice(offset, offset + limit).map(threadView);
    const nextOffset = offset + items.length;
    return { items, nextCursor: nextOffset < ordered.length ? String(nextOffset) : null };
  }

  async createThread(params: Wire12.ThreadCreateParams): Promise<RuntimeThread> {
    this.ensureRunning();
    return this.once(`thread.create:${params.requestId}`, () => threadView(this.addThread({ ...(params.title !== undefined ? { title: params.title } : {}) })));
  }

  async readThread(params: Wire12.ThreadSnapshotParams): Promise<RuntimeThreadSnapshot> {
    const thread = this.thread(params.threadId);
    thread.attached = true;
    const limit = clampLimit(params.limit);
    const messages = pageBefore(thread.messages, params.messageBeforeSequence, limit);
    const operations = pageBefore(thread.operations, params.operationBeforeSequence, limit);
    const run = this.runs.get(thread.id);
    const pending = [...this.pending.values()].filter((request) => request.run.thread === thread && !request.settled);
    return {
      thread: threadView(thread),
      messages,
      operations: { items: operations.items.map((operation) => ({ ...operation })), nextBeforeSequence: operations.nextBeforeSequence },
      activeTurn: run && run.status !== 'ended' ? { id: run.id, status: activeStatus(run), startedAt: iso(run.startedAtMs), stepsDone: run.stepsDone } : null,
      pendingApprovals: pending.flatMap((request) => (request.approval ? [request.approval] : [])),
      transcriptCompleteness: 'complete',
      // Newer-Runtime fields: the projection drops them.
      pendingInteractions: pending.map((request) => ({ ...request.request })),
      eventCursor: `ec_${this.eventSequence}`,
    };
  }

  async renameThread(params: Wire12.ThreadRenameParams): Promise<RuntimeThread> {
    const thread = this.thread(params.threadId);
    thread.title = params.title;
    thread.updatedAtMs = this.clock.now();
    return threadView(thread);
  }

  async deleteThread(params: Wire12.ThreadDeleteParams): Promise<void> {
    const thread = this.thread(params.threadId);
    const run = this.runs.get(thread.id);
    if (run) this.abortRun(run, 'thread_deleted', 'The thread was deleted while the turn ran');
    this.threads.delete(thread.id);
    this.queuedScripts.delete(thread.id);
  }

  async detachThread(params: Wire12.ThreadDetachParams): Promise<{ detached: boolean }> {
    const thread = this.thread(params.threadId);
    // A thread with a running turn stays loaded; detaching it again is a no-op.
    if (!thread.attached || this.runs.has(thread.id)) return { detached: false };
    thread.attached = false;
    return { detached: true };
  }

  async getCapabilities(params: Wire12.ThreadCapabilitiesParams): Promise<RuntimeCapabilitiesManifest> {
    const thread = this.thread(params.threadId);
    return capabilitiesManifest({
      agents: this.agents,
      model: thread.model,
      runtimeProtocolVersion: this.version,
      appResults: this.appResults,
      cwd: thread.cwd,
    });
  }

  async startTurn(params: Wire12.TurnStartParams): Promise<{ turnId: string }> {
    this.ensureRunning();
    return this.once(`turn.start:${params.requestId}`, () => {
      const thread = this.thread(params.threadId);
      const turnIndex = thread.turnCount;
      const script = this.takeQueuedScript(thread.id, params.input.text);
      const chosen = script ?? { script: this.turnScripts({ threadId: thread.id, turnId: params.turnId, input: params.input.text, turnIndex }) };
      this.beginTurn(thread, params.turnId, params.input.text, chosen.script, chosen.observer);
      return { turnId: params.turnId };
    });
  }

  async cancelTurn(params: Wire12.TurnCancelParams): Promise<{ cancelling: boolean }> {
    this.ensureRunning();
    return this.once(`turn.cancel:${params.requestId}`, () => {
      const thread = this.thread(params.threadId);
      const run = this.runs.get(thread.id);
      if (!run || run.id !== params.turnId) {
        if (!thread.turnIds.has(params.turnId)) throw simRuntimeError(this.marker, 'TURN_NOT_FOUND', `No turn ${params.turnId} in thread ${thread.id}`);
        return { cancelling: false };
      }
      if (run.status === 'cancelling') return { cancelling: true };
      this.cancelRun(run, 'user_requested', 'Cancelled by the person');
      return { cancelling: true };
    });
  }

  async getOperation(params: Wire12.OperationGetParams): Promise<RuntimeOperation | null> {
    const thread = this.thread(params.threadId);
    const operation = thread.operations.find((candidate) => candidate.id === params.operationId);
    return operation ? { ...operation } : null;
  }

  async getOperationResult(params: Wire12.OperationResultGetParams): Promise<RuntimeOperationResult | null> {
    if (!this.appResults) throw simRuntimeError(this.marker, 'APP_RESULTS_UNSUPPORTED', `Runtime ${this.version} keeps no app results`);
    const thread = this.thread(params.threadId);
    const operation = thread.operations.find((candidate) => candidate.id === params.operationId);
    if (!operation) return null;
    return {
      threadId: thread.id,
      operationId: operation.id,
      agentName: operation.agentName,
      toolName: operation.toolName,
      createdAt: operation.createdAt,
      output: operation.appResult ? { ...operation.appResult } : { status: 'not_provided' },
    };
  }

  async resolveServerRequest(serverRequestId: string, resolution: ServerRequestResolution): Promise<void> {
    const request = this.pendingRequest(serverRequestId);
    if (resolution.method !== request.method) {
      throw simRuntimeError(this.marker, 'SERVER_REQUEST_MISMATCH', `Server request ${serverRequestId} is a ${request.method}, not a ${resolution.method}`);
    }
    let outcome: Outcome;
    if (resolution.method === 'approval.request') {
      outcome = resolution.decision === 'approve' ? { kind: 'approve' } : { kind: 'reject', ...(resolution.reason !== undefined ? { reason: resolution.reason } : {}) };
    } else {
      const response = (resolution as Extract<ServerRequestResolution, { method: 'userInput.request' }>).response;
      outcome =
        response.status === 'submitted'
          ? { kind: 'submitted', values: response.values.map((entry) => ({ id: entry.id, value: entry.value })) }
          : { kind: 'cancelled', ...(response.reason !== undefined ? { reason: response.reason } : {}) };
    }
    this.settle(request, outcome, undefined);
  }

  async cancelServerRequest(serverRequestId: string, reason: ServerRequestCancelReason): Promise<void> {
    const request = this.pendingRequest(serverRequestId);
    this.settle(request, reason === 'expired' ? { kind: 'expired' } : { kind: 'aborted', reason }, undefined);
  }

  // ------------------------------------------------------------------------------------------------
  // Host and test API
  // ------------------------------------------------------------------------------------------------

  /** The workspace the Companion bound, if any. */
  boundWorkspace(): string | undefined {
    return this.workspaceId;
  }

  /** Receives disconnect/restart directives from scripts until the returned function is called. */
  onDirective(listener: (directive: SimDirective) => void): () => void {
    this.directiveListeners.add(listener);
    return () => this.directiveListeners.delete(listener);
  }

  /** Replaces the source of scripts for turns a person starts (the load mode plugs its generator in here). */
  setTurnScripts(source: TurnScriptSource): void {
    this.turnScripts = source;
  }

  /** Adds a thread with an optional past transcript (scenario threads, fixtures). */
  seedThread(options: SeedThreadOptions = {}): RuntimeThread {
    const thread = this.addThread(options);
    for (const entry of options.history ?? []) {
      if ('kind' in entry) this.recordOperation(thread, this.clock.now(), 'history', this.completedToolOf(entry));
      else this.recordMessage(thread, entry.role, entry.text);
    }
    return threadView(thread);
  }

  /**
   * Queues `script` for the next turn a person starts on `threadId` (whose input matches `match`, when
   * given) instead of the default script source.
   */
  queueTurnScript(threadId: string, script: TurnScript, options: { match?: RegExp; observer?: TurnObserver } = {}): void {
    this.thread(threadId);
    const queue = this.queuedScripts.get(threadId) ?? [];
    queue.push({ script, ...(options.match ? { match: options.match } : {}), ...(options.observer ? { observer: options.observer } : {}) });
    this.queuedScripts.set(threadId, queue);
  }

  /** Starts a turn at the machine (no browser request): the scenario and load modes use it. */
  startLocalTurn(options: LocalTurnOptions): { turnId: string } {
    this.ensureRunning();
    const thread = this.thread(options.threadId);
    const turnId = options.turnId ?? this.random.uuid();
    this.beginTurn(thread, turnId, options.input, options.script, options.observer);
    return { turnId };
  }

  /** Pending server requests, oldest first (tests answer them through `resolveServerRequest`). */
  pendingServerRequests(): RuntimeServerRequest[] {
    return [...this.pending.values()].filter((request) => !request.settled).map((request) => request.request);
  }

  /** The turn running on a thread, if any. */
  activeTurn(threadId: string): { turnId: string; status: string } | undefined {
    const run = this.runs.get(threadId);
    return run ? { turnId: run.id, status: run.status } : undefined;
  }

  /** Expectations scripts stated about answers, and whether they were met (the latest 10 000). */
  expectations(): readonly ExpectationRecord[] {
    return this.expectationLog;
  }

  /** Ids of every thread, newest first. */
  threadIds(): string[] {
    return [...this.threads.values()].sort((a, b) => b.ordinal - a.ordinal).map((thread) => thread.id);
  }

  emitDirective(directive: SimDirective): void {
    for (const listener of [...this.directiveListeners]) listener(directive);
  }

  // ------------------------------------------------------------------------------------------------
  // Threads
  // ------------------------------------------------------------------------------------------------

  private get appResults(): boolean {
    return this.version === '1.5';
  }

  private ensureRunning(): void {
    if (this.stopped) throw simRuntimeError(this.marker, 'RUNTIME_STOPPED', 'The runtime has shut down');
  }

  private thread(threadId: string): ThreadRecord {
    this.ensureRunning();
    const thread = this.threads.get(threadId);
    if (!thread) throw simRuntimeError(this.marker, 'THREAD_NOT_FOUND', `No thread ${threadId} under ${this.cwdFor(threadId)}`);
    return thread;
  }

  private cwdFor(threadId: string): string {
    return `/home/sim/workspace/${threadId.slice(0, 8)}`;
  }

  private addThread(options: { id?: string; title?: string; model?: string }): ThreadRecord {
    if (this.threads.size >= this.maxThreads) throw simRuntimeError(this.marker, 'THREAD_LIMIT_REACHED', `At most ${this.maxThreads} threads`, true);
    const id = options.id ?? this.random.uuid();
    const now = this.clock.now();
    const thread: ThreadRecord = {
      id,
      ordinal: this.threadOrdinal++,
      ...(options.title !== undefined ? { title: options.title } : {}),
      model: options.model ?? this.model,
      createdAtMs: now,
      updatedAtMs: now,
      attached: true,
      messages: [],
      operations: [],
      nextItemSequence: 1,
      turnIds: new Set(),
      turnCount: 0,
      cwd: this.cwdFor(id),
    };
    this.threads.set(id, thread);
    return thread;
  }

  private recordMessage(thread: ThreadRecord, role: 'user' | 'assistant', text: string, extraParts: Array<Record<string, unknown>> = []): void {
    const now = this.clock.now();
    thread.messages.push({
      sequence: nextSequence(thread),
      role,
      createdAt: iso(now),
      parts: [{ type: 'text', text }, ...extraParts.map((part) => ({ type: String(part['type'] ?? 'raw'), ...part }))],
    });
    if (thread.messages.length > this.maxItems) thread.messages.splice(0, thread.messages.length - this.maxItems);
    thread.updatedAtMs = now;
  }

  private once<T>(key: string, run: () => T): T {
    if (this.idempotent.has(key)) return this.idempotent.get(key) as T;
    const result = run();
    this.idempotent.set(key, result);
    if (this.idempotent.size > IDEMPOTENCY_ENTRIES) {
      const oldest = this.idempotent.keys().next();
      if (!oldest.done) this.idempotent.delete(oldest.value);
    }
    return result;
  }

  private takeQueuedScript(threadId: string, input: string): { script: TurnScript; observer?: TurnObserver } | undefined {
    const queue = this.queuedScripts.get(threadId);
    if (!queue) return undefined;
    const index = queue.findIndex((entry) => !entry.match || entry.match.test(input));
    if (index < 0) return undefined;
    const [entry] = queue.splice(index, 1);
    return entry;
  }

  // ------------------------------------------------------------------------------------------------
  // Turns
  // ------------------------------------------------------------------------------------------------

  private beginTurn(thread: ThreadRecord, turnId: string, input: string, script: TurnScript, observer: TurnObserver | undefined): void {
    const active = this.runs.get(thread.id);
    if (active) throw simRuntimeError(this.marker, 'TURN_ALREADY_ACTIVE', `Turn ${active.id} is still running in ${thread.cwd}`, true);
    if (thread.turnIds.has(turnId)) throw simRuntimeError(this.marker, 'TURN_ID_IN_USE', `Turn ${turnId} already ran in ${thread.cwd}`);
    thread.turnIds.add(turnId);
    thread.turnCount++;
    thread.attached = true;
    // The person's input is transcript (it crosses on purpose); the environment context part does not.
    this.recordMessage(thread, 'user', input, this.marker.sentinel ? [{ type: 'environment_context', cwd: thread.cwd, ...this.marker.fields() }] : []);
    const run: TurnRun = {
      id: turnId,
      thread,
      startedAtMs: this.clock.now(),
      status: 'starting',
      toolCallParts: [],
      stepsDone: 0,
      observers: observer ? [observer] : [],
      started: false,
      driving: false,
    };
    this.runs.set(thread.id, run);
    run.timer = this.clock.setTimer(script.startDelayMs ?? 10, () => {
      run.timer = undefined;
      run.status = 'running';
      run.play = this.playTurn(run, script);
      this.drive(run, undefined);
    });
  }

  /** Runs the turn's generator until it waits (timer or server request) or ends. */
  private drive(run: TurnRun, resume: Outcome | undefined): void {
    if (run.status === 'ended' || run.status === 'cancelling' || !run.play) return;
    let value = resume;
    for (;;) {
      run.driving = true;
      let next: IteratorResult<Wait, TurnEnd>;
      try {
        next = run.play.next(value);
      } finally {
        run.driving = false;
      }
      value = undefined;
      // Shut down from inside the turn (a restart directive): nothing more happens.
      if ((run.status as TurnRun['status']) === 'ended') return;
      const stop = run.deferredStop;
      if (stop) {
        run.deferredStop = undefined;
        stop();
        return;
      }
      if (next.done) {
        this.endRun(run, next.value);
        return;
      }
      const wait = next.value;
      if (wait.kind === 'interaction') return;
      if (wait.ms > 0) {
        run.timer = this.clock.setTimer(wait.ms, () => {
          run.timer = undefined;
          this.drive(run, undefined);
        });
        return;
      }
    }
  }

  private *playTurn(run: TurnRun, script: TurnScript): TurnPlay {
    run.started = true;
    this.emit(run, { type: 'turn.started' });
    for (const step of script.steps) {
      switch (step.kind) {
        case 'message':
          yield* this.playMessage(run, step);
          break;
        case 'reasoning':
          yield* this.playReasoning(run, step);
          break;
        case 'tool':
          yield* this.playTool(run, step);
          break;
        case 'userInput':
          yield* this.playUserInput(run, step);
          break;
        case 'delay':
          yield { kind: 'delay', ms: step.ms };
          break;
        case 'disconnect':
          this.emitDirective({ kind: 'disconnect', forMs: step.forMs });
          break;
        case 'restart':
          this.emitDirective({ kind: 'restart', downMs: step.downMs ?? 0 });
          break;
        case 'capabilitiesChanged':
          this.emit(run, { type: 'capabilities.changed' });
          break;
        case 'fail':
          this.stepDone(run, step);
          return { kind: 'failed', stage: step.stage, message: step.message ?? `The agent failed during ${step.stage}` };
        case 'cancel':
          this.stepDone(run, step);
          return { kind: 'cancelled', reason: step.reason ?? 'cancelled_locally', message: step.message ?? 'Cancelled at the machine' };
      }
      this.stepDone(run, step);
    }
    return { kind: 'completed' };
  }

  private stepDone(run: TurnRun, step: TurnStep): void {
    run.stepsDone++;
    for (const observer of run.observers) observer.stepDone?.(step);
  }

  private *playMessage(run: TurnRun, step: MessageStep): Generator<Wait, void, Outcome | undefined> {
    const streamId = this.random.uuid();
    run.openMessage = { streamId, text: '' };
    this.emit(run, { type: 'message.started', streamId });
    for (const chunk of chunks(step.text, step.chunkChars ?? 12)) {
      yield { kind: 'delay', ms: step.chunkDelayMs ?? 25 };
      run.openMessage.text += chunk;
      this.emit(run, { type: 'message.delta', streamId, delta: chunk });
    }
    this.completeMessage(run);
  }

  private completeMessage(run: TurnRun): void {
    const open = run.openMessage;
    if (!open) return;
    run.openMessage = undefined;
    this.emit(run, { type: 'message.completed', streamId: open.streamId, text: open.text });
    this.recordMessage(run.thread, 'assistant', open.text, run.toolCallParts.splice(0));
  }

  private *playReasoning(run: TurnRun, step: ReasoningStep): Generator<Wait, void, Outcome | undefined> {
    const reasoningId = this.random.uuid();
    for (const chunk of chunks(step.text, step.chunkChars ?? 24)) {
      yield { kind: 'delay', ms: step.chunkDelayMs ?? 20 };
      this.emit(run, { type: 'reasoning.summary.delta', reasoningId, delta: chunk });
    }
  }

  private *playTool(run: TurnRun, step: ToolStep): Generator<Wait, void, Outcome | undefined> {
    const tool = this.openTool(run, step.agent, step.tool, step.input);
    if (step.approval) {
      const approved = yield* this.askApproval(run, tool, step.approval);
      if (!approved) return;
    }
    yield* this.streamOutput(run, step);
    const kind = step.outcome ?? 'success';
    this.completeTool(run, {
      outcome: kind,
      reason: step.outcomeReason ?? defaultOutcomeReason(kind, step.tool),
      display: step.display ?? { title: `${step.tool} ${kind === 'success' ? 'finished' : 'failed'}`, output: tool.output },
      ...(step.appOutput ? { appOutput: step.appOutput } : {}),
    });
  }

  private openTool(run: TurnRun, agentName: string, toolName: string, input: JsonValue): NonNullable<TurnRun['openTool']> {
    const tool = { toolCallId: `call_${this.random.hex(24)}`, agentName, toolName, input: this.marker.value(input), output: '' };
    run.openTool = tool;
    this.emit(run, { type: 'tool.started', toolCallId: tool.toolCallId, agentName, toolName, input: tool.input });
    return tool;
  }

  private *streamOutput(run: TurnRun, step: ToolStep): Generator<Wait, void, Outcome | undefined> {
    const output = typeof step.output === 'string' ? { stdout: step.output } : (step.output ?? {});
    const streams: Array<['stdout' | 'stderr', string]> = [];
    if (output.stdout) streams.push(['stdout', output.stdout]);
    if (output.stderr) streams.push(['stderr', output.stderr]);
    const pieces = Math.max(1, step.outputChunks ?? 3);
    const total = streams.reduce((sum, [, text]) => sum + Math.min(pieces, Math.max(1, text.length)), 0);
    const pause = Math.floor((step.durationMs ?? 150) / Math.max(1, total));
    if (total === 0) yield { kind: 'delay', ms: step.durationMs ?? 150 };
    for (const [stream, text] of streams) {
      for (const chunk of chunks(text, Math.ceil(text.length / pieces))) {
        yield { kind: 'delay', ms: pause };
        const tool = run.openTool;
        if (!tool) return;
        // Every chunk of raw output carries the sentinel, so each tool.output event is a leak probe.
        const delta = this.marker.text(chunk);
        tool.output += delta;
        this.emit(run, { type: 'tool.output', toolCallId: tool.toolCallId, agentName: tool.agentName, toolName: tool.toolName, stream, delta });
      }
    }
  }

  private completeTool(run: TurnRun, result: { outcome: OutcomeKind; reason: string; display: JsonValue; appOutput?: AppOutputScript }): void {
    const tool = run.openTool;
    if (!tool) return;
    run.openTool = undefined;
    const now = this.clock.now();
    const appOutput = this.appResults && result.appOutput ? descriptorOf(result.appOutput) : undefined;
    const operation = this.recordOperation(run.thread, now, run.id, {
      toolCallId: tool.toolCallId,
      agentName: tool.agentName,
      toolName: tool.toolName,
      input: tool.input,
      output: tool.output,
      outcome: result.outcome,
      reason: this.marker.text(result.reason),
      display: this.marker.value(result.display),
      ...(appOutput ? { appOutput } : {}),
      ...(this.appResults && result.appOutput ? { appResult: this.appResultOf(result.appOutput) } : {}),
    });
    this.emit(run, {
      type: 'tool.completed',
      toolCallId: tool.toolCallId,
      agentName: tool.agentName,
      toolName: tool.toolName,
      ...(this.appResults ? { operationId: operation.id } : {}),
      outcome: { kind: result.outcome, reason: operation.outcome.reason ?? '' },
      display: operation.display as JsonValue,
      ...(appOutput ? { appOutput } : {}),
    });
    run.toolCallParts.push({ type: 'tool_call', toolCallId: tool.toolCallId, toolName: tool.toolName, input: tool.input, operationId: operation.id });
  }

  private recordOperation(
    thread: ThreadRecord,
    now: number,
    turnId: string,
    call: {
      toolCallId: string;
      agentName: string;
      toolName: string;
      input: unknown;
      output: string;
      outcome: OutcomeKind;
      reason: string;
      display: unknown;
      appOutput?: AppOutputDescriptor;
      appResult?: AppOutputScript;
    },
  ): OperationRecord {
    const operation: OperationRecord = {
      id: this.random.uuid(),
      sequence: nextSequence(thread),
      toolCallId: call.toolCallId,
      agentName: call.agentName,
      toolName: call.toolName,
      createdAt: iso(now),
      outcome: { kind: call.outcome, reason: call.reason },
      display: call.display,
      ...(call.appOutput ? { appOutput: call.appOutput } : {}),
      turnId,
      input: call.input,
      output: call.output,
      ...(call.appResult ? { appResult: call.appResult } : {}),
    };
    thread.operations.push(operation);
    if (thread.operations.length > this.maxItems) thread.operations.splice(0, thread.operations.length - this.maxItems);
    thread.updatedAtMs = now;
    return operation;
  }

  /** A history tool call, recorded as a completed operation without streaming. */
  private completedToolOf(step: ToolStep): Parameters<SimulatedRuntime['recordOperation']>[3] {
    const kind = step.outcome ?? 'success';
    const output = typeof step.output === 'string' ? step.output : [step.output?.stdout, step.output?.stderr].filter(Boolean).join('\n');
    const appOutput = this.appResults && step.appOutput ? descriptorOf(step.appOutput) : undefined;
    return {
      toolCallId: `call_${this.random.hex(24)}`,
      agentName: step.agent,
      toolName: step.tool,
      input: this.marker.value(step.input),
      output: this.marker.text(output),
      outcome: kind,
      reason: this.marker.text(step.outcomeReason ?? defaultOutcomeReason(kind, step.tool)),
      display: this.marker.value(step.display ?? { title: `${step.tool} finished` }),
      ...(appOutput ? { appOutput } : {}),
      ...(this.appResults && step.appOutput ? { appResult: this.appResultOf(step.appOutput) } : {}),
    };
  }

  /** App results that are not remote-readable hold data the browser must never see: plant the sentinel there. */
  private appResultOf(script: AppOutputScript): AppOutputScript {
    if (script.status !== 'available' || script.remoteReadable) return script;
    return { ...script, data: { ...script.data, ...this.marker.fields() }, fallbackText: this.marker.text(script.fallbackText).slice(0, 4096) };
  }

  // ------------------------------------------------------------------------------------------------
  // Server requests
  // ------------------------------------------------------------------------------------------------

  private *askApproval(run: TurnRun, tool: NonNullable<TurnRun['openTool']>, script: ApprovalScript): Generator<Wait, boolean, Outcome | undefined> {
    const approvalId = this.random.uuid();
    const preview: Record<string, JsonValue> = {
      ...(script.explanation !== undefined ? { explanation: script.explanation } : {}),
      ...(script.preview ?? {}),
      ...(this.marker.sentinel ? { input: tool.input, ...this.marker.fields() } : {}),
    };
    const reason = this.marker.text(script.reason ?? `${tool.agentName} wants to run ${tool.toolName}`);
    const approval: RuntimePendingApproval = { id: approvalId, turnId: run.id, agentName: tool.agentName, toolName: tool.toolName, preview, reason };
    this.emit(run, { type: 'approval.required', approval: { id: approvalId, turnId: run.id, agentName: tool.agentName, toolName: tool.toolName, preview, reason } });
    const auto = script.autoRespond;
    const outcome = yield* this.ask(run, {
      payload: { method: 'approval.request', approval: { id: approvalId, agentName: tool.agentName, toolName: tool.toolName, preview, reason, input: tool.input }, sensitivity: 'normal' },
      approval,
      timeoutMs: script.expiresInMs ?? this.timeoutMs,
      ...(auto ? { auto: { afterMs: auto.afterMs, outcome: auto.decision === 'approve' ? { kind: 'approve' } : { kind: 'reject', ...(auto.reason ? { reason: auto.reason } : {}) } } } : {}),
      ...(script.expect ? { expect: script.expect } : {}),
    });
    switch (outcome.kind) {
      case 'approve':
        this.emit(run, { type: 'approval.resolved', approvalId, resolution: { status: 'resolved', decision: 'approve' } });
        return true;
      case 'reject': {
        const rejection = this.marker.text(outcome.reason ?? 'Rejected by the person');
        this.emit(run, { type: 'approval.resolved', approvalId, resolution: { status: 'resolved', decision: 'reject', reason: rejection } });
        this.completeTool(run, { outcome: 'user_rejected', reason: rejection, display: { title: `${tool.toolName} was not approved` } });
        return false;
      }
      case 'expired':
        this.emit(run, { type: 'approval.resolved', approvalId, resolution: { status: 'expired', reason: this.marker.text('Nobody answered in time') } });
        this.completeTool(run, { outcome: 'cancelled', reason: 'The approval expired', display: { title: `${tool.toolName} approval expired` } });
        return false;
      default: {
        const why = outcome.kind === 'aborted' ? outcome.reason : 'cancelled';
        this.emit(run, { type: 'approval.resolved', approvalId, resolution: { status: 'cancelled', reason: this.marker.text(`Approval cancelled: ${why}`) } });
        this.completeTool(run, { outcome: 'cancelled', reason: `The approval was cancelled (${why})`, display: { title: `${tool.toolName} approval cancelled` } });
        return false;
      }
    }
  }

  private *playUserInput(run: TurnRun, step: UserInputStep): Generator<Wait, void, Outcome | undefined> {
    const form = {
      ...step.form,
      controls: step.form.controls.map((control) => ({ ...control, ...(this.marker.sentinel ? { prefill: this.marker.sentinel } : {}) })),
      ...this.marker.fields(),
    };
    const reason = this.marker.text(step.reason ?? 'The agent needs more information');
    const tool = this.openTool(run, step.agent ?? 'assistant', step.tool ?? 'request_user_input', { title: step.form.title ?? null, reason });
    const auto = step.autoRespond;
    const outcome = yield* this.ask(run, {
      payload: { method: 'userInput.request', form, sensitivity: 'normal', reason },
      timeoutMs: step.expiresInMs ?? this.timeoutMs,
      ...(auto
        ? {
            auto: {
              afterMs: auto.afterMs,
              outcome: 'values' in auto ? { kind: 'submitted', values: auto.values } : { kind: 'cancelled', ...(auto.reason ? { reason: auto.reason } : {}) },
            },
          }
        : {}),
      ...(step.expect ? { expect: step.expect } : {}),
    });
    if (outcome.kind === 'submitted') {
      const answers = JSON.stringify(outcome.values);
      tool.output += this.marker.text(answers);
      this.emit(run, { type: 'tool.output', toolCallId: tool.toolCallId, agentName: tool.agentName, toolName: tool.toolName, stream: 'stdout', delta: this.marker.text(answers) });
      this.completeTool(run, { outcome: 'success', reason: 'The person answered', display: { answers: outcome.values as JsonValue } });
      return;
    }
    const why =
      outcome.kind === 'cancelled'
        ? `The person cancelled: ${outcome.reason ?? 'no reason given'}`
        : outcome.kind === 'expired'
          ? 'Nobody answered in time'
          : `The request was cancelled (${outcome.kind === 'aborted' ? outcome.reason : outcome.kind})`;
    this.completeTool(run, { outcome: 'cancelled', reason: why, display: { title: 'No answer' } });
  }

  /** Raises a server request and waits for its outcome (an answer, expiry, a local answer or an abort). */
  private *ask(
    run: TurnRun,
    request: {
      payload: RuntimeServerRequestPayload & { method: 'approval.request' | 'userInput.request' };
      approval?: RuntimePendingApproval;
      timeoutMs: number;
      auto?: { afterMs: number; outcome: Outcome };
      expect?: string;
    },
  ): Generator<Wait, Outcome, Outcome | undefined> {
    const serverRequestId = `sr-${++this.serverRequestCounter}`;
    const now = this.clock.now();
    // Runtime 1.1 approvals carry neither an interaction id nor a deadline; the Companion assigns both.
    const legacy = this.version === '1.0' || this.version === '1.1';
    const runtimeRequest: RuntimeServerRequest = {
      serverRequestId,
      ...(legacy ? {} : { interactionId: this.random.uuid(), expiresAt: iso(now + request.timeoutMs) }),
      threadId: run.thread.id,
      turnId: run.id,
      request: request.payload,
    };
    const pending: PendingRequest = {
      serverRequestId,
      run,
      method: request.payload.method,
      request: runtimeRequest,
      ...(request.approval ? { approval: request.approval } : {}),
      timers: [],
      ...(request.expect ? { expect: request.expect } : {}),
      settled: false,
    };
    this.pending.set(serverRequestId, pending);
    run.pending = pending;
    run.status = 'waiting-for-user';
    pending.timers.push(this.clock.setTimer(request.timeoutMs + this.graceMs, () => this.settle(pending, { kind: 'expired' }, 'cancelled')));
    const auto = request.auto;
    if (auto) pending.timers.push(this.clock.setTimer(auto.afterMs, () => this.settle(pending, auto.outcome, 'resolved')));
    for (const listener of [...this.listeners]) safely(() => listener.serverRequest(runtimeRequest));
    const outcome = yield { kind: 'interaction' };
    return outcome ?? { kind: 'aborted', reason: 'no outcome' };
  }

  private pendingRequest(serverRequestId: string): PendingRequest {
    const request = this.pending.get(serverRequestId);
    if (!request || request.settled) {
      throw simRuntimeError(this.marker, 'SERVER_REQUEST_NOT_PENDING', `Server request ${serverRequestId} is not pending`);
    }
    return request;
  }

  /**
   * Ends a server request exactly once. `localEnd` is set when the runtime itself ended it (answered at
   * the machine, or its backstop expiry): the Companion then learns it through `serverRequestEnded`.
   * The turn resumes from a timer, never inside the caller's stack.
   */
  private settle(request: PendingRequest, outcome: Outcome, localEnd: RuntimeServerRequestEnd['outcome'] | undefined): void {
    if (request.settled) return;
    request.settled = true;
    this.pending.delete(request.serverRequestId);
    for (const timer of request.timers) this.clock.clearTimer(timer);
    const run = request.run;
    if (run.pending === request) run.pending = undefined;
    this.recordExpectation(request, outcome);
    if (localEnd) {
      const end: RuntimeServerRequestEnd = { serverRequestId: request.serverRequestId, outcome: localEnd };
      for (const listener of [...this.listeners]) safely(() => listener.serverRequestEnded(end));
    }
    if (run.status !== 'waiting-for-user') return;
    run.status = 'running';
    run.timer = this.clock.setTimer(0, () => {
      run.timer = undefined;
      this.drive(run, outcome);
    });
  }

  private recordExpectation(request: PendingRequest, outcome: Outcome): void {
    const actual: SettledAs = outcome.kind === 'approve' || outcome.kind === 'reject' || outcome.kind === 'submitted' || outcome.kind === 'cancelled' ? outcome.kind : outcome.kind === 'expired' ? 'expire' : 'aborted';
    for (const observer of request.run.observers) safely(() => observer.requestSettled?.({ method: request.method, actual }));
    if (!request.expect) return;
    if (this.expectationLog.length >= IDEMPOTENCY_ENTRIES) this.expectationLog.shift();
    const record: ExpectationRecord = {
      threadId: request.run.thread.id,
      turnId: request.run.id,
      method: request.method,
      expected: request.expect,
      actual,
      met: actual === request.expect,
    };
    this.expectationLog.push(record);
    for (const observer of request.run.observers) safely(() => observer.expectation?.(record));
  }

  // ------------------------------------------------------------------------------------------------
  // Ending turns
  // ------------------------------------------------------------------------------------------------

  /** A person cancelled: stop the script, end its open work, then report `turn.cancelled`. */
  private cancelRun(run: TurnRun, reason: string, message: string): void {
    if (run.driving) {
      run.deferredStop = () => this.cancelRun(run, reason, message);
      run.status = 'cancelling';
      return;
    }
    this.stopPlay(run);
    run.status = 'cancelling';
    run.timer = this.clock.setTimer(this.cancelDelayMs, () => {
      run.timer = undefined;
      this.closeOpenWork(run);
      this.endRun(run, { kind: 'cancelled', reason, message });
    });
  }

  /** Ends a turn at once (its thread is going away). */
  private abortRun(run: TurnRun, reason: string, message: string): void {
    if (run.driving) {
      run.deferredStop = () => this.abortRun(run, reason, message);
      return;
    }
    this.stopPlay(run);
    this.closeOpenWork(run);
    this.endRun(run, { kind: 'cancelled', reason, message });
  }

  /** Stops timers and the generator, and aborts a pending server request (the Companion is told). */
  private stopPlay(run: TurnRun): void {
    if (run.timer !== undefined) this.clock.clearTimer(run.timer);
    run.timer = undefined;
    run.play?.return({ kind: 'completed' });
    run.play = undefined;
    const request = run.pending;
    if (request) {
      run.status = 'cancelling';
      this.settle(request, { kind: 'aborted', reason: 'turn ended' }, 'cancelled');
      if (request.method === 'approval.request' && request.approval) {
        this.emit(run, { type: 'approval.resolved', approvalId: request.approval.id, resolution: { status: 'cancelled', reason: this.marker.text('The turn was cancelled') } });
      }
    }
  }

  private closeOpenWork(run: TurnRun): void {
    if (run.openMessage) this.completeMessage(run);
    if (run.openTool) this.completeTool(run, { outcome: 'cancelled', reason: 'The turn was cancelled', display: { title: `${run.openTool.toolName} cancelled` } });
  }

  private endRun(run: TurnRun, end: TurnEnd): void {
    if (run.status === 'ended') return;
    run.status = 'ended';
    if (this.runs.get(run.thread.id) === run) this.runs.delete(run.thread.id);
    run.thread.updatedAtMs = this.clock.now();
    // Cancelled before it began: it still begins, so every turn's timeline has both ends.
    if (!run.started) {
      run.started = true;
      this.emit(run, { type: 'turn.started' });
    }
    switch (end.kind) {
      case 'completed':
        this.emit(run, { type: 'turn.completed' });
        break;
      case 'failed':
        this.emit(run, { type: 'turn.failed', stage: end.stage, message: this.marker.text(end.message) });
        break;
      case 'cancelled':
        this.emit(run, { type: 'turn.cancelled', reason: this.marker.text(end.reason), message: this.marker.text(end.message) });
        break;
    }
    for (const observer of run.observers) safely(() => observer.ended?.({ kind: end.kind }));
  }

  /** Shutdown: stop without emitting anything more. */
  private haltRun(run: TurnRun): void {
    if (run.timer !== undefined) this.clock.clearTimer(run.timer);
    if (!run.driving) run.play?.return({ kind: 'completed' });
    run.status = 'ended';
    for (const request of this.pending.values()) for (const timer of request.timers) this.clock.clearTimer(timer);
  }

  private emit(run: TurnRun, event: RuntimeTimelineEvent): void {
    if (this.stopped) return;
    const envelope: RuntimeEventEnvelope = {
      protocolVersion: this.version,
      runtimeInstanceId: this.instanceId,
      sequence: ++this.eventSequence,
      timestamp: iso(this.clock.now()),
      threadId: run.thread.id,
      turnId: run.id,
      event,
      // A newer-Runtime cursor: tolerated on input, never copied out.
      eventCursor: `ec_${this.eventSequence}`,
    };
    for (const listener of [...this.listeners]) safely(() => listener.event(envelope));
  }
}

function activeStatus(run: TurnRun): 'running' | 'cancelling' | 'waiting-for-user' {
  if (run.status === 'cancelling') return 'cancelling';
  if (run.status === 'waiting-for-user') return 'waiting-for-user';
  return 'running';
}

function descriptorOf(script: AppOutputScript): AppOutputDescriptor {
  if (script.status === 'available') return { status: 'available', schemaId: script.schemaId, schemaVersion: script.schemaVersion };
  if (script.status === 'rejected') return { status: 'rejected', reason: script.reason, ...(script.field !== undefined ? { field: script.field } : {}) };
  return { status: script.status };
}

function defaultOutcomeReason(kind: OutcomeKind, tool: string): string {
  return kind === 'success' ? `${tool} exited with status 0` : `${tool} ended: ${kind}`;
}

function clampLimit(limit: number | undefined): number {
  if (limit === undefined || !Number.isFinite(limit)) return 100;
  return Math.min(500, Math.max(1, Math.floor(limit)));
}

/** Splits text into chunks of `size` code points (never splitting a surrogate pair). */
export function chunks(text: string, size: number): string[] {
  const points = Array.from(text);
  const step = Math.max(1, Math.floor(size));
  const out: string[] = [];
  for (let index = 0; index < points.length; index += step) out.push(points.slice(index, index + step).join(''));
  return out;
}

function safely(call: () => void): void {
  try {
    call();
  } catch {
    // A listener's failure must not break the runtime's own state (the port says calls must not throw).
  }
}

