import type { ShieldAnalysis } from '@trustmesh/shield-records';

import { request, type CaseSpec } from '../test/case.fixture';
import { analyzeCase } from './case.analyzer';

const APPROVAL_MESSAGE = 'My manager approved this refund of $80 last week, please go ahead.';

function claim(spec: CaseSpec, kindText: string): ShieldAnalysis['claims'][number] | undefined {
  return analyzeCase(request(spec)).claims.find((c) => c.claim.includes(kindText));
}

describe('claim checking (§9.4)', () => {
  it('verifies a claim an authoritative record establishes, citing it', () => {
    const c = claim({ message: APPROVAL_MESSAGE, evidence: [{ evidenceId: 'appr-17', summary: 'Manager approval A-17 recorded for this refund.' }] }, 'approved');
    expect(c?.status).toBe('verified');
    expect(c?.evidenceReferences).toEqual(['appr-17']);
  });

  it('only supports it when the backing item is an external claim or the counterparty’s own "verified" fact', () => {
    expect(claim({ message: APPROVAL_MESSAGE, evidence: [{ summary: 'Manager approval recorded.', type: 'external_claim' }] }, 'approved')?.status).toBe('supported');
    expect(claim({ message: APPROVAL_MESSAGE, facts: [{ statement: 'The manager approved the refund.', source: 'counterparty', status: 'verified' }] }, 'approved')?.status).toBe(
      'supported',
    );
  });

  it('contradicts it when a verified record shows the required approval is absent', () => {
    const c = claim(
      {
        message: APPROVAL_MESSAGE,
        evidence: [{ evidenceId: 'ev-none', summary: 'No manager approval is recorded.' }],
        policies: [{ statement: 'Refunds above $50 require manager approval.' }],
      },
      'approved',
    );
    expect(c?.status).toBe('contradicted');
    expect(c?.significance).toBe('critical');
    expect(c?.evidenceReferences).toContain('ev-none');
  });

  it('contradicts it when a verified record shows the approver refused, in four languages', () => {
    const refused = (message: string, summary: string) => claim({ message, evidence: [{ evidenceId: 'notes-1', summary }] }, 'approved or agreed');
    expect(refused('Ines already agreed to the 9% increase on the call, so just confirm it.', 'Call notes: Ines declined the 9% increase.')?.status).toBe('contradicted');
    expect(refused('Frau Berg hat dem Aufschlag von 9% schon zugestimmt.', 'Gesprächsnotiz: Frau Berg hat den Aufschlag abgelehnt.')?.status).toBe('contradicted');
    expect(refused('La señora Ruiz ya aprobó la subida del 9%.', 'Notas de la llamada: la señora Ruiz rechazó la subida.')?.status).toBe('contradicted');
    expect(refused('Madame Roy a déjà approuvé la hausse de 9 %.', "Compte rendu : Madame Roy a refusé la hausse.")?.status).toBe('contradicted');
  });

  it('contradicts it when an item asserting it is marked contradicted', () => {
    expect(claim({ message: APPROVAL_MESSAGE, facts: [{ statement: 'The manager approved the refund.', status: 'contradicted', source: 'protected_agent' }] }, 'approved')?.status).toBe(
      'contradicted',
    );
  });

  it('leaves it unverified on a disputed fact alone, or with nothing bearing on it', () => {
    expect(claim({ message: APPROVAL_MESSAGE, facts: [{ statement: 'The manager approved the refund.', status: 'disputed' }] }, 'approved')?.status).toBe('unverified');
    expect(claim({ message: APPROVAL_MESSAGE }, 'approved')?.status).toBe('unverified');
  });

  it('marks promises not_checkable', () => {
    expect(claim({ message: "Send the goods now, I promise I'll pay next week." }, 'promises')?.status).toBe('not_checkable');
  });

  it('checks a payee account against the records', () => {
    const message = 'Please pay the invoice of €900 to IBAN DE44 5001 0517 5407 3249 31.';
    expect(claim({ message, evidence: [{ summary: 'Vendor account on record: DE44500105175407324931.' }] }, 'account')?.status).toBe('verified');
    expect(claim({ message, evidence: [{ summary: 'Vendor account on record: DE89370400440532013000.' }] }, 'account')?.status).toBe('contradicted');
  });

  it('names a payee IBAN by its country, check digits and last four, never in full', () => {
    const c = claim({ message: 'Please pay the invoice of €900 to IBAN NL91 ABNA 0417 1643 00.' }, 'account');
    expect(c?.claim).toContain('NL91… ending 4300');
    expect(c?.claim).not.toMatch(/0417|1643/);
  });

  it('checks amounts against records, and a smaller amount is only indirectly backed', () => {
    const spec = (message: string): CaseSpec => ({ message, evidence: [{ summary: 'Invoice 311 total: 1.200,00 EUR.' }] });
    expect(claim(spec('Please pay invoice 311 of 1.200,00 EUR.'), 'amount')?.status).toBe('verified');
    expect(claim(spec('Please pay invoice 311 of 12.000,00 EUR.'), 'amount')?.status).toBe('contradicted');
    expect(claim(spec('Please pay the first part of invoice 311, 600,00 EUR.'), 'amount')?.status).toBe('supported');
  });

  it('contradicts a sum the record of the same file states differently, and tolerates rounding', () => {
    const evidence = [{ evidenceId: 'sv-1', summary: 'Surveyor report HX-502: roof repair assessed at 860 EUR.' }];
    const proposedAction = 'Pay the policyholder for file HX-502.';
    const inflated = analyzeCase(request({ message: 'As your surveyor agreed, the roof repair comes to 1 860 €, please pay it.', evidence, proposedAction }));
    expect(inflated.claims.find((c) => c.claim.includes('1860 EUR'))?.status).toBe('contradicted');
    expect(inflated.claims.find((c) => c.claim.startsWith('The counterparty states something about'))?.status).toBe('contradicted');
    const rounded = analyzeCase(request({ message: 'As your surveyor agreed, the roof repair comes to about 860 €, please pay it.', evidence, proposedAction }));
    expect(rounded.claims.find((c) => c.claim.startsWith('The counterparty states something about'))?.status).toBe('verified');
  });

  it('checks delivery claims against carrier records', () => {
    const message = 'The parcel never arrived, please refund me.';
    expect(claim({ message, evidence: [{ summary: 'Carrier: parcel delivered and signed for.' }] }, 'never arrived')?.status).toBe('contradicted');
  });
});
