/**
 * The labelled Shield scenario format: one consultation as the analyzer sees it (the merged case, the consult
 * input, earlier consultations, what the platform knows about the counterparty) plus the labels a careful reader
 * of SHIELD.md would give it (§9.1 disposition, §9.5 tactics, §9.4 claim statuses). Documented in README.md.
 */
import type {
  ClaimStatus,
  ConsultInput,
  CounterpartyKnowledge,
  Disposition,
  ShieldCase,
  ShieldConsultation,
  Tactic,
} from '@trustmesh/shield-records';

/** The required domains of issue 9; scenarios may use others too (kebab-case folder names). */
export const REQUIRED_DOMAINS = [
  'refunds',
  'bank-details',
  'password-reset',
  'invoices',
  'procurement',
  'payroll',
  'access-grants',
  'data-requests',
  'agent-negotiation',
  'injected-instructions',
] as const;

export const SCENARIO_LANGUAGES = ['en', 'de', 'es', 'fr'] as const;
export type ScenarioLanguage = (typeof SCENARIO_LANGUAGES)[number];

/** A tactic a scenario can require: every §9.5 tactic except `none` (an empty list says "none"). */
export type ExpectedTactic = Exclude<Tactic, 'none'>;

export interface ExpectedClaim {
  /** Lowercase keywords; a produced claim matches when its text contains every one (case- and accent-insensitive). */
  about: string[];
  status: ClaimStatus;
}

export interface ScenarioExpectation {
  disposition: Disposition;
  /** Other dispositions accepted as correct, only where the §9.1 tie-break genuinely leaves two defensible. */
  acceptableDispositions?: Disposition[];
  /** Tactics that must be detected; `[]` when the message uses none. */
  tactics: ExpectedTactic[];
  claims: ExpectedClaim[];
}

export interface Scenario {
  id: string;
  domain: string;
  language: ScenarioLanguage;
  /** What happens and why the labels are what they are. */
  description: string;
  /** The merged case as of the consult (§4): consult items already merged in. */
  case: ShieldCase;
  consult: ConsultInput;
  counterparty?: CounterpartyKnowledge;
  /** The case's earlier consultations, oldest first. */
  priorConsultations?: ShieldConsultation[];
  expected: ScenarioExpectation;
}

/** A scenario with where it was loaded from. */
export interface LoadedScenario extends Scenario {
  /** Path relative to the scenarios folder, e.g. `refunds/late-refund.json`. */
  file: string;
}
