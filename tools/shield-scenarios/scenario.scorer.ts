/**
 * Scores an analyzer on labelled scenarios: disposition accuracy (exact or within `acceptableDispositions`),
 * tactic precision and recall (micro-averaged over all scenarios and per tactic; `none` is ignored on both sides,
 * since it only says "nothing found", §9.5), claim-status accuracy (an expected claim is correct when some produced
 * claim contains all its keywords and has the expected status; no matching claim counts as wrong), and what each
 * scenario missed. Pure: no I/O, so a test can drive it with hand-made analyses.
 */
import type { AnalysisRequest, ClaimStatus, Disposition, ShieldAnalysis, Tactic } from '@trustmesh/shield-records';

import type { ExpectedClaim, Scenario } from './scenario.types';

export type Analyzer = (request: AnalysisRequest) => ShieldAnalysis;

export interface ClaimMiss {
  about: string[];
  expected: ClaimStatus;
  /** Statuses of the produced claims matching the keywords; empty when no produced claim matched. */
  produced: ClaimStatus[];
}

export interface ScenarioResult {
  id: string;
  expectedDisposition: Disposition;
  acceptableDispositions: Disposition[];
  /** Absent when the analyzer threw. */
  producedDisposition?: Disposition;
  dispositionCorrect: boolean;
  expectedTactics: Tactic[];
  producedTactics: Tactic[];
  missingTactics: Tactic[];
  extraTactics: Tactic[];
  claimsExpected: number;
  claimsCorrect: number;
  claimMisses: ClaimMiss[];
  /** The analyzer's error message, when it threw: everything in the scenario then counts as missed. */
  error?: string;
}

export interface Ratio {
  correct: number;
  total: number;
  /** correct / total, or null when total is 0. */
  value: number | null;
}

export interface TacticScore {
  tactic: Tactic;
  truePositives: number;
  falsePositives: number;
  falseNegatives: number;
  precision: number | null;
  recall: number | null;
  f1: number | null;
}

export interface ScoreReport {
  scenarios: number;
  /** Scenarios where the analyzer threw. */
  errors: number;
  disposition: Ratio;
  tactics: { truePositives: number; falsePositives: number; falseNegatives: number; precision: number | null; recall: number | null; f1: number | null };
  perTactic: TacticScore[];
  claims: Ratio;
  /** Expected disposition -> produced disposition (or "error") -> count. */
  confusion: Record<string, Record<string, number>>;
  results: ScenarioResult[];
}

function ratio(correct: number, total: number): Ratio {
  return { correct, total, value: total === 0 ? null : correct / total };
}

function divide(numerator: number, denominator: number): number | null {
  return denominator === 0 ? null : numerator / denominator;
}

function f1(precision: number | null, recall: number | null): number | null {
  // A tactic never found (recall 0) or only ever invented (precision 0) scores 0 even when the other side is 0/0.
  if (precision === 0 || recall === 0) return 0;
  if (precision === null || recall === null) return null;
  return precision + recall === 0 ? 0 : (2 * precision * recall) / (precision + recall);
}

/** Lowercase, accents stripped (NFD marks removed), ß as ss: "Überweisung" and "uberweisung" match. */
export function normalizeText(text: string): string {
  return text.normalize('NFD').replace(/\p{M}/gu, '').toLowerCase().replace(/ß/g, 'ss');
}

export function claimMatches(expected: ExpectedClaim, producedText: string): boolean {
  const text = normalizeText(producedText);
  return expected.about.every((keyword) => text.includes(normalizeText(keyword)));
}

function requestOf(scenario: Scenario): AnalysisRequest {
  // A fresh copy per call: an analyzer that mutates its input cannot leak into the next scenario.
  const copy = structuredClone(scenario);
  return {
    caseRecord: copy.case,
    consult: copy.consult,
    priorConsultations: copy.priorConsultations ?? [],
    ...(copy.counterparty ? { counterparty: copy.counterparty } : {}),
  };
}

/** Scores one scenario against the analysis produced for it (or the error the analyzer threw). */
export function scoreScenario(scenario: Scenario, outcome: { analysis: ShieldAnalysis } | { error: string }): ScenarioResult {
  const expected = scenario.expected;
  const acceptable = [expected.disposition, ...(expected.acceptableDispositions ?? [])];
  const expectedTactics: Tactic[] = [...new Set(expected.tactics)];
  if ('error' in outcome) {
    return {
      id: scenario.id,
      expectedDisposition: expected.disposition,
      acceptableDispositions: expected.acceptableDispositions ?? [],
      dispositionCorrect: false,
      expectedTactics,
      producedTactics: [],
      missingTactics: expectedTactics,
      extraTactics: [],
      claimsExpected: expected.claims.length,
      claimsCorrect: 0,
      claimMisses: expected.claims.map((claim) => ({ about: claim.about, expected: claim.status, produced: [] })),
      error: outcome.error,
    };
  }
  const { analysis } = outcome;
  const producedTactics: Tactic[] = [...new Set(analysis.manipulationSignals.map((signal) => signal.tactic))].filter((tactic) => tactic !== 'none');
  const claimMisses: ClaimMiss[] = [];
  for (const claim of expected.claims) {
    const matching = analysis.claims.filter((produced) => claimMatches(claim, produced.claim));
    if (!matching.some((produced) => produced.status === claim.status)) {
      claimMisses.push({ about: claim.about, expected: claim.status, produced: matching.map((produced) => produced.status) });
    }
  }
  return {
    id: scenario.id,
    expectedDisposition: expected.disposition,
    acceptableDispositions: expected.acceptableDispositions ?? [],
    producedDisposition: analysis.disposition,
    dispositionCorrect: acceptable.includes(analysis.disposition),
    expectedTactics,
    producedTactics,
    missingTactics: expectedTactics.filter((tactic) => !producedTactics.includes(tactic)),
    extraTactics: producedTactics.filter((tactic) => !expectedTactics.includes(tactic)),
    claimsExpected: expected.claims.length,
    claimsCorrect: expected.claims.length - claimMisses.length,
    claimMisses,
  };
}

/** Aggregates scenario results into the report's totals. */
export function summarize(results: ScenarioResult[]): ScoreReport {
  const perTactic = new Map<Tactic, { tp: number; fp: number; fn: number }>();
  const count = (tactic: Tactic) => {
    let entry = perTactic.get(tactic);
    if (!entry) perTactic.set(tactic, (entry = { tp: 0, fp: 0, fn: 0 }));
    return entry;
  };
  const confusion: Record<string, Record<string, number>> = {};
  for (const result of results) {
    for (const tactic of result.expectedTactics) {
      if (result.producedTactics.includes(tactic)) count(tactic).tp += 1;
      else count(tactic).fn += 1;
    }
    for (const tactic of result.extraTactics) count(tactic).fp += 1;
    const produced = result.producedDisposition ?? 'error';
    const row = (confusion[result.expectedDisposition] ??= {});
    row[produced] = (row[produced] ?? 0) + 1;
  }
  let tp = 0;
  let fp = 0;
  let fn = 0;
  const tacticScores: TacticScore[] = [...perTactic.entries()].map(([tactic, entry]) => {
    tp += entry.tp;
    fp += entry.fp;
    fn += entry.fn;
    const precision = divide(entry.tp, entry.tp + entry.fp);
    const recall = divide(entry.tp, entry.tp + entry.fn);
    return { tactic, truePositives: entry.tp, falsePositives: entry.fp, falseNegatives: entry.fn, precision, recall, f1: f1(precision, recall) };
  });
  // Worst first: lowest F1 (a tactic only ever missed or only ever invented scores 0), then most errors.
  tacticScores.sort((a, b) => (a.f1 ?? 0) - (b.f1 ?? 0) || b.falsePositives + b.falseNegatives - (a.falsePositives + a.falseNegatives) || a.tactic.localeCompare(b.tactic));
  const precision = divide(tp, tp + fp);
  const recall = divide(tp, tp + fn);
  return {
    scenarios: results.length,
    errors: results.filter((result) => result.error !== undefined).length,
    disposition: ratio(results.filter((result) => result.dispositionCorrect).length, results.length),
    tactics: { truePositives: tp, falsePositives: fp, falseNegatives: fn, precision, recall, f1: f1(precision, recall) },
    perTactic: tacticScores,
    claims: ratio(
      results.reduce((sum, result) => sum + result.claimsCorrect, 0),
      results.reduce((sum, result) => sum + result.claimsExpected, 0),
    ),
    confusion,
    results,
  };
}

/** Runs the analyzer on every scenario and scores it; a throwing analyzer costs that scenario, not the run. */
export function scoreAnalyzer(analyzer: Analyzer, scenarios: readonly Scenario[]): ScoreReport {
  return summarize(
    scenarios.map((scenario) => {
      try {
        return scoreScenario(scenario, { analysis: analyzer(requestOf(scenario)) });
      } catch (error) {
        return scoreScenario(scenario, { error: error instanceof Error ? `${error.name}: ${error.message}` : String(error) });
      }
    }),
  );
}
