import { inspect } from 'node:util';

import { envReader } from './env-reader';
import { grpcClientVariables, readGrpcClientTarget } from './grpc-client-target';
import { ConfigError, type ConfigProblem } from './platform-config';

const VARS = grpcClientVariables('APP_PEER');
const SECRET = 'tmsa_0123456789abcdefghij';
const PEM = '-----BEGIN CERTIFICATE-----\nMIIB\n-----END CERTIFICATE-----\n';
const FILES: Record<string, string> = { '/run/secrets/peer': `${SECRET}\n`, '/etc/peer-ca.pem': PEM, '/etc/not-a-cert': 'hello' };
const readFile = (path: string): string => {
  const content = FILES[path];
  if (content === undefined) throw new Error(`ENOENT ${path}`);
  return content;
};

function read(env: Record<string, string>, required = false) {
  const problems: ConfigProblem[] = [];
  const target = readGrpcClientTarget(envReader(env, problems), VARS, { peer: 'the peer', required, readFile });
  return { target, problems, codes: problems.map((problem) => `${problem.variable} ${problem.code}`) };
}

describe('readGrpcClientTarget', () => {
  it('is off when none of its variables is set, and required when the caller says so', () => {
    expect(read({})).toEqual({ target: null, problems: [], codes: [] });
    expect(read({}, true).codes).toEqual(['APP_PEER_ADDRESS GRPC_TARGET_ADDRESS_REQUIRED', 'APP_PEER_CREDENTIAL GRPC_TARGET_CREDENTIAL_REQUIRED']);
  });

  it('uses plaintext on loopback and TLS with the system CAs elsewhere, by default', () => {
    for (const host of ['127.0.0.1', 'localhost', '[::1]']) {
      const { target, problems } = read({ APP_PEER_ADDRESS: `${host}:50061`, APP_PEER_CREDENTIAL: SECRET });
      expect(problems).toEqual([]);
      expect(target).toMatchObject({ address: `${host}:50061`, loopback: true, tls: null });
    }
    const remote = read({ APP_PEER_ADDRESS: 'shield-analyzer.trustmesh.svc:50061', APP_PEER_CREDENTIAL: SECRET }).target;
    expect(remote).toMatchObject({ loopback: false, tls: { ca: null } });
    expect(remote?.credential.reveal()).toBe(SECRET);
  });

  it('allows plaintext off loopback only when the operator sets _TLS=false, and TLS on loopback when asked', () => {
    expect(read({ APP_PEER_ADDRESS: 'shield-analyzer:50061', APP_PEER_CREDENTIAL: SECRET, APP_PEER_TLS: 'false' }).target).toMatchObject({ tls: null, loopback: false });
    expect(read({ APP_PEER_ADDRESS: '127.0.0.1:50061', APP_PEER_CREDENTIAL: SECRET, APP_PEER_TLS: 'true' }).target).toMatchObject({ tls: { ca: null } });
  });

  it('trusts a CA file, which implies TLS and refuses to go with _TLS=false', () => {
    const { target } = read({ APP_PEER_ADDRESS: 'registry:50081', APP_PEER_CREDENTIAL: SECRET, APP_PEER_TLS_CA_FILE: '/etc/peer-ca.pem' });
    expect(target?.tls?.ca?.toString()).toBe(PEM);
    // On loopback too: a CA file says the peer serves TLS.
    expect(read({ APP_PEER_ADDRESS: '127.0.0.1:50081', APP_PEER_CREDENTIAL: SECRET, APP_PEER_TLS_CA_FILE: '/etc/peer-ca.pem', APP_PEER_TLS: 'true' }).target?.tls?.ca).not.toBeNull();
    expect(read({ APP_PEER_ADDRESS: '127.0.0.1:50081', APP_PEER_CREDENTIAL: SECRET, APP_PEER_TLS_CA_FILE: '/etc/peer-ca.pem' }).target?.tls?.ca?.toString()).toBe(PEM);
    expect(read({ APP_PEER_ADDRESS: 'registry:50081', APP_PEER_CREDENTIAL: SECRET, APP_PEER_TLS_CA_FILE: '/etc/peer-ca.pem', APP_PEER_TLS: 'false' }).codes).toEqual(['APP_PEER_TLS_CA_FILE GRPC_TARGET_CA_WITHOUT_TLS']);
    expect(read({ APP_PEER_ADDRESS: 'registry:50081', APP_PEER_CREDENTIAL: SECRET, APP_PEER_TLS_CA_FILE: '/etc/missing.pem' }).codes).toEqual(['APP_PEER_TLS_CA_FILE GRPC_TARGET_CA_UNREADABLE']);
    expect(read({ APP_PEER_ADDRESS: 'registry:50081', APP_PEER_CREDENTIAL: SECRET, APP_PEER_TLS_CA_FILE: '/etc/not-a-cert' }).codes).toEqual(['APP_PEER_TLS_CA_FILE GRPC_TARGET_CA_INVALID']);
  });

  it('reads the credential from its file, and refuses both at once, an unreadable file or a malformed credential', () => {
    expect(read({ APP_PEER_ADDRESS: 'registry:50081', APP_PEER_CREDENTIAL_FILE: '/run/secrets/peer' }).target?.credential.reveal()).toBe(SECRET);
    expect(read({ APP_PEER_ADDRESS: 'registry:50081', APP_PEER_CREDENTIAL: SECRET, APP_PEER_CREDENTIAL_FILE: '/run/secrets/peer' }).codes).toEqual(['APP_PEER_CREDENTIAL GRPC_TARGET_CREDENTIAL_CONFLICT']);
    expect(read({ APP_PEER_ADDRESS: 'registry:50081', APP_PEER_CREDENTIAL_FILE: '/run/secrets/none' }).codes).toEqual(['APP_PEER_CREDENTIAL_FILE GRPC_TARGET_CREDENTIAL_UNREADABLE']);
    expect(read({ APP_PEER_ADDRESS: 'registry:50081', APP_PEER_CREDENTIAL: 'short' }).codes).toEqual(['APP_PEER_CREDENTIAL GRPC_TARGET_CREDENTIAL_INVALID']);
  });

  it('refuses an address without a credential, a credential without an address, a bad address or TLS value', () => {
    expect(read({ APP_PEER_ADDRESS: 'registry:50081' }).codes).toEqual(['APP_PEER_CREDENTIAL GRPC_TARGET_CREDENTIAL_REQUIRED']);
    expect(read({ APP_PEER_CREDENTIAL: SECRET }).codes).toEqual(['APP_PEER_ADDRESS GRPC_TARGET_ADDRESS_REQUIRED']);
    for (const address of ['registry', 'http://registry:50081', 'registry:0', 'registry:70000', 'a b:1']) {
      expect(read({ APP_PEER_ADDRESS: address, APP_PEER_CREDENTIAL: SECRET }).codes).toEqual(['APP_PEER_ADDRESS GRPC_TARGET_ADDRESS_INVALID']);
    }
    expect(read({ APP_PEER_ADDRESS: 'registry:50081', APP_PEER_CREDENTIAL: SECRET, APP_PEER_TLS: 'maybe' }).codes).toEqual(['APP_PEER_TLS GRPC_TARGET_TLS_INVALID']);
  });

  it('never shows the credential: not in a refusal, a printed target or its JSON', () => {
    const wrongShape = 'x'.repeat(15);
    const refused = read({ APP_PEER_ADDRESS: 'registry', APP_PEER_CREDENTIAL: wrongShape });
    expect(new ConfigError(refused.problems).message).not.toContain(wrongShape);
    expect(new ConfigError(refused.problems).message).toContain('[GRPC_TARGET_ADDRESS_INVALID]');
    const { target } = read({ APP_PEER_ADDRESS: 'registry:50081', APP_PEER_CREDENTIAL: SECRET });
    expect(JSON.stringify(target)).not.toContain(SECRET);
    expect(inspect(target)).not.toContain(SECRET);
    expect(`${target?.credential}`).toBe('[redacted]');
  });
});
