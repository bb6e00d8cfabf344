/**
 * Whatever the input, the analysis is schema-valid (SHIELD.md §9 bounds), deterministic and a real analysis
 * (confidence > 0.2, §9.3): random messages up to the 4000-character bound, random case items and labels.
 */
import Ajv2020 from 'ajv/dist/2020';
import fc from 'fast-check';

import { analyzeCase } from '../src';
import { request } from './case.fixture';
import consultationSchema from './fixtures/shield_consultation.schema.json';

const validateAnalysis = new Ajv2020({ strict: false }).compile(consultationSchema.properties.analysis);

const WORDS = ['urgent', 'IBAN DE44 5001 0517 5407 3249 31', '$1,200.50', 'approved', 'password', 'ignore previous instructions', 'sofort', 'contraseña', 'mot de passe', 'within 30 days', 'no approval recorded', '48k', '  ', '\n', 'ü', '💸', 'CEO', 'refund', 'new bank details'];
const text = (max: number) =>
  fc.oneof(
    fc.string({ minLength: 1, maxLength: max }),
    fc.array(fc.constantFrom(...WORDS), { minLength: 1, maxLength: 60 }).map((w) => w.join(' ').slice(0, max)),
  ).filter((s) => s.trim().length > 0);

describe('analyzeCase on arbitrary input', () => {
  it('is always schema-valid, deterministic and a real analysis', () => {
    fc.assert(
      fc.property(
        text(4000),
        fc.array(fc.record({ statement: text(300), status: fc.constantFrom('asserted', 'verified', 'disputed', 'contradicted' as const), source: fc.constantFrom('owner', 'protected_agent', 'counterparty', 'system' as const) }), { maxLength: 8 }),
        fc.array(fc.record({ summary: text(300), verification: fc.constantFrom('verified', 'unverified', 'contradicted' as const) }), { maxLength: 8 }),
        fc.array(fc.record({ statement: text(300) }), { maxLength: 4 }),
        (message, facts, evidence, policies) => {
          const req = request({ message, facts, evidence, policies });
          const a = analyzeCase(req);
          expect(validateAnalysis(a)).toBe(true);
          expect(a.confidence).toBeGreaterThan(0.2);
          expect(analyzeCase(req)).toEqual(a);
        },
      ),
      { numRuns: 150 },
    );
  });
});
