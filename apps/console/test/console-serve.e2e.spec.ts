/**
 * `nx serve console`'s command as a real process: a configuration that names an upstream halfway, or an operator
 * URL that is not one, stops it before it opens anything, with exit code 78 (EX_CONFIG) and each variable named,
 * never the credential it was given.
 */
import { spawn } from 'node:child_process';
import { join } from 'node:path';

const ROOT = join(__dirname, '..', '..', '..');

function serve(env: Record<string, string>) {
  const child = spawn(process.execPath, ['--import', 'tsx', 'apps/console/src/main.ts'], {
    cwd: ROOT,
    env: { PATH: process.env['PATH'] ?? '', TSX_TSCONFIG_PATH: 'tsconfig.base.json', CONSOLE_HTTP_PORT: '0', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const output = { stdout: '', stderr: '' };
  child.stdout.on('data', (chunk: Buffer) => (output.stdout += chunk.toString('utf8')));
  child.stderr.on('data', (chunk: Buffer) => (output.stderr += chunk.toString('utf8')));
  const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
  return { output, exited };
}

describe('console process', () => {
  it('refuses a Shield or registry set halfway and a bad operator URL with exit code 78, naming each variable', async () => {
    const run = serve({
      CONSOLE_SHIELD_ADDRESS: 'not an address',
      CONSOLE_SHIELD_CREDENTIAL: 'shield-supersecretvalue',
      CONSOLE_REGISTRY_CREDENTIAL: 'registry-supersecretvalue',
      CONSOLE_REGISTRY_OPERATOR_URL: 'http://127.0.0.1:9470/metrics',
    });
    expect(await run.exited).toBe(78);
    for (const variable of ['CONSOLE_SHIELD_ADDRESS', 'CONSOLE_REGISTRY_ADDRESS', 'CONSOLE_REGISTRY_OPERATOR_URL']) expect(run.output.stderr).toContain(variable);
    expect(`${run.output.stdout}${run.output.stderr}`).not.toContain('supersecret');
  });
});
