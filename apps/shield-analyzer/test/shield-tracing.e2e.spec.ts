/**
 * One request followed as one trace: a caller's gRPC `OpenCase` (its `traceparent` in the metadata) into the
 * running analyzer, the `ShieldCaseOpened` event through the event store and the bus (the local bus over the
 * embedded database, and Kafka: librdkafka's mock cluster), and the read-model projection that handles it.
 * The spans are what an operator's collector receives: the exporter posts OTLP/HTTP to a collector in this
 * process. A REST request with a `traceparent` header is followed the same way. A bad endpoint stops the start
 * with a stable code.
 */
import { randomBytes } from 'node:crypto';

import * as grpc from '@grpc/grpc-js';
import { shieldAnalyzerV1GrpcJs as S } from '@trustmesh/contracts';
import { MOCK_CLUSTER_SESSION, OTLP_SPAN_KIND, startOtlpTestCollector, uniqueName, useKafkaCluster, type CollectedSpan, type OtlpTestCollector } from '@trustmesh/platform-testing';

import { ACME_TOKEN, caseInput, startShieldApp } from './support/shield-app.fixture';

const hex = (bytes: number) => randomBytes(bytes).toString('hex');

/** Opens a case over gRPC as a traced caller would: bearer and `traceparent` in the metadata. */
function openCaseTraced(address: string, traceparent: string): Promise<string> {
  const client = new S.ShieldAnalyzerClient(address, grpc.credentials.createInsecure());
  const metadata = new grpc.Metadata();
  metadata.set('authorization', `Bearer ${ACME_TOKEN}`);
  metadata.set('traceparent', traceparent);
  return new Promise<string>((resolve, reject) =>
    client.openCase({ caseInputJson: JSON.stringify(caseInput()) }, metadata, (error, response) => {
      client.close();
      if (error) reject(error);
      else resolve((JSON.parse(response.caseRecordJson) as { caseId: string }).caseId);
    }),
  );
}

describe('Shield analyzer traces across gRPC, the bus and the projection', () => {
  const kafka = useKafkaCluster();
  let collector: OtlpTestCollector;
  beforeAll(async () => {
    collector = await startOtlpTestCollector();
  });
  afterAll(async () => {
    await collector?.close();
  });

  const buses = [
    ['local', () => ({})],
    ['kafka', () => ({ TRUSTMESH_BUS: 'kafka', KAFKA_BROKERS: kafka.brokers.join(','), ...MOCK_CLUSTER_SESSION, TRUSTMESH_TOPIC_PREFIX: `${uniqueName('trace')}.` })],
  ] as const;

  it.each(buses)('follows OpenCase into its event and the projection that applies it (%s bus)', async (bus, busEnv) => {
    const app = await startShieldApp({ ...busEnv(), OTEL_EXPORTER_OTLP_ENDPOINT: collector.endpoint });
    const traceId = hex(16);
    const callerSpanId = hex(8);
    try {
      const caseId = await openCaseTraced(app.handle.grpcAddress, `00-${traceId}-${callerSpanId}-01`);
      // The projection has applied the event once the case is listed.
      await app.eventually(async () => {
        const listed = await app.call('GET', '/v0.1/shield/cases', ACME_TOKEN);
        return (listed.body as Array<{ caseId: string }>).some((record) => record.caseId === caseId) ? true : undefined;
      }, 60_000);
    } finally {
      // Closing flushes every finished span to the collector.
      await app.close();
    }

    const trace = collector.spans().filter((span) => span.traceId === traceId);
    const server = only(trace, (span) => span.kind === OTLP_SPAN_KIND.server);
    expect(server).toMatchObject({
      name: 'trustmesh.shield.v1.ShieldAnalyzer/OpenCase',
      parentSpanId: callerSpanId,
      service: 'shield-analyzer',
      attributes: expect.objectContaining({ 'rpc.system': 'grpc', 'rpc.grpc.status_code': grpc.status.OK }),
    });
    // The projection's handling is a child of the call that produced the event, across the outbox and the bus.
    const opened = only(trace, (span) => span.kind === OTLP_SPAN_KIND.consumer && span.attributes['trustmesh.event.type'] === 'ShieldCaseOpened');
    expect(opened).toMatchObject({
      name: 'process shield.cases.v1',
      parentSpanId: server.spanId,
      attributes: expect.objectContaining({ 'messaging.system': bus === 'kafka' ? 'kafka' : 'trustmesh_local', 'messaging.destination.name': 'shield.cases.v1' }),
    });
    if (bus === 'kafka') {
      // On Kafka the outbox publishes later, outside the call: its send is still in the call's trace.
      const send = only(trace, (span) => span.kind === OTLP_SPAN_KIND.producer);
      expect(send).toMatchObject({ name: 'send shield.cases.v1', parentSpanId: server.spanId, attributes: expect.objectContaining({ 'messaging.system': 'kafka' }) });
    }
    expect(collector.rejected).toBe(0);
  }, 180_000);

  it('follows a REST request with a traceparent header into the projection (local bus)', async () => {
    const app = await startShieldApp({ OTEL_EXPORTER_OTLP_ENDPOINT: collector.endpoint });
    const traceId = hex(16);
    const callerSpanId = hex(8);
    try {
      const opened = await fetch(`${app.handle.httpUrl}/v0.1/shield/cases`, {
        method: 'POST',
        headers: { authorization: `Bearer ${ACME_TOKEN}`, 'content-type': 'application/json', traceparent: `00-${traceId}-${callerSpanId}-01` },
        body: JSON.stringify(caseInput()),
      });
      expect(opened.status).toBe(201);
      const { caseId } = (await opened.json()) as { caseId: string };
      await app.eventually(async () => {
        const listed = await app.call('GET', '/v0.1/shield/cases', ACME_TOKEN);
        return (listed.body as Array<{ caseId: string }>).some((record) => record.caseId === caseId) ? true : undefined;
      }, 60_000);
    } finally {
      await app.close();
    }
    const trace = collector.spans().filter((span) => span.traceId === traceId);
    const server = only(trace, (span) => span.kind === OTLP_SPAN_KIND.server);
    expect(server).toMatchObject({
      name: 'POST',
      parentSpanId: callerSpanId,
      attributes: expect.objectContaining({ 'http.request.method': 'POST', 'url.path': '/v0.1/shield/cases', 'http.response.status_code': 201 }),
    });
    const opened = only(trace, (span) => span.kind === OTLP_SPAN_KIND.consumer && span.attributes['trustmesh.event.type'] === 'ShieldCaseOpened');
    expect(opened.parentSpanId).toBe(server.spanId);
  }, 120_000);

  it('refuses a bad OTLP endpoint at start with TRACING_CONFIG_INVALID naming the variable', async () => {
    await expect(startShieldApp({ OTEL_EXPORTER_OTLP_ENDPOINT: 'collector:4318' })).rejects.toMatchObject({
      code: 'TRACING_CONFIG_INVALID',
      problems: [expect.objectContaining({ variable: 'OTEL_EXPORTER_OTLP_ENDPOINT' })],
    });
  });
});

function only(spans: CollectedSpan[], match: (span: CollectedSpan) => boolean): CollectedSpan {
  const found = spans.filter(match);
  expect(found).toHaveLength(1);
  return found[0] as CollectedSpan;
}
