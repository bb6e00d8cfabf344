/**
 * The WebSocket hop across replicas, traced: two real gateway processes on one Postgres server and Kafka
 * (librdkafka's mock cluster), a browser on replica A and its Companion on replica B, each process exporting
 * its spans over OTLP/HTTP to a collector in this test process. A browser's request frame starts a trace on
 * A; the record that carries it to B over `relay.companion-inbound.v1` is handled on B as a child of it, the
 * Companion's response frame on B joins that trace, and so does A's handling of the response B sends back
 * over the frames topic: one trace from the browser's request to its response. Each span names its replica
 * (`service.instance.id`, the replica id the logs carry).
 */
import { randomUUID } from 'node:crypto';

import { LOCAL_BUS_MIGRATIONS } from '@trustmesh/platform-bus';
import { deployMigrations } from '@trustmesh/platform-database';
import { createTestPostgresDatabase, type TestPostgresDatabase } from '@trustmesh/platform-database/testing';
import { EVENT_STORE_MIGRATIONS } from '@trustmesh/platform-event-store';
import { PROJECTION_MIGRATIONS } from '@trustmesh/platform-projections';
import { OTLP_SPAN_KIND, startOtlpTestCollector, useKafkaCluster, waitUntil, type CollectedSpan, type OtlpTestCollector } from '@trustmesh/platform-testing';

import { COMPANION_INBOUND_TOPIC, WORKSPACE_FRAMES_TOPIC } from '../../src/data-plane/frames-bus.records';
import { RELAY_GATEWAY_MIGRATIONS } from '../../src/persistence/relay-gateway.migrations';
import { frames } from './support/frames';
import { enrollThrough, replicaEnv, startGatewayChild, ticketFrom, type GatewayChild } from './support/gateway.child';
import { browser, companion, type TestPeer } from './support/peers';

const ORIGIN = 'https://app.example';

describe('a browser request traced from replica A to the Companion on replica B over Kafka', () => {
  const replicas: GatewayChild[] = [];
  const peers: TestPeer[] = [];
  let database: TestPostgresDatabase;
  let collector: OtlpTestCollector;

  afterAll(async () => {
    for (const peer of peers) peer.close();
    await Promise.all(replicas.map((replica) => replica.stop()));
    await database?.drop();
    await collector?.close();
  });

  // After the afterAll that stops what uses the cluster: Jest runs afterAll hooks in the order they are declared,
  // and a cluster stopped first leaves every client waiting out its leave and disconnect timeouts.
  const kafka = useKafkaCluster();
  beforeAll(async () => {
    collector = await startOtlpTestCollector();
    database = await createTestPostgresDatabase('relay-gateway-tracing-replicas');
    await deployMigrations({ mode: 'server', url: database.url }, [EVENT_STORE_MIGRATIONS, LOCAL_BUS_MIGRATIONS, PROJECTION_MIGRATIONS, RELAY_GATEWAY_MIGRATIONS]);
    const prefix = `t${randomUUID().slice(0, 8)}.`;
    const tracing = { OTEL_EXPORTER_OTLP_ENDPOINT: collector.endpoint, OTEL_BSP_SCHEDULE_DELAY: '50' };
    const started = await Promise.all(
      ['replica-a', 'replica-b'].map((replicaId) => startGatewayChild({ ...replicaEnv({ databaseUrl: database.url, bus: 'kafka', kafkaBrokers: kafka.brokers, topicPrefix: prefix }, replicaId), ...tracing })),
    );
    replicas.push(...started);
  }, 180_000);

  it('follows a browser request on A to the Companion on B and its response back to A in one trace', async () => {
    const [replicaA, replicaB] = replicas as [GatewayChild, GatewayChild];
    const device = await enrollThrough(replicaA);
    const { workspaceId } = device;
    const peer = await companion(replicaB.wsUrl, frames.deviceConnect(device.deviceId, device.credential));
    peers.push(peer);
    const session = await browser(replicaA.wsUrl, await ticketFrom(replicaA, workspaceId, 'user-1', ORIGIN), ORIGIN);
    peers.push(session);
    if (session.received[0]?.['workspaceStatus'] !== 'online') {
      await session.waitFor((frame) => frame.type === 'workspace.status' && frame['status'] === 'online', 'online');
    }
    session.send(frames.ack(workspaceId, -1));
    await peer.waitFor((frame) => frame.type === 'runtime.ack', 'the ACK at the Companion');

    const request = frames.request(workspaceId);
    session.send(request);
    await peer.waitFor((frame) => frame.type === 'runtime.request' && frame['requestId'] === request.requestId, 'the request at the Companion on B');

    const requestSpan = () => collector.spans().find((span) => span.name === 'relay.browser runtime.request' && span.attributes['relay.request.id'] === request.requestId);
    const handledOnB = (parent: CollectedSpan) =>
      collector.spans().find((span) => span.traceId === parent.traceId && span.parentSpanId === parent.spanId && span.kind === OTLP_SPAN_KIND.consumer && span.name === `process ${COMPANION_INBOUND_TOPIC}` && span.resource['service.instance.id'] === 'replica-b');
    await waitUntil(() => {
      const sent = requestSpan();
      return sent !== undefined && handledOnB(sent) !== undefined;
    }, { what: 'the companion-inbound consumer span in the request trace', timeoutMs: 60_000, intervalMs: 200 });

    const sent = requestSpan() as CollectedSpan;
    expect(sent).toMatchObject({ kind: OTLP_SPAN_KIND.server, parentSpanId: '', service: 'relay-gateway' });
    expect(handledOnB(sent)).toMatchObject({
      attributes: expect.objectContaining({ 'messaging.system': 'kafka', 'messaging.consumer.group.name': expect.stringMatching(/^relay-gateway\.inbound\./) }),
    });
    expect(sent.resource).toMatchObject({ 'service.instance.id': 'replica-a' });

    // The Companion answers on B: its response frame's span continues the request's trace, and A handles the
    // response record B publishes on the frames topic in that trace too, before the browser has it.
    peer.send(frames.response(workspaceId, request.requestId));
    await session.waitFor((frame) => frame.type === 'runtime.response' && frame['requestId'] === request.requestId, 'the response at the browser on A');
    const responseSpan = () => collector.spans().find((span) => span.name === 'relay.companion runtime.response' && span.attributes['relay.request.id'] === request.requestId);
    const responseOnA = (response: CollectedSpan) =>
      collector.spans().find(
        (span) =>
          span.traceId === response.traceId &&
          span.kind === OTLP_SPAN_KIND.consumer &&
          span.name === `process ${WORKSPACE_FRAMES_TOPIC}` &&
          span.resource['service.instance.id'] === 'replica-a' &&
          span.attributes['trustmesh.event.type'] === 'RelayResponseRouted',
      );
    await waitUntil(() => {
      const response = responseSpan();
      return response !== undefined && responseOnA(response) !== undefined;
    }, { what: "A's handling of the response in the request trace", timeoutMs: 60_000, intervalMs: 200 });
    const response = responseSpan() as CollectedSpan;
    expect(response).toMatchObject({ traceId: sent.traceId, parentSpanId: (handledOnB(sent) as CollectedSpan).spanId, kind: OTLP_SPAN_KIND.server, resource: expect.objectContaining({ 'service.instance.id': 'replica-b' }) });
    expect(collector.rejected).toBe(0);
  }, 180_000);
});
