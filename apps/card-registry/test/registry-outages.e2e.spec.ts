/**
 * The card registry in server mode (its own process, Postgres, Kafka) through outages of what it runs on,
 * as a user of it notices them:
 * - the Kafka brokers gone for a while (every connection of the process reset, new ones refused, as a
 *   broker restart looks to it): publishes are still acknowledged, since the namespace's event stream and
 *   the outbox are in Postgres, and a single-card read sees them at once; /readyz says not ready (the bus
 *   check named) while /healthz stays 200 and the process lives on; once the brokers are back /readyz
 *   recovers, the outbox drains and search finds every acknowledged card, each once;
 * - the database gone (new sessions refused, every open one terminated): publishes, reads, search and
 *   operator calls answer 503 `REGISTRY_UNAVAILABLE` (gRPC: UNAVAILABLE, same code) without internal text, /healthz stays 200 while
 *   /readyz says the database is unavailable; once it is back everything works again, every card
 *   acknowledged before the outage is still there, and the cards published just before it (whose events
 *   may reach the projection while it cannot write) are searchable: held, never dead-lettered.
 */
import { status } from '@grpc/grpc-js';
import { databaseOutage } from '@trustmesh/platform-database/testing';
import { useKafkaCluster, waitUntil } from '@trustmesh/platform-testing';

import { OPERATOR_TOKEN, onboard } from './support/registry-app.fixture';
import { aiCard, bytesOf, cardPath, type Reply } from './support/registry-clients';
import { registryGrpcClient } from './support/registry-grpc.client';
import { createRegistryPlacement, startRegistryChild, type RegistryChild, type RegistryPlacement } from './support/registry.child';

const WAIT = { timeoutMs: 120_000, intervalMs: 250 };
/** How long each outage is held while the test keeps using the registry: long enough for every retry loop inside to give up once. */
const OUTAGE_MS = 25_000;
/** Beyond every wait of a test: on a loaded machine a consumer group can take several session timeouts to settle. */
const TEST_TIMEOUT = 300_000;
const DOMAIN = 'outage.example';
/** Internal text a refusal must never carry. */
const INTERNAL_TEXT = /postgres|connection|ECONN|57P0|55000|kafka|broker|prisma|stack|Error:/i;

const card = (name: string) => bytesOf(aiCard(DOMAIN, { id: `https://${DOMAIN}/agents/${name}`, name: `Agent ${name}`, tags: ['outage-suite'] }));
const identifierOf = (name: string) => `https://${DOMAIN}/agents/${name}`;
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

async function probe(baseUrl: string, path: '/healthz' | '/readyz'): Promise<{ status: number; body: any }> {
  const response = await fetch(`${baseUrl}${path}`);
  return { status: response.status, body: await response.json() };
}

/** Every identifier search lists under the suite's tag (all pages). */
async function searchable(registry: RegistryChild): Promise<string[]> {
  const found: string[] = [];
  let cursor: string | null = null;
  do {
    const reply: Reply = await registry.call('GET', `/v1/search?tag=outage-suite&limit=100${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`);
    if (reply.status !== 200) return [];
    found.push(...reply.body.items.map((item: { identifier: string }) => item.identifier));
    cursor = reply.body.nextCursor;
  } while (cursor);
  return found.sort();
}

describe('card registry through broker and database outages', () => {
  const kafka = useKafkaCluster();
  let placement: RegistryPlacement;
  let registry: RegistryChild;
  let token: string;

  beforeEach(async () => {
    placement = await createRegistryPlacement(kafka.brokers, 'registry-outages');
    registry = await startRegistryChild(placement, 'outage-a');
    token = await onboard(registry.call, 'outage', [DOMAIN]);
  }, 120_000);
  afterEach(async () => {
    await registry?.kill();
    await placement?.dispose();
  });

  const publish = (name: string) => registry.call('POST', '/v1/cards', { token, raw: card(name) });
  const unpublished = async () => Number((await placement.query<{ n: string }>('SELECT count(*)::text AS n FROM outbox WHERE published_at IS NULL'))[0]?.n);

  it('acknowledges publishes while the brokers are down, reports not ready meanwhile, and makes each searchable once they are back', async () => {
    const first = await publish('before');
    expect(first.status).toBe(201);
    // The projection runs before the outage: the first card reached the read model over Kafka.
    await waitUntil(async () => (await searchable(registry)).length === 1, { ...WAIT, what: 'the first card searchable' });
    expect((await probe(registry.httpUrl, '/readyz')).status).toBe(200);

    await registry.brokerGate.down();
    const acknowledged = [identifierOf('before')];
    await waitUntil(async () => (await probe(registry.operatorUrl, '/readyz')).status === 503, { ...WAIT, what: '/readyz to report the outage' });
    const started = Date.now();
    for (let i = 0; Date.now() - started < OUTAGE_MS; i += 1) {
      const reply = await publish(`during-${i}`);
      // Stored in Postgres with its outbox row: acknowledged although no broker is reachable.
      expect(reply.status).toBe(201);
      acknowledged.push(reply.body.identifier);
      // A publisher reads its own write at once: the single-card read folds the namespace's stream.
      const read = await registry.call('GET', cardPath(reply.body.identifier));
      expect(read.status).toBe(200);
      expect(read.body.latest.revision).toBe(reply.body.revision);
      for (const baseUrl of [registry.httpUrl, registry.operatorUrl]) {
        expect(await probe(baseUrl, '/healthz')).toEqual({ status: 200, body: { status: 'ok' } });
        const ready = await probe(baseUrl, '/readyz');
        expect(ready.status).toBe(503);
        expect(ready.body).toMatchObject({ status: 'not-ready', checks: { database: 'ok' } });
        expect(ready.body.checks.bus).not.toBe('ok');
      }
      await sleep(1_000);
    }
    expect(acknowledged.length).toBeGreaterThan(3);
    // Nothing reached the read model over the bus meanwhile.
    expect(await searchable(registry)).toEqual([identifierOf('before')]);

    await registry.brokerGate.up();
    await waitUntil(async () => (await probe(registry.operatorUrl, '/readyz')).status === 200, { ...WAIT, what: '/readyz to recover' });
    expect((await probe(registry.httpUrl, '/readyz')).body).toEqual({ status: 'ready', checks: { database: 'ok', bus: 'ok' } });
    await waitUntil(async () => (await unpublished()) === 0, { ...WAIT, what: 'the outbox published' });
    await waitUntil(async () => (await searchable(registry)).length >= acknowledged.length, { ...WAIT, what: 'search to catch up after the outage' });
    expect(await searchable(registry)).toEqual([...acknowledged].sort());
    const projected = await placement.query<{ identifier: string; n: string }>('SELECT identifier, count(*)::text AS n FROM registry_card_revisions GROUP BY identifier');
    expect(projected.map((row) => row.identifier).sort()).toEqual([...acknowledged].sort());
    expect(projected.every((row) => row.n === '1')).toBe(true);
    // The process never went away: it still takes writes. An outage is never a reason to dead-letter.
    expect((await publish('after')).status).toBe(201);
    expect(registry.logs.filter((line) => line.includes('dead-lettered'))).toEqual([]);
  }, TEST_TIMEOUT);

  it('answers 503 REGISTRY_UNAVAILABLE while the database is down, stays alive but not ready, and serves everything again once it is back', async () => {
    const before = await publish('before');
    expect(before.status).toBe(201);
    await waitUntil(async () => (await searchable(registry)).length === 1, { ...WAIT, what: 'the first card searchable' });

    const outage = await databaseOutage(placement.database);
    // Acknowledged moments before the outage: their events are on their way to the projection when it starts.
    const burst = await Promise.all([0, 1, 2, 3, 4].map((i) => publish(`burst-${i}`)));
    for (const reply of burst) expect(reply.status).toBe(201);
    const rpc = registryGrpcClient(registry.grpcAddress);
    const refused: unknown[] = [];
    try {
      expect(await outage.down()).toBeGreaterThan(0);
      await waitUntil(async () => (await probe(registry.operatorUrl, '/readyz')).status === 503, { ...WAIT, what: '/readyz to report the outage' });
      const started = Date.now();
      for (let i = 0; Date.now() - started < OUTAGE_MS; i += 1) {
        const round = [
          await publish(`during-${i}`),
          await registry.call('GET', cardPath(identifierOf('before'))),
          await registry.call('GET', cardPath(identifierOf('before'), '/revisions')),
          await registry.call('GET', '/v1/search?tag=outage-suite'),
          await registry.call('GET', '/v1/changes'),
          await registry.call('GET', `/namespaces/${DOMAIN}/.well-known/ai-catalog.json`),
          await registry.call('GET', '/v1/operator/publishers/outage', { token: OPERATOR_TOKEN }),
          // The caller's credential cannot be checked either: that is the database's outage, not the caller's fault.
          await registry.call('POST', cardPath(identifierOf('before'), '/status'), { token, json: { status: 'deprecated' } }),
        ];
        for (const reply of round) {
          expect({ status: reply.status, code: reply.body?.code }).toEqual({ status: 503, code: 'REGISTRY_UNAVAILABLE' });
          expect(reply.headers.get('retry-after')).toMatch(/^\d+$/);
        }
        refused.push(...round.map((reply) => reply.body));
        const overGrpc = [
          await rpc.cards.publishCard({ document: Buffer.from(card(`grpc-${i}`)), kind: 0, identifier: '', dryRun: false }, token),
          await rpc.cards.getCard({ identifier: identifierOf('before'), revision: '' }),
        ];
        for (const reply of overGrpc) {
          expect(reply.error?.code).toBe(status.UNAVAILABLE);
          expect(reply.refusal?.code).toBe('REGISTRY_UNAVAILABLE');
          refused.push(reply.error?.details, reply.refusal);
        }
        for (const baseUrl of [registry.httpUrl, registry.operatorUrl]) {
          expect(await probe(baseUrl, '/healthz')).toEqual({ status: 200, body: { status: 'ok' } });
          const ready = await probe(baseUrl, '/readyz');
          expect(ready).toMatchObject({ status: 503, body: { status: 'not-ready', checks: { database: 'unavailable' } } });
        }
        await sleep(1_000);
      }
      // Nothing internal leaks into an answer.
      expect(JSON.stringify(refused)).not.toMatch(INTERNAL_TEXT);
    } finally {
      rpc.close();
      await outage.up();
      await outage.dispose();
    }

    const accepted: string[] = [];
    await waitUntil(async () => {
      const reply = await publish('after');
      if (reply.status === 201) accepted.push(reply.body.identifier);
      else expect({ status: reply.status, code: reply.body?.code }).toEqual({ status: 503, code: 'REGISTRY_UNAVAILABLE' });
      return reply.status === 201;
    }, { ...WAIT, what: 'the registry back with its database' });
    await waitUntil(async () => (await probe(registry.operatorUrl, '/readyz')).status === 200, { ...WAIT, what: '/readyz to recover' });
    // The card acknowledged before the outage is there; none of the refused publishes is.
    const listed = await registry.call('GET', cardPath(identifierOf('before'), '/revisions'));
    expect(listed.status).toBe(200);
    expect(listed.body.revisions.map((revision: { revision: string }) => revision.revision)).toEqual([before.body.revision]);
    expect(listed.body.revisions[0].status).toBe('active');
    const expected = ['after', 'before', ...[0, 1, 2, 3, 4].map((i) => `burst-${i}`)].map(identifierOf).sort();
    await waitUntil(async () => (await searchable(registry)).length === expected.length, { ...WAIT, what: 'search after the outage' });
    expect(await searchable(registry)).toEqual(expected);
    expect(accepted).toEqual([identifierOf('after')]);
    expect(registry.logs.filter((line) => line.includes('dead-lettered'))).toEqual([]);
  }, TEST_TIMEOUT);
});
