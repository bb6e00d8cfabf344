/**
 * The four inputs of the Shield (§3 case, §4 consult, §6 guidance, §7 close), validated: unknown keys
 * refused at every level (§2), strings trimmed before their bounds (except `agentId`), defaults filled
 * (`brief ""`, `situationContext ""`, empty lists, each fact's `evidenceReferences []`, guidance `scope
 * "case"`), optional fields left out when absent, item ids optional but UUIDs when given. No id is
 * generated here: the consult input's digest (§8.1) is computed over exactly this value.
 */
import {
  COUNTERPARTY_TYPES,
  EVIDENCE_TYPES,
  EVIDENCE_VERIFICATIONS,
  FACT_SOURCES,
  FACT_STATUSES,
  GUIDANCE_SCOPES,
  OUTCOME_RESULTS,
  type CaseInput,
  type CloseInput,
  type ConsultInput,
  type Counterparty,
  type EvidenceInput,
  type FactInput,
  type GuidanceInput,
  type PolicyInput,
} from '../shield.types';
import { InputReader, type InputRecord, type TextBounds } from './input-reader';
import { pointerTo, type ShieldIssue, type ShieldResult } from './shield-issue';

/** Bounds of §3, §4, §6 and §7, in code points after trimming. */
export const SHIELD_INPUT_LIMITS = {
  title: { min: 1, max: 160 },
  goal: { min: 1, max: 2000 },
  brief: { min: 0, max: 4000 },
  proposedAction: { min: 0, max: 1000 },
  counterpartyReference: { min: 1, max: 200 },
  factStatement: { min: 1, max: 1000 },
  evidenceReference: { min: 1, max: 200 },
  evidenceReferencesPerFact: 20,
  evidenceSummary: { min: 1, max: 1200 },
  sourceReference: { min: 1, max: 500 },
  policyTitle: { min: 1, max: 160 },
  policyStatement: { min: 1, max: 2000 },
  message: { min: 1, max: 4000 },
  situationContext: { min: 0, max: 8000 },
  instruction: { min: 1, max: 2000 },
  actionTaken: { min: 1, max: 2000 },
  observedImpact: { min: 1, max: 2000 },
  /** Items one case input may carry, and the case maxima a merge may not exceed (§3, §4). */
  caseFacts: 100,
  caseEvidence: 100,
  casePolicies: 50,
  caseGuidance: 50,
  /** Items one consult input may carry (§4). */
  consultFacts: 50,
  consultEvidence: 50,
  consultPolicies: 20,
} as const;

const L = SHIELD_INPUT_LIMITS;

const CASE_INPUT_KEYS = ['agentId', 'title', 'goal', 'brief', 'proposedAction', 'counterparty', 'facts', 'evidence', 'policies'] as const;
const CONSULT_INPUT_KEYS = ['message', 'situationContext', 'proposedAction', 'facts', 'evidence', 'policies'] as const;
const GUIDANCE_INPUT_KEYS = ['instruction', 'scope'] as const;
const CLOSE_INPUT_KEYS = ['result', 'acceptedAdvice', 'actionTaken', 'observedImpact'] as const;
const COUNTERPARTY_KEYS = ['type', 'reference'] as const;
const FACT_KEYS = ['factId', 'statement', 'source', 'status', 'evidenceReferences'] as const;
const EVIDENCE_KEYS = ['evidenceId', 'type', 'summary', 'sourceReference', 'verification'] as const;
const POLICY_KEYS = ['policyId', 'title', 'statement', 'sourceReference'] as const;

function range(bounds: TextBounds): string {
  return bounds.min === 0 ? `up to ${bounds.max} characters` : `${bounds.min}-${bounds.max} characters`;
}

/** A required string field. */
function requiredText(r: InputReader, record: InputRecord, key: string, path: string, bounds: TextBounds, what: string): string | undefined {
  const value = r.required(record, key, path, `${what} (${range(bounds)})`);
  return value === undefined ? undefined : r.text(value, pointerTo(path, key), `"${key}"`, bounds);
}

/** An optional string field: absent stays absent (`undefined`), present is checked. */
function optionalText(r: InputReader, record: InputRecord, key: string, path: string, bounds: TextBounds): { ok: boolean; value?: string } {
  const value = r.field(record, key);
  if (value === undefined) return { ok: true };
  const text = r.text(value, pointerTo(path, key), `"${key}"`, bounds);
  return text === undefined ? { ok: false } : { ok: true, value: text };
}

function requiredEnum<T extends string>(r: InputReader, record: InputRecord, key: string, path: string, values: readonly T[]): T | undefined {
  const value = r.required(record, key, path, `one of ${values.join(', ')}`);
  return value === undefined ? undefined : r.oneOf(value, pointerTo(path, key), `"${key}"`, values);
}

function optionalId(r: InputReader, record: InputRecord, key: string, path: string): { ok: boolean; value?: string } {
  const value = r.field(record, key);
  if (value === undefined) return { ok: true };
  const id = r.id(value, pointerTo(path, key), `"${key}"`);
  return id === undefined ? { ok: false } : { ok: true, value: id };
}

/** A list field, `[]` when absent. */
function listField<T>(r: InputReader, record: InputRecord, key: string, path: string, max: number, item: (value: unknown, path: string) => T | undefined): T[] | undefined {
  const value = r.field(record, key);
  if (value === undefined) return [];
  return r.list(value, pointerTo(path, key), `"${key}"`, max, item);
}

function readFact(r: InputReader, value: unknown, path: string): FactInput | undefined {
  const record = r.object(value, path, 'a fact', FACT_KEYS);
  if (!record) return undefined;
  const factId = optionalId(r, record, 'factId', path);
  const statement = requiredText(r, record, 'statement', path, L.factStatement, 'what the fact states');
  const source = requiredEnum(r, record, 'source', path, FACT_SOURCES);
  const status = requiredEnum(r, record, 'status', path, FACT_STATUSES);
  const evidenceReferences = listField(r, record, 'evidenceReferences', path, L.evidenceReferencesPerFact, (item, itemPath) =>
    r.text(item, itemPath, 'each evidence reference', L.evidenceReference),
  );
  if (!factId.ok || statement === undefined || source === undefined || status === undefined || evidenceReferences === undefined) return undefined;
  return { ...(factId.value !== undefined && { factId: factId.value }), statement, source, status, evidenceReferences };
}

function readEvidence(r: InputReader, value: unknown, path: string): EvidenceInput | undefined {
  const record = r.object(value, path, 'an evidence item', EVIDENCE_KEYS);
  if (!record) return undefined;
  const evidenceId = optionalId(r, record, 'evidenceId', path);
  const type = requiredEnum(r, record, 'type', path, EVIDENCE_TYPES);
  const summary = requiredText(r, record, 'summary', path, L.evidenceSummary, 'what the evidence shows');
  const sourceReference = optionalText(r, record, 'sourceReference', path, L.sourceReference);
  const verification = requiredEnum(r, record, 'verification', path, EVIDENCE_VERIFICATIONS);
  if (!evidenceId.ok || type === undefined || summary === undefined || !sourceReference.ok || verification === undefined) return undefined;
  return {
    ...(evidenceId.value !== undefined && { evidenceId: evidenceId.value }),
    type,
    summary,
    ...(sourceReference.value !== undefined && { sourceReference: sourceReference.value }),
    verification,
  };
}

function readPolicy(r: InputReader, value: unknown, path: string): PolicyInput | undefined {
  const record = r.object(value, path, 'a policy', POLICY_KEYS);
  if (!record) return undefined;
  const policyId = optionalId(r, record, 'policyId', path);
  const title = requiredText(r, record, 'title', path, L.policyTitle, "the policy's title");
  const statement = requiredText(r, record, 'statement', path, L.policyStatement, 'what the policy requires');
  const sourceReference = optionalText(r, record, 'sourceReference', path, L.sourceReference);
  if (!policyId.ok || title === undefined || statement === undefined || !sourceReference.ok) return undefined;
  return {
    ...(policyId.value !== undefined && { policyId: policyId.value }),
    title,
    statement,
    ...(sourceReference.value !== undefined && { sourceReference: sourceReference.value }),
  };
}

function readCounterparty(r: InputReader, value: unknown, path: string): Counterparty | undefined {
  const record = r.object(value, path, 'the counterparty', COUNTERPARTY_KEYS);
  if (!record) return undefined;
  const type = requiredEnum(r, record, 'type', path, COUNTERPARTY_TYPES);
  const reference = optionalText(r, record, 'reference', path, L.counterpartyReference);
  if (type === undefined || !reference.ok) return undefined;
  return { type, ...(reference.value !== undefined && { reference: reference.value }) };
}

/** Every path that gives up on a field has reported an issue for it. */
function refused(r: InputReader): { ok: false; issues: ShieldIssue[] } {
  return { ok: false, issues: r.issues };
}

function finish<T>(r: InputReader, value: T): ShieldResult<T> {
  return r.issues.length > 0 ? refused(r) : { ok: true, value };
}

/** Case input (§3): what opens a case. `agentId` is kept as given (not trimmed), at least 1 character. */
export function validateCaseInput(input: unknown): ShieldResult<CaseInput> {
  const r = new InputReader();
  const record = r.object(input, '', 'the case input', CASE_INPUT_KEYS);
  if (!record) return refused(r);
  const agentIdValue = r.required(record, 'agentId', '', 'the protected agent this case is for');
  const agentId = agentIdValue === undefined ? undefined : r.text(agentIdValue, '/agentId', '"agentId"', { min: 1, trim: false });
  const title = requiredText(r, record, 'title', '', L.title, 'a short title');
  const goal = requiredText(r, record, 'goal', '', L.goal, 'what the agent must achieve');
  const brief = optionalText(r, record, 'brief', '', L.brief);
  const proposedAction = optionalText(r, record, 'proposedAction', '', L.proposedAction);
  const counterpartyValue = r.required(record, 'counterparty', '', 'an object with "type" (human, agent, service or unknown)');
  const counterparty = counterpartyValue === undefined ? undefined : readCounterparty(r, counterpartyValue, '/counterparty');
  const facts = listField(r, record, 'facts', '', L.caseFacts, (item, path) => readFact(r, item, path));
  const evidence = listField(r, record, 'evidence', '', L.caseEvidence, (item, path) => readEvidence(r, item, path));
  const policies = listField(r, record, 'policies', '', L.casePolicies, (item, path) => readPolicy(r, item, path));
  if (agentId === undefined || title === undefined || goal === undefined || !brief.ok || !proposedAction.ok || counterparty === undefined) return refused(r);
  if (facts === undefined || evidence === undefined || policies === undefined) return refused(r);
  return finish(r, {
    agentId,
    title,
    goal,
    brief: brief.value ?? '',
    ...(proposedAction.value !== undefined && { proposedAction: proposedAction.value }),
    counterparty,
    facts,
    evidence,
    policies,
  });
}

/**
 * Consult input (§4). Transient (§12): never store or log it. An explicit `proposedAction: ""` is kept,
 * as the digest needs it (§8.1); only a non-empty one replaces the case's.
 */
export function validateConsultInput(input: unknown): ShieldResult<ConsultInput> {
  const r = new InputReader();
  const record = r.object(input, '', 'the consult input', CONSULT_INPUT_KEYS);
  if (!record) return refused(r);
  const message = requiredText(r, record, 'message', '', L.message, 'the request, or the question about it');
  const situationContext = optionalText(r, record, 'situationContext', '', L.situationContext);
  const proposedAction = optionalText(r, record, 'proposedAction', '', L.proposedAction);
  const facts = listField(r, record, 'facts', '', L.consultFacts, (item, path) => readFact(r, item, path));
  const evidence = listField(r, record, 'evidence', '', L.consultEvidence, (item, path) => readEvidence(r, item, path));
  const policies = listField(r, record, 'policies', '', L.consultPolicies, (item, path) => readPolicy(r, item, path));
  if (message === undefined || !situationContext.ok || !proposedAction.ok || facts === undefined || evidence === undefined || policies === undefined) {
    return refused(r);
  }
  return finish(r, {
    message,
    situationContext: situationContext.value ?? '',
    ...(proposedAction.value !== undefined && { proposedAction: proposedAction.value }),
    facts,
    evidence,
    policies,
  });
}

/** Guidance input (§6): `scope` defaults to "case". */
export function validateGuidanceInput(input: unknown): ShieldResult<GuidanceInput> {
  const r = new InputReader();
  const record = r.object(input, '', 'the guidance input', GUIDANCE_INPUT_KEYS);
  if (!record) return refused(r);
  const instruction = requiredText(r, record, 'instruction', '', L.instruction, "the owner's instruction");
  const scopeValue = r.field(record, 'scope');
  const scope = scopeValue === undefined ? 'case' : r.oneOf(scopeValue, '/scope', '"scope"', GUIDANCE_SCOPES);
  if (instruction === undefined || scope === undefined) return refused(r);
  return finish(r, { instruction, scope });
}

/** Close input (§7). */
export function validateCloseInput(input: unknown): ShieldResult<CloseInput> {
  const r = new InputReader();
  const record = r.object(input, '', 'the close input', CLOSE_INPUT_KEYS);
  if (!record) return refused(r);
  const result = requiredEnum(r, record, 'result', '', OUTCOME_RESULTS);
  const acceptedValue = r.required(record, 'acceptedAdvice', '', "true if the Shield's advice was followed, else false");
  const acceptedAdvice = acceptedValue === undefined ? undefined : r.boolean(acceptedValue, '/acceptedAdvice', '"acceptedAdvice"');
  const actionTaken = requiredText(r, record, 'actionTaken', '', L.actionTaken, 'what the agent did');
  const observedImpact = optionalText(r, record, 'observedImpact', '', L.observedImpact);
  if (result === undefined || acceptedAdvice === undefined || actionTaken === undefined || !observedImpact.ok) return refused(r);
  return finish(r, { result, acceptedAdvice, actionTaken, ...(observedImpact.value !== undefined && { observedImpact: observedImpact.value }) });
}
