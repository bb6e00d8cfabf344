/**
 * @trustmesh/shield-records: the Shield's records and inputs (SHIELD.md §2-§8, protocol 0.1): types,
 * input validation, the event-sourced case aggregate, `inputDigest`, and record validation against the
 * schemas of `schemas/`. Pure TypeScript with no I/O; runs in browsers and in Node.
 */
export * from './shield.types';
export * from './analysis-request';

export { SHIELD_ISSUE_CODES, MAX_SHIELD_ISSUES, type ShieldIssue, type ShieldIssueCode, type ShieldResult } from './validation/shield-issue';
export {
  validateCaseInput,
  validateConsultInput,
  validateGuidanceInput,
  validateCloseInput,
  SHIELD_INPUT_LIMITS,
} from './validation/shield-inputs.validator';
export { SHIELD_ID_PATTERN, isShieldId, createRandomShieldId, type ShieldIdGenerator } from './shield-ids';
export { computeInputDigest, INPUT_DIGEST_PATTERN } from './digest/input-digest';
export { validateShieldCase, validateShieldConsultation, validateShieldAnalysis, validateShieldOutcome } from './records/shield-records.validator';

export type { ShieldCaseEvent, ShieldCaseEventType, ShieldCaseOpened, ShieldCaseConsulted, ShieldCaseChanges, ShieldGuidanceAdded, ShieldCaseClosed } from './case/shield-case.events';
export type { ShieldCaseCommand, OpenShieldCase, ConsultShieldCase, AddShieldGuidance, CloseShieldCase } from './case/shield-case.commands';
export {
  decide,
  evolve,
  foldShieldCase,
  shieldCaseDecider,
  initialShieldCaseState,
  SHIELD_CASE_NOT_FOUND_MESSAGE,
  SHIELD_CASE_ALREADY_CLOSED_MESSAGE,
  type ShieldCaseState,
  type ShieldDecision,
} from './case/shield-case.decider';
export { identifyConsultItems, mergeConsultInput, applyConsultItems, mergeItems, SHIELD_CASE_CLOSED_MESSAGE, type IdentifiedConsultItems } from './case/shield-case.merge';
