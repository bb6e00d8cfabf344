/**
 * `trustmesh shield open|consult|guide|close|get|list|token issue` as a user runs them against a running shield
 * analyzer: the app started here as its own process (embedded PGlite in a temporary directory, an operator
 * credential configured as its digest), the real bin called with SHIELD_URL and SHIELD_CREDENTIAL, inputs from
 * files and stdin. One case goes through its whole life; refusals print the service's codes and pointers.
 */
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { createHash, randomBytes } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

import { waitUntil } from '@trustmesh/platform-testing';
import { validateShieldCase, validateShieldConsultation, validateShieldOutcome } from '@trustmesh/shield-records';

const ROOT = join(__dirname, '..', '..', '..');
const BIN = join(ROOT, 'bin', 'trustmesh.js');
const EXAMPLE = JSON.parse(readFileSync(join(ROOT, 'apps', 'cli', 'examples', 'shield-analyze.example.json'), 'utf8')) as {
  case: Record<string, unknown> & { agentId: string };
  consult: Record<string, unknown>;
};
const OPERATOR = `tmso_${randomBytes(24).toString('base64url')}`;

let dir: string;
let shield: ChildProcess;
let shieldOut = '';
let shieldUrl: string;

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'trustmesh-cli-shield-cases-'));
  shield = spawn(process.execPath, ['--import', 'tsx', join(ROOT, 'apps', 'shield-analyzer', 'src', 'main.ts')], {
    cwd: ROOT,
    env: {
      PATH: process.env['PATH'] ?? '',
      HOME: process.env['HOME'] ?? dir,
      TSX_TSCONFIG_PATH: join(ROOT, 'tsconfig.base.json'),
      TRUSTMESH_DATA_DIR: join(dir, 'data'),
      SHIELD_HTTP_PORT: '0',
      SHIELD_GRPC_PORT: '0',
      SHIELD_OPERATOR_PORT: 'off',
      SHIELD_MODEL_PROVIDER: 'none',
      SHIELD_OPERATOR_CREDENTIALS: `ops:${createHash('sha256').update(OPERATOR).digest('hex')}`,
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  shield.stdout?.on('data', (chunk: Buffer) => (shieldOut += chunk.toString('utf8')));
  shield.stderr?.resume();
  await waitUntil(() => /"msg":"shield analyzer listening"/.test(shieldOut) || shield.exitCode !== null, { timeoutMs: 180_000, what: 'the shield analyzer to listen' });
  const line = shieldOut.split('\n').find((text) => text.includes('"msg":"shield analyzer listening"'));
  if (!line) throw new Error(`the shield analyzer exited (${shield.exitCode})`);
  shieldUrl = String((JSON.parse(line) as { http: string }).http);
}, 240_000);

afterAll(async () => {
  if (shield && shield.exitCode === null) {
    const exited = new Promise((resolve) => shield.once('exit', resolve));
    shield.kill('SIGTERM');
    await exited;
  }
  rmSync(dir, { recursive: true, force: true });
}, 60_000);

function file(name: string, content: unknown): string {
  const path = join(dir, name);
  writeFileSync(path, typeof content === 'string' ? content : JSON.stringify(content));
  return path;
}

function shieldCli(args: string[], options: { credential?: string | null; url?: string; input?: string } = {}) {
  const credential = options.credential === undefined ? OPERATOR : options.credential;
  const run = spawnSync(process.execPath, [BIN, 'shield', ...args], {
    cwd: dir,
    input: options.input,
    encoding: 'utf8',
    timeout: 120_000,
    env: { PATH: process.env['PATH'] ?? '', SHIELD_URL: options.url ?? shieldUrl, ...(credential !== null ? { SHIELD_CREDENTIAL: credential } : {}) },
  });
  // A credential never reaches the output.
  expect(run.stdout + run.stderr).not.toContain(OPERATOR);
  return { code: run.status, stdout: run.stdout, stderr: run.stderr, json: () => JSON.parse(run.stdout) as Record<string, unknown> & unknown[] };
}

function valid<T>(verdict: { ok: true; value: T } | { ok: false; issues: unknown }): T {
  if (!verdict.ok) throw new Error(`not schema-valid: ${JSON.stringify(verdict.issues)}`);
  return verdict.value;
}

describe('trustmesh shield (against a running service)', () => {
  it('opens, consults, guides, gets, lists and closes a case, printing each record as JSON', () => {
    const opened = shieldCli(['open', file('case.json', EXAMPLE.case)]);
    expect(opened.stderr).toBe('');
    expect(opened.code).toBe(0);
    const caseRecord = valid(validateShieldCase(opened.json()));
    expect(caseRecord).toMatchObject({ status: 'open', agentId: EXAMPLE.case.agentId, title: EXAMPLE.case['title'] });

    // The consult input from stdin.
    const consulted = shieldCli(['consult', caseRecord.caseId, '-'], { input: JSON.stringify(EXAMPLE.consult) });
    expect(consulted.code).toBe(0);
    const consultation = valid(validateShieldConsultation(consulted.json()['consultation']));
    expect(consultation.caseId).toBe(caseRecord.caseId);
    expect(consulted.json()['caseRecord']).toMatchObject({ caseId: caseRecord.caseId, latestConsultationId: consultation.consultationId });
    expect(consulted.stdout).not.toContain(String(EXAMPLE.consult['message']).slice(0, 40));

    const guided = shieldCli(['guide', caseRecord.caseId, file('guidance.json', { instruction: 'Pay only the account on record.' })]);
    expect(guided.code).toBe(0);
    expect(guided.json()['ownerGuidance']).toEqual([expect.objectContaining({ instruction: 'Pay only the account on record.', scope: 'case' })]);

    const got = shieldCli(['get', caseRecord.caseId]);
    expect(got.code).toBe(0);
    expect(got.json()).toMatchObject({ case: { caseId: caseRecord.caseId }, outcomes: [] });
    expect((got.json()['consultations'] as unknown[]).length).toBe(1);

    // Lists read a projection: eventually consistent (milliseconds on the local bus).
    let listed: unknown[] = [];
    for (let attempt = 0; attempt < 20 && !listed.some((item) => (item as { caseId?: string }).caseId === caseRecord.caseId); attempt += 1) {
      const list = shieldCli(['list']);
      expect(list.code).toBe(0);
      listed = list.json();
    }
    expect(listed.map((item) => (item as { caseId: string }).caseId)).toContain(caseRecord.caseId);

    const closed = shieldCli(['close', caseRecord.caseId, file('close.json', { result: 'prevented_harm', acceptedAdvice: true, actionTaken: 'Paid the account on record after a call-back.' })]);
    expect(closed.code).toBe(0);
    expect(valid(validateShieldOutcome(closed.json()))).toMatchObject({ caseId: caseRecord.caseId, result: 'prevented_harm', reportedBy: 'owner' });

    // A closed case refuses another consult: the service's code and message, exit 1.
    const again = shieldCli(['consult', caseRecord.caseId, file('consult.json', EXAMPLE.consult)]);
    expect(again.code).toBe(1);
    expect(again.stdout).toBe('');
    expect(again.stderr).toMatch(/^trustmesh: shield consult: refused \(HTTP 400\): .+\n {2}SHIELD_CASE_CLOSED at \/: .+$/m);
  }, 300_000);

  it('issues an agent token (shown once) that sees only its own agent and may not guide', () => {
    const agentId = `agent-${randomBytes(4).toString('hex')}`;
    const issued = shieldCli(['token', 'issue', agentId, '--name', 'cli test', '--days', '3']);
    expect(issued.code).toBe(0);
    const token = issued.json() as unknown as { token: string; agentId: string; name: string; scopes: string[]; expiresAt: string };
    expect(token).toMatchObject({ agentId, name: 'cli test' });
    expect(token.scopes).toEqual(expect.arrayContaining(['mcp:access', 'profile:read', 'interaction:write', 'feedback:write']));

    const own = shieldCli(['open', '-'], { credential: token.token, input: JSON.stringify({ ...EXAMPLE.case, agentId }) });
    expect(own.code).toBe(0);
    const caseId = String(own.json()['caseId']);
    const foreign = shieldCli(['open', '-'], { credential: token.token, input: JSON.stringify(EXAMPLE.case) });
    expect(foreign.code).toBe(1);
    expect(foreign.stderr).toContain('SHIELD_AGENT_NOT_OWNED at /agentId');

    // Its list holds its agent's cases only, although the operator's account has others.
    let listed: Array<{ caseId: string; agentId: string }> = [];
    for (let attempt = 0; attempt < 20 && !listed.some((item) => item.caseId === caseId); attempt += 1) listed = shieldCli(['list'], { credential: token.token }).json() as unknown as typeof listed;
    expect(listed.map((item) => item.caseId)).toContain(caseId);
    expect(new Set(listed.map((item) => item.agentId))).toEqual(new Set([agentId]));
    expect((shieldCli(['list']).json() as unknown[]).length).toBeGreaterThan(listed.length);

    const guide = shieldCli(['guide', caseId, '-'], { credential: token.token, input: '{"instruction":"x"}' });
    expect(guide.code).toBe(1);
    expect(guide.stderr).toMatch(/refused \(HTTP 403\)[^]*SHIELD_OWNER_ONLY/);

    const days = shieldCli(['token', 'issue', agentId, '--days', '31']);
    expect(days.code).toBe(1);
    expect(days.stderr).toMatch(/refused \(HTTP 400\)[^]*at \/expiresInDays/);
  }, 300_000);

  it('refuses bad input, unknown cases and wrong credentials with the service codes (exit 1)', () => {
    const invalid = shieldCli(['open', file('invalid-case.json', { ...EXAMPLE.case, goal: '', extra: true })]);
    expect(invalid.code).toBe(1);
    expect(invalid.stderr).toContain('SHIELD_FIELD_TOO_SHORT at /goal');
    expect(invalid.stderr).toContain('SHIELD_FIELD_UNKNOWN at /extra');

    const unknown = shieldCli(['get', '00000000-0000-4000-8000-000000000000']);
    expect(unknown.code).toBe(1);
    expect(unknown.stderr).toMatch(/refused \(HTTP 404\)[^]*SHIELD_CASE_NOT_FOUND/);

    const stranger = shieldCli(['list'], { credential: 'not-a-credential' });
    expect(stranger.code).toBe(1);
    expect(stranger.stderr).toMatch(/refused \(HTTP 401\)[^]*SHIELD_UNAUTHENTICATED/);

    const notJson = shieldCli(['open', file('not-json.json', '{"agentId": ')]);
    expect(notJson.code).toBe(1);
    expect(notJson.stderr).toContain('SHIELD_FILE_NOT_JSON');
  }, 300_000);

  it('says when the service cannot be reached (exit 1)', async () => {
    const port = await new Promise<number>((resolve) => {
      const server = createServer().listen(0, '127.0.0.1', () => {
        const { port: free } = server.address() as { port: number };
        server.close(() => resolve(free));
      });
    });
    const run = shieldCli(['list'], { url: `http://127.0.0.1:${port}` });
    expect(run.code).toBe(1);
    expect(run.stderr).toBe(`trustmesh: shield list: cannot reach the shield at http://127.0.0.1:${port} (ECONNREFUSED)\n`);
  }, 120_000);

  it('exits 2 on usage errors: no credential, a credential in the URL, wrong arguments, an unreadable file', () => {
    const cases: Array<[string[], Parameters<typeof shieldCli>[1], RegExp]> = [
      [['list'], { credential: null }, /set SHIELD_CREDENTIAL/],
      [['list'], { url: 'http://ops:secret@127.0.0.1:1' }, /must not carry credentials/],
      [['get'], {}, /expects CASE_ID/],
      [['consult', 'only-an-id'], {}, /expects CASE_ID FILE\|-/],
      [['list', '--days', '3'], {}, /shield list: /],
      [['token', 'revoke', 'x'], {}, /the only subcommand is issue/],
      [['open', join(dir, 'missing.json')], {}, /SHIELD_FILE_UNREADABLE: cannot read .*missing\.json \(ENOENT\)/],
    ];
    for (const [args, options, message] of cases) {
      const run = shieldCli(args, options);
      expect({ args, code: run.code }).toEqual({ args, code: 2 });
      expect(run.stderr).toMatch(message);
      expect(run.stderr).not.toContain('secret');
    }
  }, 180_000);
});
