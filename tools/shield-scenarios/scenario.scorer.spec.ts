/**
 * The scorer's arithmetic on hand-made analyses, with a stand-in analyzer: what a person reading the score table
 * would check by hand (accuracy counts, micro-averaged tactic precision and recall, claim matching by keywords).
 */
import type { AnalysisRequest, ClaimStatus, ManipulationSignal, ShieldAnalysis, Tactic } from '@trustmesh/shield-records';

import { claimMatches, scoreAnalyzer, type Analyzer } from './scenario.scorer';
import type { Scenario, ScenarioExpectation } from './scenario.types';
import { formatReport } from './score.report';

/** Only `id`, `case.caseId` and `expected` matter to the scorer; the rest is a minimal valid shape. */
function scenario(id: string, expected: ScenarioExpectation): Scenario {
  return {
    id,
    domain: id.slice(0, id.indexOf('/')),
    language: 'en',
    description: 'scorer fixture',
    case: {
      protocolVersion: '0.1',
      caseId: `00000000-0000-4000-8000-${String(id.length).padStart(12, '0')}`,
      agentId: 'agent-1',
      title: id,
      goal: 'goal',
      brief: '',
      counterparty: { type: 'human' },
      status: 'open',
      riskTier: 'medium',
      facts: [],
      evidence: [],
      policies: [],
      ownerGuidance: [],
      createdAt: '2026-11-20T10:00:00.000Z',
      updatedAt: '2026-11-20T10:00:00.000Z',
    },
    consult: { message: id, situationContext: '', facts: [], evidence: [], policies: [] },
    expected,
  };
}

function analysis(disposition: ShieldAnalysis['disposition'], tactics: Tactic[], claims: Array<[string, ClaimStatus]>): ShieldAnalysis {
  return {
    reply: 'r',
    situationSummary: 's',
    disposition,
    riskTier: 'medium',
    confidence: 0.7,
    rationale: ['x'],
    claims: claims.map(([claim, status]) => ({ claim, status, significance: 'high', evidenceReferences: [], explanation: 'e' })),
    manipulationSignals: tactics.map((tactic): ManipulationSignal => ({ tactic, observation: 'o', confidence: 0.8, significance: 'medium' })),
    missingEvidence: [],
    questionsToAsk: [],
    nextSteps: ['n'],
    safeguards: [],
  };
}

const fakeIt = scenario('password-reset/fake-it', {
    disposition: 'do_not_proceed',
    tactics: ['urgency', 'authority_claim'],
    claims: [
      { about: ['becker'], status: 'contradicted' },
      { about: ['sms', 'code'], status: 'unverified' },
    ],
});
const german = scenario('refunds/german', { disposition: 'proceed', tactics: [], claims: [{ about: ['überweisung'], status: 'verified' }] });
const tie = scenario('bank-details/tie', { disposition: 'modify_plan', acceptableDispositions: ['do_not_proceed'], tactics: ['policy_bypass'], claims: [] });
const scenarios = [fakeIt, german, tie];

const outputs: Record<string, ShieldAnalysis | undefined> = {
  // Right disposition; urgency found, authority_claim missed, data_extraction invented; one claim right, one wrong.
  'password-reset/fake-it': analysis('do_not_proceed', ['urgency', 'data_extraction'], [
    ['Caller says he is Jonas BECKER from IT', 'contradicted'],
    ['The SMS code is needed for a migration', 'not_checkable'],
  ]),
  // Wrong disposition; "none" is ignored; the claim matches without its accent.
  'refunds/german': analysis('proceed_with_caution', ['none'], [['Die Uberweisung wurde bestätigt', 'verified']]),
  // An acceptable alternative disposition; the one tactic found.
  'bank-details/tie': analysis('do_not_proceed', ['policy_bypass', 'policy_bypass'], []),
};

const tieOutput = analysis('do_not_proceed', ['policy_bypass'], []);

const standIn: Analyzer = (request: AnalysisRequest) => {
  const output = outputs[request.consult.message];
  if (!output) throw new Error(`no stand-in analysis for ${request.consult.message}`);
  return output;
};

describe('scoreAnalyzer', () => {
  const report = scoreAnalyzer(standIn, scenarios);

  it('counts a disposition correct when exact or within acceptableDispositions', () => {
    expect(report.disposition).toEqual({ correct: 2, total: 3, value: 2 / 3 });
    expect(report.results.map((result) => result.dispositionCorrect)).toEqual([true, false, true]);
  });

  it('micro-averages tactic precision and recall over all scenarios, ignoring none and repeats', () => {
    expect(report.tactics).toEqual({ truePositives: 2, falsePositives: 1, falseNegatives: 1, precision: 2 / 3, recall: 2 / 3, f1: 2 / 3 });
  });

  it('scores each tactic, worst first', () => {
    const byTactic = Object.fromEntries(report.perTactic.map((score) => [score.tactic, score]));
    expect(byTactic['authority_claim']).toEqual({ tactic: 'authority_claim', truePositives: 0, falsePositives: 0, falseNegatives: 1, precision: null, recall: 0, f1: 0 });
    expect(byTactic['data_extraction']).toMatchObject({ truePositives: 0, falsePositives: 1, falseNegatives: 0, precision: 0, recall: null, f1: 0 });
    expect(byTactic['urgency']).toMatchObject({ precision: 1, recall: 1, f1: 1 });
    expect(report.perTactic.map((score) => score.tactic).slice(-2).sort()).toEqual(['policy_bypass', 'urgency']);
    expect(report.perTactic.some((score) => score.tactic === 'none')).toBe(false);
  });

  it('counts a claim correct only when a produced claim has every keyword and the expected status', () => {
    expect(report.claims).toEqual({ correct: 2, total: 3, value: 2 / 3 });
    expect(report.results[0]?.claimMisses).toEqual([{ about: ['sms', 'code'], expected: 'unverified', produced: ['not_checkable'] }]);
  });

  it('lists what each scenario missed', () => {
    expect(report.results[0]).toMatchObject({ missingTactics: ['authority_claim'], extraTactics: ['data_extraction'] });
    expect(report.results[1]).toMatchObject({ producedDisposition: 'proceed_with_caution', missingTactics: [], extraTactics: [] });
    expect(report.confusion).toEqual({ do_not_proceed: { do_not_proceed: 1 }, proceed: { proceed_with_caution: 1 }, modify_plan: { do_not_proceed: 1 } });
  });

  it('counts a missing claim as wrong', () => {
    const silent = scoreAnalyzer(() => analysis('do_not_proceed', [], []), [fakeIt]);
    expect(silent.claims).toEqual({ correct: 0, total: 2, value: 0 });
    expect(silent.results[0]?.claimMisses.map((miss) => miss.produced)).toEqual([[], []]);
  });

  it('charges a throwing analyzer with everything in that scenario and goes on', () => {
    const flaky: Analyzer = (request) => {
      if (request.consult.message === 'refunds/german') throw new RangeError('boom');
      return standIn(request);
    };
    const scored = scoreAnalyzer(flaky, scenarios);
    expect(scored.errors).toBe(1);
    expect(scored.results[1]).toMatchObject({ error: 'RangeError: boom', dispositionCorrect: false, claimsCorrect: 0 });
    expect(scored.disposition.correct).toBe(2);
    expect(scored.confusion['proceed']).toEqual({ error: 1 });
  });

  it('hands the analyzer a copy, so a mutating analyzer cannot change the scenarios', () => {
    scoreAnalyzer((request) => {
      request.caseRecord.facts.push({ factId: 'x', statement: 'planted', source: 'owner', status: 'verified', evidenceReferences: [] });
      return tieOutput;
    }, scenarios);
    expect(scenarios.every((item) => item.case.facts.length === 0)).toBe(true);
  });

  it('passes the case, consult, prior consultations and counterparty knowledge as an AnalysisRequest', () => {
    const seen: AnalysisRequest[] = [];
    const withKnowledge: Scenario = { ...tie, counterparty: { reference: 'r', outcomes: [] } };
    scoreAnalyzer((request) => (seen.push(request), tieOutput), [fakeIt, withKnowledge]);
    expect(seen[0]).toEqual({ caseRecord: fakeIt.case, consult: fakeIt.consult, priorConsultations: [] });
    expect(seen[1]?.counterparty).toEqual({ reference: 'r', outcomes: [] });
  });
});

describe('claimMatches', () => {
  it('ignores case and accents on both sides and needs every keyword', () => {
    expect(claimMatches({ about: ['schafer', 'freigabe'], status: 'contradicted' }, 'Herr SCHÄFER hat die Freigabe erteilt')).toBe(true);
    expect(claimMatches({ about: ['schäfer', 'freigabe'], status: 'contradicted' }, 'Herr Schafer hat zugestimmt')).toBe(false);
  });
});

describe('formatReport', () => {
  it('prints the headline numbers and, when verbose, each scenario\'s misses', () => {
    const text = formatReport(scoreAnalyzer(standIn, scenarios), { verbose: true });
    expect(text).toMatch(/disposition accuracy\s+66\.7%\s+\(2\/3\)/);
    expect(text).toMatch(/tactic precision\s+66\.7%/);
    expect(text).toMatch(/claim-status accuracy\s+66\.7%\s+\(2\/3\)/);
    expect(text).toContain('refunds/german\n    disposition: got proceed_with_caution, expected proceed');
    expect(text).toContain('claim [sms + code]: expected unverified, got not_checkable');
  });
});
