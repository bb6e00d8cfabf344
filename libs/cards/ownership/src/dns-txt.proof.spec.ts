import { startDnsServer, type DnsTestServer } from './testing';
import { challengeText, createChallengeToken } from './challenge-token';
import { checkDnsTxtProof, createTxtLookup, dnsChallengeName } from './dns-txt.proof';
import { checkProof } from './proof.checker';

describe('DNS TXT proof through a real DNS server', () => {
  const token = createChallengeToken();
  const other = createChallengeToken();
  const now = () => new Date('2026-12-03T08:00:00Z');
  let server: DnsTestServer;
  let silent: DnsTestServer;

  beforeAll(async () => {
    const value = challengeText(token);
    server = await startDnsServer({
      '_trustmesh-challenge.acme.test': { txt: ['v=spf1 -all', value] },
      '_trustmesh-challenge.split.test': { txt: [[value.slice(0, 20), value.slice(20)]] },
      '_trustmesh-challenge.stale.test': { txt: [challengeText(other)] },
      '_trustmesh-challenge.unrelated.test': { txt: ['google-site-verification=abc'] },
      '_trustmesh-challenge.slow.test': { silent: true },
    });
    silent = await startDnsServer({}, { neverAnswer: true });
  });
  afterAll(async () => {
    await server.close();
    await silent.close();
  });

  const lookup = () => createTxtLookup({ servers: [server.address], timeoutMs: 2000 });

  it('uses the _trustmesh-challenge name', () => {
    expect(dnsChallengeName('acme.test')).toBe('_trustmesh-challenge.acme.test');
  });

  it('accepts the record among other TXT records and grants subdomains', async () => {
    expect(await checkProof('dns-txt', 'acme.test', token, { txtLookup: lookup(), now })).toEqual({
      ok: true,
      method: 'dns-txt',
      checkedAt: '2026-12-03T08:00:00.000Z',
      grantsSubdomains: true,
    });
  });

  it('joins a record split into several character-strings', async () => {
    expect(await checkDnsTxtProof('split.test', token, lookup(), now)).toMatchObject({ ok: true });
  });

  it('reports a record with another token as a mismatch', async () => {
    expect(await checkDnsTxtProof('stale.test', token, lookup(), now)).toMatchObject({ ok: false, code: 'OWNERSHIP_DNS_TOKEN_MISMATCH' });
  });

  it('reports missing records, unrelated TXT and NXDOMAIN as missing, naming the record to publish', async () => {
    for (const domain of ['unrelated.test', 'nowhere.test']) {
      const outcome = await checkDnsTxtProof(domain, token, lookup(), now);
      expect(outcome).toMatchObject({ ok: false, code: 'OWNERSHIP_DNS_RECORD_MISSING' });
      if (!outcome.ok) expect(outcome.message).toContain(challengeText(token));
    }
  });

  it('times out when the server never answers', async () => {
    const slowLookup = createTxtLookup({ servers: [silent.address], timeoutMs: 300 });
    expect(await checkDnsTxtProof('acme.test', token, slowLookup, now)).toMatchObject({ ok: false, code: 'OWNERSHIP_DNS_TIMEOUT' });
    const oneSilentName = createTxtLookup({ servers: [server.address], timeoutMs: 300 });
    expect(await checkDnsTxtProof('slow.test', token, oneSilentName, now)).toMatchObject({ ok: false, code: 'OWNERSHIP_DNS_TIMEOUT' });
  });

  it('reports other resolver failures without their internal text', async () => {
    const broken = async (): Promise<string[][]> => {
      throw Object.assign(new Error('internal detail /etc/resolv.conf'), { code: 'ESERVFAIL' });
    };
    const outcome = await checkDnsTxtProof('acme.test', token, broken, now);
    expect(outcome).toMatchObject({ ok: false, code: 'OWNERSHIP_DNS_FAILED' });
    if (!outcome.ok) expect(outcome.message).not.toContain('resolv.conf');
  });
});
