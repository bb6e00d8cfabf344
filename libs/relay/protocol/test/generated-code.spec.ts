/**
 * The generated schemas, types and validators must be what the definitions produce today: a change to
 * a definition without regenerating would ship validators that disagree with the documents.
 */
import { spawnSync } from 'node:child_process';
import { join } from 'node:path';

const workspaceRoot = join(__dirname, '..', '..', '..', '..');

describe('generated code', () => {
  it('is up to date with the definitions and the Wire 1.2 document', () => {
    const run = spawnSync(process.execPath, [join(workspaceRoot, 'node_modules', 'tsx', 'dist', 'cli.mjs'), 'libs/relay/protocol/codegen/generate.ts', '--check'], {
      cwd: workspaceRoot,
      encoding: 'utf8',
    });
    expect(run.stderr).toBe('');
    expect(run.status).toBe(0);
  }, 60_000);
});
