/**
 * The registry traced, as an operator's collector receives it over OTLP/HTTP (a collector in this process):
 * an operator's gRPC CreatePublisher starts a trace in its server span, and the event it appends travels the
 * outbox and the bus to the registry's projections, whose handling is a child of that call.
 */
import { OTLP_SPAN_KIND, startOtlpTestCollector, waitUntil, type CollectedSpan, type OtlpTestCollector } from '@trustmesh/platform-testing';

import { OPERATOR_TOKEN, startRegistryApp, type RegistryApp } from './support/registry-app.fixture';
import { registryGrpcClient, type RegistryGrpc } from './support/registry-grpc.client';

describe('card registry: traces', () => {
  let collector: OtlpTestCollector;
  let app: RegistryApp | undefined;
  let rpc: RegistryGrpc | undefined;
  beforeAll(async () => {
    collector = await startOtlpTestCollector();
  });
  afterAll(async () => {
    rpc?.close();
    await app?.close();
    await collector?.close();
  });

  it('follows CreatePublisher from its server span into the projections that handle its event', async () => {
    app = await startRegistryApp({ OTEL_EXPORTER_OTLP_ENDPOINT: collector.endpoint, OTEL_BSP_SCHEDULE_DELAY: '50' });
    rpc = registryGrpcClient(app.handle.grpcAddress);
    const created = await rpc.operator.createPublisher({ displayName: 'Traced Ltd', requestId: '' }, OPERATOR_TOKEN);
    expect(created.error).toBeUndefined();

    const call = () => collector.spans().find((span) => span.name === 'trustmesh.registry.v1.CardRegistryOperator/CreatePublisher');
    const handled = (server: CollectedSpan) =>
      collector.spans().filter((span) => span.traceId === server.traceId && span.kind === OTLP_SPAN_KIND.consumer && span.attributes['trustmesh.event.type'] === 'PublisherRegistered');
    await waitUntil(() => {
      const server = call();
      return server !== undefined && handled(server).length > 0;
    }, { what: 'a projection span in the CreatePublisher trace', timeoutMs: 60_000 });

    const server = call() as CollectedSpan;
    expect(server).toMatchObject({ kind: OTLP_SPAN_KIND.server, parentSpanId: '', service: 'card-registry', attributes: expect.objectContaining({ 'rpc.grpc.status_code': 0 }) });
    for (const span of handled(server)) expect(span.parentSpanId).toBe(server.spanId);
    // Span data never carries the operator's credential.
    expect(JSON.stringify(collector.spans())).not.toContain(OPERATOR_TOKEN);
  }, 180_000);
});
