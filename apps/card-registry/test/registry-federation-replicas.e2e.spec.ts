/**
 * Federation on two registry replicas (processes) sharing one Postgres database and one Kafka cluster (librdkafka's
 * mock), both schedulers ticking every 200 ms over a slow HTTPS source: the source is crawled by one replica at a
 * time, never twice at once. A new source is crawled once by the schedulers; crawl-now through both replicas while a
 * crawl runs (or at the same moment) gets one crawl and 409 CRAWL_IN_PROGRESS; the source stream alternates claim and
 * close; the records reach the read model through Kafka.
 */
import { useKafkaCluster, waitUntil } from '@trustmesh/platform-testing';

import { OPERATOR_TOKEN } from './support/registry-app.fixture';
import { createRegistryPlacement, startRegistryChild, type RegistryChild, type RegistryPlacement } from './support/registry.child';
import { aiCard } from './support/registry-clients';
import { jsonRoute, seedCatalog, startFederationSite, type FederationSite } from './support/federation-site';

const WAIT = { timeoutMs: 120_000, intervalMs: 250 };
const TEST_TIMEOUT = 300_000;
const CATALOG = '/.well-known/ai-catalog.json';
/** Long enough for every scheduler tick and both crawl-now calls to meet a running crawl. */
const SLOW_MS = 1500;

describe('card registry federation on two replicas', () => {
  let placement: RegistryPlacement;
  let site: FederationSite;
  const replicas: RegistryChild[] = [];

  afterAll(async () => {
    for (const replica of replicas.splice(0)) await replica.kill();
    await placement?.dispose();
    await site?.close();
  });

  // After the afterAll that stops what uses the cluster: Jest runs afterAll hooks in the order they are declared,
  // and a cluster stopped first leaves every client waiting out its leave and disconnect timeouts.
  const kafka = useKafkaCluster();
  beforeAll(async () => {
    site = await startFederationSite(['acme.test']);
    placement = await createRegistryPlacement(kafka.brokers, 'registry-federation');
    const env = { ...site.registryEnv(), REGISTRY_FEDERATION_TICK_MS: '200', REGISTRY_FEDERATION_CRAWL_DEADLINE_MS: '30000' };
    replicas.push(...(await Promise.all(['registry-a', 'registry-b'].map((id) => startRegistryChild(placement, id, env)))));
  }, 180_000);
  const streamOf = async (sourceId: string) =>
    (await placement.query<{ event_type: string }>('SELECT event_type FROM events WHERE stream_id = $1 ORDER BY stream_version', [`registry-source-${sourceId}`])).map((row) => row.event_type);
  /** Claims and closes strictly alternate: no claim while another crawl of the source was open. */
  const claimsAlternate = (types: readonly string[]) => {
    let open = false;
    for (const type of types) {
      if (type === 'SourceCrawlStarted') {
        if (open) return false;
        open = true;
      } else if (type === 'SourceCrawled') open = false;
    }
    return true;
  };

  it('crawls a source on one replica at a time: the schedulers crawl it once, concurrent crawl-now calls get one crawl and 409', async () => {
    const [a, b] = replicas as [RegistryChild, RegistryChild];
    const origin = site.origin('acme.test');
    const identifier = 'urn:air:acme.test:agent:ledger';
    site.serve('acme.test', '/ledger.json', jsonRoute(aiCard('acme.test', { id: identifier }), '"ledger-1"'));
    site.serve('acme.test', CATALOG, { ...jsonRoute(seedCatalog('Acme', [{ id: identifier, cardUrl: `${origin}/ledger.json` }]), '"cat-1"'), headDelayMs: SLOW_MS });

    const added = await a.call('POST', '/v1/operator/sources', { token: OPERATOR_TOKEN, json: { url: origin } });
    expect(added.status).toBe(201);
    const sourceId = added.body.sourceId as string;
    // Both schedulers see a source never crawled: exactly one claims it.
    await waitUntil(async () => (await b.call('GET', `/v1/operator/sources/${sourceId}`, { token: OPERATOR_TOKEN })).body.lastCrawl !== null, { ...WAIT, what: 'the scheduled crawl' });
    let types = await streamOf(sourceId);
    expect(types.filter((type) => type === 'SourceCrawlStarted')).toHaveLength(1);
    expect(types.at(-1)).toBe('SourceCrawled');
    expect(types).toContain('RemoteCardObserved');
    expect(site.hits('acme.test', CATALOG)).toHaveLength(1);

    // Two operators ask both replicas to crawl at the same moment: one crawl runs, the other call is refused.
    const replies = await Promise.all([a, b].map((replica) => replica.call('POST', `/v1/operator/sources/${sourceId}/crawl`, { token: OPERATOR_TOKEN })));
    expect(replies.map((reply) => reply.status).sort()).toEqual([200, 409]);
    expect(replies.find((reply) => reply.status === 409)?.body.code).toBe('CRAWL_IN_PROGRESS');
    expect(replies.find((reply) => reply.status === 200)?.body.summary).toMatchObject({ records: 0, gone: 0 });
    expect(site.hits('acme.test', CATALOG)).toHaveLength(2);
    expect(site.hits('acme.test', CATALOG).at(-1)).toEqual({ ifNoneMatch: '"cat-1"' });

    types = await streamOf(sourceId);
    expect(types.filter((type) => type === 'SourceCrawlStarted')).toHaveLength(2);
    expect(claimsAlternate(types)).toBe(true);

    let rows: Array<{ source_id: string; status: string }> = [];
    await waitUntil(async () => {
      rows = await placement.query<{ source_id: string; status: string }>('SELECT source_id, status FROM registry_remote_cards WHERE identifier = $1', [identifier]);
      return rows.length > 0;
    }, { ...WAIT, what: 'the remote record in the read model' });
    expect(rows).toEqual([{ source_id: sourceId, status: 'active' }]);
    const mirrors = await b.call('GET', `/v1/cards/${encodeURIComponent(identifier)}?origin=remote`);
    expect(mirrors.body.mirrors).toEqual([expect.objectContaining({ sourceId, origin: 'remote', provenance: expect.objectContaining({ sourceUrl: `${origin}/`, etag: '"ledger-1"' }) })]);
  }, TEST_TIMEOUT);
});
