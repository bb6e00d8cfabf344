/**
 * The schema documents in `schemas/`: the user's consultation document is the one shipped (same bytes),
 * and the emitted documents are what the definitions produce today.
 */
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';

import { defineAnalysis, defineCase, defineOutcome, loadConsultationDocument } from '../definitions/shield-records.definition';

const schemas = join(__dirname, '..', 'schemas');
const read = (file: string) => JSON.parse(readFileSync(join(schemas, file), 'utf8')) as Record<string, unknown>;

describe('schema documents', () => {
  it('ship the user\'s shield_consultation.schema.json byte for byte', () => {
    const digest = createHash('sha256').update(readFileSync(join(schemas, 'shield_consultation.schema.json'))).digest('hex');
    expect(digest).toBe('583f18bf3ced58a033169d21c97adfd3d5c9240cebd4df4fcd66e5f1a73693dc');
  });

  it.each([
    ['shield_case.schema.json', defineCase],
    ['shield_analysis.schema.json', defineAnalysis],
    ['shield_outcome.schema.json', defineOutcome],
  ])('%s is what the definitions produce (run `nx run shield-records:generate` if not)', (file, define) => {
    const { $comment, ...emitted } = read(file);
    expect($comment).toMatch(/^Generated from libs\/shield\/records\/definitions\//);
    expect(emitted).toEqual(define(loadConsultationDocument()));
  });

  it('compile to validators that need neither Ajv nor code generation at runtime', () => {
    const code = readFileSync(join(__dirname, '..', 'src', 'generated', 'shield-records.validators.js'), 'utf8');
    expect(code).not.toMatch(/require\("ajv/);
    expect(code).not.toMatch(/new Function|eval\(/);
    expect([...code.matchAll(/require\("([^"]+)"\)/g)].map((match) => match[1])).toEqual(['../validation/code-point-length']);
  });

  it('define the analysis exactly as the consultation embeds it', () => {
    const { $schema: _dialect, ...analysis } = defineAnalysis(loadConsultationDocument());
    expect(analysis).toEqual((loadConsultationDocument()['properties'] as Record<string, unknown>)['analysis']);
  });
});
