/**
 * Usage errors of `trustmesh relay session`, `trustmesh relay watch` and `trustmesh dev`, in-process (the e2e spec of `npm start`
 * covers the happy paths against a running gateway).
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PassThrough } from 'node:stream';

import { main } from '../src/main';
import { readRelayControlTarget } from '../src/relay-control.target';
import { parseRelaySessionArgs } from '../src/relay-session.command';
import { parseRelayWatchArgs, shown } from '../src/relay-watch.command';

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
    expect(noCredential.stderr).toContain('relay session: GRPC_TARGET_CREDENTIAL_REQUIRED: RELAY_CONTROL_CREDENTIAL is required');
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

describe('the RelayControl target of the relay commands (the platform gRPC client rule)', () => {
  const PEM = '-----BEGIN CERTIFICATE-----\nMIIB\n-----END CERTIFICATE-----\n';
  const CREDENTIAL = 'tmsc_secret-value-0123';
  let dir: string;
  beforeAll(() => {
    dir = mkdtempSync(join(tmpdir(), 'trustmesh-relay-target-'));
    writeFileSync(join(dir, 'ca.pem'), PEM);
    writeFileSync(join(dir, 'credential'), `${CREDENTIAL}\n`);
  });
  afterAll(() => rmSync(dir, { recursive: true, force: true }));
  const refusal = (flags: { address: string | null; caFile: string | null }, env: Record<string, string>): string => {
    try {
      readRelayControlTarget('relay session', flags, env);
    } catch (error) {
      return (error as Error).message;
    }
    throw new Error('expected a refusal');
  };

  it('is plaintext on loopback and TLS elsewhere unless RELAY_CONTROL_TLS=false, the credential a secret', () => {
    const local = readRelayControlTarget('relay session', { address: null, caFile: null }, { RELAY_CONTROL_CREDENTIAL: CREDENTIAL });
    expect(local).toMatchObject({ address: '127.0.0.1:50051', loopback: true, tls: null });
    expect(local.credential.reveal()).toBe(CREDENTIAL);
    expect(JSON.stringify(local)).not.toContain(CREDENTIAL);
    expect(readRelayControlTarget('relay session', { address: 'relay.example.com:50051', caFile: null }, { RELAY_CONTROL_CREDENTIAL: CREDENTIAL }).tls).toEqual({ ca: null });
    const opted = readRelayControlTarget('relay session', { address: null, caFile: null }, { RELAY_CONTROL_ADDRESS: 'relay.example.com:50051', RELAY_CONTROL_TLS: 'false', RELAY_CONTROL_CREDENTIAL: CREDENTIAL });
    expect(opted).toMatchObject({ address: 'relay.example.com:50051', tls: null });
  });

  it('maps --relay-control-ca onto RELAY_CONTROL_TLS_CA_FILE (TLS, that CA) and reads a credential file', () => {
    const target = readRelayControlTarget('relay session', { address: null, caFile: join(dir, 'ca.pem') }, { RELAY_CONTROL_CREDENTIAL_FILE: join(dir, 'credential') });
    expect(target.tls?.ca?.toString('utf8')).toBe(PEM);
    expect(target.credential.reveal()).toBe(CREDENTIAL);
    expect(readRelayControlTarget('relay session', { address: null, caFile: null }, { RELAY_CONTROL_TLS_CA_FILE: join(dir, 'ca.pem'), RELAY_CONTROL_CREDENTIAL: CREDENTIAL }).tls).not.toBeNull();
  });

  it('refuses with the GRPC_TARGET_* codes, naming the variable and its flag, never the credential', () => {
    expect(refusal({ address: 'nowhere', caFile: null }, { RELAY_CONTROL_CREDENTIAL: CREDENTIAL })).toMatch(/^relay session: GRPC_TARGET_ADDRESS_INVALID: RELAY_CONTROL_ADDRESS \(--relay-control-address\)/);
    expect(refusal({ address: null, caFile: join(dir, 'missing.pem') }, { RELAY_CONTROL_CREDENTIAL: CREDENTIAL })).toContain('GRPC_TARGET_CA_UNREADABLE: RELAY_CONTROL_TLS_CA_FILE (--relay-control-ca)');
    expect(refusal({ address: null, caFile: join(dir, 'ca.pem') }, { RELAY_CONTROL_TLS: 'false', RELAY_CONTROL_CREDENTIAL: CREDENTIAL })).toContain('GRPC_TARGET_CA_WITHOUT_TLS');
    expect(refusal({ address: null, caFile: null }, { RELAY_CONTROL_CREDENTIAL: CREDENTIAL, RELAY_CONTROL_CREDENTIAL_FILE: join(dir, 'credential') })).toContain('GRPC_TARGET_CREDENTIAL_CONFLICT');
    const bad = refusal({ address: null, caFile: null }, { RELAY_CONTROL_CREDENTIAL: 'tmsc secret with spaces' });
    expect(bad).toContain('GRPC_TARGET_CREDENTIAL_INVALID');
    expect(bad).not.toContain('tmsc secret');
  });

  it('ends a command with exit 2 on a refused target, before calling anything', async () => {
    const result = await run(['relay', 'session', '--workspace', WORKSPACE, '--relay-control-ca', join(dir, 'missing.pem')], { RELAY_CONTROL_CREDENTIAL: CREDENTIAL });
    expect(result.code).toBe(2);
    expect(result.stderr).toContain('GRPC_TARGET_CA_UNREADABLE');
    expect(result.stderr).not.toContain(CREDENTIAL);
    const missing = await run(['relay', 'publish-card', '--workspace', WORKSPACE, '--owner', 'u', '--name', 'n', '--description', 'd']);
    expect(missing.code).toBe(2);
    expect(missing.stderr).toContain('GRPC_TARGET_CREDENTIAL_REQUIRED');
  });
});

describe('trustmesh dev', () => {
  it('refuses an origin that is not a serialized origin, before starting anything', async () => {
    const result = await run(['dev', '--origin', 'http://localhost:5173/app']);
    expect(result.code).toBe(2);
    expect(result.stderr).toContain('--origin must be a serialized origin');
  });
});

describe('trustmesh relay watch', () => {
  it('needs --workspace and a credential from the environment, and only browser Wire versions', async () => {
    expect((await run(['relay', 'watch'])).stderr).toContain('relay watch: --workspace is required');
    const noCredential = await run(['relay', 'watch', '--workspace', WORKSPACE]);
    expect(noCredential.code).toBe(2);
    expect(noCredential.stderr).toContain('relay watch: GRPC_TARGET_CREDENTIAL_REQUIRED: RELAY_CONTROL_CREDENTIAL is required');
    expect((await run(['relay', 'watch', '--workspace', WORKSPACE, '--wire', '1.0'])).stderr).toContain('--wire takes 1.2 and/or 1.1');
    expect((await run(['relay', 'watch', '--workspace', WORKSPACE, '--say', ' '])).stderr).toContain('--say needs some text');
    expect((await run(['relay', 'watch', '--workspace', WORKSPACE, '--credential', 'tmsc_x'])).stderr).toContain('relay watch: unknown option --credential');
  });

  it('trusts --ca, else RELAY_GATEWAY_CA_FILE, else the development certificate when it exists', () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'trustmesh-watch-'));
    try {
      expect(parseRelayWatchArgs(['--workspace', WORKSPACE], { TRUSTMESH_DATA_DIR: dataDir })).toMatchObject({ gatewayCaFile: null, say: null, wireVersions: ['1.2', '1.1'] });
      mkdirSync(join(dataDir, 'relay-gateway', 'tls'), { recursive: true });
      writeFileSync(join(dataDir, 'relay-gateway', 'tls', 'cert.pem'), 'pem');
      expect(parseRelayWatchArgs(['--workspace', WORKSPACE], { TRUSTMESH_DATA_DIR: dataDir }).gatewayCaFile).toBe(join(dataDir, 'relay-gateway', 'tls', 'cert.pem'));
      expect(parseRelayWatchArgs(['--workspace', WORKSPACE], { TRUSTMESH_DATA_DIR: dataDir, RELAY_GATEWAY_CA_FILE: '/ca.pem' }).gatewayCaFile).toBe('/ca.pem');
      expect(parseRelayWatchArgs(['--workspace', WORKSPACE, '--ca', '/mine.pem', '--say', 'hi'], { RELAY_GATEWAY_CA_FILE: '/ca.pem' })).toMatchObject({ gatewayCaFile: '/mine.pem', say: 'hi' });
    } finally {
      rmSync(dataDir, { recursive: true, force: true });
    }
  });

  it('reports an unreachable gateway before connecting, exit 1', async () => {
    const port = await new Promise<number>((resolve) => {
      const server = createServer().listen(0, '127.0.0.1', () => {
        const address = server.address();
        server.close(() => resolve(typeof address === 'object' && address ? address.port : 0));
      });
    });
    const result = await run(['relay', 'watch', '--workspace', WORKSPACE, '--relay-control-address', `127.0.0.1:${port}`], { RELAY_CONTROL_CREDENTIAL: 'tmsc_secret-value' });
    expect(result.code).toBe(1);
    expect(result.stderr).toContain('RelayControl CreateBrowserSession failed: UNAVAILABLE');
    expect(result.stderr).not.toContain('tmsc_secret-value');
  });

  it('prints peer text on one line with terminal control characters escaped', () => {
    expect(shown('plain text')).toBe('"plain text"');
    expect(shown('line\nbreak "quoted" \\')).toBe('"line\\u000abreak \\"quoted\\" \\\\"');
    expect(shown('\u001b]0;owned\u0007\u009b2J\u202eevil')).toBe('"\\u001b]0;owned\\u0007\\u009b2J\\u202eevil"');
    expect(shown('x'.repeat(3000))).toHaveLength(2003);
  });
});
