/**
 * The one application service behind every transport (REST, gRPC, MCP): open, consult, add guidance, close, get,
 * list, and agent tokens. The records library decides (`decide`), the platform event store keeps the
 * events (one stream per case, topic `shield.cases.v1`; published by the outbox on a server, by the append
 * itself on the embedded database), and the projections serve lists and the per-account counterparty knowledge.
 *
 * Reads of one case fold its stream (kept folded in memory, see `load`), so a caller always sees its own
 * writes; lists read the projection.
 *
 * Privacy (§12): the consult `message` and `situationContext` live only in this call's memory and the
 * analyzer's; they are never appended, logged or returned. Logs carry ids, codes and counts.
 */
import { ConcurrencyError, type EventStore, type OutboxPublisher } from '@trustmesh/platform-event-store';
import type { Database } from '@trustmesh/platform-database';
import type { Logger } from '@trustmesh/platform-logging';
import {
  computeInputDigest,
  createRandomShieldId,
  decide,
  isShieldId,
  evolve,
  identifyConsultItems,
  mergeConsultInput,
  validateCaseInput,
  validateCloseInput,
  validateConsultInput,
  validateGuidanceInput,
  type AnalysisRequest,
  type CounterpartyKnowledge,
  type Generation,
  type ShieldAnalysis,
  type ShieldCase,
  type ShieldCaseCommand,
  type ConsultInput,
  type ShieldCaseEvent,
  type ShieldCaseState,
  type ShieldConsultation,
  type ShieldIdGenerator,
  type ShieldOutcome,
} from '@trustmesh/shield-records';

import type { PrismaClient } from '../persistence/generated/prisma/client';
import { caseStreamId, fromStored, toStored } from '../persistence/shield-case.stream';
import { counterpartyKnowledge, counterpartyOutcomes, type CounterpartyOutcome } from '../persistence/shield-counterparty.queries';
import { MAX_LIVE_AGENT_TOKENS, type AgentTokenScope, type AgentTokenView } from './shield-agent-tokens';
import { ShieldCaseCache, type FoldedCase, type ShieldCaseCacheOptions } from './shield-case.cache';
import type { ShieldCaller, ShieldCallers } from './shield-callers';
import { fail, fromIssues, succeed, type ServiceResult, type ShieldFailure } from './shield-service.result';

const CHANGED = 'The case changed during this call; retry it';

/** Where `load` takes a case from: the one kept here when the database allows it, or the store. */
type LoadSource = 'kept' | 'read';
const STALE = Symbol('stale');
type ConsultResult = ServiceResult<{ caseRecord: ShieldCase; consultation: ShieldConsultation }>;

/** DI token of the `ShieldCaseService`. */
export const SHIELD_CASE_SERVICE = Symbol.for('trustmesh.shield-analyzer.ShieldCaseService');

/** The analysis of one consult: the model path (falling back to the deterministic analyzer) or the analyzer alone. */
export type ShieldAnalyze = (request: AnalysisRequest) => Promise<{ analysis: ShieldAnalysis; generation: Generation }>;

export interface ShieldCaseDetail {
  case: ShieldCase;
  /** Oldest first. */
  consultations: ShieldConsultation[];
  outcomes: ShieldOutcome[];
}

/** An owner's closed cases with one counterparty, newest first. */
export interface CounterpartyHistory {
  reference: string;
  outcomes: CounterpartyOutcome[];
}

export interface IssuedAgentToken extends AgentTokenView {
  /** Shown once: only its SHA-256 is kept. */
  token: string;
}

export interface ShieldCaseServiceDeps {
  store: EventStore;
  publisher: OutboxPublisher;
  prisma: PrismaClient;
  /** The platform database, for the read model's reads on the consult path (`counterpartyOutcomes`). */
  database: Database;
  callers: ShieldCallers;
  analyze: ShieldAnalyze;
  logger: Logger;
  now?: () => Date;
  newId?: ShieldIdGenerator;
  /** Bounds of the cases kept folded in memory (default `SHIELD_CASE_CACHE_DEFAULTS`). */
  caseCache?: ShieldCaseCacheOptions;
}

interface LoadedCase {
  state: ShieldCase;
  version: number;
  consultations: readonly ShieldConsultation[];
  outcomes: readonly ShieldOutcome[];
  /** The length of the case's events as JSON: its size in the cache of folded cases. */
  chars: number;
}

/** The length of `value` as JSON: what a folded case costs the cache (`ShieldCaseCache`). */
const jsonChars = (value: unknown) => JSON.stringify(value).length;

/** How many earlier outcomes with a counterparty an analysis sees (newest first, `CounterpartyKnowledge`). */
const COUNTERPARTY_OUTCOMES = 20;
const AGENT_ID_MAX = 200;
/** A counterparty reference's bound (§2), and the owner's counterparty history page. */
const REFERENCE_MAX = 200;
const HISTORY_DEFAULT = 25;
const HISTORY_MAX = 100;

export class ShieldCaseService {
  private readonly now: () => Date;
  private readonly newId: ShieldIdGenerator;
  /**
   * Cases as last folded here, by id. A load reads only the events after the version kept (none, usually:
   * one short statement instead of the whole stream and its JSON), so it sees what other replicas appended
   * as before; an append at a stale version is refused by the store like any concurrent change.
   */
  private readonly folded: ShieldCaseCache;

  constructor(private readonly deps: ShieldCaseServiceDeps) {
    this.now = deps.now ?? (() => new Date());
    this.newId = deps.newId ?? createRandomShieldId;
    this.folded = new ShieldCaseCache(deps.caseCache);
  }

  /** The caller, or the refusal (401/403); `onBehalfOf` is `trustmesh-on-behalf-of`, read by service credentials only. */
  authenticate(bearer: string | undefined, onBehalfOf?: string): Promise<ServiceResult<ShieldCaller>> {
    return this.deps.callers.authenticate(bearer, onBehalfOf);
  }

  async open(caller: ShieldCaller, body: unknown): Promise<ServiceResult<ShieldCase>> {
    const scope = requireScope<ShieldCase>(caller, 'interaction:write');
    if (scope) return scope;
    const input = validateCaseInput(body);
    if (!input.ok) return fromIssues(input.issues);
    // §3: an agent may open cases only for itself; an operator owns every agent id within its account.
    if (caller.kind === 'agent' && input.value.agentId !== caller.agentId) return fail('forbidden', 'SHIELD_AGENT_NOT_OWNED', 'Owned agent not found', '/agentId');
    const decision = decide({ type: 'OpenShieldCase', data: { input: input.value, now: this.now().toISOString(), newId: this.newId } }, null);
    if (!decision.ok) return fromIssues(decision.issues);
    const opened = decision.events[0];
    if (opened?.type !== 'ShieldCaseOpened') throw new Error('opening a case produced no ShieldCaseOpened');
    const caseRecord = opened.data.caseRecord;
    await this.append(caseRecord.caseId, 'no-stream', decision.events, caller.accountId);
    this.folded.set(caseRecord.caseId, { state: caseRecord, version: decision.events.length, consultations: [], outcomes: [], owner: caller.accountId }, jsonChars(decision.events));
    this.deps.logger.log('info', 'shield case opened', { caseId: caseRecord.caseId, accountId: caller.accountId, callerKind: caller.kind });
    return succeed(caseRecord);
  }

  async consult(caller: ShieldCaller, caseId: string, body: unknown): Promise<ServiceResult<{ caseRecord: ShieldCase; consultation: ShieldConsultation }>> {
    const scope = requireScope<{ caseRecord: ShieldCase; consultation: ShieldConsultation }>(caller, 'interaction:write');
    if (scope) return scope;
    const input = validateConsultInput(body);
    if (!input.ok) return fromIssues(input.issues);
    const first = await this.consultOnce(caller, caseId, input.value, 'kept');
    return first === STALE ? ((await this.consultOnce(caller, caseId, input.value, 'read')) as ConsultResult) : first;
  }

  /** `STALE`: the case kept here was not read again and another writer had moved it; nothing was appended. */
  private async consultOnce(caller: ShieldCaller, caseId: string, input: ConsultInput, source: LoadSource): Promise<ConsultResult | typeof STALE> {
    const loaded = await this.load(caller, caseId, source);
    if (!loaded.ok) return loaded;
    const { state, version, consultations } = loaded.value;
    const now = this.now().toISOString();
    const items = identifyConsultItems(input, this.newId);
    const merged = mergeConsultInput(state, items, input.proposedAction, now);
    if (!merged.ok) return fromIssues(merged.issues);
    const counterparty = await this.counterpartyKnowledge(caller.accountId, merged.value);
    const { analysis, generation } = await this.deps.analyze({
      caseRecord: merged.value,
      consult: input,
      priorConsultations: consultations,
      ...(counterparty ? { counterparty } : {}),
    });
    const inputDigest = await computeInputDigest(input);
    const command: ShieldCaseCommand = {
      type: 'ConsultShieldCase',
      data: { items, ...(input.proposedAction !== undefined ? { proposedAction: input.proposedAction } : {}), inputDigest, analysis, generation, now, newId: this.newId },
    };
    const decision = decide(command, state);
    if (!decision.ok) return fromIssues(decision.issues);
    const appended = await this.appendOrConflict(caseId, version, decision.events, caller.accountId);
    if (appended) return loaded.value.unread ? STALE : appended;
    const consulted = decision.events.find((event) => event.type === 'ShieldCaseConsulted');
    if (consulted?.type !== 'ShieldCaseConsulted') throw new Error('a consult produced no ShieldCaseConsulted');
    const caseRecord = this.rememberAppended(caseId, loaded.value, decision.events, caller.accountId);
    this.deps.logger.log('info', 'shield case consulted', {
      caseId,
      consultationId: consulted.data.consultation.consultationId,
      disposition: analysis.disposition,
      riskTier: analysis.riskTier,
      generationMode: generation.mode,
      errorCode: generation.errorCode,
      counterpartyOutcomes: counterparty?.outcomes.length ?? 0,
      registryMatch: counterparty?.registry?.matchedBy ?? 'none',
    });
    return succeed({ caseRecord, consultation: consulted.data.consultation });
  }

  async addGuidance(caller: ShieldCaller, caseId: string, body: unknown): Promise<ServiceResult<ShieldCase>> {
    // §6: owner only.
    if (caller.kind === 'agent') return fail('forbidden', 'SHIELD_OWNER_ONLY', 'Only the owner can add guidance');
    const input = validateGuidanceInput(body);
    if (!input.ok) return fromIssues(input.issues);
    return this.change(caller, caseId, { type: 'AddShieldGuidance', data: { input: input.value, now: this.now().toISOString(), newId: this.newId } }, (state) => state);
  }

  /** `scope`: what an agent token needs (§13: `interaction:write` over REST, `feedback:write` over MCP). */
  async close(caller: ShieldCaller, caseId: string, body: unknown, scope: AgentTokenScope = 'interaction:write'): Promise<ServiceResult<ShieldOutcome>> {
    const refused = requireScope<ShieldOutcome>(caller, scope);
    if (refused) return refused;
    const input = validateCloseInput(body);
    if (!input.ok) return fromIssues(input.issues);
    // §7: an agent credential reports as the protected agent, an operator as the owner.
    const reportedBy = caller.kind === 'agent' ? 'protected_agent' : 'owner';
    let outcome: ShieldOutcome | undefined;
    const result = await this.change(caller, caseId, { type: 'CloseShieldCase', data: { input: input.value, reportedBy, now: this.now().toISOString(), newId: this.newId } }, (state, events) => {
      for (const event of events) if (event.type === 'ShieldCaseClosed') outcome = event.data.outcome;
      return state;
    });
    if (!result.ok) return result;
    if (!outcome) throw new Error('closing a case produced no ShieldCaseClosed');
    return succeed(outcome);
  }

  async get(caller: ShieldCaller, caseId: string): Promise<ServiceResult<ShieldCaseDetail>> {
    const scope = requireScope<ShieldCaseDetail>(caller, 'profile:read');
    if (scope) return scope;
    const loaded = await this.load(caller, caseId);
    if (!loaded.ok) return loaded;
    return succeed({ case: loaded.value.state, consultations: [...loaded.value.consultations], outcomes: [...loaded.value.outcomes] });
  }

  /** The caller's cases (an agent's: its own), `updatedAt` newest first, from the read model: the first 500. */
  async list(caller: ShieldCaller): Promise<ServiceResult<ShieldCase[]>> {
    const page = await this.listPage(caller, {});
    return page.ok ? succeed(page.value.cases) : page;
  }

  /**
   * A page of the caller's cases, `updatedAt` newest first then `caseId`: `status` open (not closed) or closed,
   * `limit` 1-500 (0 or absent: 500), `cursor` the `nextCursor` of the previous page (keyset: the last row's
   * `updatedAt` and `caseId`, so a page never repeats a row; a case changed meanwhile moves to the front).
   */
  async listPage(caller: ShieldCaller, query: { status?: string; limit?: number; cursor?: string }): Promise<ServiceResult<{ cases: ShieldCase[]; nextCursor: string | null }>> {
    const scope = requireScope<{ cases: ShieldCase[]; nextCursor: string | null }>(caller, 'profile:read');
    if (scope) return scope;
    const status = query.status ?? '';
    if (status !== '' && status !== 'open' && status !== 'closed') return fail('invalid', 'SHIELD_STATUS_INVALID', 'status must be open, closed or empty', '/status');
    const limit = query.limit ?? 0;
    if (!Number.isInteger(limit) || limit < 0 || limit > LIST_MAX) return fail('invalid', 'SHIELD_NUMBER_OUT_OF_RANGE', `limit must be a whole number from 1 to ${LIST_MAX}`, '/limit');
    const after = query.cursor ? listCursorKey(query.cursor) : null;
    if (query.cursor && !after) return fail('invalid', 'SHIELD_CURSOR_INVALID', 'cursor must be the nextCursor of the previous page', '/cursor');
    const take = limit === 0 ? LIST_MAX : limit;
    const rows = await this.deps.prisma.shieldCaseView.findMany({
      where: {
        accountId: caller.accountId,
        ...(caller.kind === 'agent' ? { agentId: caller.agentId } : {}),
        ...(status === 'closed' ? { status: 'closed' } : status === 'open' ? { status: { not: 'closed' } } : {}),
        ...(after ? { OR: [{ updatedAt: { lt: after.updatedAt } }, { updatedAt: after.updatedAt, caseId: { gt: after.caseId } }] } : {}),
      },
      orderBy: [{ updatedAt: 'desc' }, { caseId: 'asc' }],
      take: take + 1,
    });
    const page = rows.slice(0, take);
    const last = page.at(-1);
    const nextCursor = rows.length > take && last ? Buffer.from(JSON.stringify({ u: last.updatedAt.toISOString(), c: last.caseId }), 'utf8').toString('base64url') : null;
    return succeed({ cases: page.map((row) => row.record as unknown as ShieldCase), nextCursor });
  }

  /**
   * The caller's closed cases with one counterparty reference, newest first (at most `limit`, 1-100, default
   * 25): the outcome history each consult on that counterparty weighs, for its owner to read. Operators only:
   * an agent sees the history through its analyses, not as a list. `limit` 0 (gRPC's unset) is the default.
   */
  async counterparty(caller: ShieldCaller, reference: string, limit = 0): Promise<ServiceResult<CounterpartyHistory>> {
    if (caller.kind === 'agent') return fail('forbidden', 'SHIELD_OWNER_ONLY', 'Only the owner can read a counterparty history');
    if (reference.length < 1 || reference.length > REFERENCE_MAX) return fail('invalid', 'SHIELD_FIELD_TOO_LONG', `reference must be 1-${REFERENCE_MAX} characters`, '/reference');
    if (!Number.isInteger(limit) || limit < 0 || limit > HISTORY_MAX) return fail('invalid', 'SHIELD_NUMBER_OUT_OF_RANGE', `limit must be a whole number from 1 to ${HISTORY_MAX}`, '/limit');
    const outcomes = await counterpartyOutcomes(this.deps.database, caller.accountId, reference, limit === 0 ? HISTORY_DEFAULT : limit);
    return succeed({ reference, outcomes });
  }

  /**
   * §13 `POST /agents/:id/shield-tokens`: operators only; `{ name?, expiresInDays 1-30 = 7, mcp = false }`.
   * `mcp: true` is the operator confirming the agent's MCP installation with this token (README, "MCP").
   */
  async issueAgentToken(caller: ShieldCaller, agentId: string, body: unknown): Promise<ServiceResult<IssuedAgentToken>> {
    const refused = ownerOfAgent<IssuedAgentToken>(caller, agentId, 'issue');
    if (refused) return refused;
    // gRPC's empty input text is no input: the defaults. A JSON null is a body, and not an object.
    const parsed = parseTokenRequest(body === undefined ? {} : body);
    if (!parsed.ok) return parsed;
    const tokenId = this.newId();
    const issued = await this.deps.callers.agentTokens.issue(caller.accountId, agentId, { ...parsed.value, tokenId });
    if (!issued.ok) {
      if (issued.refusal === 'limit') {
        return conflict('SHIELD_AGENT_TOKEN_LIMIT', `This agent already holds ${MAX_LIVE_AGENT_TOKENS} live tokens: revoke one (DELETE /v0.1/agents/:id/shield-tokens/:tokenId) before issuing another`);
      }
      return conflict('SHIELD_AGENT_TOKENS_CHANGED', "This agent's tokens changed during this call; retry it");
    }
    this.deps.logger.log('info', 'shield agent token issued', { tokenId, accountId: caller.accountId, expiresAt: issued.view.expiresAt, mcp: parsed.value.mcp });
    return succeed({ ...issued.view, token: issued.token });
  }

  /** `GET /agents/:id/shield-tokens`: operators only; the agent's tokens, newest first, never a secret or digest. */
  async listAgentTokens(caller: ShieldCaller, agentId: string): Promise<ServiceResult<AgentTokenView[]>> {
    const refused = ownerOfAgent<AgentTokenView[]>(caller, agentId, 'list');
    if (refused) return refused;
    return succeed(await this.deps.callers.agentTokens.list(caller.accountId, agentId));
  }

  /** `DELETE /agents/:id/shield-tokens/:tokenId`: operators only; refused at once everywhere; idempotent. */
  async revokeAgentToken(caller: ShieldCaller, agentId: string, tokenId: string): Promise<ServiceResult<AgentTokenView>> {
    const refused = ownerOfAgent<AgentTokenView>(caller, agentId, 'revoke');
    if (refused) return refused;
    const revoked = isShieldId(tokenId) ? await this.deps.callers.agentTokens.revoke(caller.accountId, agentId, tokenId) : null;
    if (!revoked) return fail('not_found', 'SHIELD_AGENT_TOKEN_NOT_FOUND', 'This agent has no token with that id', '/tokenId');
    this.deps.logger.log('info', 'shield agent token revoked', { tokenId, accountId: caller.accountId });
    return succeed(revoked);
  }

  private async change(
    caller: ShieldCaller,
    caseId: string,
    command: ShieldCaseCommand,
    pick: (state: ShieldCase, events: readonly ShieldCaseEvent[]) => ShieldCase,
    source: LoadSource = 'kept',
  ): Promise<ServiceResult<ShieldCase>> {
    const loaded = await this.load(caller, caseId, source);
    if (!loaded.ok) return loaded;
    const decision = decide(command, loaded.value.state);
    if (!decision.ok) return fromIssues(decision.issues);
    const appended = await this.appendOrConflict(caseId, loaded.value.version, decision.events, caller.accountId);
    // Decided on a case kept here that another writer had moved: decide again on the case as stored.
    if (appended && loaded.value.unread) return this.change(caller, caseId, command, pick, 'read');
    if (appended) return appended;
    const state = this.rememberAppended(caseId, loaded.value, decision.events, caller.accountId);
    this.deps.logger.log('info', 'shield case changed', { caseId, command: command.type });
    return succeed(pick(state, decision.events));
  }

  /**
   * The case as its stream says, if the caller may see it; another account's case does not exist for it.
   *
   * `'kept'`, on the embedded database: a case kept here is taken as it is, without asking the store for
   * events after it (`unread`). The data directory is locked to this process and its appends go through
   * here, so it is current; should another writer on the same database have moved it all the same, the
   * store refuses the append at the stale version and the caller decides again on a `'read'` load. On a
   * server, other replicas append too: the events after the kept version are always read.
   */
  private async load(caller: ShieldCaller, caseId: string, source: LoadSource = 'read'): Promise<ServiceResult<LoadedCase & { unread: boolean }>> {
    if (!isCaseId(caseId)) return fail('not_found', 'SHIELD_CASE_NOT_FOUND', 'Shield case not found', '/caseId');
    const known = this.folded.get(caseId);
    if (known && source === 'kept' && this.deps.database.mode === 'embedded') return this.visible(caller, known, true);
    const recorded = await this.deps.store.readStream(caseStreamId(caseId), known ? { fromVersion: known.version + 1 } : {});
    let state: ShieldCaseState = known?.state ?? null;
    let owner = known?.owner;
    const consultations = [...(known?.consultations ?? [])];
    const outcomes = [...(known?.outcomes ?? [])];
    let chars = known?.chars ?? 0;
    for (const { envelope } of recorded) {
      chars += jsonChars(envelope.data);
      const { event, accountId } = fromStored(envelope.eventType, envelope.data);
      owner ??= accountId;
      state = evolve(state, event);
      if (event.type === 'ShieldCaseConsulted') consultations.push(event.data.consultation);
      if (event.type === 'ShieldCaseClosed') outcomes.push(event.data.outcome);
    }
    if (!state || owner === undefined) return fail('not_found', 'SHIELD_CASE_NOT_FOUND', 'Shield case not found', '/caseId');
    const loaded: FoldedCase = { state, version: (known?.version ?? 0) + recorded.length, consultations, outcomes, owner };
    this.folded.set(caseId, loaded, chars);
    return this.visible(caller, { ...loaded, chars }, false);
  }

  private visible(caller: ShieldCaller, loaded: FoldedCase & { chars: number }, unread: boolean): ServiceResult<LoadedCase & { unread: boolean }> {
    if (loaded.owner !== caller.accountId) return fail('not_found', 'SHIELD_CASE_NOT_FOUND', 'Shield case not found', '/caseId');
    // §13: an agent credential bound to another agent of the same account is refused (403).
    if (caller.kind === 'agent' && loaded.state.agentId !== caller.agentId) return fail('forbidden', 'SHIELD_AGENT_MISMATCH', 'This agent token is bound to another agent');
    return succeed({ ...loaded, unread });
  }

  /** Folds the events just appended onto the case they were decided on, keeps it, and returns its record. */
  private rememberAppended(caseId: string, before: LoadedCase, events: readonly ShieldCaseEvent[], owner: string): ShieldCase {
    const state = events.reduce<ShieldCaseState>(evolve, before.state) as ShieldCase;
    const consultations = [...before.consultations];
    const outcomes = [...before.outcomes];
    for (const event of events) {
      if (event.type === 'ShieldCaseConsulted') consultations.push(event.data.consultation);
      if (event.type === 'ShieldCaseClosed') outcomes.push(event.data.outcome);
    }
    this.folded.set(caseId, { state, version: before.version + events.length, consultations, outcomes, owner }, before.chars + jsonChars(events));
    return state;
  }

  /**
   * Closed earlier cases of this account with the same counterparty reference, newest first, and what the
   * public card registry knows of that reference (the same for every account), in one statement.
   */
  private async counterpartyKnowledge(accountId: string, caseRecord: ShieldCase): Promise<CounterpartyKnowledge | undefined> {
    const reference = caseRecord.counterparty.reference;
    if (reference === undefined) return undefined;
    return counterpartyKnowledge(this.deps.database, accountId, reference, caseRecord.caseId, COUNTERPARTY_OUTCOMES, this.now());
  }

  private async append(caseId: string, expected: number | 'no-stream', events: readonly ShieldCaseEvent[], accountId: string): Promise<void> {
    await this.deps.store.append(
      caseStreamId(caseId),
      expected,
      events.map((event) => toStored(event, accountId)),
    );
    // An append that published its events itself left the outbox nothing to claim.
    if (!this.deps.store.publishesInTransaction) this.deps.publisher.kick();
  }

  /** Appends at the version read; a concurrent change to the same case is a conflict the caller may retry. */
  private async appendOrConflict(caseId: string, version: number, events: readonly ShieldCaseEvent[], accountId: string): Promise<{ ok: false; failure: ShieldFailure } | null> {
    try {
      await this.append(caseId, version, events, accountId);
      return null;
    } catch (error) {
      if (error instanceof ConcurrencyError) {
        // Another writer (a replica) moved the stream: the case kept here is behind; the next load reads it whole.
        this.folded.delete(caseId);
        return { ok: false, failure: { kind: 'conflict', error: CHANGED, issues: [{ code: 'SHIELD_CASE_CHANGED', path: '', message: CHANGED }] } };
      }
      throw error;
    }
  }
}

const CASE_ID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
const isCaseId = (value: string) => CASE_ID.test(value);
/** The largest page of cases. */
const LIST_MAX = 500;

/** A list cursor's key (`listPage`), or null when it is not one this service wrote. */
function listCursorKey(cursor: string): { updatedAt: Date; caseId: string } | null {
  if (cursor.length > 256 || !/^[A-Za-z0-9_-]+$/.test(cursor)) return null;
  try {
    const parsed = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8')) as { u?: unknown; c?: unknown };
    if (typeof parsed.u !== 'string' || typeof parsed.c !== 'string' || !isCaseId(parsed.c)) return null;
    const updatedAt = new Date(parsed.u);
    return Number.isNaN(updatedAt.getTime()) ? null : { updatedAt, caseId: parsed.c };
  } catch {
    return null;
  }
}

/** Token management is the owner's (§13): an agent token may not issue, list or revoke, even its own. */
function ownerOfAgent<T>(caller: ShieldCaller, agentId: string, what: 'issue' | 'list' | 'revoke'): ServiceResult<T> | null {
  if (caller.kind === 'agent') return fail('forbidden', 'SHIELD_OWNER_ONLY', `Only the owner can ${what} agent tokens`);
  if (agentId.length < 1 || agentId.length > AGENT_ID_MAX) return fail('invalid', 'SHIELD_FIELD_TOO_LONG', `agentId must be 1-${AGENT_ID_MAX} characters`, '/agentId');
  return null;
}

function conflict<T>(code: string, message: string): ServiceResult<T> {
  return fail('conflict', code, message);
}

function requireScope<T>(caller: ShieldCaller, scope: AgentTokenScope): ServiceResult<T> | null {
  if (caller.kind === 'operator' || caller.scopes.includes(scope)) return null;
  return fail('forbidden', 'SHIELD_SCOPE_MISSING', `This agent token lacks the ${scope} scope`);
}

const TOKEN_FIELDS = new Set(['name', 'expiresInDays', 'mcp']);

function parseTokenRequest(body: unknown): ServiceResult<{ name?: string; expiresInDays: number; mcp: boolean }> {
  if (typeof body !== 'object' || body === null || Array.isArray(body)) return fail('invalid', 'SHIELD_FIELD_TYPE', 'The body must be a JSON object');
  const record = body as Record<string, unknown>;
  for (const key of Object.keys(record)) if (!TOKEN_FIELDS.has(key)) return fail('invalid', 'SHIELD_FIELD_UNKNOWN', `Unknown field ${key.slice(0, 40)}`, `/${key.slice(0, 40)}`);
  const expires = record['expiresInDays'] ?? 7;
  if (typeof expires !== 'number' || !Number.isInteger(expires) || expires < 1 || expires > 30) return fail('invalid', 'SHIELD_NUMBER_OUT_OF_RANGE', 'expiresInDays must be a whole number from 1 to 30', '/expiresInDays');
  const mcp = record['mcp'] ?? false;
  if (typeof mcp !== 'boolean') return fail('invalid', 'SHIELD_FIELD_TYPE', 'mcp must be true or false', '/mcp');
  const name = record['name'];
  if (name === undefined) return succeed({ expiresInDays: expires, mcp });
  if (typeof name !== 'string') return fail('invalid', 'SHIELD_FIELD_TYPE', 'name must be a string', '/name');
  const trimmed = name.trim();
  if (trimmed.length < 1 || trimmed.length > 120) return fail('invalid', 'SHIELD_FIELD_TOO_LONG', 'name must be 1-120 characters after trimming', '/name');
  return succeed({ name: trimmed, expiresInDays: expires, mcp });
}
