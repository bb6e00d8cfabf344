/**
 * Usage errors of `trustmesh relay publish-card`, in-process: every required flag named, the service
 * credential only from the environment, tags split on commas. (It is run against a real gateway and
 * registry by apps/relay-gateway/test/workspace-card.)
 */
import { PassThrough } from 'node:stream';

import { main } from '../src/main';
import { parseRelayPublishCardArgs } from '../src/relay-publish-card.command';

const WORKSPACE = '0190f5a2-7c1e-7a3b-9d4e-5f6a7b8c9d0e';
const COMPLETE = ['relay', 'publish-card', '--workspace', WORKSPACE, '--owner', 'user-1', '--name', 'Agent', '--description', 'An agent'];

async function run(argv: string[], env: Record<string, string> = {}): Promise<{ code: number; stdout: string; stderr: string }> {
  const out = { stdout: '', stderr: '' };
  const saved = { ...process.env };
  Object.assign(process.env, env);
  try {
    const code = await main(argv, { stdout: (text) => (out.stdout += text), stderr: (text) => (out.stderr += text), stdin: new PassThrough() });
    return { code, ...out };
  } finally {
    process.env = saved;
  }
}

describe('trustmesh relay publish-card', () => {
  it('names each missing flag, refuses unknown ones, and wants the credential from the environment', async () => {
    for (const [flag, index] of [['--workspace', 2], ['--owner', 4], ['--name', 6], ['--description', 8]] as const) {
      const argv = [...COMPLETE.slice(0, index), ...COMPLETE.slice(index + 2)];
      const result = await run(argv);
      expect(result.code).toBe(2);
      expect(result.stderr).toContain(`${flag} is required`);
    }
    expect((await run([...COMPLETE, '--credential', 'tmsc_x'])).stderr).toContain('unknown option --credential');
    delete process.env['RELAY_CONTROL_CREDENTIAL'];
    const noCredential = await run(COMPLETE);
    expect(noCredential.code).toBe(2);
    expect(noCredential.stderr).toContain('RELAY_CONTROL_CREDENTIAL');
  });

  it('splits tags on commas and defaults the address', () => {
    expect(parseRelayPublishCardArgs([...COMPLETE.slice(2), '--tags', ' coding, ,review '], {})).toEqual({
      workspaceId: WORKSPACE,
      ownerUserId: 'user-1',
      name: 'Agent',
      description: 'An agent',
      tags: ['coding', 'review'],
      address: '127.0.0.1:50051',
      caFile: null,
    });
  });
});
