/**
 * The gRPC API and the limits of a registry in server mode, as a deployment runs it: one replica (its own
 * process) on Postgres and Kafka (librdkafka's mock), configured only by environment variables. The
 * operator onboards a publisher over gRPC, the publisher publishes over gRPC and meets a conflict with its
 * trailer, REST serves the bytes gRPC stored, and the read limit answers 429 + Retry-After on REST and
 * RESOURCE_EXHAUSTED on gRPC from the one allowance.
 */
import * as grpc from '@grpc/grpc-js';
import { cardRegistryV1GrpcJs as v1 } from '@trustmesh/contracts';
import { useKafkaCluster } from '@trustmesh/platform-testing';

import { OPERATOR_TOKEN } from './support/registry-app.fixture';
import { createRegistryPlacement, startRegistryChild, type RegistryChild, type RegistryPlacement } from './support/registry.child';
import { aiCard, bytesOf, cardPath } from './support/registry-clients';
import { registryGrpcClient, type RegistryGrpc } from './support/registry-grpc.client';

const READS_PER_MINUTE = 4;

describe('card registry gRPC and limits on Postgres and Kafka', () => {
  let placement: RegistryPlacement;
  let replica: RegistryChild;
  let rpc: RegistryGrpc;

  afterAll(async () => {
    rpc?.close();
    await replica?.stop();
    await placement?.dispose();
  });

  // After the afterAll that stops what uses the cluster: Jest runs afterAll hooks in the order they are declared,
  // and a cluster stopped first leaves every client waiting out its leave and disconnect timeouts.
  const kafka = useKafkaCluster();
  beforeAll(async () => {
    placement = await createRegistryPlacement(kafka.brokers, 'registry-grpc');
    replica = await startRegistryChild(placement, 'registry-grpc-a', { REGISTRY_RATE_READS_PER_MINUTE: String(READS_PER_MINUTE) });
    rpc = registryGrpcClient(replica.grpcAddress);
  }, 180_000);
  it('onboards and publishes over gRPC, refuses a conflict with its trailer, serves the bytes over REST, and limits reads on both transports', async () => {
    const publisherId = (await rpc.operator.createPublisher({ displayName: 'Acme Ltd', requestId: '0b9e8c4a-1d2f-4e3a-9b8c-7d6e5f4a3b2c' }, OPERATOR_TOKEN)).response?.publisher?.publisherId ?? '';
    expect((await rpc.operator.grantNamespace({ publisherId, namespace: 'acme.example' }, OPERATOR_TOKEN)).response?.namespace?.publisherId).toBe(publisherId);
    const token = (await rpc.operator.issueCredential({ publisherId, name: 'ci', expiresInDays: 30 }, OPERATOR_TOKEN)).response?.credential ?? '';

    const identifier = 'https://acme.example/agents/server-mode';
    const bytes = Buffer.from(bytesOf(aiCard('acme.example', { id: identifier })));
    const created = await rpc.cards.publishCard({ document: bytes, kind: 0, identifier: '', dryRun: false }, token);
    expect(created.response?.outcome).toBe(v1.PublishOutcome.CREATED);
    const conflict = await rpc.cards.publishCard({ document: Buffer.from(bytesOf(aiCard('acme.example', { id: identifier, name: 'Other' }))), kind: 0, identifier: '', dryRun: false }, token);
    expect(conflict.error?.code).toBe(grpc.status.ALREADY_EXISTS);
    expect(conflict.refusal).toMatchObject({ code: 'REVISION_CONFLICT', issues: [{ path: '/revision' }] });

    // Reads: the REST read and the gRPC read spend one allowance.
    const served = await replica.call('GET', cardPath(identifier, `/revisions/${encodeURIComponent('2026-02-01T10:00:00Z')}`));
    expect(served.bytes.equals(bytes)).toBe(true);
    expect(Buffer.from((await rpc.cards.getCard({ identifier, revision: '' })).response?.card?.document ?? []).equals(bytes)).toBe(true);
    for (let index = 2; index < READS_PER_MINUTE; index += 1) expect((await replica.call('GET', cardPath(identifier))).status).toBe(200);
    const limited = await replica.call('GET', cardPath(identifier));
    expect(limited.status).toBe(429);
    expect(Number(limited.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
    expect(limited.body).toMatchObject({ code: 'RATE_LIMITED', status: 429 });
    const overGrpc = await rpc.cards.getCard({ identifier, revision: '' });
    expect(overGrpc.error?.code).toBe(grpc.status.RESOURCE_EXHAUSTED);
    expect(overGrpc.refusal?.retryAfterSeconds).toBeGreaterThanOrEqual(1);
  }, 300_000);
});
