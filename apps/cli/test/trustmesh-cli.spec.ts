/**
 * The `trustmesh` command as a user runs it: the real bin, in a child process, on files in a
 * temporary folder. Exit codes and output formats are part of its interface.
 */
import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

const workspaceRoot = join(__dirname, '..', '..', '..');
const bin = join(workspaceRoot, 'bin', 'trustmesh.js');
const WORKSPACE = '6d1f3c2a-8b4e-4f7a-9c1d-2e3f4a5b6c7d';

let dir: string;
beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'trustmesh-cli-'));
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

function file(name: string, content: unknown): string {
  const path = join(dir, name);
  writeFileSync(path, typeof content === 'string' ? content : JSON.stringify(content));
  return path;
}

function trustmesh(args: string[], input?: string) {
  const run = spawnSync(process.execPath, [bin, ...args], { cwd: dir, input, encoding: 'utf8', timeout: 60_000 });
  return { code: run.status, stdout: run.stdout, stderr: run.stderr };
}

const ackFrame = { type: 'runtime.ack', workspaceId: WORKSPACE, throughRelaySequence: 3 };
const leakFrame = {
  type: 'runtime.event',
  workspaceId: WORKSPACE,
  relaySequence: 0,
  event: {
    protocolVersion: '1.1',
    runtimeInstanceId: WORKSPACE,
    sequence: 0,
    timestamp: '2026-11-30T10:00:00Z',
    threadId: WORKSPACE,
    event: { type: 'tool.started', toolCallId: 'c', agentName: 'a', toolName: 't', input: { cmd: 'rm' } },
  },
};

describe('trustmesh relay validate', () => {
  it('exits 0 and prints one readable line per valid frame', () => {
    const result = trustmesh(['relay', 'validate', '--wire', '1.2', file('ack.json', ackFrame)]);
    expect(result.code).toBe(0);
    expect(result.stdout).toMatch(/^valid +.*ack\.json: Wire 1\.2 runtime\.ack\n$/);
  });

  it('exits 1 when any frame is invalid, naming the code and the JSON pointer', () => {
    const result = trustmesh(['relay', 'validate', '--wire', '1.2', file('ok.json', ackFrame), file('leak.json', leakFrame)]);
    expect(result.code).toBe(1);
    expect(result.stdout).toContain('FIELD_NOT_ALLOWED at /event/event/input');
    expect(result.stdout.trim().split('\n')).toHaveLength(2);
  });

  it('prints one JSON array with an object per file under --json', () => {
    const result = trustmesh(['relay', 'validate', '--wire', '1.2', '--json', file('ok2.json', ackFrame), file('leak2.json', leakFrame)]);
    expect(result.code).toBe(1);
    expect(JSON.parse(result.stdout)).toEqual([
      { file: join(dir, 'ok2.json'), valid: true, errors: [] },
      { file: join(dir, 'leak2.json'), valid: false, errors: [{ code: 'FIELD_NOT_ALLOWED', path: '/event/event/input', message: expect.any(String) }] },
    ]);
  });

  it('reads one frame from stdin with -', () => {
    expect(trustmesh(['relay', 'validate', '--wire', '1.1', '-'], JSON.stringify(ackFrame)).code).toBe(0);
    const bad = trustmesh(['relay', 'validate', '--wire', '1.1', '--json', '-'], '{"type":');
    expect(bad.code).toBe(1);
    expect(JSON.parse(bad.stdout)[0]).toEqual({ file: '-', valid: false, errors: [{ code: 'FRAME_NOT_JSON', path: '', message: expect.any(String) }] });
  });

  it('reports a frame nested 9,000 deep as FRAME_TOO_DEEP (exit 1), not as an internal error', () => {
    const deep = `{"type":"runtime.request","requestId":"${WORKSPACE}","workspaceId":"${WORKSPACE}","method":"thread.list","params":${'['.repeat(9_000)}${']'.repeat(9_000)}}`;
    const result = trustmesh(['relay', 'validate', '--wire', '1.2', '--json', file('deep.json', deep)]);
    expect(result.code).toBe(1);
    expect(JSON.parse(result.stdout)[0].errors).toEqual([{ code: 'FRAME_TOO_DEEP', path: expect.stringMatching(/^\/params(\/0)+$/), message: expect.any(String) }]);
  });

  it('reports a repeated key as FRAME_DUPLICATE_KEY with the pointer of its object', () => {
    const text = JSON.stringify(leakFrame).replace('"event":{"protocolVersion"', '"event":{"type":"tool.started"},"event":{"protocolVersion"');
    const result = trustmesh(['relay', 'validate', '--wire', '1.2', file('duplicate.json', text)]);
    expect(result.code).toBe(1);
    expect(result.stdout).toMatch(/^invalid {2}.*duplicate\.json: FRAME_DUPLICATE_KEY at \/: The key "event" appears more than once/m);
  });

  it('checks the direction allowlist', () => {
    const path = file('ack3.json', ackFrame);
    expect(trustmesh(['relay', 'validate', '--wire', '1.2', '--direction', 'browser-to-relay', path]).code).toBe(0);
    const wrong = trustmesh(['relay', 'validate', '--wire', '1.2', '--direction', 'companion-to-relay', path]);
    expect(wrong.code).toBe(1);
    expect(wrong.stdout).toContain('FRAME_DIRECTION_FORBIDDEN');
  });

  it('validates Control messages and session descriptors', () => {
    const ready = { type: 'session.ready', controlVersion: '1.0', relayProtocolVersion: '1.2', sessionId: 's', workspaceId: WORKSPACE, workspaceStatus: 'online' };
    expect(trustmesh(['relay', 'validate', '--wire', 'control', file('ready.json', ready)]).code).toBe(0);
    expect(trustmesh(['relay', 'validate', '--wire', '1.2', '--direction', 'relay-to-browser', file('ready2.json', ready)]).code).toBe(0);
    const descriptor = { connectUrl: 'ws://relay.test/v1/browser', expiresAt: '2026-11-30T10:00:00Z' };
    const result = trustmesh(['relay', 'validate', '--wire', 'browser-session', file('session.json', descriptor)]);
    expect(result.code).toBe(1);
    expect(result.stdout).toContain('FIELD_FORMAT at /connectUrl');
  });

  it('refuses an oversized file from its size, before reading it', () => {
    const big = file('big.json', `{"pad":"${'x'.repeat(2_000)}"}`);
    const result = trustmesh(['relay', 'validate', '--wire', '1.2', '--max-bytes', '1000', '--json', big]);
    expect(result.code).toBe(1);
    expect(JSON.parse(result.stdout)[0].errors[0].code).toBe('FRAME_TOO_LARGE');
    const piped = trustmesh(['relay', 'validate', '--wire', '1.2', '--max-bytes', '1000', '-'], `{"pad":"${'x'.repeat(5_000)}"}`);
    expect(piped.code).toBe(1);
    expect(piped.stdout).toContain('FRAME_TOO_LARGE');
  });

  it('checks params, deferred rules and forms only under --strict', () => {
    const path = file('req.json', { type: 'runtime.request', requestId: WORKSPACE, workspaceId: WORKSPACE, method: 'thread.list', params: {} });
    expect(trustmesh(['relay', 'validate', '--wire', '1.2', path]).code).toBe(0);
    const strict = trustmesh(['relay', 'validate', '--wire', '1.2', '--strict', path]);
    expect(strict.code).toBe(1);
    expect(strict.stdout).toContain('FIELD_REQUIRED at /params/limit');
  });

  it.each([
    [['relay', 'validate', 'x.json'], '--wire is required'],
    [['relay', 'validate', '--wire', '2.0', 'x.json'], '--wire must be one of'],
    [['relay', 'validate', '--wire', '1.2'], 'at least one FILE'],
    [['relay', 'validate', '--wire', '1.2', '--direction', 'sideways', 'x.json'], '--direction must be'],
    [['relay', 'validate', '--wire', '1.0', '--direction', 'relay-to-browser', 'x.json'], 'never bridged to a browser'],
    [['relay', 'validate', '--wire', '1.2', '--bogus', 'x.json'], "Unknown option '--bogus'"],
    [['relay', 'frobnicate'], 'unknown command'],
  ])('exits 2 on the usage error %j', (args, message) => {
    const result = trustmesh(args);
    expect(result.code).toBe(2);
    expect(result.stderr).toContain(message);
    expect(result.stderr).toContain('Usage:');
  });

  it('exits 2 on an unreadable file, after reporting the others', () => {
    const result = trustmesh(['relay', 'validate', '--wire', '1.2', file('ok4.json', ackFrame), join(dir, 'missing.json')]);
    expect(result.code).toBe(2);
    expect(result.stdout).toContain('valid    ');
    expect(result.stdout).toContain('cannot read');
  });
});

describe('trustmesh relay conformance', () => {
  function fixtureSet(name: string, manifest: unknown, fixtures: Record<string, unknown>): string {
    const folder = join(dir, 'sets', name);
    mkdirSync(folder, { recursive: true });
    writeFileSync(join(folder, 'manifest.json'), JSON.stringify(manifest));
    for (const [fixture, content] of Object.entries(fixtures)) writeFileSync(join(folder, fixture), JSON.stringify(content));
    return folder;
  }

  it('passes a correct manifest and fails, case by case, a wrong one', () => {
    const good = fixtureSet('good', { protocolVersion: '1.2', frames: [{ id: 'ack', fixture: 'ack.json', valid: true }], ack: [{ id: 'first', acknowledgedThrough: -1, advertisedThrough: 0, incomingThrough: 0, expected: 'advance' }] }, { 'ack.json': ackFrame });
    const ok = trustmesh(['relay', 'conformance', good]);
    expect(ok.code).toBe(0);
    expect(ok.stdout).toMatch(/Wire 1\.2 .*: \d+ cases, 0 mismatches/);

    const wrong = fixtureSet('wrong', { protocolVersion: '1.1', frames: [{ id: 'leak-claimed-valid', fixture: 'leak.json', valid: true }], methodRegistry: [{ id: 'bogus', value: 'thread.list', expected: 'mutation' }] }, { 'leak.json': leakFrame });
    const failed = trustmesh(['relay', 'conformance', wrong]);
    expect(failed.code).toBe(1);
    expect(failed.stdout).toContain('MISMATCH leak-claimed-valid: expected valid, actual invalid');
    expect(failed.stdout).toContain('MISMATCH bogus: expected mutation, actual query');
  });

  it('finds fixture sets below a folder', () => {
    const result = trustmesh(['relay', 'conformance', join(dir, 'sets'), '--json']);
    const reports = JSON.parse(result.stdout) as Array<{ subject: string }>;
    expect(reports.map((report) => report.subject).sort()).toEqual(['Wire 1.1', 'Wire 1.2']);
  });

  it('exits 2 for a folder without manifests or with a broken one', () => {
    mkdirSync(join(dir, 'empty'), { recursive: true });
    expect(trustmesh(['relay', 'conformance', join(dir, 'empty')]).code).toBe(2);
    const broken = fixtureSet('broken', { neither: true }, {});
    const result = trustmesh(['relay', 'conformance', broken]);
    expect(result.code).toBe(2);
    expect(result.stderr).toContain('neither `protocolVersion` nor `controlVersion`');
  });

  it('keeps fixture paths inside their folder', () => {
    const escape = fixtureSet('escape', { protocolVersion: '1.2', frames: [{ id: 'outside', fixture: '../../ok.json', valid: true }] }, {});
    const result = trustmesh(['relay', 'conformance', escape]);
    expect(result.code).toBe(1);
    expect(result.stdout).toContain('unreadable fixture');
  });
});
