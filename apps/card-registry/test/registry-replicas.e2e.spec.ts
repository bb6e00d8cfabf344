/**
 * Two card registry replicas (processes) on one Postgres database and one Kafka cluster (librdkafka's
 * mock), as a deployment scales them: publishers racing on one revision with different bytes through
 * both replicas at once get exactly one winner and one 409 REVISION_CONFLICT; both replicas serve the
 * winner's bytes; the event log holds one publication per revision; and the read model (projected from
 * Kafka by whichever replica holds the partition) agrees with it.
 */
import { useKafkaCluster, waitUntil } from '@trustmesh/platform-testing';

import { onboard, OPERATOR_TOKEN } from './support/registry-app.fixture';
import { createRegistryPlacement, startRegistryChild, type RegistryChild, type RegistryPlacement } from './support/registry.child';
import { aiCard, bytesOf, cardPath } from './support/registry-clients';

const WAIT = { timeoutMs: 120_000, intervalMs: 250 };
/** Beyond every wait: on a loaded machine a consumer group can take several session timeouts to settle. */
const TEST_TIMEOUT = 300_000;
const REVISION = encodeURIComponent('2026-02-01T10:00:00Z');

describe('card registry replicas on one Postgres and Kafka', () => {
  let placement: RegistryPlacement;
  const replicas: RegistryChild[] = [];

  afterAll(async () => {
    for (const replica of replicas.splice(0)) await replica.kill();
    await placement?.dispose();
  });

  // After the afterAll that stops what uses the cluster: Jest runs afterAll hooks in the order they are declared,
  // and a cluster stopped first leaves every client waiting out its leave and disconnect timeouts.
  const kafka = useKafkaCluster();
  beforeAll(async () => {
    placement = await createRegistryPlacement(kafka.brokers, 'registry-replicas');
    replicas.push(...(await Promise.all(['registry-a', 'registry-b'].map((id) => startRegistryChild(placement, id)))));
  }, 180_000);
  it('lets exactly one of two replicas take a contested revision; both then serve the winner, the log and the read model agree', async () => {
    const [a, b] = replicas as [RegistryChild, RegistryChild];
    const left = await onboard(a.call, 'acme', ['acme.example']);
    // A second credential of the same publisher, used through the other replica: two CI jobs at once.
    const right = (await b.call('POST', '/v1/operator/publishers/acme/credentials', { token: OPERATOR_TOKEN, json: {} })).body.credential as string;

    const winners = new Map<string, string>();
    for (let round = 0; round < 6; round += 1) {
      const identifier = `https://acme.example/agents/contested-${round}`;
      const documents = ['A', 'B'].map((side) => bytesOf(aiCard('acme.example', { id: identifier, description: `Published through replica ${side}` })));
      const replies = await Promise.all([
        a.call('POST', '/v1/cards', { token: left, raw: documents[0] }),
        b.call('POST', '/v1/cards', { token: right, raw: documents[1] }),
      ]);
      expect(replies.map((reply) => reply.status).sort()).toEqual([201, 409]);
      expect(replies.find((reply) => reply.status === 409)?.body.code).toBe('REVISION_CONFLICT');
      const winner = replies.findIndex((reply) => reply.status === 201);
      winners.set(identifier, replies[winner]?.body.digest);
      for (const replica of [a, b]) {
        const served = await replica.call('GET', cardPath(identifier, `/revisions/${REVISION}`));
        expect(served.bytes.toString('utf8')).toBe(documents[winner]);
      }
    }

    const published = await placement.query<{ n: string }>(`SELECT count(*) AS n FROM events WHERE event_type = 'CardRevisionPublished' AND stream_id = 'registry-namespace-acme.example'`);
    expect(Number(published[0]?.n)).toBe(winners.size);
    let rows: Array<{ identifier: string; digest: string }> = [];
    await waitUntil(async () => {
      rows = await placement.query<{ identifier: string; digest: string }>(`SELECT identifier, digest FROM registry_card_revisions WHERE identifier LIKE 'https://acme.example/agents/contested-%'`);
      return rows.length >= winners.size;
    }, { ...WAIT, what: 'every contested revision in the read model' });
    expect(new Map(rows.map((row) => [row.identifier, row.digest]))).toEqual(winners);
  }, TEST_TIMEOUT);

  it('carries a card near REGISTRY_MAX_CARD_BYTES through the outbox and Kafka into the read model', async () => {
    const [a, b] = replicas as [RegistryChild, RegistryChild];
    const token = (await a.call('POST', '/v1/operator/publishers/acme/credentials', { token: OPERATOR_TOKEN, json: {} })).body.credential as string;
    const identifier = 'https://acme.example/agents/large';
    const raw = bytesOf(aiCard('acme.example', { id: identifier, metadata: { notes: 'n'.repeat(500 * 1024) } }));
    expect(Buffer.byteLength(raw)).toBeLessThan(512 * 1024);
    expect((await b.call('POST', '/v1/cards', { token, raw })).status).toBe(201);
    let stored: Array<{ size: number }> = [];
    await waitUntil(async () => {
      stored = await placement.query<{ size: number }>('SELECT octet_length(content) AS size FROM registry_card_revisions WHERE identifier = $1', [identifier]);
      return stored.length === 1;
    }, { ...WAIT, what: 'the large revision in the read model' });
    expect(Number(stored[0]?.size)).toBe(Buffer.byteLength(raw));
  }, TEST_TIMEOUT);
});
