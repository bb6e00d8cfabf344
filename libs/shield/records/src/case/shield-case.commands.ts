/**
 * Commands on one Shield case (imperative), emmett style `{ type, data }`. Inputs are the validated
 * inputs of `validate*Input`; every command carries the time (`now`, §8.3 form) and an id generator,
 * so that deciding is pure and tests are deterministic.
 */
import type { ShieldIdGenerator } from '../shield-ids';
import type { CaseInput, CloseInput, Generation, GuidanceInput, OutcomeReporter, ShieldAnalysis } from '../shield.types';
import type { IdentifiedConsultItems } from './shield-case.merge';

export interface OpenShieldCase {
  type: 'OpenShieldCase';
  data: { input: CaseInput; now: string; newId: ShieldIdGenerator };
}

/**
 * Records one consultation. The service first identifies the consult input's items
 * (`identifyConsultItems`) and merges them (`mergeConsultInput`) to give the analyzer the merged case,
 * then sends the same identified items here with the analysis: the merge is repeated, with the same
 * ids, and the result is the one the analyzer saw.
 */
export interface ConsultShieldCase {
  type: 'ConsultShieldCase';
  data: {
    items: IdentifiedConsultItems;
    /** The consult input's `proposedAction` as validated ("" or absent leaves the case's). */
    proposedAction?: string;
    /** §8.1, computed over the validated consult input (`computeInputDigest`). */
    inputDigest: string;
    analysis: ShieldAnalysis;
    generation: Generation;
    now: string;
    newId: ShieldIdGenerator;
  };
}

export interface AddShieldGuidance {
  type: 'AddShieldGuidance';
  data: { input: GuidanceInput; now: string; newId: ShieldIdGenerator };
}

export interface CloseShieldCase {
  type: 'CloseShieldCase';
  /** `reportedBy` is the caller's (§7): `protected_agent` for an agent credential or MCP, else `owner`. */
  data: { input: CloseInput; reportedBy: OutcomeReporter; now: string; newId: ShieldIdGenerator };
}

export type ShieldCaseCommand = OpenShieldCase | ConsultShieldCase | AddShieldGuidance | CloseShieldCase;
