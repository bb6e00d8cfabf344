// The verdict as the person sees it in the approval (BEHAVIOUR.md §8: one explanation of 1..100 characters),
// the sentence when the Shield could not be consulted, and the case and outcome sent to the Shield.
import { COUNTERPARTY_REQUESTS } from '@trustmesh/relay-companion-sim';
import fc from 'fast-check';

import {
  APPROVAL_EXPLANATION_MAX,
  caseInputFor,
  closeInputFor,
  fitExplanation,
  readVerdict,
  SHIELD_FAILURES,
  unavailableExplanation,
  verdictExplanation,
  type ShieldFailureCode,
} from './shield-verdict.mapping';

const points = (text: string) => Array.from(text).length;

/** A consultation record as the Shield returns it (SHIELD.md §8-§9), trimmed to what matters here. */
const consultation = (analysis: Record<string, unknown>) => ({
  protocolVersion: '0.1',
  consultationId: '6f1c1d4e-0f7a-4d3a-9a55-3f0a1b2c3d4e',
  analysis: { disposition: 'proceed', riskTier: 'low', rationale: [], manipulationSignals: [], questionsToAsk: [], ...analysis },
});

describe('the Shield verdict in an approval', () => {
  it('leads with the disposition and risk tier, then the strongest signals, then the first question', () => {
    const verdict = readVerdict(
      consultation({
        disposition: 'do_not_proceed',
        riskTier: 'critical',
        rationale: ['The payment destination differs from the records.'],
        manipulationSignals: [
          { tactic: 'urgency', significance: 'high', observation: 'x', confidence: 0.9 },
          { tactic: 'authority_claim', significance: 'medium', observation: 'x', confidence: 0.7 },
          { tactic: 'identity_deception', significance: 'critical', observation: 'x', confidence: 0.8 },
        ],
        questionsToAsk: ['When called back on the number already on record, does the counterparty confirm the change?'],
      }),
    );
    const text = verdictExplanation(verdict!);
    expect(text.startsWith('Shield: do not proceed, critical risk. Signs: identity deception, urgency +1. Ask: When called back')).toBe(true);
    expect(points(text)).toBe(APPROVAL_EXPLANATION_MAX);
    expect(text.endsWith('…')).toBe(true);
  });

  it('keeps a short verdict whole, uses the first reason when there is no question, and skips "none" signals', () => {
    const verdict = readVerdict(
      consultation({ disposition: 'proceed_with_caution', riskTier: 'medium', rationale: ['Amount matches the invoice.'], manipulationSignals: [{ tactic: 'none', significance: 'low' }] }),
    );
    expect(verdictExplanation(verdict!)).toBe('Shield: proceed with caution, medium risk. Amount matches the invoice.');
  });

  it('never exceeds the bound, never splits a character, and keeps the disposition and tier whatever the Shield wrote', () => {
    const text = fc.string({ unit: 'grapheme', maxLength: 2000 });
    fc.assert(
      fc.property(
        fc.constantFrom('proceed', 'proceed_with_caution', 'gather_evidence', 'modify_plan', 'seek_approval', 'do_not_proceed'),
        fc.constantFrom('low', 'medium', 'high', 'critical'),
        fc.array(text, { maxLength: 3 }),
        fc.array(text, { maxLength: 3 }),
        (disposition, riskTier, rationale, questionsToAsk) => {
          const shown = verdictExplanation(readVerdict(consultation({ disposition, riskTier, rationale, questionsToAsk }))!);
          expect(points(shown)).toBeLessThanOrEqual(APPROVAL_EXPLANATION_MAX);
          expect(shown).toContain(`${riskTier} risk`);
          expect(shown).not.toMatch(/[\uD800-\uDBFF](?![\uDC00-\uDFFF])/);
        },
      ),
    );
    expect(fitExplanation(`${'😀'.repeat(150)}`)).toBe(`${'😀'.repeat(99)}…`);
  });

  it('refuses an answer that is not a verdict rather than showing half of one', () => {
    expect(readVerdict(null)).toBeNull();
    expect(readVerdict({ analysis: { disposition: 'maybe', riskTier: 'low' } })).toBeNull();
    expect(readVerdict({ analysis: { disposition: 'proceed', riskTier: 'extreme' } })).toBeNull();
  });

  it('says plainly when the Shield could not be consulted, within the bound', () => {
    for (const code of Object.keys(SHIELD_FAILURES) as ShieldFailureCode[]) {
      const text = unavailableExplanation(code);
      expect(text).toMatch(/^Shield could not be consulted \(.+\); this request was not checked\.$/);
      expect(points(text)).toBeLessThanOrEqual(APPROVAL_EXPLANATION_MAX);
    }
    expect(unavailableExplanation('SHIELD_TIMEOUT')).toContain('no answer in time');
  });
});

describe('the case and its outcome', () => {
  const request = COUNTERPARTY_REQUESTS['bank-detail-change'];
  const holdBack = readVerdict(consultation({ disposition: 'do_not_proceed', riskTier: 'critical' }));
  const goAhead = readVerdict(consultation({ disposition: 'proceed', riskTier: 'low' }));

  it('opens a case for the protected agent, the counterparty, the goal and the proposed action, without the message', () => {
    const input = caseInputFor(request, 'device-1');
    expect(input).toEqual({
      agentId: 'device-1',
      title: 'northwind-parts/billing-agent asks assistant to pay_invoice',
      goal: request.goal,
      proposedAction: request.action.summary,
      counterparty: { type: 'agent', reference: 'northwind-parts/billing-agent' },
    });
    expect(JSON.stringify(input)).not.toContain('URGENT');
  });

  it('reports approved as successful and rejected as its counterpart, with whether the advice was followed', () => {
    expect(closeInputFor('approve', goAhead, request)).toMatchObject({ result: 'successful', acceptedAdvice: true });
    expect(closeInputFor('approve', holdBack, request)).toMatchObject({ result: 'successful', acceptedAdvice: false });
    expect(closeInputFor('reject', holdBack, request)).toMatchObject({ result: 'prevented_harm', acceptedAdvice: true });
    expect(closeInputFor('reject', goAhead, request)).toMatchObject({ result: 'unsuccessful', acceptedAdvice: false });
    expect(closeInputFor('expire', holdBack, request)).toMatchObject({ result: 'unknown' });
    expect(closeInputFor('aborted', null, request)).toMatchObject({ result: 'unknown', acceptedAdvice: false });
  });
});
