/**
 * Validates one parsed scenario file against the format of `scenario.types.ts`: the case record must be a valid
 * `shield_case` as of a consult (§2, §3: uuids, trimmed bounds, enums, §8.3 timestamps, no unknown keys), the
 * consult a validated consult input (§4), earlier consultations valid records (§8, §9), and every label from the
 * §9.1 / §9.4 / §9.5 enums. Each problem is reported with a stable code and a JSON pointer, so a broken file
 * names the exact field to fix. Written for this tool; the records library owns the service's own validation.
 */
import {
  CASE_STATUSES,
  CLAIM_STATUSES,
  COUNTERPARTY_TYPES,
  DISPOSITIONS,
  EVIDENCE_TYPES,
  EVIDENCE_VERIFICATIONS,
  FACT_SOURCES,
  FACT_STATUSES,
  GENERATION_MODES,
  GUIDANCE_SCOPES,
  OUTCOME_RESULTS,
  RISK_TIERS,
  TACTICS,
} from '@trustmesh/shield-records';

import { CARD_STATUSES } from '@trustmesh/cards-registry-events';

import { SCENARIO_LANGUAGES } from './scenario.types';

export type ScenarioErrorCode =
  | 'missing_key'
  | 'unknown_key'
  | 'wrong_type'
  | 'out_of_bounds'
  | 'not_in_enum'
  | 'bad_uuid'
  | 'bad_timestamp'
  | 'bad_pattern'
  | 'duplicate'
  | 'inconsistent';

export interface ScenarioError {
  code: ScenarioErrorCode;
  /** JSON pointer into the scenario file. */
  pointer: string;
  message: string;
}

// §2: versions 1-8, variants 8-b, or the nil / all-f ids.
const UUID = /^([0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[1-8][0-9a-fA-F]{3}-[89abAB][0-9a-fA-F]{3}-[0-9a-fA-F]{12}|00000000-0000-0000-0000-000000000000|ffffffff-ffff-ffff-ffff-ffffffffffff)$/;
// §8.3: real calendar dates, Z only.
const TIMESTAMP =
  /^(?:(?:\d\d[2468][048]|\d\d[13579][26]|\d\d0[48]|[02468][048]00|[13579][26]00)-02-29|\d{4}-(?:(?:0[13578]|1[02])-(?:0[1-9]|[12]\d|3[01])|(?:0[469]|11)-(?:0[1-9]|[12]\d|30)|(?:02)-(?:0[1-9]|1\d|2[0-8])))T(?:(?:[01]\d|2[0-3]):[0-5]\d(?::[0-5]\d(?:\.\d+)?)?(?:Z))$/;
const DIGEST = /^[a-zA-Z0-9_-]{43}$/;
const SCENARIO_ID = /^[a-z0-9]+(?:-[a-z0-9]+)*\/[a-z0-9]+(?:-[a-z0-9]+)*$/;
const DOMAIN = /^[a-z0-9]+(?:-[a-z0-9]+)*$/;

type Json = unknown;
type JsonObject = Record<string, Json>;

function escapePointer(key: string | number): string {
  return String(key).replace(/~/g, '~0').replace(/\//g, '~1');
}

/** Collects errors while walking one document. */
class Walk {
  readonly errors: ScenarioError[] = [];

  fail(code: ScenarioErrorCode, pointer: string, message: string): void {
    // One problem per code and field: a null optional is not also reported as "not a string".
    if (this.errors.some((error) => error.code === code && error.pointer === (pointer || '/'))) return;
    this.errors.push({ code, pointer: pointer || '/', message });
  }

  /** An object with exactly these required and optional keys; returns it when it is an object. */
  object(value: Json, pointer: string, required: readonly string[], optional: readonly string[] = []): JsonObject | undefined {
    if (typeof value !== 'object' || value === null || Array.isArray(value)) {
      this.fail('wrong_type', pointer, 'must be an object');
      return undefined;
    }
    const record = value as JsonObject;
    for (const key of required) {
      if (!(key in record)) this.fail('missing_key', `${pointer}/${escapePointer(key)}`, `"${key}" is required`);
    }
    for (const key of Object.keys(record)) {
      if (!required.includes(key) && !optional.includes(key)) {
        this.fail('unknown_key', `${pointer}/${escapePointer(key)}`, `"${key}" is not a field here (§2: unknown keys are rejected)`);
      } else if (record[key] === null) {
        this.fail('wrong_type', `${pointer}/${escapePointer(key)}`, 'optional fields are omitted, never null (§2)');
      }
    }
    return record;
  }

  /** A string whose trimmed length is within [min, max] (§2: bounds apply after trimming). */
  string(value: Json, pointer: string, min: number, max: number, options: { trim?: boolean } = {}): string | undefined {
    if (value === undefined) return undefined;
    if (typeof value !== 'string') {
      this.fail('wrong_type', pointer, 'must be a string');
      return undefined;
    }
    const measured = options.trim === false ? value : value.trim();
    if (measured.length < min || measured.length > max) {
      this.fail('out_of_bounds', pointer, `length ${measured.length} after trimming, allowed ${min}-${max}`);
    }
    if (options.trim !== false && measured !== value) {
      this.fail('bad_pattern', pointer, 'a stored record holds trimmed strings: remove leading or trailing whitespace');
    }
    return value;
  }

  oneOf<T extends string>(value: Json, pointer: string, allowed: readonly T[]): T | undefined {
    if (value === undefined) return undefined;
    if (typeof value !== 'string' || !(allowed as readonly string[]).includes(value)) {
      this.fail('not_in_enum', pointer, `must be one of ${allowed.join(', ')} (got ${JSON.stringify(value)})`);
      return undefined;
    }
    return value as T;
  }

  uuid(value: Json, pointer: string): string | undefined {
    if (value === undefined) return undefined;
    if (typeof value !== 'string' || !UUID.test(value)) {
      this.fail('bad_uuid', pointer, `must be a uuid (§2), got ${JSON.stringify(value)}`);
      return undefined;
    }
    return value;
  }

  timestamp(value: Json, pointer: string): string | undefined {
    if (value === undefined) return undefined;
    if (typeof value !== 'string' || !TIMESTAMP.test(value)) {
      this.fail('bad_timestamp', pointer, `must be a UTC timestamp like 2026-11-20T10:00:00.000Z (§8.3), got ${JSON.stringify(value)}`);
      return undefined;
    }
    return value;
  }

  number(value: Json, pointer: string, min: number, max: number, integer = false): number | undefined {
    if (value === undefined) return undefined;
    if (typeof value !== 'number' || !Number.isFinite(value) || (integer && !Number.isInteger(value))) {
      this.fail('wrong_type', pointer, integer ? 'must be an integer' : 'must be a number');
      return undefined;
    }
    if (value < min || value > max) this.fail('out_of_bounds', pointer, `must be between ${min} and ${max}`);
    return value;
  }

  boolean(value: Json, pointer: string): void {
    if (value !== undefined && typeof value !== 'boolean') this.fail('wrong_type', pointer, 'must be true or false');
  }

  array(value: Json, pointer: string, min: number, max: number, each: (item: Json, pointer: string) => void): Json[] | undefined {
    if (value === undefined) return undefined;
    if (!Array.isArray(value)) {
      this.fail('wrong_type', pointer, 'must be an array');
      return undefined;
    }
    if (value.length < min || value.length > max) this.fail('out_of_bounds', pointer, `${value.length} items, allowed ${min}-${max}`);
    value.forEach((item, index) => each(item, `${pointer}/${index}`));
    return value;
  }

  strings(value: Json, pointer: string, min: number, max: number, itemMin: number, itemMax: number): void {
    this.array(value, pointer, min, max, (item, at) => this.string(item, at, itemMin, itemMax));
  }
}

/** Items of a case (ids required) or of a consult input (ids optional), §3. */
function checkFact(walk: Walk, value: Json, at: string, idRequired: boolean): void {
  const fact = walk.object(value, at, ['statement', 'source', 'status', 'evidenceReferences', ...(idRequired ? ['factId'] : [])], idRequired ? [] : ['factId']);
  if (!fact) return;
  walk.uuid(fact['factId'], `${at}/factId`);
  walk.string(fact['statement'], `${at}/statement`, 1, 1000);
  walk.oneOf(fact['source'], `${at}/source`, FACT_SOURCES);
  walk.oneOf(fact['status'], `${at}/status`, FACT_STATUSES);
  walk.strings(fact['evidenceReferences'], `${at}/evidenceReferences`, 0, 20, 1, 200);
}

function checkEvidence(walk: Walk, value: Json, at: string, idRequired: boolean): void {
  const item = walk.object(value, at, ['type', 'summary', 'verification', ...(idRequired ? ['evidenceId'] : [])], ['sourceReference', ...(idRequired ? [] : ['evidenceId'])]);
  if (!item) return;
  walk.uuid(item['evidenceId'], `${at}/evidenceId`);
  walk.oneOf(item['type'], `${at}/type`, EVIDENCE_TYPES);
  walk.string(item['summary'], `${at}/summary`, 1, 1200);
  walk.string(item['sourceReference'], `${at}/sourceReference`, 1, 500);
  walk.oneOf(item['verification'], `${at}/verification`, EVIDENCE_VERIFICATIONS);
}

function checkPolicy(walk: Walk, value: Json, at: string, idRequired: boolean): void {
  const item = walk.object(value, at, ['title', 'statement', ...(idRequired ? ['policyId'] : [])], ['sourceReference', ...(idRequired ? [] : ['policyId'])]);
  if (!item) return;
  walk.uuid(item['policyId'], `${at}/policyId`);
  walk.string(item['title'], `${at}/title`, 1, 160);
  walk.string(item['statement'], `${at}/statement`, 1, 2000);
  walk.string(item['sourceReference'], `${at}/sourceReference`, 1, 500);
}

function checkGuidance(walk: Walk, value: Json, at: string): void {
  const item = walk.object(value, at, ['guidanceId', 'instruction', 'scope', 'createdAt']);
  if (!item) return;
  walk.uuid(item['guidanceId'], `${at}/guidanceId`);
  walk.string(item['instruction'], `${at}/instruction`, 1, 2000);
  walk.oneOf(item['scope'], `${at}/scope`, GUIDANCE_SCOPES);
  walk.timestamp(item['createdAt'], `${at}/createdAt`);
}

function checkUniqueIds(walk: Walk, items: Json, at: string, key: string): void {
  if (!Array.isArray(items)) return;
  const seen = new Map<string, number>();
  items.forEach((item, index) => {
    const id = (item as JsonObject | null)?.[key];
    if (typeof id !== 'string') return;
    const first = seen.get(id.toLowerCase());
    if (first !== undefined) walk.fail('duplicate', `${at}/${index}/${key}`, `same id as ${at}/${first} (merge keeps one item per id, §4)`);
    else seen.set(id.toLowerCase(), index);
  });
}

const CASE_REQUIRED = ['protocolVersion', 'caseId', 'agentId', 'title', 'goal', 'brief', 'counterparty', 'status', 'riskTier', 'facts', 'evidence', 'policies', 'ownerGuidance', 'createdAt', 'updatedAt'];
const CASE_OPTIONAL = ['proposedAction', 'latestConsultationId', 'latestDisposition', 'closedAt'];

function checkCase(walk: Walk, value: Json, at: string): JsonObject | undefined {
  const record = walk.object(value, at, CASE_REQUIRED, CASE_OPTIONAL);
  if (!record) return undefined;
  if (record['protocolVersion'] !== '0.1') walk.fail('not_in_enum', `${at}/protocolVersion`, 'must be "0.1"');
  walk.uuid(record['caseId'], `${at}/caseId`);
  walk.string(record['agentId'], `${at}/agentId`, 1, Number.MAX_SAFE_INTEGER, { trim: false });
  walk.string(record['title'], `${at}/title`, 1, 160);
  walk.string(record['goal'], `${at}/goal`, 1, 2000);
  walk.string(record['brief'], `${at}/brief`, 0, 4000);
  // §3: omitted when empty.
  walk.string(record['proposedAction'], `${at}/proposedAction`, 1, 1000);
  const counterparty = walk.object(record['counterparty'], `${at}/counterparty`, ['type'], ['reference']);
  if (counterparty) {
    walk.oneOf(counterparty['type'], `${at}/counterparty/type`, COUNTERPARTY_TYPES);
    walk.string(counterparty['reference'], `${at}/counterparty/reference`, 1, 200);
  }
  walk.oneOf(record['status'], `${at}/status`, CASE_STATUSES);
  // §4: a closed case rejects consults, so no scenario can be consulting one.
  if (record['status'] === 'closed' || record['closedAt'] !== undefined) walk.fail('inconsistent', `${at}/status`, 'a closed case cannot be consulted (§4)');
  walk.oneOf(record['riskTier'], `${at}/riskTier`, RISK_TIERS);
  walk.array(record['facts'], `${at}/facts`, 0, 100, (item, p) => checkFact(walk, item, p, true));
  walk.array(record['evidence'], `${at}/evidence`, 0, 100, (item, p) => checkEvidence(walk, item, p, true));
  walk.array(record['policies'], `${at}/policies`, 0, 50, (item, p) => checkPolicy(walk, item, p, true));
  walk.array(record['ownerGuidance'], `${at}/ownerGuidance`, 0, 50, (item, p) => checkGuidance(walk, item, p));
  checkUniqueIds(walk, record['facts'], `${at}/facts`, 'factId');
  checkUniqueIds(walk, record['evidence'], `${at}/evidence`, 'evidenceId');
  checkUniqueIds(walk, record['policies'], `${at}/policies`, 'policyId');
  checkUniqueIds(walk, record['ownerGuidance'], `${at}/ownerGuidance`, 'guidanceId');
  walk.uuid(record['latestConsultationId'], `${at}/latestConsultationId`);
  walk.oneOf(record['latestDisposition'], `${at}/latestDisposition`, DISPOSITIONS);
  const createdAt = walk.timestamp(record['createdAt'], `${at}/createdAt`);
  const updatedAt = walk.timestamp(record['updatedAt'], `${at}/updatedAt`);
  walk.timestamp(record['closedAt'], `${at}/closedAt`);
  if (createdAt && updatedAt && Date.parse(updatedAt) < Date.parse(createdAt)) walk.fail('inconsistent', `${at}/updatedAt`, 'updatedAt is before createdAt');
  return record;
}

function checkConsult(walk: Walk, value: Json, at: string): JsonObject | undefined {
  const consult = walk.object(value, at, ['message', 'situationContext', 'facts', 'evidence', 'policies'], ['proposedAction']);
  if (!consult) return undefined;
  walk.string(consult['message'], `${at}/message`, 1, 4000);
  walk.string(consult['situationContext'], `${at}/situationContext`, 0, 8000);
  walk.string(consult['proposedAction'], `${at}/proposedAction`, 0, 1000);
  walk.array(consult['facts'], `${at}/facts`, 0, 50, (item, p) => checkFact(walk, item, p, false));
  walk.array(consult['evidence'], `${at}/evidence`, 0, 50, (item, p) => checkEvidence(walk, item, p, false));
  walk.array(consult['policies'], `${at}/policies`, 0, 20, (item, p) => checkPolicy(walk, item, p, false));
  return consult;
}

function checkAnalysis(walk: Walk, value: Json, at: string): void {
  const analysis = walk.object(
    value,
    at,
    ['reply', 'situationSummary', 'disposition', 'riskTier', 'confidence', 'rationale', 'claims', 'manipulationSignals', 'missingEvidence', 'questionsToAsk', 'nextSteps', 'safeguards'],
    ['suggestedResponse'],
  );
  if (!analysis) return;
  walk.string(analysis['reply'], `${at}/reply`, 1, 5000);
  walk.string(analysis['situationSummary'], `${at}/situationSummary`, 1, 2000);
  walk.oneOf(analysis['disposition'], `${at}/disposition`, DISPOSITIONS);
  walk.oneOf(analysis['riskTier'], `${at}/riskTier`, RISK_TIERS);
  walk.number(analysis['confidence'], `${at}/confidence`, 0, 1);
  walk.strings(analysis['rationale'], `${at}/rationale`, 1, 12, 1, 1000);
  walk.array(analysis['claims'], `${at}/claims`, 0, 20, (item, p) => {
    const claim = walk.object(item, p, ['claim', 'status', 'significance', 'evidenceReferences', 'explanation']);
    if (!claim) return;
    walk.string(claim['claim'], `${p}/claim`, 1, 1000);
    walk.oneOf(claim['status'], `${p}/status`, CLAIM_STATUSES);
    walk.oneOf(claim['significance'], `${p}/significance`, RISK_TIERS);
    walk.strings(claim['evidenceReferences'], `${p}/evidenceReferences`, 0, 20, 1, 200);
    walk.string(claim['explanation'], `${p}/explanation`, 1, 1000);
  });
  walk.array(analysis['manipulationSignals'], `${at}/manipulationSignals`, 0, 12, (item, p) => {
    const signal = walk.object(item, p, ['tactic', 'observation', 'confidence', 'significance']);
    if (!signal) return;
    walk.oneOf(signal['tactic'], `${p}/tactic`, TACTICS);
    walk.string(signal['observation'], `${p}/observation`, 1, 1000);
    walk.number(signal['confidence'], `${p}/confidence`, 0, 1);
    walk.oneOf(signal['significance'], `${p}/significance`, RISK_TIERS);
  });
  walk.strings(analysis['missingEvidence'], `${at}/missingEvidence`, 0, 12, 1, 500);
  walk.strings(analysis['questionsToAsk'], `${at}/questionsToAsk`, 0, 12, 1, 500);
  walk.strings(analysis['nextSteps'], `${at}/nextSteps`, 1, 12, 1, 500);
  walk.strings(analysis['safeguards'], `${at}/safeguards`, 0, 12, 1, 500);
  walk.string(analysis['suggestedResponse'], `${at}/suggestedResponse`, 1, 3000);
}

function checkConsultation(walk: Walk, value: Json, at: string, caseRecord: JsonObject | undefined): void {
  const record = walk.object(value, at, ['protocolVersion', 'consultationId', 'caseId', 'agentId', 'inputDigest', 'analysis', 'generation', 'createdAt']);
  if (!record) return;
  if (record['protocolVersion'] !== '0.1') walk.fail('not_in_enum', `${at}/protocolVersion`, 'must be "0.1"');
  walk.uuid(record['consultationId'], `${at}/consultationId`);
  walk.uuid(record['caseId'], `${at}/caseId`);
  if (caseRecord && record['caseId'] !== caseRecord['caseId']) walk.fail('inconsistent', `${at}/caseId`, "must be the case's caseId");
  if (caseRecord && record['agentId'] !== caseRecord['agentId']) walk.fail('inconsistent', `${at}/agentId`, "must be the case's agentId");
  if (typeof record['inputDigest'] !== 'string' || !DIGEST.test(record['inputDigest'])) walk.fail('bad_pattern', `${at}/inputDigest`, 'must be 43 base64url characters (§8.1)');
  checkAnalysis(walk, record['analysis'], `${at}/analysis`);
  const generation = walk.object(record['generation'], `${at}/generation`, ['mode', 'model', 'promptVersion'], ['tokenUsage', 'errorCode']);
  if (generation) {
    walk.oneOf(generation['mode'], `${at}/generation/mode`, GENERATION_MODES);
    walk.string(generation['model'], `${at}/generation/model`, 1, Number.MAX_SAFE_INTEGER);
    walk.string(generation['promptVersion'], `${at}/generation/promptVersion`, 1, Number.MAX_SAFE_INTEGER);
    walk.string(generation['errorCode'], `${at}/generation/errorCode`, 0, 100);
  }
  walk.timestamp(record['createdAt'], `${at}/createdAt`);
}

const REGISTRY_MATCHES = ['identifier', 'endpoint', 'namespace'] as const;
const OWNERSHIP_PROOFS = ['verified', 'lapsed', 'expired', 'none'] as const;

/** `CounterpartyKnowledge.registry`: what the card registry knows of the reference (shield-records `RegistryKnowledge`). */
function checkRegistryKnowledge(walk: Walk, value: Json, at: string): void {
  const registry = walk.object(value, at, ['matchedBy', 'namespace', 'ownershipProof', 'lookalikeOf'], ['publisher', 'card']);
  if (!registry) return;
  walk.oneOf(registry['matchedBy'], `${at}/matchedBy`, REGISTRY_MATCHES);
  walk.string(registry['namespace'], `${at}/namespace`, 1, 253);
  walk.oneOf(registry['ownershipProof'], `${at}/ownershipProof`, OWNERSHIP_PROOFS);
  if (registry['publisher'] !== undefined) {
    const publisher = walk.object(registry['publisher'], `${at}/publisher`, ['publisherId'], ['displayName']);
    walk.string(publisher?.['publisherId'], `${at}/publisher/publisherId`, 1, 200);
    if (publisher?.['displayName'] !== undefined) walk.string(publisher['displayName'], `${at}/publisher/displayName`, 1, 200);
  }
  walk.array(registry['lookalikeOf'], `${at}/lookalikeOf`, 0, 16, (item, p) => {
    const flag = walk.object(item, p, ['namespace', 'reason']);
    walk.string(flag?.['namespace'], `${p}/namespace`, 1, 253);
    walk.string(flag?.['reason'], `${p}/reason`, 1, 200);
  });
  if (registry['card'] === undefined) return;
  const card = walk.object(registry['card'], `${at}/card`, ['identifier', 'status', 'verified', 'endpoints'], ['name', 'latestRevision', 'renamedTo']);
  if (!card) return;
  walk.string(card['identifier'], `${at}/card/identifier`, 1, 512);
  walk.oneOf(card['status'], `${at}/card/status`, CARD_STATUSES);
  walk.boolean(card['verified'], `${at}/card/verified`);
  walk.strings(card['endpoints'], `${at}/card/endpoints`, 0, 8, 1, 512);
}

function checkCounterpartyKnowledge(walk: Walk, value: Json, at: string, caseRecord: JsonObject | undefined): void {
  const knowledge = walk.object(value, at, ['reference', 'outcomes'], ['registry']);
  if (!knowledge) return;
  walk.string(knowledge['reference'], `${at}/reference`, 1, 200);
  const reference = (caseRecord?.['counterparty'] as JsonObject | undefined)?.['reference'];
  if (caseRecord && knowledge['reference'] !== reference) walk.fail('inconsistent', `${at}/reference`, "must equal the case's counterparty.reference (knowledge is keyed by it)");
  walk.array(knowledge['outcomes'], `${at}/outcomes`, 0, 20, (item, p) => {
    const outcome = walk.object(item, p, ['caseId', 'result', 'acceptedAdvice', 'riskTier', 'closedAt'], ['latestDisposition']);
    if (!outcome) return;
    walk.uuid(outcome['caseId'], `${p}/caseId`);
    if (caseRecord && outcome['caseId'] === caseRecord['caseId']) walk.fail('inconsistent', `${p}/caseId`, 'an earlier closed case, not this one');
    walk.oneOf(outcome['result'], `${p}/result`, OUTCOME_RESULTS);
    walk.boolean(outcome['acceptedAdvice'], `${p}/acceptedAdvice`);
    walk.oneOf(outcome['latestDisposition'], `${p}/latestDisposition`, DISPOSITIONS);
    walk.oneOf(outcome['riskTier'], `${p}/riskTier`, RISK_TIERS);
    walk.timestamp(outcome['closedAt'], `${p}/closedAt`);
  });
  if (knowledge['registry'] !== undefined) checkRegistryKnowledge(walk, knowledge['registry'], `${at}/registry`);
}

function keywordsOk(walk: Walk, about: Json, at: string): void {
  walk.array(about, at, 1, 10, (item, p) => {
    if (typeof item !== 'string' || item.trim() === '' || item !== item.trim().toLowerCase()) {
      walk.fail('bad_pattern', p, 'a keyword is a non-empty lowercase string without surrounding spaces');
    }
  });
}

function checkExpected(walk: Walk, value: Json, at: string): void {
  const expected = walk.object(value, at, ['disposition', 'tactics', 'claims'], ['acceptableDispositions']);
  if (!expected) return;
  walk.oneOf(expected['disposition'], `${at}/disposition`, DISPOSITIONS);
  walk.array(expected['acceptableDispositions'], `${at}/acceptableDispositions`, 1, 5, (item, p) => {
    walk.oneOf(item, p, DISPOSITIONS);
    if (item === expected['disposition']) walk.fail('duplicate', p, 'repeats the expected disposition');
  });
  const tactics = walk.array(expected['tactics'], `${at}/tactics`, 0, 11, (item, p) => {
    if (item === 'none') walk.fail('not_in_enum', p, '"none" is not a tactic to detect: use an empty list');
    else walk.oneOf(item, p, TACTICS);
  });
  if (tactics && new Set(tactics).size !== tactics.length) walk.fail('duplicate', `${at}/tactics`, 'a tactic is listed twice');
  walk.array(expected['claims'], `${at}/claims`, 0, 20, (item, p) => {
    const claim = walk.object(item, p, ['about', 'status']);
    if (!claim) return;
    keywordsOk(walk, claim['about'], `${p}/about`);
    walk.oneOf(claim['status'], `${p}/status`, CLAIM_STATUSES);
  });
}

/** Checks that the case really is the merged case the consult produced (§4). */
function checkMerged(walk: Walk, caseRecord: JsonObject, consult: JsonObject, prior: Json): void {
  const pairs = [
    ['facts', 'factId'],
    ['evidence', 'evidenceId'],
    ['policies', 'policyId'],
  ] as const;
  for (const [list, key] of pairs) {
    const caseIds = new Set(((caseRecord[list] as JsonObject[] | undefined) ?? []).map((item) => item?.[key]));
    ((consult[list] as JsonObject[] | undefined) ?? []).forEach((item, index) => {
      if (item?.[key] !== undefined && !caseIds.has(item[key])) walk.fail('inconsistent', `/consult/${list}/${index}/${key}`, `the merged case must hold this ${key} (§4)`);
    });
  }
  const proposed = consult['proposedAction'];
  if (typeof proposed === 'string' && proposed.trim() !== '' && caseRecord['proposedAction'] !== proposed.trim()) {
    walk.fail('inconsistent', '/case/proposedAction', "a non-empty consult proposedAction replaces the case's (§4)");
  }
  const consultations = Array.isArray(prior) ? (prior as JsonObject[]) : [];
  const last = consultations[consultations.length - 1];
  if (last) {
    if (caseRecord['latestConsultationId'] !== last['consultationId']) walk.fail('inconsistent', '/case/latestConsultationId', 'must be the last prior consultation (§4)');
    const disposition = (last['analysis'] as JsonObject | undefined)?.['disposition'];
    if (caseRecord['latestDisposition'] !== disposition) walk.fail('inconsistent', '/case/latestDisposition', "must be the last prior consultation's disposition");
    const status = disposition === 'gather_evidence' ? 'awaiting_input' : 'ready';
    if (caseRecord['status'] !== status) walk.fail('inconsistent', '/case/status', `after a ${String(disposition)} consultation the status is ${status} (§5)`);
  } else {
    if (caseRecord['latestConsultationId'] !== undefined || caseRecord['latestDisposition'] !== undefined) {
      walk.fail('inconsistent', '/case/latestConsultationId', 'a case with no prior consultations has no latest consultation');
    }
    if (caseRecord['status'] !== undefined && caseRecord['status'] !== 'open') walk.fail('inconsistent', '/case/status', 'a case never consulted is still open (§5)');
  }
}

/** Every problem in one parsed scenario file; an empty list means it is valid. */
export function validateScenario(value: Json): ScenarioError[] {
  const walk = new Walk();
  const scenario = walk.object(value, '', ['id', 'domain', 'language', 'description', 'case', 'consult', 'expected'], ['counterparty', 'priorConsultations']);
  if (!scenario) return walk.errors;
  if (typeof scenario['id'] !== 'string' || !SCENARIO_ID.test(scenario['id'])) walk.fail('bad_pattern', '/id', 'must be "<domain>/<name>" in kebab-case');
  if (typeof scenario['domain'] !== 'string' || !DOMAIN.test(scenario['domain'])) walk.fail('bad_pattern', '/domain', 'must be kebab-case');
  else if (typeof scenario['id'] === 'string' && !scenario['id'].startsWith(`${scenario['domain']}/`)) walk.fail('inconsistent', '/id', 'must start with the domain');
  walk.oneOf(scenario['language'], '/language', SCENARIO_LANGUAGES);
  walk.string(scenario['description'], '/description', 1, 4000);
  const caseRecord = checkCase(walk, scenario['case'], '/case');
  const consult = checkConsult(walk, scenario['consult'], '/consult');
  if (scenario['counterparty'] !== undefined) checkCounterpartyKnowledge(walk, scenario['counterparty'], '/counterparty', caseRecord);
  walk.array(scenario['priorConsultations'], '/priorConsultations', 0, 100, (item, p) => checkConsultation(walk, item, p, caseRecord));
  if (caseRecord && consult) checkMerged(walk, caseRecord, consult, scenario['priorConsultations']);
  checkExpected(walk, scenario['expected'], '/expected');
  return walk.errors;
}
