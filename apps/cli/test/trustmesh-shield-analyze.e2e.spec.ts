/**
 * `trustmesh shield analyze` as a user runs it: the real bin in a child process, which starts the real shield
 * analyzer app as its own child on a temporary embedded database. Inputs are the committed example (what the
 * docs and `npm start` point at) and a scenario of the labelled set turned into the analyze file format; the
 * CLI's temporary directory is private to the test, so what it leaves behind can be checked.
 */
import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

import { SHIELD_ISSUE_CODES, validateShieldConsultation } from '@trustmesh/shield-records';

const ROOT = join(__dirname, '..', '..', '..');
const BIN = join(ROOT, 'bin', 'trustmesh.js');
const EXAMPLE = join(ROOT, 'apps', 'cli', 'examples', 'shield-analyze.example.json');
const SCENARIO = join(ROOT, 'tools', 'shield-scenarios', 'scenarios', 'bank-details', 'lookalike-domain-urgent-iban.json');
const CASE_INPUT_KEYS = ['agentId', 'title', 'goal', 'brief', 'proposedAction', 'counterparty', 'facts', 'evidence', 'policies'];

interface Result {
  file: string;
  ok: boolean;
  consultation?: Record<string, unknown> & { analysis: Record<string, unknown> };
  errors?: Array<{ code: string; path: string; message: string }>;
}

let dir: string;
let cliTmp: string;

beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'trustmesh-cli-shield-analyze-'));
  cliTmp = join(dir, 'tmp');
  mkdirSync(cliTmp);
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

function file(name: string, content: unknown): string {
  const path = join(dir, name);
  writeFileSync(path, typeof content === 'string' ? content : JSON.stringify(content));
  return path;
}

/** A scenario of the labelled set as an analyze file: its case record cut down to a case input, its consult. */
function scenarioFile(): { path: string; message: string; agentId: string } {
  const scenario = JSON.parse(readFileSync(SCENARIO, 'utf8')) as { case: Record<string, unknown>; consult: { message: string } };
  const caseInput = Object.fromEntries(Object.entries(scenario.case).filter(([key]) => CASE_INPUT_KEYS.includes(key)));
  return { path: file('scenario.json', { case: caseInput, consult: scenario.consult, labels: 'ignored' }), message: scenario.consult.message, agentId: String(caseInput['agentId']) };
}

function analyze(args: string[], input?: string, env: Record<string, string> = {}) {
  const run = spawnSync(process.execPath, [BIN, 'shield', 'analyze', ...args], {
    cwd: dir,
    input,
    encoding: 'utf8',
    timeout: 240_000,
    env: { PATH: process.env['PATH'] ?? '', HOME: process.env['HOME'] ?? dir, TMPDIR: cliTmp, ...env },
  });
  return { code: run.status, stdout: run.stdout, stderr: run.stderr };
}

function expectValidConsultation(result: Result | undefined): NonNullable<Result['consultation']> {
  expect(result?.ok).toBe(true);
  const verdict = validateShieldConsultation(result?.consultation);
  if (!verdict.ok) throw new Error(`consultation not schema-valid: ${JSON.stringify(verdict.issues)}`);
  return result?.consultation as NonNullable<Result['consultation']>;
}

const knownCodes = new Set<string>([...Object.keys(SHIELD_ISSUE_CODES), 'SHIELD_FILE_UNREADABLE', 'SHIELD_FILE_TOO_LARGE', 'SHIELD_FILE_NOT_JSON']);

describe('trustmesh shield analyze', () => {
  afterEach(() => {
    // The private analyzer's database and logs are gone once the command has exited (tsx keeps its cache there).
    expect(readdirSync(cliTmp).filter((name) => name.startsWith('trustmesh-'))).toEqual([]);
  });

  it('consults once per file and prints one JSON array of schema-valid consultations (--json, exit 0)', () => {
    const scenario = scenarioFile();
    const run = analyze(['--json', EXAMPLE, scenario.path]);
    expect(run.stderr).toBe('');
    expect(run.code).toBe(0);
    const results = JSON.parse(run.stdout) as Result[];
    expect(results.map((result) => result.file)).toEqual([EXAMPLE, scenario.path]);
    const [example, fromScenario] = results.map(expectValidConsultation);
    expect(example?.['agentId']).toBe('ap-agent');
    expect(fromScenario?.['agentId']).toBe(scenario.agentId);
    // Deterministic unless a model is configured, and it says so; each file got a case of its own.
    expect(example?.['generation']).toMatchObject({ mode: 'fallback', model: 'trustmesh/deterministic' });
    expect(example?.['caseId']).not.toBe(fromScenario?.['caseId']);
    // A payment to changed bank details from a look-alike domain, against a call-back policy, is not a go.
    for (const consultation of [example, fromScenario]) expect(['do_not_proceed', 'modify_plan', 'seek_approval', 'gather_evidence']).toContain(consultation?.analysis['disposition']);
    // The consult message is transient (§12): never echoed.
    expect(run.stdout).not.toContain(scenario.message.slice(0, 60));
  }, 300_000);

  it('reads one file from stdin (-)', () => {
    const run = analyze(['--json', '-'], readFileSync(EXAMPLE, 'utf8'));
    expect(run.code).toBe(0);
    const results = JSON.parse(run.stdout) as Result[];
    expect(results).toHaveLength(1);
    expect(results[0]?.file).toBe('-');
    expectValidConsultation(results[0]);
  }, 300_000);

  it('reports each bad file with stable codes and JSON pointers into the file, and exits 1', () => {
    const example = JSON.parse(readFileSync(EXAMPLE, 'utf8')) as { case: Record<string, unknown>; consult: Record<string, unknown> };
    const files = [
      file('case-refused.json', { case: { ...example.case, title: '   ', counterparty: { type: 'robot' } }, consult: example.consult }),
      file('consult-refused.json', { case: example.case, consult: { ...example.consult, message: '', analysisDepth: 'deep' } }),
      file('not-json.json', '{"case": {'),
      file('duplicate-key.json', '{"case": {}, "case": {}, "consult": {}}'),
      file('array.json', [example]),
      file('no-consult.json', { case: example.case }),
      join(dir, 'does-not-exist.json'),
    ];
    const run = analyze(['--json', ...files]);
    expect(run.code).toBe(1);
    const results = JSON.parse(run.stdout) as Result[];
    expect(results.map((result) => result.file)).toEqual(files);
    expect(results.every((result) => !result.ok)).toBe(true);
    const errors = results.map((result) => (result.errors ?? []).map(({ code, path }) => `${code} ${path}`));
    expect(errors[0]).toEqual(expect.arrayContaining(['SHIELD_FIELD_TOO_SHORT /case/title', 'SHIELD_FIELD_ENUM /case/counterparty/type']));
    expect(errors[1]).toEqual(expect.arrayContaining(['SHIELD_FIELD_TOO_SHORT /consult/message', 'SHIELD_FIELD_UNKNOWN /consult/analysisDepth']));
    expect(errors.slice(2)).toEqual([['SHIELD_FILE_NOT_JSON '], ['SHIELD_FILE_NOT_JSON '], ['SHIELD_FIELD_TYPE '], ['SHIELD_FIELD_REQUIRED /consult'], ['SHIELD_FILE_UNREADABLE ']]);
    for (const result of results) {
      for (const error of result.errors ?? []) {
        expect(knownCodes).toContain(error.code);
        expect(error.message.length).toBeGreaterThan(0);
      }
    }
    // Nothing internal (stack traces, exception names) reaches the user.
    expect(run.stdout + run.stderr).not.toMatch(/\bat .+\.ts:\d+|Error:/);
  }, 300_000);

  it('prints a short summary per file without --json, and exits 1 when any file is not ok', () => {
    const bad = file('summary-bad.json', { case: { title: 'x' }, consult: { message: 'hello' } });
    const run = analyze([EXAMPLE, bad]);
    expect(run.code).toBe(1);
    const lines = run.stdout.split('\n');
    expect(lines[0]).toMatch(new RegExp(`^ok +${EXAMPLE.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}: [a-z_]+, risk (low|medium|high|critical), confidence \\d\\.\\d\\d$`));
    expect(run.stdout).toMatch(/^ +signals: .+$/m);
    expect(run.stdout).toMatch(/^ +claims: .+$/m);
    expect(run.stdout).toMatch(/^ +first step: .+$/m);
    expect(run.stdout).toContain(`error  ${bad}\n`);
    expect(run.stdout).toMatch(/^ +SHIELD_FIELD_REQUIRED at \/case\/agentId: .+$/m);
  }, 300_000);

  it('passes a configured model through to the analyzer, and says which setting it refused', () => {
    const run = analyze(['--json', EXAMPLE], undefined, { SHIELD_MODEL_PROVIDER: 'oracle', SHIELD_MODEL_API_KEY: 'sk-test-not-a-key' });
    expect(run.code).toBe(1);
    const results = JSON.parse(run.stdout) as Result[];
    expect(results[0]?.errors?.map((error) => error.code)).toEqual(['SHIELD_UNAVAILABLE']);
    expect(run.stderr).toMatch(/^trustmesh: shield analyze: the shield analyzer refused its configuration: .*SHIELD_MODEL_PROVIDER/m);
    expect(run.stdout + run.stderr).not.toContain('sk-test-not-a-key');
  }, 300_000);

  it('exits 2 with the usage on a usage error', () => {
    for (const args of [[], ['--verbose', EXAMPLE], ['-', '-']]) {
      const run = analyze(args, '');
      expect(run.code).toBe(2);
      expect(run.stdout).toBe('');
      expect(run.stderr).toContain('trustmesh: shield analyze: ');
      expect(run.stderr).toContain('Usage:');
    }
  }, 120_000);
});
