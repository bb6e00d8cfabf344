import { Resolver } from 'node:dns/promises';

import { startDnsServer, type DnsTestServer } from './dns-test-server';
import { decodeDnsQuery, DNS_TYPE, encodeDnsQuery, encodeTxtRdata } from './dns-wire.codec';

describe('DNS test server through node:dns Resolver', () => {
  let server: DnsTestServer;
  let resolver: Resolver;
  const long = 'v'.repeat(300);

  beforeAll(async () => {
    server = await startDnsServer({
      'acme.test': { a: ['192.0.2.10', '192.0.2.11'], txt: ['hello world', ['part one ', 'part two']] },
      'long.acme.test': { txt: [long] },
      'empty.acme.test': {},
    });
    resolver = new Resolver({ timeout: 1000, tries: 1 });
    resolver.setServers([server.address]);
  });
  afterAll(() => server.close());

  it('answers A queries', async () => {
    expect((await resolver.resolve4('acme.test')).sort()).toEqual(['192.0.2.10', '192.0.2.11']);
  });

  it('answers TXT queries with each record as its character-strings', async () => {
    expect(await resolver.resolveTxt('ACME.test')).toEqual(expect.arrayContaining([['hello world'], ['part one ', 'part two']]));
  });

  it('splits a TXT value over 255 bytes into several strings', async () => {
    const [record] = await resolver.resolveTxt('long.acme.test');
    expect(record?.map((s) => s.length)).toEqual([255, 45]);
    expect(record?.join('')).toBe(long);
  });

  it('answers NXDOMAIN for unknown names and no data for names without that type', async () => {
    await expect(resolver.resolveTxt('nobody.acme.test')).rejects.toMatchObject({ code: 'ENOTFOUND' });
    await expect(resolver.resolveTxt('empty.acme.test')).rejects.toMatchObject({ code: 'ENODATA' });
    expect(server.queries).toContain('nobody.acme.test');
  });
});

describe('DNS wire codec', () => {
  it('decodes a query it encoded', () => {
    const question = decodeDnsQuery(encodeDnsQuery(0x1234, '_trustmesh-challenge.Acme.TEST', DNS_TYPE.TXT));
    expect(question).toMatchObject({ id: 0x1234, name: '_trustmesh-challenge.acme.test', type: DNS_TYPE.TXT, qclass: 1 });
  });

  it('returns null for truncated, response or label-overflowing messages', () => {
    const query = encodeDnsQuery(1, 'acme.test', DNS_TYPE.A);
    expect(decodeDnsQuery(query.subarray(0, 10))).toBeNull();
    expect(decodeDnsQuery(query.subarray(0, query.length - 2))).toBeNull();
    const response = Uint8Array.from(query);
    response[2] = 0x81;
    expect(decodeDnsQuery(response)).toBeNull();
    const overflow = Uint8Array.from(query);
    overflow[12] = 64;
    expect(decodeDnsQuery(overflow)).toBeNull();
  });

  it('encodes an empty TXT string as one zero-length string', () => {
    expect(Array.from(encodeTxtRdata(['']))).toEqual([0]);
  });
});
