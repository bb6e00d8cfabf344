/**
 * Usage errors of `trustmesh relay session` and `trustmesh dev`, in-process (the e2e spec of `npm start`
 * covers the happy paths against a running gateway).
 */
import { createServer } from 'node:net';
import { PassThrough } from 'node:stream';

import { main } from '../src/main';
import { parseRelaySessionArgs } from '../src/relay-session.command';

const WORKSPACE = '6d1f3c2a-8b4e-4f7a-9c1d-2e3f4a5b6c7d';

async function run(argv: string[], env: Record<string, string> = {}) {
  const out: string[] = [];
  const err: string[] = [];
  const saved = process.env['RELAY_CONTROL_CREDENTIAL'];
  delete process.env['RELAY_CONTROL_CREDENTIAL'];
  Object.assign(process.env, env);
  try {
    const code = await main(argv, { stdout: (text) => out.push(text), stderr: (text) => err.push(text), stdin: new PassThrough() });
    return { code, stdout: out.join(''), stderr: err.join('') };
  } finally {
    for (const key of Object.keys(env)) delete process.env[key];
    if (saved !== undefined) process.env['RELAY_CONTROL_CREDENTIAL'] = saved;
  }
}

describe('trustmesh relay session', () => {
  it('needs --workspace and a credential from the environment, never a flag', async () => {
    expect((await run(['relay', 'session'])).stderr).toContain('--workspace is required');
    const noCredential = await run(['relay', 'session', '--workspace', WORKSPACE]);
    expect(noCredential.code).toBe(2);
    expect(noCredential.stderr).toContain('set RELAY_CONTROL_CREDENTIAL');
    const asFlag = await run(['relay', 'session', '--workspace', WORKSPACE, '--credential', 'tmsc_x']);
    expect(asFlag.code).toBe(2);
    expect(asFlag.stderr).toContain('unknown option --credential');
    expect(asFlag.stderr).not.toContain('tmsc_x');
  });

  it('defaults to the embedded gateway address, a development origin and Wire 1.2 then 1.1', () => {
    expect(parseRelaySessionArgs(['--workspace', WORKSPACE], {})).toEqual({
      workspaceId: WORKSPACE,
      origin: 'http://localhost:5173',
      wireVersions: ['1.2', '1.1'],
      address: '127.0.0.1:50051',
      caFile: null,
    });
    expect(parseRelaySessionArgs(['--workspace', WORKSPACE, '--wire', '1.1'], { RELAY_CONTROL_ADDRESS: '127.0.0.1:9' }).address).toBe('127.0.0.1:9');
  });

  it('reports an unreachable gateway with the gRPC status, exit 1', async () => {
    // A port that was free a moment ago: nothing listens there.
    const port = await new Promise<number>((resolve) => {
      const server = createServer().listen(0, '127.0.0.1', () => {
        const address = server.address();
        server.close(() => resolve(typeof address === 'object' && address ? address.port : 0));
      });
    });
    const result = await run(['relay', 'session', '--workspace', WORKSPACE, '--relay-control-address', `127.0.0.1:${port}`], { RELAY_CONTROL_CREDENTIAL: 'tmsc_secret-value' });
    expect(result.code).toBe(1);
    expect(result.stderr).toContain('RelayControl CreateBrowserSession failed: UNAVAILABLE');
    expect(result.stderr).not.toContain('tmsc_secret-value');
  });
});

describe('trustmesh dev', () => {
  it('refuses an origin that is not a serialized origin, before starting anything', async () => {
    const result = await run(['dev', '--origin', 'http://localhost:5173/app']);
    expect(result.code).toBe(2);
    expect(result.stderr).toContain('--origin must be a serialized origin');
  });
});
