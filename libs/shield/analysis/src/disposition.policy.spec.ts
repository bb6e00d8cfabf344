import { request } from '../test/case.fixture';
import type { CheckedClaim, Conflict, Signal } from './analysis.findings';
import { buildCaseView } from './case.view';
import { decide, type DecisionInput } from './disposition.policy';

const view = buildCaseView(request({ message: 'Please refund $120 for order 5.' }));
const base: DecisionInput = { view, claims: [], signals: [], conflicts: [], missingCount: 0, badHistory: 0, goodHistory: 0 };

const claim = (status: CheckedClaim['status'], significance: CheckedClaim['significance'], kind: CheckedClaim['kind'] = 'approval'): CheckedClaim => ({
  kind,
  claim: 'c',
  status,
  significance,
  evidenceReferences: [],
  explanation: 'e',
});
const conflict = (path: Conflict['path']): Conflict => ({ kind: 'window', severity: 'high', path, references: ['p'], reason: 'r', fromGuidance: false });
const signal = (tactic: Signal['tactic'], significance: Signal['significance'], seriousHarm = false): Signal => ({ tactic, observation: 'o', confidence: 0.8, significance, seriousHarm });

describe('disposition (§9.1), tier (§9.2), confidence (§9.3)', () => {
  it('proceeds when nothing is in the way', () => {
    expect(decide(base).disposition).toBe('proceed');
  });

  it('proceeds with caution on a medium signal', () => {
    expect(decide({ ...base, signals: [signal('scarcity', 'medium')] }).disposition).toBe('proceed_with_caution');
  });

  it('proceeds past claims that change details only, but not past a material one short of verified', () => {
    expect(decide({ ...base, claims: [claim('unverified', 'medium', 'amount'), claim('supported', 'medium', 'date')] }).disposition).toBe('proceed');
    expect(decide({ ...base, claims: [claim('supported', 'high', 'amount')] }).disposition).toBe('proceed_with_caution');
  });

  it('gathers evidence for an unverified material claim', () => {
    expect(decide({ ...base, claims: [claim('unverified', 'high')] }).disposition).toBe('gather_evidence');
  });

  it('prefers the approval path to refusing when a contradicted claim has one (tie-break)', () => {
    const d = decide({ ...base, claims: [claim('contradicted', 'critical')], conflicts: [conflict('approval')] });
    expect(d.disposition).toBe('seek_approval');
    expect(d.softened).toBe(true);
  });

  it('prefers a modified plan to refusing when a safe variant exists', () => {
    expect(decide({ ...base, signals: [signal('scope_expansion', 'high', true)], conflicts: [conflict('modify')] }).disposition).toBe('modify_plan');
  });

  it('refuses when a policy has no exception path, or several strong tactics converge on serious harm', () => {
    expect(decide({ ...base, conflicts: [conflict('none')] }).disposition).toBe('do_not_proceed');
    const fraud = [signal('urgency', 'high', true), signal('authority_claim', 'high'), signal('policy_bypass', 'high')];
    expect(decide({ ...base, signals: fraud, conflicts: [conflict('approval')] }).disposition).toBe('do_not_proceed');
  });

  it('changes the plan when the records refute the amount the request rests on, unless the figure is peripheral', () => {
    expect(decide({ ...base, claims: [claim('contradicted', 'medium', 'amount')] }).disposition).toBe('modify_plan');
    expect(decide({ ...base, claims: [claim('contradicted', 'low', 'amount')] }).disposition).not.toBe('modify_plan');
  });

  it('raises the tier for a counterparty whose earlier case ended badly', () => {
    expect(decide({ ...base, badHistory: 1 }).riskTier).toBe('high');
    expect(decide(base).riskTier).toBe('medium');
  });

  it('keeps confidence above the 0.2 of "no real analysis"', () => {
    for (const input of [base, { ...base, claims: [claim('unverified', 'high')] }, { ...base, conflicts: [conflict('none')] }]) {
      expect(decide(input).confidence).toBeGreaterThan(0.2);
    }
  });
});
