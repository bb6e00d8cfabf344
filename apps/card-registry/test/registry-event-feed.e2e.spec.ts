/**
 * The registry's EventFeed (REGISTRY_FEED_CREDENTIALS, local bus): what a follower in another process reads of
 * `registry.cards.v1` from a real registry on embedded PGlite, through a real gRPC client. It carries the
 * registry's public facts and never a credential (issued credentials are stored with no topic); it answers only
 * its followers and only for `registry.cards.v1`; a registry configured without followers serves no feed.
 */
import { createHash } from 'node:crypto';

import * as grpc from '@grpc/grpc-js';
import { eventFeedV1GrpcJs } from '@trustmesh/contracts';
import { eventFeedClient, FeedReadError, type ReadTopicResponse } from '@trustmesh/platform-event-feed';

import { OPERATOR_TOKEN, onboard, startRegistryApp, type RegistryApp } from './support/registry-app.fixture';
import { aiCard, bytesOf } from './support/registry-clients';

const FEED_TOKEN = 'registry-feed-credential-for-tests-000001';
const TOPIC = 'registry.cards.v1';
const target = (address: string, credential: string) => ({ address, tls: null, credential: { reveal: () => credential } });

describe('the card registry\'s event feed (embedded, local bus)', () => {
  let app: RegistryApp;

  beforeAll(async () => {
    app = await startRegistryApp({ REGISTRY_FEED_CREDENTIALS: `shield:${createHash('sha256').update(FEED_TOKEN).digest('hex')}` });
  }, 120_000);
  afterAll(async () => {
    await app?.close();
  }, 60_000);

  /** Every record of the topic, read page by page from offset 0 of each partition. */
  async function readAll(credential = FEED_TOKEN): Promise<ReadTopicResponse['records']> {
    const client = eventFeedClient(target(app.handle.grpcAddress, credential));
    try {
      const first = await client.read({ topic: TOPIC, positions: [], maxRecords: 1, waitMs: 0 });
      const records: ReadTopicResponse['records'] = [];
      const next = new Map(Array.from({ length: first.partitions }, (_, partition) => [partition, 0]));
      for (;;) {
        const page = await client.read({ topic: TOPIC, positions: [...next].map(([partition, fromOffset]) => ({ partition, fromOffset })), maxRecords: 50, waitMs: 0 });
        if (page.records.length === 0) return records;
        for (const record of page.records) {
          records.push(record);
          next.set(record.partition, record.offset + 1);
        }
      }
    } finally {
      client.close();
    }
  }

  it('serves its followers the public facts of registry.cards.v1, never a credential', async () => {
    const publisherCredential = await onboard(app.call, 'acme', ['acme.example']);
    expect((await app.call('POST', '/v1/cards', { token: publisherCredential, raw: bytesOf(aiCard('acme.example', { id: 'https://acme.example/agents/alpha' })) })).status).toBe(201);
    const second = await app.call('POST', '/v1/operator/publishers/acme/credentials', { token: OPERATOR_TOKEN, json: { label: 'second' } });
    expect(second.status).toBe(201);

    const records = await readAll();
    const types = records.map((record) => (JSON.parse(record.value) as { eventType: string }).eventType);
    expect(types).toEqual(expect.arrayContaining(['PublisherRegistered', 'NamespaceGranted', 'CardRevisionPublished']));
    expect(types.filter((type) => type.startsWith('PublisherCredential') || type.startsWith('NamespaceClaim'))).toEqual([]);
    // Neither a credential nor its digest travels.
    const secret = publisherCredential.slice(publisherCredential.indexOf('.') + 1);
    const all = records.map((record) => record.value).join('\n');
    for (const text of [publisherCredential, secret, createHash('sha256').update(secret).digest('hex'), String(second.body.credential)]) expect(all).not.toContain(text);
  }, 120_000);

  it('answers only its followers, and only for registry.cards.v1', async () => {
    const refused = async (credential: string, topic = TOPIC) => {
      const client = eventFeedClient(target(app.handle.grpcAddress, credential));
      try {
        await client.read({ topic, positions: [], maxRecords: 1, waitMs: 0 });
        return 'answered';
      } catch (error) {
        return error instanceof FeedReadError ? error.code : 'other';
      } finally {
        client.close();
      }
    };
    // The operator's credential is not a feed credential.
    expect(await refused(OPERATOR_TOKEN)).toBe('FEED_UNAUTHENTICATED');
    expect(await refused('not-a-feed-credential-0000000000')).toBe('FEED_UNAUTHENTICATED');
    expect(await refused(FEED_TOKEN, 'registry.cards.v1.dlq')).toBe('FEED_TOPIC_NOT_SERVED');
    expect(await refused(FEED_TOKEN)).toBe('answered');
  }, 60_000);

  it('serves no feed when no follower is configured', async () => {
    const plain = await startRegistryApp();
    try {
      const client = new eventFeedV1GrpcJs.EventFeedClient(plain.handle.grpcAddress, grpc.credentials.createInsecure());
      const metadata = new grpc.Metadata();
      metadata.set('authorization', `Bearer ${FEED_TOKEN}`);
      const status = await new Promise<grpc.status | 'answered'>((resolve) =>
        client.readTopic({ topic: TOPIC, positions: [], maxRecords: 1, waitMs: 0 }, metadata, (error) => resolve(error ? error.code : 'answered')),
      );
      client.close();
      expect(status).toBe(grpc.status.UNIMPLEMENTED);
    } finally {
      await plain.close();
    }
  }, 120_000);
});
