/**
 * The Shield case aggregate, emmett style: `decide(command, state)` answers the events a command causes
 * (or the issues it is refused with), `evolve(state, event)` folds one event into the case. Pure: no
 * clock, no random source, no I/O (commands bring `now` and an id generator).
 *
 * Rules kept here: creation (§3), the consult merge and its refusals (§4, through shield-case.merge),
 * the status transitions (§5: gather_evidence → awaiting_input, any other disposition → ready, guidance
 * leaves the status, the outcome closes; a closed case refuses all three), guidance (§6, at most 50),
 * the one outcome per case (§7). Every record a command produces is validated against its schema before
 * an event carries it, so a stream never holds a record the schemas refuse.
 */
import type { ShieldCase, ShieldConsultation, ShieldOutcome } from '../shield.types';
import { SHIELD_PROTOCOL_VERSION } from '../shield.types';
import { validateShieldCase, validateShieldConsultation, validateShieldOutcome } from '../records/shield-records.validator';
import type { ShieldIssue, ShieldIssueCode } from '../validation/shield-issue';
import { SHIELD_INPUT_LIMITS } from '../validation/shield-inputs.validator';
import type { AddShieldGuidance, CloseShieldCase, ConsultShieldCase, OpenShieldCase, ShieldCaseCommand } from './shield-case.commands';
import type { ShieldCaseEvent } from './shield-case.events';
import { applyConsultItems, identifyConsultItems, mergeConsultInput, SHIELD_CASE_CLOSED_MESSAGE } from './shield-case.merge';

/** The case so far; null before it is opened. */
export type ShieldCaseState = ShieldCase | null;

export const SHIELD_CASE_NOT_FOUND_MESSAGE = 'Shield case not found';
export const SHIELD_CASE_ALREADY_CLOSED_MESSAGE = 'Shield case is already closed';

export type ShieldDecision = { ok: true; events: ShieldCaseEvent[] } | { ok: false; issues: ShieldIssue[] };

export function initialShieldCaseState(): ShieldCaseState {
  return null;
}

const refuse = (code: ShieldIssueCode, message: string, path = ''): ShieldDecision => ({ ok: false, issues: [{ code, path, message }] });
const notFound = () => refuse('SHIELD_CASE_NOT_FOUND', SHIELD_CASE_NOT_FOUND_MESSAGE);

function open({ data }: OpenShieldCase, state: ShieldCaseState): ShieldDecision {
  if (state !== null) return refuse('SHIELD_CASE_EXISTS', 'This Shield case is already open; consult it, or open a new case.');
  const { input, now, newId } = data;
  const caseId = newId();
  // Items without ids get new ones; two items of the input with one id keep the later (as in §4).
  const items = identifyConsultItems(input, newId);
  const caseRecord: ShieldCase = {
    protocolVersion: SHIELD_PROTOCOL_VERSION,
    caseId,
    agentId: input.agentId,
    title: input.title,
    goal: input.goal,
    brief: input.brief,
    ...(input.proposedAction !== undefined && input.proposedAction !== '' && { proposedAction: input.proposedAction }),
    counterparty: { ...input.counterparty },
    status: 'open',
    riskTier: 'medium',
    facts: items.facts,
    evidence: items.evidence,
    policies: items.policies,
    ownerGuidance: [],
    createdAt: now,
    updatedAt: now,
  };
  const valid = validateShieldCase(caseRecord);
  if (!valid.ok) return valid;
  return { ok: true, events: [{ type: 'ShieldCaseOpened', data: { caseRecord } }] };
}

function consult({ data }: ConsultShieldCase, state: ShieldCaseState): ShieldDecision {
  if (state === null) return notFound();
  const merged = mergeConsultInput(state, data.items, data.proposedAction, data.now);
  if (!merged.ok) return merged;
  const consultation: ShieldConsultation = {
    protocolVersion: SHIELD_PROTOCOL_VERSION,
    consultationId: data.newId(),
    caseId: state.caseId,
    agentId: state.agentId,
    inputDigest: data.inputDigest,
    analysis: data.analysis,
    generation: data.generation,
    createdAt: data.now,
  };
  const valid = validateShieldConsultation(consultation);
  if (!valid.ok) return valid;
  const { disposition, riskTier } = data.analysis;
  return {
    ok: true,
    events: [
      {
        type: 'ShieldCaseConsulted',
        data: {
          caseId: state.caseId,
          consultation,
          changes: {
            mergedItems: data.items,
            ...(data.proposedAction !== undefined && data.proposedAction !== '' && { proposedAction: data.proposedAction }),
            // §5: only gather_evidence asks for input; every other disposition, do_not_proceed included, is "assessed".
            status: disposition === 'gather_evidence' ? 'awaiting_input' : 'ready',
            riskTier,
            latestConsultationId: consultation.consultationId,
            latestDisposition: disposition,
            updatedAt: data.now,
          },
        },
      },
    ],
  };
}

function addGuidance({ data }: AddShieldGuidance, state: ShieldCaseState): ShieldDecision {
  if (state === null) return notFound();
  if (state.status === 'closed') return refuse('SHIELD_CASE_CLOSED', SHIELD_CASE_CLOSED_MESSAGE);
  if (state.ownerGuidance.length >= SHIELD_INPUT_LIMITS.caseGuidance) {
    return refuse(
      'SHIELD_CASE_LIMIT_EXCEEDED',
      `The case already holds ${SHIELD_INPUT_LIMITS.caseGuidance} guidance items, its maximum; open a new case for further guidance.`,
      '/ownerGuidance',
    );
  }
  const guidance = { guidanceId: data.newId(), instruction: data.input.instruction, scope: data.input.scope, createdAt: data.now };
  const valid = validateShieldCase(evolve(state, { type: 'ShieldGuidanceAdded', data: { caseId: state.caseId, guidance } }));
  if (!valid.ok) return valid;
  return { ok: true, events: [{ type: 'ShieldGuidanceAdded', data: { caseId: state.caseId, guidance } }] };
}

function close({ data }: CloseShieldCase, state: ShieldCaseState): ShieldDecision {
  if (state === null) return notFound();
  // Closing is what reports the outcome, so a closed case already has its one outcome (§7).
  if (state.status === 'closed') return refuse('SHIELD_CASE_ALREADY_CLOSED', SHIELD_CASE_ALREADY_CLOSED_MESSAGE);
  const { input } = data;
  const outcome: ShieldOutcome = {
    protocolVersion: SHIELD_PROTOCOL_VERSION,
    outcomeId: data.newId(),
    caseId: state.caseId,
    agentId: state.agentId,
    result: input.result,
    acceptedAdvice: input.acceptedAdvice,
    actionTaken: input.actionTaken,
    ...(input.observedImpact !== undefined && { observedImpact: input.observedImpact }),
    reportedBy: data.reportedBy,
    createdAt: data.now,
  };
  const valid = validateShieldOutcome(outcome);
  if (!valid.ok) return valid;
  return { ok: true, events: [{ type: 'ShieldCaseClosed', data: { caseId: state.caseId, outcome, closedAt: data.now } }] };
}

export function decide(command: ShieldCaseCommand, state: ShieldCaseState): ShieldDecision {
  switch (command.type) {
    case 'OpenShieldCase':
      return open(command, state);
    case 'ConsultShieldCase':
      return consult(command, state);
    case 'AddShieldGuidance':
      return addGuidance(command, state);
    case 'CloseShieldCase':
      return close(command, state);
  }
}

export function evolve(state: ShieldCaseState, event: ShieldCaseEvent): ShieldCaseState {
  switch (event.type) {
    case 'ShieldCaseOpened':
      return event.data.caseRecord;
    case 'ShieldCaseConsulted': {
      if (state === null) return state;
      const { mergedItems, proposedAction, status, riskTier, latestConsultationId, latestDisposition, updatedAt } = event.data.changes;
      return { ...applyConsultItems(state, mergedItems, proposedAction, updatedAt), status, riskTier, latestConsultationId, latestDisposition };
    }
    case 'ShieldGuidanceAdded':
      if (state === null) return state;
      return { ...state, ownerGuidance: [...state.ownerGuidance, event.data.guidance], updatedAt: event.data.guidance.createdAt };
    case 'ShieldCaseClosed':
      if (state === null) return state;
      return { ...state, status: 'closed', closedAt: event.data.closedAt, updatedAt: event.data.closedAt };
  }
}

/** The case after a stream of events (`evolve` from the initial state). */
export function foldShieldCase(events: readonly ShieldCaseEvent[]): ShieldCaseState {
  return events.reduce(evolve, initialShieldCaseState());
}

/** The three parts of the decider, as emmett's `Decider` groups them. */
export const shieldCaseDecider = { decide, evolve, initialState: initialShieldCaseState } as const;
