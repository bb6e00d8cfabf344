/**
 * End to end: realistic cases in four languages through `analyzeCase`, checked against the analysis schema (copied
 * from the user's consultation schema) and against what a careful reviewer expects (SHIELD.md §9.1-§9.5, §11, §12).
 */
import Ajv2020 from 'ajv/dist/2020';
import type { ShieldAnalysis } from '@trustmesh/shield-records';

import { analyzeCase, SHIELD_ANALYZER_VERSION } from '../src';
import { request } from './case.fixture';
import consultationSchema from './fixtures/shield_consultation.schema.json';
import { SCENARIOS } from './scenarios';

const ajv = new Ajv2020({ strict: false, allErrors: true });
const validateAnalysis = ajv.compile(consultationSchema.properties.analysis);
const GREETING = { en: 'Thank you', de: 'Vielen Dank', es: 'Gracias', fr: 'Merci' } as const;
const RANK = { low: 0, medium: 1, high: 2, critical: 3 } as const;

function trimmedBoundsHold(analysis: ShieldAnalysis): boolean {
  const strings = [
    analysis.reply,
    analysis.situationSummary,
    ...analysis.rationale,
    ...analysis.missingEvidence,
    ...analysis.questionsToAsk,
    ...analysis.nextSteps,
    ...analysis.safeguards,
    ...analysis.claims.flatMap((c) => [c.claim, c.explanation, ...c.evidenceReferences]),
    ...analysis.manipulationSignals.map((s) => s.observation),
  ];
  return strings.every((s) => s === s.trim() && s.length > 0);
}

describe('analyzeCase on realistic cases', () => {
  it.each(SCENARIOS.map((s) => [s.name, s] as const))('%s', (_name, scenario) => {
    const analysis = analyzeCase(request(scenario.spec));
    expect(validateAnalysis(analysis)).toBe(true);
    expect(trimmedBoundsHold(analysis)).toBe(true);
    expect(analysis.confidence).toBeGreaterThan(0.2);
    expect(scenario.dispositions).toContain(analysis.disposition);
    const tactics = analysis.manipulationSignals.map((s) => s.tactic);
    for (const t of scenario.tactics ?? []) expect(tactics).toContain(t);
    for (const t of scenario.noTactics ?? []) {
      const found = analysis.manipulationSignals.find((s) => s.tactic === t);
      expect(found === undefined || found.confidence < 0.5).toBe(true);
    }
    if (scenario.tierAtLeast) expect(RANK[analysis.riskTier]).toBeGreaterThanOrEqual(RANK[scenario.tierAtLeast]);
    if (scenario.tierAtMost) expect(RANK[analysis.riskTier]).toBeLessThanOrEqual(RANK[scenario.tierAtMost]);
    // The suggested response is written in the message's language (German, Spanish, French, else English).
    expect(analysis.suggestedResponse?.startsWith(GREETING[scenario.language ?? 'en'])).toBe(true);
    if (analysis.disposition === 'gather_evidence') {
      expect(analysis.missingEvidence.length).toBeGreaterThan(0);
      expect(analysis.questionsToAsk.length).toBeGreaterThan(0);
    }
    // Signals and claims quote at most one short cue (≤ 8 words) of the message.
    for (const text of [...analysis.manipulationSignals.map((s) => s.observation), ...analysis.claims.map((c) => c.claim)]) {
      const quotes = text.match(/"[^"]*"/g) ?? [];
      expect(quotes.length).toBeLessThanOrEqual(1);
      for (const q of quotes) expect(q.split(' ').length).toBeLessThanOrEqual(8);
    }
    // §12: no output string carries more than a short cue of the message.
    const message = scenario.spec.message;
    const json = JSON.stringify(analysis);
    for (let i = 0; i + 80 <= message.length; i += 40) expect(json.includes(message.slice(i, i + 80))).toBe(false);
  });

  it('names its logic for generation.promptVersion', () => {
    expect(SHIELD_ANALYZER_VERSION).toMatch(/^trustmesh-shield-rules-\d+$/);
  });
});
