/**
 * The Companion's protocol core for one Workspace at one Wire version (1.2 or 1.1), transport-agnostic.
 * A host adds the socket (sending `device.connect` itself), enrollment and configuration, and calls:
 *
 *   const session = new CompanionSession({ workspaceId, wireVersion, runtime, ... });
 *   await session.start();                       // binds the runtime, subscribes to it
 *   const generation = session.connect(send);     // after device.connect went out on a new socket
 *   socket.on('message', (text) => void session.receive(text, generation));
 *   socket.on('close', () => session.disconnect(generation));
 *
 * What it owns (BEHAVIOUR.md):
 * - §6 sequencing: `runtime.event` and `interaction.*` are numbered from 0 as they are buffered
 *   (`tool.output` never, responses/gaps/ACKs never); the replay buffer; ACK classification with
 *   `acknowledgedThrough` kept across reconnects and `advertisedThrough` per generation; on connect the
 *   gap first, then every unacked frame in order, then live frames;
 * - §4/§5/§8 request processing, in order: schema (invalid frames are dropped silently) → encryption
 *   required → request policy → workspace served → idempotency → local-only → params → dispatch;
 * - §8 the interaction broker; §9 leak-safe projection of every Runtime datum (protocol projections,
 *   results validated against the version's result schema, fail closed → COMPANION_ERROR); §2 1.2 data
 *   downgraded for 1.1; §7 cipher-bound workspaces; §11 outbound plaintext limit.
 */
import {
  DEFAULT_MAX_FRAME_BYTES,
  FrameReader,
  MAX_FRAME_DEPTH,
  classifyAck,
  downgradeFrameTo11,
  isMutation,
  methodDisposition,
  projectOperationResult,
  projectRuntimeEvent,
  projectThreadSnapshot,
  validateMethodParams,
  validateMethodResult,
  utf8ByteLength,
  validateWireFrame,
  type AckDisposition,
  type RequestIdentity,
  type RuntimeEventEnvelope,
  type Wire12,
} from '@trustmesh/relay-protocol';
import { parseStrictJsonOrThrow } from '@trustmesh/shared-strict-json';

import type { AgentRuntime, AgentRuntimeListener } from '../agent-runtime.port';
import { systemClock, type Clock } from '../clock';
import { IdempotencyCache } from '../idempotency/idempotency-cache';
import { InteractionBroker, LEGACY_INTERACTION_TTL_MS } from '../interactions/interaction-broker';
import { productionRequestPolicy, type AppResultGrant, type CompanionPolicies, type RequestPolicy } from '../policy/companion-policies';
import { isRecord, projectCapabilities, projectOperationAppResult, projectThreadSummary } from '../projections/result.projections';
import { ReplayBuffer } from '../replay/replay-buffer';
import type { CompanionCipher, CompanionSealableFrame } from './companion-cipher.port';
import { ConnectionGeneration, type OutboundItem, type SendFrame } from './connection-generation';
import type { CompanionDiagnostic, DiagnosticSink } from './diagnostics';
import { errorCodeOf, fail, isRetryableError, runtimeFailure, succeed, type RequestOutcome } from './request-outcome';

export type CompanionWireVersion = '1.2' | '1.1';

export interface CompanionLimits {
  /** Replay buffer frames (default 10 000). */
  replayFrames: number;
  /** Replay buffer UTF-8 bytes (default 32 MiB). */
  replayBytes: number;
  /** Settled mutations kept for idempotency (default 10 000). */
  idempotencyEntries: number;
  /** Largest plaintext frame sent (default 1 MiB); larger responses become COMPANION_ERROR. */
  maxOutboundFrameBytes: number;
  /** Largest inbound frame read (default 1 MiB); larger ones are dropped unread. */
  maxInboundFrameBytes: number;
  /** Deadline of server requests that carry none (default 5 min). */
  legacyInteractionTtlMs: number;
  /** `limit` used for `thread.open` (the newest page; default 100). */
  openPageLimit: number;
  /**
   * Frame text a generation may have queued for sending (default 64 MiB): past it the relay is not reading,
   * and the generation ends with `send-backlog` (reconnect; the replay buffer keeps the sequenced frames).
   * Never below `replayBytes` + `maxOutboundFrameBytes`, so a reconnect's replay fits its own generation.
   */
  maxSendBacklogBytes: number;
}

export const DEFAULT_COMPANION_LIMITS: Readonly<CompanionLimits> = {
  replayFrames: 10_000,
  replayBytes: 32 * 1024 * 1024,
  idempotencyEntries: 10_000,
  maxOutboundFrameBytes: DEFAULT_MAX_FRAME_BYTES,
  maxInboundFrameBytes: DEFAULT_MAX_FRAME_BYTES,
  legacyInteractionTtlMs: LEGACY_INTERACTION_TTL_MS,
  openPageLimit: 100,
  maxSendBacklogBytes: 64 * 1024 * 1024,
};

export interface CompanionSessionOptions {
  /** The one Workspace this Companion serves. */
  workspaceId: string;
  /** The Wire version of `device.connect` (1.1 is the usual default, 1.2 opt-in). 1.0 is never served remotely. */
  wireVersion: CompanionWireVersion;
  runtime: AgentRuntime;
  policies?: CompanionPolicies;
  /** Makes the workspace cipher-bound: plaintext requests are refused and all output is sealed. */
  cipher?: CompanionCipher;
  limits?: Partial<CompanionLimits>;
  clock?: Clock;
  /** UUIDs for local interaction ids (Runtime 1.1 approvals); default `crypto.randomUUID`. */
  newId?: () => string;
  /** Codes-only diagnostics for logs and metrics. */
  onDiagnostic?: DiagnosticSink;
}

export type GenerationEndReason = 'superseded' | 'disconnected' | 'send-failed' | 'send-backlog' | 'encode-failed' | 'shutdown';

export interface GenerationEnd {
  generation: number;
  reason: GenerationEndReason;
}

/** What `receive` did with a frame. Codes only, safe to log. */
export type ReceiveResult =
  | { kind: 'dropped'; reason: string }
  | { kind: 'ack'; disposition: AckDisposition | 'foreign-workspace' }
  | { kind: 'response'; requestId: string; method: string; errorCode: string | null; sent: boolean };

export interface CompanionStats {
  wireVersion: CompanionWireVersion;
  encrypted: boolean;
  /** The current generation, or null while disconnected. */
  generation: number | null;
  generationsStarted: number;
  /** The next relaySequence to assign. */
  nextRelaySequence: number;
  acknowledgedThrough: number;
  advertisedThrough: number;
  prunedThrough: number;
  bufferedFrames: number;
  bufferedBytes: number;
  gapsSent: number;
  pendingInteractions: number;
  idempotencySettled: number;
  idempotencyInFlight: number;
  inboundDropped: number;
  responsesSent: number;
}

interface RequestFrame {
  requestId: string;
  workspaceId: string;
  method: string;
  params: unknown;
}

const TERMINAL_TURN_EVENTS: ReadonlySet<string> = new Set(['turn.completed', 'turn.cancelled', 'turn.failed']);

export class CompanionSession {
  readonly workspaceId: string;
  readonly wireVersion: CompanionWireVersion;
  private readonly runtime: AgentRuntime;
  private readonly cipher: CompanionCipher | undefined;
  private readonly limits: CompanionLimits;
  private readonly clock: Clock;
  private readonly requestPolicy: RequestPolicy;
  private readonly appResultGrant: AppResultGrant;
  private readonly report: DiagnosticSink;
  private readonly reader: FrameReader;
  private readonly buffer: ReplayBuffer;
  private readonly cache: IdempotencyCache<RequestOutcome>;
  private readonly broker: InteractionBroker;
  private readonly endListeners = new Map<number, (end: GenerationEnd) => void>();

  private current: ConnectionGeneration | undefined;
  private generations = 0;
  private acknowledgedThrough = -1;
  private bound = false;
  private starting: Promise<void> | undefined;
  private closed = false;
  private unsubscribe: (() => void) | undefined;
  private gapsSent = 0;
  private inboundDropped = 0;
  private responsesSent = 0;

  constructor(options: CompanionSessionOptions) {
    if (options.wireVersion !== '1.2' && options.wireVersion !== '1.1') {
      throw new Error('A remote-facing Companion speaks Wire 1.2 or 1.1 (BEHAVIOUR.md §2).');
    }
    if (options.cipher && options.cipher.workspaceId !== options.workspaceId) {
      throw new Error('The cipher is bound to another workspace.');
    }
    this.workspaceId = options.workspaceId;
    this.wireVersion = options.wireVersion;
    this.runtime = options.runtime;
    this.cipher = options.cipher;
    this.limits = { ...DEFAULT_COMPANION_LIMITS, ...options.limits };
    this.clock = options.clock ?? systemClock;
    this.requestPolicy = options.policies?.request ?? productionRequestPolicy;
    this.appResultGrant = options.policies?.appResults ?? (() => false);
    const sink = options.onDiagnostic;
    this.report = (diagnostic: CompanionDiagnostic) => {
      try {
        sink?.(diagnostic);
      } catch {
        // A failing log sink must not break the protocol.
      }
    };
    this.reader = new FrameReader({
      direction: 'relay-to-companion',
      wire: this.wireVersion,
      encryption: this.cipher !== undefined,
      maxFrameBytes: this.limits.maxInboundFrameBytes,
    });
    this.buffer = new ReplayBuffer({ maxFrames: this.limits.replayFrames, maxBytes: this.limits.replayBytes });
    this.cache = new IdempotencyCache<RequestOutcome>(this.limits.idempotencyEntries);
    const newId = options.newId ?? (() => globalThis.crypto.randomUUID());
    this.broker = new InteractionBroker({
      workspaceId: this.workspaceId,
      wireVersion: this.wireVersion,
      runtime: this.runtime,
      clock: this.clock,
      newId,
      legacyTtlMs: this.limits.legacyInteractionTtlMs,
      responderPolicy: options.policies?.responder ?? (() => true),
      approvalPolicy: options.policies?.approval ?? (() => 'allow'),
      diagnostic: this.report,
      publish: (frame) => this.publish(frame),
      isBound: () => this.bound && !this.closed,
      isGenerationLive: (generation) => this.current?.id === generation && this.current.alive,
    });
  }

  /** Binds the runtime to the workspace and subscribes to its events and server requests. Idempotent. */
  start(): Promise<void> {
    this.starting ??= (async () => {
      if (this.closed) throw new Error('The Companion session is shut down.');
      await this.runtime.bindWorkspace(this.workspaceId);
      this.bound = true;
      this.unsubscribe = this.runtime.subscribe(this.listener());
    })();
    return this.starting;
  }

  /**
   * Starts a new connection generation on a transport whose `device.connect` was already sent. Ends
   * the previous generation (its candidate attempts are aborted and its pending responses never sent),
   * then queues `replay(acknowledgedThrough)`: the gap first, then every unacked frame in order; live
   * frames follow. `send` must resolve once the frame was handed to the socket and reject if it was not;
   * a rejection ends the generation (`onEnded` with `send-failed`), and the host reconnects with backoff. So
   * does a generation whose unsent frames pass `limits.maxSendBacklogBytes` (`send-backlog`): the host must
   * close that socket.
   */
  connect(send: SendFrame, onEnded?: (end: GenerationEnd) => void): number {
    if (this.closed) throw new Error('The Companion session is shut down.');
    this.endGeneration(this.current, 'superseded');
    this.generations += 1;
    const generation = new ConnectionGeneration(
      this.generations,
      send,
      (item) => this.encode(item),
      (failed, code) => this.endGeneration(failed, code === 'encode-failed' || code === 'send-backlog' ? code : 'send-failed'),
      Math.max(this.limits.maxSendBacklogBytes, this.limits.replayBytes + this.limits.maxOutboundFrameBytes),
    );
    this.current = generation;
    if (onEnded) this.endListeners.set(generation.id, onEnded);
    const plan = this.buffer.replay(this.acknowledgedThrough);
    if (plan.gap) {
      const gap: Wire12.RuntimeGapFrame = {
        type: 'runtime.gap',
        workspaceId: this.workspaceId,
        fromRelaySequence: plan.gap.from,
        throughRelaySequence: plan.gap.through,
        recovery: 'thread.snapshot',
      };
      this.gapsSent += 1;
      void generation.enqueue({ kind: 'gap', through: plan.gap.through, text: JSON.stringify(gap) });
    }
    for (const frame of plan.frames) void generation.enqueue({ kind: 'sequenced', sequence: frame.sequence, text: frame.text });
    return generation.id;
  }

  /** The transport closed: ends that generation if it is still the current one. */
  disconnect(generation: number): void {
    if (this.current?.id === generation) this.endGeneration(this.current, 'disconnected');
  }

  /** Whether `generation` is the live one. */
  isCurrent(generation: number): boolean {
    return this.current?.id === generation && this.current.alive;
  }

  /**
   * Handles one inbound text frame from the relay on `generation`. Invalid frames are dropped silently
   * (the result says why, for logs). Resolves once the frame's response, if any, was sent or dropped;
   * a transport need not await it.
   */
  async receive(data: string | Uint8Array, generation: number, binary = false): Promise<ReceiveResult> {
    const connection = this.current;
    if (this.closed || !connection || connection.id !== generation || !connection.alive) return this.dropped('STALE_GENERATION');
    const verdict = this.reader.read(data, binary);
    if (!verdict.ok) return this.dropped(verdict.issues[0]?.code ?? 'FRAME_INVALID');
    const frame = verdict.value;
    switch (frame.type) {
      case 'runtime.ack':
        return this.acknowledge(frame.workspaceId, frame.throughRelaySequence, connection);
      case 'runtime.request':
        return this.handleRequest(frame, connection, false);
      case 'runtime.encrypted':
        return this.handleEnvelope(frame as Wire12.RuntimeEncryptedFrame, connection);
      default:
        return this.dropped('FRAME_DIRECTION_FORBIDDEN');
    }
  }

  /** Resolves when everything queued on the current generation so far was sent (or skipped). */
  async flush(): Promise<void> {
    await this.current?.drained();
  }

  stats(): CompanionStats {
    return {
      wireVersion: this.wireVersion,
      encrypted: this.cipher !== undefined,
      generation: this.current?.alive ? this.current.id : null,
      generationsStarted: this.generations,
      nextRelaySequence: this.buffer.highestAssigned + 1,
      acknowledgedThrough: this.acknowledgedThrough,
      advertisedThrough: this.current?.alive ? this.current.advertisedThrough : -1,
      prunedThrough: this.buffer.prunedThrough,
      bufferedFrames: this.buffer.size,
      bufferedBytes: this.buffer.bytes,
      gapsSent: this.gapsSent,
      pendingInteractions: this.broker.pendingCount,
      idempotencySettled: this.cache.settledCount,
      idempotencyInFlight: this.cache.inFlightCount,
      inboundDropped: this.inboundDropped,
      responsesSent: this.responsesSent,
    };
  }

  /**
   * Cancels every pending interaction (their `interaction.cancelled` frames are sent if connected),
   * lets the current generation drain, ends it, unbinds and shuts the runtime down. Idempotent.
   */
  async shutdown(): Promise<void> {
    if (this.closed) return;
    this.broker.endAll('shutdown');
    this.closed = true;
    this.unsubscribe?.();
    this.unsubscribe = undefined;
    const connection = this.current;
    if (connection) {
      await connection.drained();
      this.endGeneration(connection, 'shutdown');
    }
    if (this.bound) {
      this.bound = false;
      await this.runtime.unbindWorkspace().catch(() => this.report({ event: 'runtime-call-failed', code: 'UNBIND_FAILED' }));
    }
    await this.runtime.shutdown().catch(() => this.report({ event: 'runtime-call-failed', code: 'SHUTDOWN_FAILED' }));
  }

  // ----------------------------------------------------------------------------------------------
  // Runtime → wire
  // ----------------------------------------------------------------------------------------------

  private listener(): AgentRuntimeListener {
    const guard =
      <A extends unknown[]>(handler: (...args: A) => void) =>
      (...args: A) => {
        if (this.closed) return;
        try {
          handler(...args);
        } catch {
          this.report({ event: 'event-dropped', code: 'LISTENER_FAILED' });
        }
      };
    return {
      event: guard((envelope: RuntimeEventEnvelope) => this.runtimeEvent(envelope)),
      serverRequest: guard((request) => this.broker.register(request)),
      serverRequestEnded: guard((end) => this.broker.runtimeEnded(end)),
    };
  }

  private runtimeEvent(envelope: RuntimeEventEnvelope): void {
    const verdict = projectRuntimeEvent(this.wireVersion, envelope);
    if (!verdict.ok) {
      this.report({ event: 'event-dropped', code: verdict.issues[0]?.code ?? 'PROJECTION_FAILED' });
      return;
    }
    if (verdict.value.kind === 'event') this.publish({ type: 'runtime.event', event: verdict.value.envelope });
    const raw = envelope.event;
    if (TERMINAL_TURN_EVENTS.has(raw.type) && envelope.turnId !== undefined) this.broker.turnEnded(envelope.threadId, envelope.turnId);
  }

  /**
   * Numbers a sequenced frame, buffers it and queues it on the live generation. Frames that fail the
   * schema or exceed the outbound limit take no number (they could never be delivered, and replaying
   * them would loop).
   */
  private publish(draft: { type: string; [field: string]: unknown }): number | undefined {
    if (this.closed) return undefined;
    const sequence = this.buffer.highestAssigned + 1;
    const frame = { ...draft, workspaceId: this.workspaceId, relaySequence: sequence };
    const check = validateWireFrame(this.wireVersion, frame);
    if (!check.ok) {
      this.report({ event: 'event-dropped', code: check.issues[0]?.code ?? 'FRAME_INVALID' });
      return undefined;
    }
    const text = JSON.stringify(frame);
    const bytes = utf8ByteLength(text);
    if (bytes > this.limits.maxOutboundFrameBytes) {
      this.report({ event: 'event-dropped', code: 'FRAME_TOO_LARGE' });
      return undefined;
    }
    this.buffer.append({ sequence, text, bytes });
    if (this.current?.alive) void this.current.enqueue({ kind: 'sequenced', sequence, text });
    return sequence;
  }

  /** Plaintext frames go as they are; on a cipher-bound workspace everything but gaps and RELAY_ENCRYPTION_REQUIRED is sealed. */
  private async encode(item: OutboundItem): Promise<string> {
    if (!this.cipher || item.kind === 'gap' || (item.kind === 'response' && item.plaintext)) return item.text;
    const envelope = await this.cipher.seal(JSON.parse(item.text) as CompanionSealableFrame);
    return JSON.stringify(envelope);
  }

  private endGeneration(generation: ConnectionGeneration | undefined, reason: GenerationEndReason): void {
    if (!generation || !generation.alive) return;
    generation.end();
    if (this.current === generation) this.current = undefined;
    this.cache.endGeneration(generation.id);
    this.broker.endGeneration(generation.id);
    this.report({ event: 'generation-ended', code: reason, generation: generation.id });
    const listener = this.endListeners.get(generation.id);
    this.endListeners.delete(generation.id);
    try {
      listener?.({ generation: generation.id, reason });
    } catch {
      // The host's callback must not break the core.
    }
  }

  // ----------------------------------------------------------------------------------------------
  // Wire → runtime
  // ----------------------------------------------------------------------------------------------

  private dropped(reason: string): ReceiveResult {
    this.inboundDropped += 1;
    this.report({ event: 'inbound-dropped', code: reason });
    return { kind: 'dropped', reason };
  }

  private acknowledge(workspaceId: string, through: number, connection: ConnectionGeneration): ReceiveResult {
    if (workspaceId !== this.workspaceId) return { kind: 'ack', disposition: 'foreign-workspace' };
    const disposition = classifyAck({ acknowledgedThrough: this.acknowledgedThrough, advertisedThrough: connection.advertisedThrough }, through);
    if (disposition === 'advance') {
      this.acknowledgedThrough = through;
      this.buffer.acknowledge(through);
    }
    return { kind: 'ack', disposition };
  }

  private async handleEnvelope(envelope: Wire12.RuntimeEncryptedFrame, connection: ConnectionGeneration): Promise<ReceiveResult> {
    const cipher = this.cipher;
    if (!cipher) return this.dropped('ENCRYPTION_NOT_CONFIGURED');
    if (envelope.payloadKind !== 'request' || envelope.requestId === undefined) return this.dropped('ENVELOPE_NOT_A_REQUEST');
    if (envelope.workspaceId !== this.workspaceId) return this.dropped('ENVELOPE_FOREIGN_WORKSPACE');
    const refuse = (code: 'ENCRYPTED_PAYLOAD_INVALID' | 'COMPANION_ERROR') =>
      this.respond(connection, { requestId: envelope.requestId as string, workspaceId: this.workspaceId, method: 'runtime.encrypted', params: null }, fail(code), false);
    const invalid = () => refuse('ENCRYPTED_PAYLOAD_INVALID');
    let inner: unknown;
    try {
      inner = await cipher.open(envelope);
      if (typeof inner === 'string') inner = parseStrictJsonOrThrow(inner, { maxDepth: MAX_FRAME_DEPTH });
    } catch (error) {
      // A replay (the relay re-sending what it recorded) is dropped without an answer: a sealed error for
      // that requestId would reach the session that sent the original and could settle it wrongly.
      if (isReplay(error)) return this.dropped('ENVELOPE_REPLAYED');
      // Authentic, but its opening could not be made durable (the cipher's replay journal): not executed, and
      // the sender may retry in a fresh envelope.
      if (errorCode(error) === 'ENCRYPTION_STATE_UNAVAILABLE') return refuse('COMPANION_ERROR');
      return innerIdentityMismatch(error) ? this.dropped('ENVELOPE_IDENTITY_MISMATCH') : invalid();
    }
    const verdict = validateWireFrame(this.wireVersion, inner);
    if (!verdict.ok || verdict.value.type !== 'runtime.request') return invalid();
    const request = verdict.value;
    if (request.workspaceId !== envelope.workspaceId || request.requestId !== envelope.requestId) return this.dropped('ENVELOPE_IDENTITY_MISMATCH');
    return this.handleRequest(request, connection, true);
  }

  /** Steps 2–5 of the processing order, then execution (queries re-run, mutations through the cache). */
  private async handleRequest(frame: RequestFrame, connection: ConnectionGeneration, encrypted: boolean): Promise<ReceiveResult> {
    if (this.cipher && !encrypted) return this.respond(connection, frame, fail('RELAY_ENCRYPTION_REQUIRED'), true);
    if (!connection.alive || !this.admits(frame, encrypted, connection.id)) return this.respond(connection, frame, fail('REMOTE_REQUEST_DENIED'), false);
    if (frame.workspaceId !== this.workspaceId) return this.respond(connection, frame, fail('WORKSPACE_NOT_FOUND'), false);
    if (!isMutation(this.wireVersion, frame.method)) return this.respond(connection, frame, await this.execute(frame, connection), false);

    const identity: RequestIdentity = { workspaceId: frame.workspaceId, requestId: frame.requestId, method: frame.method, params: frame.params };
    const cached = this.cache.lookup(identity);
    if (cached.disposition === 'conflict') return this.respond(connection, frame, fail('RELAY_REQUEST_ID_CONFLICT'), false);
    if (cached.disposition === 'replay') return this.respond(connection, frame, await cached.outcome, false);
    const outcome = this.execute(frame, connection);
    this.cache.begin(identity, outcome, connection.id, frame.method === 'interaction.candidate');
    const value = await outcome;
    // A retryable Runtime failure is not remembered: a retry with the same requestId runs again.
    if (isRetryableError(value)) this.cache.forget(identity, outcome);
    else this.cache.settle(identity, outcome, value);
    return this.respond(connection, frame, value, false);
  }

  private admits(frame: RequestFrame, encrypted: boolean, generation: number): boolean {
    try {
      return (
        this.requestPolicy({
          method: frame.method,
          workspaceId: frame.workspaceId,
          boundWorkspaceId: this.workspaceId,
          wireVersion: this.wireVersion,
          encrypted,
          appResults: this.appResultsSupported(),
          generation,
        }) === true
      );
    } catch {
      return false;
    }
  }

  private appResultsSupported(): boolean {
    try {
      return this.runtime.describe().appResults === true;
    } catch {
      return false;
    }
  }

  /** Local-only, params, dispatch, then the result checks. Never rejects. */
  private async execute(frame: RequestFrame, connection: ConnectionGeneration): Promise<RequestOutcome> {
    if (methodDisposition(this.wireVersion, frame.method) === 'local-only') return fail('COMPANION_ERROR');
    if (!validateMethodParams(this.wireVersion, frame.method, frame.params).ok) return fail('INVALID_PARAMS');
    let outcome: RequestOutcome;
    try {
      outcome = await this.dispatch(frame, connection);
    } catch (error) {
      outcome = runtimeFailure(error);
    }
    return this.finalize(frame, outcome);
  }

  private async dispatch(frame: RequestFrame, connection: ConnectionGeneration): Promise<RequestOutcome> {
    const version = this.wireVersion;
    const runtime = this.runtime;
    switch (frame.method) {
      case 'thread.list': {
        const page = await runtime.listThreads(frame.params as Wire12.ThreadListParams);
        if (!isRecord(page) || !Array.isArray(page['items'])) return this.projectionFailed(frame.method);
        return succeed({ items: page.items.map((thread) => projectThreadSummary(thread)), nextCursor: page.nextCursor });
      }
      case 'thread.create':
        return succeed({ thread: projectThreadSummary(await runtime.createThread(frame.params as Wire12.ThreadCreateParams)) });
      case 'thread.rename':
        return succeed({ thread: projectThreadSummary(await runtime.renameThread(frame.params as Wire12.ThreadRenameParams)) });
      case 'thread.open':
      case 'thread.snapshot': {
        const params =
          frame.method === 'thread.open'
            ? { threadId: (frame.params as Wire12.ThreadOpenParams).threadId, limit: this.limits.openPageLimit }
            : (frame.params as Wire12.ThreadSnapshotParams);
        const verdict = projectThreadSnapshot(version, await runtime.readThread(params), frame.method);
        return verdict.ok ? succeed(verdict.value) : this.projectionFailed(frame.method);
      }
      case 'thread.delete':
        await runtime.deleteThread(frame.params as Wire12.ThreadDeleteParams);
        return succeed({ deleted: true });
      case 'thread.detach': {
        const detached = await runtime.detachThread(frame.params as Wire12.ThreadDetachParams);
        return succeed({ detached: isRecord(detached) ? detached['detached'] : undefined });
      }
      case 'thread.capabilities': {
        const manifest = await runtime.getCapabilities(frame.params as Wire12.ThreadCapabilitiesParams);
        const result = projectCapabilities(version, manifest, this.appResultsSupported(), this.appResultGrant);
        return result ? succeed(result) : this.projectionFailed(frame.method);
      }
      case 'turn.start': {
        const started = await runtime.startTurn(frame.params as Wire12.TurnStartParams);
        return succeed({ accepted: true, turnId: isRecord(started) ? started['turnId'] : undefined });
      }
      case 'turn.cancel': {
        const cancelled = await runtime.cancelTurn(frame.params as Wire12.TurnCancelParams);
        return succeed({ cancelling: isRecord(cancelled) ? cancelled['cancelling'] : undefined });
      }
      case 'operation.get': {
        const verdict = projectOperationResult(version, await runtime.getOperation(frame.params as Wire12.OperationGetParams));
        return verdict.ok ? succeed(verdict.value) : this.projectionFailed(frame.method);
      }
      case 'operation.result.get': {
        // Requires Runtime 1.5 app results (§4).
        if (!this.appResultsSupported()) return fail('LocalApprovalDeniedError');
        const result = projectOperationAppResult(await runtime.getOperationResult(frame.params as Wire12.OperationResultGetParams), this.appResultGrant);
        return result ? succeed(result) : this.projectionFailed(frame.method);
      }
      case 'interaction.candidate':
        return this.broker.candidate(frame.params as Wire12.InteractionCandidateParams, { requestId: frame.requestId, generation: connection.id });
      default:
        return fail('COMPANION_ERROR');
    }
  }

  private projectionFailed(method: string): RequestOutcome {
    this.report({ event: 'projection-failed', method });
    return fail('COMPANION_ERROR');
  }

  /**
   * Every result is checked against the session version's result schema (1.1 sessions get 1.2 data
   * downgraded first), the whole response against the Wire schema, and its plaintext size against the
   * outbound limit. Any failure is COMPANION_ERROR, so replaying the request cannot loop.
   */
  private finalize(frame: RequestFrame, outcome: RequestOutcome): RequestOutcome {
    let final = outcome;
    if ('result' in final) {
      if (this.wireVersion === '1.2') {
        if (!validateMethodResult('1.2', frame.method, final.result).ok) final = this.projectionFailed(frame.method);
      } else {
        const downgraded = downgradeFrameTo11(responseFrame(frame, final) as Wire12.WireFrame, () => frame.method);
        final =
          downgraded.ok && downgraded.value.type === 'runtime.response' && 'result' in downgraded.value
            ? succeed(downgraded.value.result)
            : this.projectionFailed(frame.method);
      }
    }
    const response = responseFrame(frame, final);
    if (!validateWireFrame(this.wireVersion, response).ok) return fail('COMPANION_ERROR');
    if (utf8ByteLength(JSON.stringify(response)) > this.limits.maxOutboundFrameBytes) {
      this.report({ event: 'projection-failed', code: 'FRAME_TOO_LARGE', method: frame.method });
      return fail('COMPANION_ERROR');
    }
    return final;
  }

  /** Queues the response on the generation the request came from; never on another one. */
  private async respond(connection: ConnectionGeneration, frame: RequestFrame, outcome: RequestOutcome, plaintext: boolean): Promise<ReceiveResult> {
    const sent = connection.alive ? await connection.enqueue({ kind: 'response', text: JSON.stringify(responseFrame(frame, outcome)), plaintext }) : false;
    if (sent) this.responsesSent += 1;
    return { kind: 'response', requestId: frame.requestId, method: frame.method, errorCode: errorCodeOf(outcome), sent };
  }
}

function responseFrame(frame: Pick<RequestFrame, 'requestId' | 'workspaceId'>, outcome: RequestOutcome): Wire12.RuntimeResponseFrame {
  const base = { type: 'runtime.response' as const, requestId: frame.requestId, workspaceId: frame.workspaceId };
  return 'error' in outcome ? { ...base, error: outcome.error } : { ...base, result: outcome.result as Wire12.JsonValue };
}

/**
 * §7: an inner frame whose workspaceId or requestId differs from its envelope is dropped silently. The
 * relay-encryption cipher checks this itself inside `open` and reports it with a fixed reason.
 */
/** The cipher refused an authentic envelope as a replay (`ENCRYPTED_PAYLOAD_REPLAYED` of relay-encryption). */
function isReplay(error: unknown): boolean {
  return errorCode(error) === 'ENCRYPTED_PAYLOAD_REPLAYED';
}

function errorCode(error: unknown): unknown {
  return error !== null && typeof error === 'object' ? (error as { code?: unknown }).code : undefined;
}

function innerIdentityMismatch(error: unknown): boolean {
  const reason = error !== null && typeof error === 'object' ? (error as { reason?: unknown }).reason : undefined;
  return typeof reason === 'string' && reason.includes('differs from the envelope');
}
