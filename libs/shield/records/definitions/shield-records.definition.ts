/**
 * The project's own definitions of the Shield's records (§3 case, §7 outcome, §9 analysis), emitted as
 * `schemas/shield_case.schema.json`, `shield_analysis.schema.json` and `shield_outcome.schema.json` by
 * `codegen/generate.ts`. `schemas/shield_consultation.schema.json` is the user's document, copied byte
 * for byte and never rewritten; it is also the source of everything the records share with it (the
 * UUID and §8.3 timestamp patterns, `protocolVersion`, `agentId`, the whole analysis object), so one
 * pattern is written once. Enums come from `shield.types.ts`, bounds from the input limits the input
 * validators use: an input they accept always builds a record these schemas accept.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';

import {
  CASE_STATUSES,
  COUNTERPARTY_TYPES,
  EVIDENCE_TYPES,
  EVIDENCE_VERIFICATIONS,
  FACT_SOURCES,
  FACT_STATUSES,
  GUIDANCE_SCOPES,
  OUTCOME_REPORTERS,
  OUTCOME_RESULTS,
} from '../src/shield.types';
import { SHIELD_INPUT_LIMITS as L } from '../src/validation/shield-inputs.validator';

export type JsonSchema = { [keyword: string]: unknown };

export const SCHEMAS_DIR = join(__dirname, '..', 'schemas');
export const CONSULTATION_SCHEMA_FILE = join(SCHEMAS_DIR, 'shield_consultation.schema.json');

export function loadConsultationDocument(): JsonSchema {
  return JSON.parse(readFileSync(CONSULTATION_SCHEMA_FILE, 'utf8')) as JsonSchema;
}

const clone = <T>(value: T): T => JSON.parse(JSON.stringify(value)) as T;

function text(bounds: { min?: number; max?: number }): JsonSchema {
  return {
    type: 'string',
    ...(bounds.min !== undefined && bounds.min > 0 && { minLength: bounds.min }),
    ...(bounds.max !== undefined && { maxLength: bounds.max }),
  };
}

function oneOf(values: readonly string[]): JsonSchema {
  return { type: 'string', enum: [...values] };
}

function listOf(items: JsonSchema, maxItems: number, withDefault: boolean): JsonSchema {
  return { ...(withDefault && { default: [] }), maxItems, type: 'array', items };
}

function objectOf(properties: Record<string, JsonSchema>, optional: readonly string[] = []): JsonSchema {
  return {
    type: 'object',
    properties,
    required: Object.keys(properties).filter((key) => !optional.includes(key)),
    additionalProperties: false,
  };
}

/** What the records share with the consultation document. */
function shared(consultation: JsonSchema) {
  const properties = consultation['properties'] as Record<string, JsonSchema>;
  const analysis = properties['analysis'] as JsonSchema;
  const analysisProperties = analysis['properties'] as Record<string, JsonSchema>;
  return {
    dialect: consultation['$schema'] as string,
    protocolVersion: () => clone(properties['protocolVersion'] as JsonSchema),
    uuid: () => clone(properties['caseId'] as JsonSchema),
    agentId: () => clone(properties['agentId'] as JsonSchema),
    timestamp: () => clone(properties['createdAt'] as JsonSchema),
    analysis: () => clone(analysis),
    riskTier: () => clone(analysisProperties['riskTier'] as JsonSchema),
    disposition: () => clone(analysisProperties['disposition'] as JsonSchema),
  };
}

/** `shield_analysis` (§9): the consultation's own `analysis`, as a document of its own. */
export function defineAnalysis(consultation: JsonSchema): JsonSchema {
  const s = shared(consultation);
  return { $schema: s.dialect, ...s.analysis() };
}

/** `shield_case` (§3). */
export function defineCase(consultation: JsonSchema): JsonSchema {
  const s = shared(consultation);
  const fact = objectOf({
    factId: s.uuid(),
    statement: text(L.factStatement),
    source: oneOf(FACT_SOURCES),
    status: oneOf(FACT_STATUSES),
    evidenceReferences: listOf(text(L.evidenceReference), L.evidenceReferencesPerFact, true),
  });
  const evidence = objectOf(
    {
      evidenceId: s.uuid(),
      type: oneOf(EVIDENCE_TYPES),
      summary: text(L.evidenceSummary),
      sourceReference: text(L.sourceReference),
      verification: oneOf(EVIDENCE_VERIFICATIONS),
    },
    ['sourceReference'],
  );
  const policy = objectOf(
    { policyId: s.uuid(), title: text(L.policyTitle), statement: text(L.policyStatement), sourceReference: text(L.sourceReference) },
    ['sourceReference'],
  );
  const guidance = objectOf({ guidanceId: s.uuid(), instruction: text(L.instruction), scope: oneOf(GUIDANCE_SCOPES), createdAt: s.timestamp() });
  const shieldCase = objectOf(
    {
      protocolVersion: s.protocolVersion(),
      caseId: s.uuid(),
      agentId: s.agentId(),
      title: text(L.title),
      goal: text(L.goal),
      brief: { default: '', ...text(L.brief) },
      proposedAction: text(L.proposedAction),
      counterparty: objectOf({ type: oneOf(COUNTERPARTY_TYPES), reference: text(L.counterpartyReference) }, ['reference']),
      status: oneOf(CASE_STATUSES),
      riskTier: { default: 'medium', ...s.riskTier() },
      facts: listOf(fact, L.caseFacts, true),
      evidence: listOf(evidence, L.caseEvidence, true),
      policies: listOf(policy, L.casePolicies, true),
      ownerGuidance: listOf(guidance, L.caseGuidance, true),
      latestConsultationId: s.uuid(),
      latestDisposition: s.disposition(),
      createdAt: s.timestamp(),
      updatedAt: s.timestamp(),
      closedAt: s.timestamp(),
    },
    ['proposedAction', 'latestConsultationId', 'latestDisposition', 'closedAt'],
  );
  return { $schema: s.dialect, ...shieldCase };
}

/** `shield_outcome` (§7). */
export function defineOutcome(consultation: JsonSchema): JsonSchema {
  const s = shared(consultation);
  const outcome = objectOf(
    {
      protocolVersion: s.protocolVersion(),
      outcomeId: s.uuid(),
      caseId: s.uuid(),
      agentId: s.agentId(),
      result: oneOf(OUTCOME_RESULTS),
      acceptedAdvice: { type: 'boolean' },
      actionTaken: text(L.actionTaken),
      observedImpact: text(L.observedImpact),
      reportedBy: oneOf(OUTCOME_REPORTERS),
      createdAt: s.timestamp(),
    },
    ['observedImpact'],
  );
  return { $schema: s.dialect, ...outcome };
}
