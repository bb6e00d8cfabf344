import { SafeFetcher } from '@trustmesh/cards-fetcher';
import { admitLoopbackForTests, createTestCa, lookupFromMap, startHttpsServer, type TestCa, type TestHttpsServer } from '@trustmesh/cards-fetcher/testing';

import { createChallengeToken } from './challenge-token';
import { WELL_KNOWN_AUTH_PATH } from './https-file.proof';
import { checkProof } from './proof.checker';

describe('HTTPS well-known file proof over real HTTPS', () => {
  const token = createChallengeToken();
  const now = () => new Date('2026-12-03T08:00:00Z');
  let ca: TestCa;
  const servers: TestHttpsServer[] = [];
  const fetcherFor = (lookup: Record<string, string>) => new SafeFetcher({ lookup: lookupFromMap(lookup), ca: ca.cert, admitAddressForTests: admitLoopbackForTests });

  async function serve(domain: string, route: Parameters<typeof startHttpsServer>[0][string]): Promise<TestHttpsServer> {
    const server = await startHttpsServer({ [WELL_KNOWN_AUTH_PATH]: route, '/elsewhere': { body: token } }, { ca, hostnames: [domain] });
    servers.push(server);
    return server;
  }

  beforeAll(async () => {
    ca = await createTestCa();
  });
  afterAll(async () => {
    await Promise.all(servers.map((s) => s.close()));
  });

  it('accepts the token on a line of its own and grants only the domain', async () => {
    const server = await serve('acme.test', { body: `other-registry=xyz\n${token}\n` });
    const outcome = await checkProof('https-file', 'acme.test', token, { fetcher: fetcherFor({ 'acme.test': '127.0.0.1' }), now, httpsPortForTests: server.port });
    expect(outcome).toEqual({ ok: true, method: 'https-file', checkedAt: '2026-12-03T08:00:00.000Z', grantsSubdomains: false });
  });

  it('refuses a redirect, even to the same host', async () => {
    const server = await serve('redirect.test', { status: 302, headers: { location: '/elsewhere' } });
    const outcome = await checkProof('https-file', 'redirect.test', token, { fetcher: fetcherFor({ 'redirect.test': '127.0.0.1' }), httpsPortForTests: server.port });
    expect(outcome).toMatchObject({ ok: false, code: 'OWNERSHIP_FILE_REDIRECTED', cause: 'FETCH_REDIRECT_REFUSED' });
  });

  it('refuses a file over 4 KiB', async () => {
    const server = await serve('big.test', { body: `${token}\n${'#'.repeat(5000)}` });
    const outcome = await checkProof('https-file', 'big.test', token, { fetcher: fetcherFor({ 'big.test': '127.0.0.1' }), httpsPortForTests: server.port });
    expect(outcome).toMatchObject({ ok: false, code: 'OWNERSHIP_FILE_TOO_LARGE' });
  });

  it('reports a file with another token', async () => {
    const server = await serve('wrong.test', { body: createChallengeToken() });
    const outcome = await checkProof('https-file', 'wrong.test', token, { fetcher: fetcherFor({ 'wrong.test': '127.0.0.1' }), httpsPortForTests: server.port });
    expect(outcome).toMatchObject({ ok: false, code: 'OWNERSHIP_FILE_TOKEN_MISMATCH' });
  });

  it('does not accept the token as part of a longer line', async () => {
    const server = await serve('partial.test', { body: `token=${token}` });
    const outcome = await checkProof('https-file', 'partial.test', token, { fetcher: fetcherFor({ 'partial.test': '127.0.0.1' }), httpsPortForTests: server.port });
    expect(outcome).toMatchObject({ ok: false, code: 'OWNERSHIP_FILE_TOKEN_MISMATCH' });
  });

  it('reports a missing file', async () => {
    const server = await serve('missing.test', { status: 404, body: 'no' });
    const outcome = await checkProof('https-file', 'missing.test', token, { fetcher: fetcherFor({ 'missing.test': '127.0.0.1' }), httpsPortForTests: server.port });
    expect(outcome).toMatchObject({ ok: false, code: 'OWNERSHIP_FILE_MISSING' });
  });

  it('refuses a domain that resolves to a private address without connecting', async () => {
    const outcome = await checkProof('https-file', 'intranet.test', token, { fetcher: fetcherFor({ 'intranet.test': '10.1.2.3' }) });
    expect(outcome).toMatchObject({ ok: false, code: 'OWNERSHIP_FILE_ADDRESS_REFUSED', cause: 'FETCH_ADDRESS_REFUSED' });
  });

  it('refuses loopback when the test admission is not given', async () => {
    const server = await serve('strict.test', { body: token });
    const strict = new SafeFetcher({ lookup: lookupFromMap({ 'strict.test': '127.0.0.1' }), ca: ca.cert });
    const outcome = await checkProof('https-file', 'strict.test', token, { fetcher: strict, httpsPortForTests: server.port });
    expect(outcome).toMatchObject({ ok: false, code: 'OWNERSHIP_FILE_ADDRESS_REFUSED' });
  });
});
