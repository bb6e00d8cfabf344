/**
 * `trustmesh cards validate` as a user runs it: the real bin, in a child process, on files in a temporary
 * folder. Exit codes and both output formats are part of its interface.
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

const workspaceRoot = join(__dirname, '..', '..', '..');
const bin = join(workspaceRoot, 'bin', 'trustmesh.js');

let dir: string;
beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'trustmesh-cards-'));
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

function file(name: string, content: unknown): string {
  const path = join(dir, name);
  writeFileSync(path, typeof content === 'string' ? content : JSON.stringify(content));
  return path;
}

function trustmesh(args: string[], input?: string) {
  const run = spawnSync(process.execPath, [bin, 'cards', 'validate', ...args], { cwd: dir, input, encoding: 'utf8', timeout: 60_000 });
  return { code: run.status, stdout: run.stdout, stderr: run.stderr };
}

const catalog = {
  specVersion: '1.0',
  host: { displayName: 'Orbit Labs' },
  entries: [{ identifier: 'urn:air:orbit.example:agent:weather', type: 'application/a2a-agent-card+json', url: 'https://orbit.example/agent-card.json' }],
};
const opaqueCatalog = { specVersion: '1.0', entries: [{ identifier: 'weather', type: 'application/json', data: { inline: true } }] };
const brokenCatalog = { specVersion: '1.0.0', entries: [{ identifier: 'urn:air:orbit.example:agent:weather', type: 'application/json', url: 'http://orbit.example/' }] };

describe('trustmesh cards validate', () => {
  it('exits 0 and prints a line per valid file, and a line per warning', () => {
    const result = trustmesh([file('catalog.json', catalog), file('opaque.json', opaqueCatalog)]);
    expect(result.code).toBe(0);
    const lines = result.stdout.trim().split('\n');
    expect(lines[0]).toMatch(/^valid +.*catalog\.json: ai-catalog, 0 error\(s\), 0 warning\(s\)$/);
    expect(lines[1]).toMatch(/^valid +.*opaque\.json: ai-catalog, 0 error\(s\), 1 warning\(s\)$/);
    expect(lines[2]).toMatch(/^ +warning IDENTIFIER_OPAQUE at \/entries\/0\/identifier: /);
  });

  it('exits 1 when any file is invalid, with one line per issue naming code and pointer', () => {
    const result = trustmesh([file('ok.json', catalog), file('broken.json', brokenCatalog)]);
    expect(result.code).toBe(1);
    expect(result.stdout).toMatch(/invalid +.*broken\.json: ai-catalog, 2 error\(s\)/);
    expect(result.stdout).toMatch(/error +SPEC_VERSION_INVALID at \/specVersion: /);
    expect(result.stdout).toMatch(/error +URL_NOT_HTTPS at \/entries\/0\/url: /);
  });

  it('prints exactly one JSON array under --json', () => {
    const result = trustmesh(['--json', file('ok2.json', catalog), file('broken2.json', brokenCatalog)]);
    expect(result.code).toBe(1);
    expect(JSON.parse(result.stdout)).toEqual([
      { file: join(dir, 'ok2.json'), kind: 'ai-catalog', valid: true, errors: [], warnings: [] },
      {
        file: join(dir, 'broken2.json'),
        kind: 'ai-catalog',
        valid: false,
        errors: [
          { path: '/specVersion', code: 'SPEC_VERSION_INVALID', severity: 'error', message: expect.any(String) },
          { path: '/entries/0/url', code: 'URL_NOT_HTTPS', severity: 'error', message: expect.any(String) },
        ],
        warnings: [],
      },
    ]);
  });

  it('reads stdin with - and reports parse failures as issues', () => {
    expect(trustmesh(['-'], JSON.stringify(catalog)).code).toBe(0);
    const bad = trustmesh(['--json', '-'], '{"specVersion":"1.0","entries":[],"entries":[]}');
    expect(bad.code).toBe(1);
    expect(JSON.parse(bad.stdout)).toEqual([
      { file: '-', kind: null, valid: false, errors: [{ path: '', code: 'JSON_DUPLICATE_KEY', severity: 'error', message: expect.any(String) }], warnings: [] },
    ]);
  });

  it('validates as the kind --kind names', () => {
    const result = trustmesh(['--json', '--kind', 'mcp-server', file('as-mcp.json', catalog)]);
    expect(result.code).toBe(1);
    expect(JSON.parse(result.stdout)[0]).toMatchObject({ kind: 'mcp-server', valid: false });
  });

  it('reports an unreadable file as FILE_UNREADABLE (exit 1) and still reports the others', () => {
    const result = trustmesh(['--json', join(dir, 'missing.json'), file('ok3.json', catalog)]);
    expect(result.code).toBe(1);
    const [missing, ok] = JSON.parse(result.stdout);
    expect(missing).toEqual({ file: join(dir, 'missing.json'), kind: null, valid: false, errors: [{ path: '', code: 'FILE_UNREADABLE', severity: 'error', message: expect.stringContaining('ENOENT') }], warnings: [] });
    expect(ok).toMatchObject({ valid: true });
  });

  it('refuses a file above --max-bytes from its size alone', () => {
    const result = trustmesh(['--json', '--max-bytes', '10', file('big.json', catalog)]);
    expect(result.code).toBe(1);
    expect(JSON.parse(result.stdout)[0].errors).toEqual([{ path: '', code: 'DOCUMENT_TOO_LARGE', severity: 'error', message: expect.any(String) }]);
  });

  it.each([[['--kind', 'agent', 'x.json']], [['--strict', 'x.json']], [[]], [['-', '-']]])('exits 2 on the usage error %p', (args) => {
    const result = trustmesh(args);
    expect(result.code).toBe(2);
    expect(result.stdout).toBe('');
    expect(result.stderr).toContain('trustmesh cards validate');
  });
});
