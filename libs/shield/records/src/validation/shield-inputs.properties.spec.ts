/**
 * Properties of input validation over large input spaces (fast-check): it never throws, answers only
 * documented codes with pointers into the input, and everything it accepts builds records the schemas
 * accept (the input bounds and the record schemas cannot drift apart).
 */
import fc from 'fast-check';

import { sequentialIds, T0, T1 } from '../../test/shield-record.examples';
import { decide } from '../case/shield-case.decider';
import { identifyConsultItems, mergeConsultInput } from '../case/shield-case.merge';
import { validateShieldCase } from '../records/shield-records.validator';
import { COUNTERPARTY_TYPES, EVIDENCE_TYPES, EVIDENCE_VERIFICATIONS, FACT_SOURCES, FACT_STATUSES, type ShieldCase } from '../shield.types';
import { validateCaseInput, validateCloseInput, validateConsultInput, validateGuidanceInput } from './shield-inputs.validator';
import { SHIELD_ISSUE_CODES } from './shield-issue';

const validators = [validateCaseInput, validateConsultInput, validateGuidanceInput, validateCloseInput];

/** The value a JSON pointer names, or a marker when it names nothing. */
function resolve(root: unknown, pointer: string): unknown {
  if (pointer === '') return root;
  let node: unknown = root;
  for (const token of pointer.slice(1).split('/').map((raw) => raw.replaceAll('~1', '/').replaceAll('~0', '~'))) {
    if (node === null || typeof node !== 'object' || !Object.prototype.hasOwnProperty.call(node, token)) return resolve;
    node = (node as Record<string, unknown>)[token];
  }
  return node;
}

const field = fc.constantFrom('message', 'facts', 'statement', 'title', 'goal', 'agentId', 'counterparty', 'type', 'a/b', 'x~y', 'instruction', 'result');
const nearlyValid = fc.dictionary(field, fc.oneof(fc.anything(), fc.array(fc.dictionary(field, fc.anything()), { maxLength: 3 })), { maxKeys: 6 });

describe('input validation, as properties', () => {
  it('never throws, and every issue has a documented code and a pointer to the offending value (or its parent, when missing)', () => {
    fc.assert(
      fc.property(fc.oneof(fc.anything(), nearlyValid), fc.constantFrom(...validators), (input, validate) => {
        const result = validate(input);
        if (result.ok) return;
        expect(result.issues.length).toBeGreaterThan(0);
        for (const issue of result.issues) {
          expect(Object.keys(SHIELD_ISSUE_CODES)).toContain(issue.code);
          expect(issue.path === '' || issue.path.startsWith('/')).toBe(true);
          const at = issue.code === 'SHIELD_FIELD_REQUIRED' ? issue.path.slice(0, issue.path.lastIndexOf('/')) : issue.path;
          expect(resolve(input, at)).not.toBe(resolve);
          expect(issue.message.length).toBeGreaterThan(0);
        }
      }),
      { numRuns: 500 },
    );
  });

  // Graphemes may be several code points each: maxima stay well below the bounds they are tested against.
  const padded = (min: number, max: number) =>
    fc.tuple(fc.string({ minLength: min, maxLength: max, unit: 'grapheme' }), fc.constantFrom('', ' ', '\n\t ', '\u00a0')).filter(([text]) => text.trim().length >= min).map(([text, pad]) => `${pad}${text}${pad}`);
  const fact = fc.record(
    { statement: padded(1, 40), source: fc.constantFrom(...FACT_SOURCES), status: fc.constantFrom(...FACT_STATUSES), evidenceReferences: fc.array(padded(1, 10), { maxLength: 3 }) },
    { requiredKeys: ['statement', 'source', 'status'] },
  );
  const evidence = fc.record(
    { type: fc.constantFrom(...EVIDENCE_TYPES), summary: padded(1, 40), sourceReference: padded(1, 20), verification: fc.constantFrom(...EVIDENCE_VERIFICATIONS) },
    { requiredKeys: ['type', 'summary', 'verification'] },
  );
  const policy = fc.record({ policyId: fc.uuid({ version: 4 }), title: padded(1, 12), statement: padded(1, 40), sourceReference: padded(1, 20) }, { requiredKeys: ['title', 'statement'] });
  const caseInput = fc.record(
    {
      agentId: fc.string({ minLength: 1, maxLength: 20 }).filter((text) => !/[\ud800-\udfff]/.test(text)),
      title: padded(1, 12),
      goal: padded(1, 60),
      brief: padded(0, 60),
      proposedAction: padded(0, 40),
      counterparty: fc.record({ type: fc.constantFrom(...COUNTERPARTY_TYPES), reference: padded(1, 20) }, { requiredKeys: ['type'] }),
      facts: fc.array(fact, { maxLength: 4 }),
      evidence: fc.array(evidence, { maxLength: 4 }),
      policies: fc.array(policy, { maxLength: 4 }),
    },
    { requiredKeys: ['agentId', 'title', 'goal', 'counterparty'] },
  );

  it('accepts well-formed inputs, and the case they open and the merges they make are schema-valid records', () => {
    fc.assert(
      fc.property(caseInput, fc.array(fact, { maxLength: 3 }), padded(1, 50), (raw, moreFacts, message) => {
        const input = validateCaseInput(raw);
        if (!input.ok) throw new Error(JSON.stringify(input.issues));
        const decision = decide({ type: 'OpenShieldCase', data: { input: input.value, now: T0, newId: sequentialIds() } }, null);
        if (!decision.ok) throw new Error(JSON.stringify(decision.issues));
        const opened = decision.events[0]?.data as { caseRecord: ShieldCase };
        expect(validateShieldCase(opened.caseRecord).ok).toBe(true);
        const consult = validateConsultInput({ message, facts: moreFacts });
        if (!consult.ok) throw new Error(JSON.stringify(consult.issues));
        const merged = mergeConsultInput(opened.caseRecord, identifyConsultItems(consult.value, sequentialIds(0x1000)), consult.value.proposedAction, T1);
        expect(merged.ok && validateShieldCase(merged.value).ok).toBe(true);
      }),
      { numRuns: 200 },
    );
  });
});
