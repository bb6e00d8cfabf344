import { stat } from 'node:fs/promises';
import { join } from 'node:path';

import { createTempDataDir } from '@trustmesh/platform-database/testing';

import { loadTlsMaterial, TlsConfigError } from './tls-material';

describe('TLS material', () => {
  let dir: { dataDir: string; remove(): Promise<void> };
  beforeAll(async () => {
    dir = await createTempDataDir('relay-tls');
  });
  afterAll(() => dir.remove());

  it('creates a self-signed development certificate once, keeps its key private, and reuses it', async () => {
    const tlsDir = join(dir.dataDir, 'a');
    const first = await loadTlsMaterial({ mode: 'self-signed', dir: tlsDir, hostnames: ['localhost', '127.0.0.1'] });
    const again = await loadTlsMaterial({ mode: 'self-signed', dir: tlsDir, hostnames: ['localhost', '127.0.0.1'] });
    expect(again?.fingerprint).toBe(first?.fingerprint);
    expect((await stat(join(tlsDir, 'key.pem'))).mode & 0o777).toBe(0o600);
    const otherHosts = await loadTlsMaterial({ mode: 'self-signed', dir: tlsDir, hostnames: ['relay.local'] });
    expect(otherHosts?.fingerprint).not.toBe(first?.fingerprint);
    // Near expiry: renewed.
    const later = await loadTlsMaterial({ mode: 'self-signed', dir: tlsDir, hostnames: ['relay.local'] }, () => new Date(Date.now() + 340 * 24 * 3600 * 1000));
    expect(later?.fingerprint).not.toBe(otherHosts?.fingerprint);
  });

  it('loads certificate files and names the variable at fault when they are unusable', async () => {
    const one = join(dir.dataDir, 'one');
    const two = join(dir.dataDir, 'two');
    await loadTlsMaterial({ mode: 'self-signed', dir: one, hostnames: ['localhost'] });
    await loadTlsMaterial({ mode: 'self-signed', dir: two, hostnames: ['localhost'] });
    const loaded = await loadTlsMaterial({ mode: 'files', certFile: join(one, 'cert.pem'), keyFile: join(one, 'key.pem') });
    expect(loaded?.source).toBe('files');
    const variableOf = (promise: Promise<unknown>) => promise.then(() => 'none', (error: unknown) => (error instanceof TlsConfigError ? error.variable : 'other'));
    expect(await variableOf(loadTlsMaterial({ mode: 'files', certFile: join(one, 'cert.pem'), keyFile: join(two, 'key.pem') }))).toBe('RELAY_TLS_KEY_FILE');
    expect(await variableOf(loadTlsMaterial({ mode: 'files', certFile: join(one, 'missing.pem'), keyFile: join(one, 'key.pem') }))).toBe('RELAY_TLS_CERT_FILE');
    expect(await variableOf(loadTlsMaterial({ mode: 'files', certFile: join(one, 'key.pem'), keyFile: join(one, 'key.pem') }))).toBe('RELAY_TLS_CERT_FILE');
    expect(await loadTlsMaterial({ mode: 'off' })).toBeNull();
  });
});
