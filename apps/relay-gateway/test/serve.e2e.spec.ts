/**
 * `nx serve relay-gateway`'s command as a real process: a bad configuration stops it before it serves,
 * naming the variable; a good one serves until SIGTERM and then exits cleanly.
 */
import { spawn } from 'node:child_process';
import { join } from 'node:path';

import { createTempDataDir } from '@trustmesh/platform-database/testing';
import { waitUntil } from '@trustmesh/platform-testing';

const ROOT = join(__dirname, '..', '..', '..');

function serve(env: Record<string, string>) {
  const child = spawn(process.execPath, ['--import', 'tsx', 'apps/relay-gateway/src/main.ts'], {
    cwd: ROOT,
    env: { PATH: process.env['PATH'] ?? '', TSX_TSCONFIG_PATH: 'tsconfig.base.json', RELAY_HTTP_PORT: '0', RELAY_GRPC_PORT: '0', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const output = { stdout: '', stderr: '' };
  child.stdout.on('data', (chunk: Buffer) => (output.stdout += chunk.toString('utf8')));
  child.stderr.on('data', (chunk: Buffer) => (output.stderr += chunk.toString('utf8')));
  const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
  return { child, output, exited };
}

describe('relay-gateway process', () => {
  it('refuses a bad configuration with exit code 78 and the variable named', async () => {
    const run = serve({ RELAY_HTTP_PORT: 'eighty', RELAY_TLS: 'sometimes' });
    expect(await run.exited).toBe(78);
    expect(run.output.stderr).toContain('RELAY_HTTP_PORT');
    expect(run.output.stderr).toContain('RELAY_TLS');
  });

  it('serves until SIGTERM, then shuts down cleanly', async () => {
    const dataDir = await createTempDataDir('relay-gateway-serve');
    try {
      const run = serve({ TRUSTMESH_DATA_DIR: dataDir.dataDir });
      try {
        // The credential line is the last thing a starting gateway prints, possibly in a later chunk than
        // the listening line: wait for it rather than read it right after the first.
        await waitUntil(() => /development service credential for gRPC \(this run only; never stored\): tmsc_/.test(run.output.stdout), {
          timeoutMs: 60_000,
          what: 'the gateway to listen and print its development credential',
        });
        expect(run.output.stdout).toContain('"msg":"relay gateway listening"');
        run.child.kill('SIGTERM');
        expect(await run.exited).toBe(0);
        expect(run.output.stdout).toContain('"msg":"relay gateway stopped"');
      } finally {
        if (run.child.exitCode === null && run.child.signalCode === null) run.child.kill('SIGKILL');
      }
    } finally {
      await dataDir.remove();
    }
  });
});
