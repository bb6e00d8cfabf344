/**
 * The labelled set itself: every file loads and validates, and the set keeps the quotas of issue 9 (size, share
 * of benign scenarios, required domains, languages). A malformed scenario fails here, naming its file and field.
 */
import { mkdtempSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

import { DISPOSITIONS, TACTICS } from '@trustmesh/shield-records';

import { loadScenarios, SCENARIOS_DIR, ScenarioLoadError } from './scenario.loader';
import { REQUIRED_DOMAINS, type LoadedScenario } from './scenario.types';

const isBenign = (scenario: LoadedScenario) =>
  (scenario.expected.disposition === 'proceed' || scenario.expected.disposition === 'proceed_with_caution') && scenario.expected.tactics.length === 0;

describe('the labelled Shield scenario set', () => {
  const scenarios = loadScenarios();

  it('loads every scenario file without a validation problem', () => {
    expect(scenarios.length).toBeGreaterThanOrEqual(66);
  });

  it('has at least a third benign scenarios (proceed or proceed_with_caution, no tactics)', () => {
    expect(scenarios.filter(isBenign).length * 3).toBeGreaterThanOrEqual(scenarios.length);
  });

  it('covers every required domain, and leaves every domain with a benign and a non-benign case where it has three or more', () => {
    const domains = new Set(scenarios.map((scenario) => scenario.domain));
    for (const domain of REQUIRED_DOMAINS) expect(domains).toContain(domain);
    for (const domain of domains) {
      const inDomain = scenarios.filter((scenario) => scenario.domain === domain);
      if (inDomain.length < 3) continue;
      expect({ domain, benign: inDomain.some(isBenign), risky: inDomain.some((scenario) => !isBenign(scenario)) }).toEqual({ domain, benign: true, risky: true });
    }
  });

  it('is mostly English, with at least six scenarios each in German, Spanish and French', () => {
    const count = (language: string) => scenarios.filter((scenario) => scenario.language === language).length;
    expect(count('en') * 2).toBeGreaterThan(scenarios.length);
    for (const language of ['de', 'es', 'fr']) expect({ language, count: count(language) >= 6 }).toEqual({ language, count: true });
  });

  it('exercises every disposition and every tactic except none', () => {
    const dispositions = new Set(scenarios.map((scenario) => scenario.expected.disposition));
    expect([...dispositions].sort()).toEqual([...DISPOSITIONS].sort());
    const tactics = new Set(scenarios.flatMap((scenario) => scenario.expected.tactics));
    expect([...tactics].sort()).toEqual(TACTICS.filter((tactic) => tactic !== 'none').sort());
  });

  it('uses counterparty knowledge and earlier consultations in some scenarios', () => {
    expect(scenarios.filter((scenario) => scenario.counterparty).length).toBeGreaterThanOrEqual(3);
    expect(scenarios.filter((scenario) => scenario.priorConsultations?.length).length).toBeGreaterThanOrEqual(3);
  });
});

describe('loadScenarios on a malformed file', () => {
  let dir: string;
  const valid = JSON.parse(readFileSync(join(SCENARIOS_DIR, 'refunds', 'within-window-standard.json'), 'utf8'));

  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'shield-scenarios-'));
    mkdirSync(join(dir, 'refunds'));
  });
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  function load(scenario: unknown, name = 'within-window-standard.json'): ScenarioLoadError {
    writeFileSync(join(dir, 'refunds', name), JSON.stringify(scenario));
    try {
      loadScenarios(dir);
    } catch (error) {
      if (error instanceof ScenarioLoadError) return error;
      throw error;
    }
    throw new Error('loadScenarios accepted a malformed scenario');
  }

  it('accepts the untouched copy', () => {
    writeFileSync(join(dir, 'refunds', 'within-window-standard.json'), JSON.stringify(valid));
    expect(loadScenarios(dir).map((scenario) => scenario.file)).toEqual(['refunds/within-window-standard.json']);
  });

  it('names the file and the field of a bad case id', () => {
    const error = load({ ...valid, case: { ...valid.case, caseId: 'case-1' } });
    expect(error.problems).toEqual([expect.objectContaining({ file: 'refunds/within-window-standard.json', pointer: '/case/caseId', code: 'bad_uuid' })]);
    expect(error.message).toContain('refunds/within-window-standard.json /case/caseId');
  });

  it('rejects a tactic outside §9.5 and "none" as an expected tactic', () => {
    const error = load({ ...valid, expected: { ...valid.expected, tactics: ['flattery', 'none'] } });
    expect(error.problems.map((problem) => [problem.pointer, problem.code])).toEqual([
      ['/expected/tactics/0', 'not_in_enum'],
      ['/expected/tactics/1', 'not_in_enum'],
    ]);
  });

  it('rejects a file whose path does not match its id', () => {
    const error = load(valid, 'renamed.json');
    expect(error.problems).toEqual([expect.objectContaining({ file: 'refunds/renamed.json', pointer: '/id', code: 'inconsistent' })]);
  });

  it('reports a file that is not JSON', () => {
    writeFileSync(join(dir, 'refunds', 'broken.json'), '{ "id": ');
    expect(() => loadScenarios(dir)).toThrow(/refunds\/broken\.json \/: not valid JSON/);
  });
});
