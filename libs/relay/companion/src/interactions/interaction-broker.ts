/**
 * The interaction broker (BEHAVIOUR.md §8): turns Runtime server requests into `interaction.request`
 * frames, ends each interaction exactly once (`interaction.resolved` / `interaction.cancelled`), and
 * processes `interaction.candidate` requests from step 6 of the candidate table on (steps 1–5 are the
 * session's: schema, encryption, request policy, workspace, idempotency, local-only, params).
 *
 * | # | check                                                              | failure                          |
 * |---|--------------------------------------------------------------------|----------------------------------|
 * | 6 | workspace bound; pending interaction matches thread, turn, method  | LocalApprovalDeniedError / COMPANION_ERROR |
 * | 7 | generation live; same requestId joins, other payload refused       | COMPANION_ERROR                  |
 * | 8 | responder policy (fails closed)                                    | COMPANION_ERROR                  |
 * | 9 | one active candidate; an approval reject may supersede an approve  | COMPANION_ERROR                  |
 * | 10| user input normalised against the original form; reject resolves   | COMPANION_ERROR                  |
 * | 11| approve: local approval policy (allow / deny / confirm / failure)  | see `ApprovalPolicy`             |
 *
 * An attempt is bound to the connection generation it arrived on. Losing that generation aborts the
 * attempt (not the interaction); an attempt whose Runtime answer is already under way is not aborted.
 */
import {
  canonicalJson,
  interactionTerminal,
  normalizeUserInput,
  projectInteractionRequest,
  type InteractionMethod,
  type RuntimeInteraction,
  type UserInputForm,
  type Wire12,
} from '@trustmesh/relay-protocol';

import type {
  AgentRuntime,
  RuntimeApprovalRequest,
  RuntimeServerRequest,
  RuntimeServerRequestEnd,
  ServerRequestCancelReason,
  ServerRequestResolution,
} from '../agent-runtime.port';
import type { Clock } from '../clock';
import { LOCAL_DENY_REASON, type ApprovalPolicy, type ResponderPolicy } from '../policy/companion-policies';
import type { DiagnosticSink } from '../session/diagnostics';
import { fail, succeed, type RequestOutcome } from '../session/request-outcome';

/** Runtime 1.1 approvals without a deadline expire after the legacy approval deadline (§8, §11). */
export const LEGACY_INTERACTION_TTL_MS = 5 * 60 * 1000;

export interface InteractionBrokerHost {
  readonly workspaceId: string;
  readonly wireVersion: '1.1' | '1.2';
  readonly runtime: AgentRuntime;
  readonly clock: Clock;
  readonly newId: () => string;
  readonly legacyTtlMs: number;
  readonly responderPolicy: ResponderPolicy;
  readonly approvalPolicy: ApprovalPolicy;
  readonly diagnostic: DiagnosticSink;
  /** Numbers, buffers and sends a sequenced frame; `undefined` when it could not be published. */
  publish(frame: { type: string }): number | undefined;
  isBound(): boolean;
  isGenerationLive(generation: number): boolean;
}

type CandidateParams = Wire12.InteractionCandidateParams;
type AttemptKind = 'approve' | 'reject' | 'submitted' | 'cancelled';

class CandidateAttempt {
  /** The Runtime is being answered: the attempt can no longer be aborted or superseded. */
  committed = false;
  aborted = false;
  private settled = false;
  private resolveOutcome!: (outcome: RequestOutcome) => void;
  readonly outcome = new Promise<RequestOutcome>((resolve) => {
    this.resolveOutcome = resolve;
  });

  constructor(
    readonly requestId: string,
    readonly fingerprint: string,
    readonly generation: number,
    readonly kind: AttemptKind,
  ) {}

  /** First settlement wins. */
  settle(outcome: RequestOutcome): void {
    if (this.settled) return;
    this.settled = true;
    this.resolveOutcome(outcome);
  }

  abort(): void {
    if (this.committed) return;
    this.aborted = true;
    this.settle(fail('COMPANION_ERROR'));
  }
}

interface PendingInteraction {
  interactionId: string;
  serverRequestId: string;
  threadId: string;
  turnId: string;
  method: InteractionMethod;
  /** The form as projected and published: candidates are normalised against it. */
  form?: UserInputForm;
  /** The raw approval, for the local approval policy (never sent). */
  approval?: RuntimeApprovalRequest;
  cancelTimer: () => void;
  attempt?: CandidateAttempt;
}

export class InteractionBroker {
  private readonly pending = new Map<string, PendingInteraction>();
  private readonly byServerRequest = new Map<string, string>();

  constructor(private readonly host: InteractionBrokerHost) {}

  get pendingCount(): number {
    return this.pending.size;
  }

  /** Validates, registers and publishes a Runtime server request, or refuses it (never published). */
  register(request: RuntimeServerRequest): void {
    const { host } = this;
    if (!host.isBound()) return this.refuse(request, 'not-projectable', 'WORKSPACE_NOT_BOUND');
    const interactionId = request.interactionId ?? host.newId();
    if (this.pending.has(interactionId)) return this.refuse(request, 'not-projectable', 'INTERACTION_ALREADY_PENDING');
    const now = host.clock.now();
    let expiresAt = request.expiresAt;
    let deadline: number;
    if (expiresAt === undefined) {
      deadline = now + host.legacyTtlMs;
      expiresAt = new Date(deadline).toISOString();
    } else {
      deadline = typeof expiresAt === 'string' ? Date.parse(expiresAt) : Number.NaN;
      if (Number.isNaN(deadline)) return this.refuse(request, 'not-projectable', 'EXPIRES_AT_INVALID');
    }
    if (deadline <= now) return this.refuse(request, 'expired', 'INTERACTION_EXPIRED');
    const identity = { workspaceId: host.workspaceId, relaySequence: 0, interactionId, threadId: request.threadId, turnId: request.turnId, expiresAt };
    const verdict = projectInteractionRequest(host.wireVersion, identity, request.request as RuntimeInteraction);
    if (!verdict.ok) return this.refuse(request, 'not-projectable', verdict.issues[0]?.code ?? 'PROJECTION_FAILED');
    const frame = verdict.value;
    if (host.publish(frame) === undefined) return this.refuse(request, 'not-projectable', 'PUBLISH_FAILED');
    const payload = request.request;
    const interaction: PendingInteraction = {
      interactionId,
      serverRequestId: request.serverRequestId,
      threadId: frame.threadId,
      turnId: frame.turnId,
      method: frame.method,
      ...(frame.method === 'userInput.request' ? { form: frame.projection } : {}),
      ...('approval' in payload && payload.method === 'approval.request' ? { approval: payload.approval as RuntimeApprovalRequest } : {}),
      cancelTimer: () => undefined,
    };
    this.pending.set(interactionId, interaction);
    this.byServerRequest.set(request.serverRequestId, interactionId);
    interaction.cancelTimer = host.clock.setTimer(deadline - now, () => this.expire(interaction));
  }

  /** The Runtime ended a server request itself (abort → cancelled, local answer → resolved). */
  runtimeEnded(end: RuntimeServerRequestEnd): void {
    const interactionId = this.byServerRequest.get(end.serverRequestId);
    const interaction = interactionId === undefined ? undefined : this.pending.get(interactionId);
    if (interaction) this.end(interaction, end.outcome === 'resolved' ? 'resolved' : 'cancelled');
  }

  /** A terminal turn cancels its interactions; the Runtime already knows, so it is not called. */
  turnEnded(threadId: string, turnId: string): void {
    for (const interaction of [...this.pending.values()]) {
      if (interaction.turnId === turnId && interaction.threadId === threadId) this.end(interaction, 'cancelled');
    }
  }

  /** Unbinding or shutdown cancels every interaction, and fails its Runtime request. */
  endAll(reason: Extract<ServerRequestCancelReason, 'unbound' | 'shutdown'>): void {
    for (const interaction of [...this.pending.values()]) {
      if (this.end(interaction, 'cancelled')) this.cancelAtRuntime(interaction.serverRequestId, reason);
    }
  }

  /** A connection generation ended: its uncommitted candidate attempts are aborted. */
  endGeneration(generation: number): void {
    for (const interaction of this.pending.values()) {
      const attempt = interaction.attempt;
      if (attempt && attempt.generation === generation && !attempt.committed) {
        attempt.abort();
        interaction.attempt = undefined;
      }
    }
  }

  /** Steps 6–11 of candidate processing. Never rejects. */
  async candidate(params: CandidateParams, context: { requestId: string; generation: number }): Promise<RequestOutcome> {
    const { host } = this;
    // 6. A broker needs a bound workspace; the interaction must be pending with this identity.
    if (!host.isBound()) return fail('LocalApprovalDeniedError');
    const interaction = this.pending.get(params.interactionId);
    if (!interaction || interaction.threadId !== params.threadId || interaction.turnId !== params.turnId || interaction.method !== params.method) {
      return fail('COMPANION_ERROR');
    }
    // 7. Only the live generation answers; a repeat of the active attempt joins it.
    if (!host.isGenerationLive(context.generation)) return fail('COMPANION_ERROR');
    const fingerprint = canonicalJson(params);
    const active = interaction.attempt;
    if (active && active.requestId === context.requestId) return active.fingerprint === fingerprint ? active.outcome : fail('COMPANION_ERROR');
    // 8. The responder policy, failing closed.
    let allowed = false;
    try {
      allowed =
        (await host.responderPolicy({
          generation: context.generation,
          interactionId: interaction.interactionId,
          method: interaction.method,
          threadId: interaction.threadId,
          turnId: interaction.turnId,
        })) === true;
    } catch {
      allowed = false;
    }
    if (!allowed || this.pending.get(interaction.interactionId) !== interaction || !host.isGenerationLive(context.generation)) {
      return fail('COMPANION_ERROR');
    }
    // 9. One active candidate per interaction; a reject may supersede an approve still deciding.
    const kind = attemptKind(params);
    const current = interaction.attempt;
    if (current) {
      const supersedes = interaction.method === 'approval.request' && kind === 'reject' && current.kind === 'approve' && !current.committed;
      if (!supersedes) return fail('COMPANION_ERROR');
      current.abort();
    }
    const attempt = new CandidateAttempt(context.requestId, fingerprint, context.generation, kind);
    interaction.attempt = attempt;
    this.run(interaction, attempt, params).catch(() => this.finish(interaction, attempt, fail('COMPANION_ERROR')));
    return attempt.outcome;
  }

  // Steps 10 and 11.
  private async run(interaction: PendingInteraction, attempt: CandidateAttempt, params: CandidateParams): Promise<void> {
    if (params.method === 'userInput.request') {
      const candidate = params.candidate;
      if (candidate.status === 'cancelled') {
        return this.commit(interaction, attempt, { method: 'userInput.request', response: candidate }, succeed({ accepted: true }));
      }
      const normalized = interaction.form ? normalizeUserInput(interaction.form, candidate) : undefined;
      if (!normalized?.ok || normalized.value.status !== 'submitted') return this.finish(interaction, attempt, fail('COMPANION_ERROR'));
      return this.commit(interaction, attempt, { method: 'userInput.request', response: normalized.value }, succeed({ accepted: true }));
    }
    const candidate = params.candidate;
    if (candidate.decision === 'reject') {
      const resolution: ServerRequestResolution = { method: 'approval.request', decision: 'reject', ...(candidate.reason !== undefined ? { reason: candidate.reason } : {}) };
      return this.commit(interaction, attempt, resolution, succeed({ accepted: true }));
    }
    // 11. Approve: the local approval policy decides.
    let decision: unknown;
    try {
      decision = interaction.approval
        ? await this.host.approvalPolicy({
            interactionId: interaction.interactionId,
            threadId: interaction.threadId,
            turnId: interaction.turnId,
            approval: interaction.approval,
            generation: attempt.generation,
          })
        : undefined;
    } catch {
      decision = undefined;
    }
    if (attempt.aborted) return;
    if (this.pending.get(interaction.interactionId) !== interaction) return this.finish(interaction, attempt, fail('COMPANION_ERROR'));
    switch (decision) {
      case 'allow':
        return this.commit(interaction, attempt, { method: 'approval.request', decision: 'approve' }, succeed({ accepted: true }));
      case 'deny':
        return this.commit(interaction, attempt, { method: 'approval.request', decision: 'reject', reason: LOCAL_DENY_REASON }, fail('LocalApprovalDeniedError'));
      case 'require-local-confirmation':
        return this.finish(interaction, attempt, fail('LocalConfirmationRequiredError'));
      default:
        // An invalid answer or a throw: the Runtime request fails and the interaction is cancelled.
        interaction.attempt = undefined;
        if (this.end(interaction, 'cancelled')) this.cancelAtRuntime(interaction.serverRequestId, 'policy-failure');
        attempt.settle(fail('LocalApprovalDeniedError'));
        return;
    }
  }

  /** Answers the Runtime, then resolves the interaction and settles the attempt with `success`. */
  private async commit(interaction: PendingInteraction, attempt: CandidateAttempt, resolution: ServerRequestResolution, success: RequestOutcome): Promise<void> {
    if (attempt.aborted || this.pending.get(interaction.interactionId) !== interaction) return this.finish(interaction, attempt, fail('COMPANION_ERROR'));
    attempt.committed = true;
    try {
      await this.host.runtime.resolveServerRequest(interaction.serverRequestId, resolution);
    } catch {
      this.host.diagnostic({ event: 'runtime-call-failed', code: 'RESOLVE_FAILED', method: interaction.method });
      interaction.attempt = undefined;
      this.end(interaction, 'cancelled');
      attempt.settle(fail('COMPANION_ERROR'));
      return;
    }
    if (this.pending.get(interaction.interactionId) !== interaction) return this.finish(interaction, attempt, fail('COMPANION_ERROR'));
    interaction.attempt = undefined;
    this.end(interaction, 'resolved');
    attempt.settle(success);
  }

  private finish(interaction: PendingInteraction, attempt: CandidateAttempt, outcome: RequestOutcome): void {
    if (interaction.attempt === attempt) interaction.attempt = undefined;
    attempt.settle(outcome);
  }

  private expire(interaction: PendingInteraction): void {
    if (this.end(interaction, 'cancelled')) this.cancelAtRuntime(interaction.serverRequestId, 'expired');
  }

  /** Ends an interaction exactly once; `false` when it had already ended. */
  private end(interaction: PendingInteraction, kind: 'resolved' | 'cancelled'): boolean {
    if (this.pending.get(interaction.interactionId) !== interaction) return false;
    this.pending.delete(interaction.interactionId);
    this.byServerRequest.delete(interaction.serverRequestId);
    interaction.cancelTimer();
    const attempt = interaction.attempt;
    interaction.attempt = undefined;
    if (attempt) {
      attempt.abort();
      attempt.settle(fail('COMPANION_ERROR'));
    }
    const identity = {
      workspaceId: this.host.workspaceId,
      relaySequence: 0,
      interactionId: interaction.interactionId,
      threadId: interaction.threadId,
      turnId: interaction.turnId,
    };
    this.host.publish(interactionTerminal(kind, identity, interaction.method));
    return true;
  }

  private refuse(request: RuntimeServerRequest, reason: ServerRequestCancelReason, code: string): void {
    this.host.diagnostic({ event: 'interaction-refused', code });
    this.cancelAtRuntime(request.serverRequestId, reason);
  }

  private cancelAtRuntime(serverRequestId: string, reason: ServerRequestCancelReason): void {
    let call: Promise<void>;
    try {
      call = this.host.runtime.cancelServerRequest(serverRequestId, reason);
    } catch {
      call = Promise.reject(new Error('cancel failed'));
    }
    call.catch(() => this.host.diagnostic({ event: 'runtime-call-failed', code: 'CANCEL_FAILED' }));
  }
}

function attemptKind(params: CandidateParams): AttemptKind {
  if (params.method === 'approval.request') return params.candidate.decision === 'approve' ? 'approve' : 'reject';
  return params.candidate.status;
}
