import { Metadata } from '@grpc/grpc-js';
import { OTLP_SPAN_KIND, startOtlpTestCollector, type CollectedSpan, type OtlpTestCollector } from '@trustmesh/platform-testing';

import { traceGrpcServerCall, withTraceparent } from './grpc-tracing';
import { traceConsume, traceConsumeBatch, tracePublish } from './messaging-tracing';
import { activeTraceId, activeTraceparent, inSpan, outsideTraces } from './spans';
import { readTracingConfig } from './tracing.config';
import { startTracing, type Tracing } from './tracing.provider';

const TRACE = '4bf92f3577b34da6a3ce929d0e0e4736';
const CALLER = '00f067aa0ba902b7';
const traceparent = (trace: string, span: string) => `00-${trace}-${span}-01`;

describe('tracing exported over OTLP/HTTP', () => {
  let collector: OtlpTestCollector;
  let tracing: Tracing;
  beforeAll(async () => {
    collector = await startOtlpTestCollector();
  });
  beforeEach(() => {
    tracing = startTracing(readTracingConfig({ OTEL_EXPORTER_OTLP_ENDPOINT: collector.endpoint }, 'tracing-spec'));
  });
  afterEach(async () => {
    await tracing.shutdown();
  });
  afterAll(async () => {
    await collector.close();
  });

  const exported = async (traceId: string): Promise<CollectedSpan[]> => {
    await tracing.flush();
    return collector.spans().filter((span) => span.traceId === traceId);
  };

  it('continues a caller trace in a gRPC server span and hands it on in outgoing metadata', async () => {
    const incoming = new Metadata();
    incoming.set('traceparent', traceparent(TRACE, CALLER));
    let outgoing: Metadata | undefined;
    let logged: string | undefined;
    const code = await traceGrpcServerCall('/trustmesh.shield.v1.ShieldAnalyzer/OpenCase', incoming, async () => {
      outgoing = withTraceparent(new Metadata());
      logged = activeTraceId();
      return 0;
    });
    expect(code).toBe(0);
    expect(logged).toBe(TRACE);
    const [server] = await exported(TRACE);
    expect(server).toMatchObject({
      name: 'trustmesh.shield.v1.ShieldAnalyzer/OpenCase',
      kind: OTLP_SPAN_KIND.server,
      parentSpanId: CALLER,
      service: 'tracing-spec',
      attributes: { 'rpc.system': 'grpc', 'rpc.service': 'trustmesh.shield.v1.ShieldAnalyzer', 'rpc.method': 'OpenCase', 'rpc.grpc.status_code': 0 },
    });
    expect(outgoing?.get('traceparent')).toEqual([traceparent(TRACE, (server as CollectedSpan).spanId)]);
  });

  it('runs work bound with outsideTraces in no trace, whatever was active when it was bound', async () => {
    const seen = await inSpan('schedules a flush', { kind: 'internal' }, async () => {
      const inside = activeTraceparent();
      const detached = outsideTraces(() => activeTraceparent());
      return { inside, detached: await new Promise<string | null>((resolve) => setTimeout(() => resolve(detached()), 0)) };
    });
    expect(seen.inside).toMatch(/^00-[0-9a-f]{32}-[0-9a-f]{16}-01$/);
    expect(seen.detached).toBeNull();
  });

  it('ignores a malformed incoming traceparent and starts a new trace', async () => {
    const incoming = new Metadata();
    incoming.set('traceparent', '00-not-a-trace-01');
    let started: string | null = null;
    await traceGrpcServerCall('/svc.S/M', incoming, async () => {
      started = activeTraceparent();
      return 13;
    });
    const traceId = (started as unknown as string).split('-')[1] as string;
    const [server] = await exported(traceId);
    expect(server).toMatchObject({ parentSpanId: '', statusCode: 2, attributes: expect.objectContaining({ 'rpc.grpc.status_code': 13 }) });
  });

  it('puts publish and consume spans of an event under the operation that produced it', async () => {
    const produced = 'bbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbb';
    const event = { eventId: 'e-1', eventType: 'ShieldCaseOpened', traceparent: traceparent(produced, CALLER) };
    await tracePublish({ system: 'kafka', topic: 'shield.cases.v1' }, [event], async () => undefined);
    await traceConsume({ system: 'kafka', topic: 'shield.cases.v1', group: 'shield.read-model' }, event, async () => {
      expect(activeTraceId()).toBe(produced);
    });
    const spans = await exported(produced);
    expect(spans).toEqual([
      expect.objectContaining({ name: 'send shield.cases.v1', kind: OTLP_SPAN_KIND.producer, parentSpanId: CALLER }),
      expect.objectContaining({
        name: 'process shield.cases.v1',
        kind: OTLP_SPAN_KIND.consumer,
        parentSpanId: CALLER,
        attributes: expect.objectContaining({ 'messaging.consumer.group.name': 'shield.read-model', 'messaging.message.id': 'e-1', 'trustmesh.event.type': 'ShieldCaseOpened' }),
      }),
    ]);
  });

  it('links a publish of events from several traces to each, and gives each event of a batch its own consumer span', async () => {
    const first = 'cccccccccccccccccccccccccccccccc';
    const other = 'aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa';
    const events = [
      { eventId: 'e-1', eventType: 'A', traceparent: traceparent(first, CALLER) },
      { eventId: 'e-2', eventType: 'A', traceparent: traceparent(other, CALLER) },
      { eventId: 'e-3', eventType: 'A', traceparent: null },
    ];
    await tracePublish({ system: 'trustmesh_local', topic: 't.v1' }, events, async () => undefined);
    await expect(traceConsumeBatch({ system: 'trustmesh_local', topic: 't.v1', group: 'g' }, events, async () => Promise.reject(new TypeError('secret detail')))).rejects.toThrow(TypeError);
    await tracing.flush();
    const send = collector.spans().find((span) => span.name === 'send t.v1') as CollectedSpan;
    expect(send.parentSpanId).toBe('');
    expect(send.links.map((link) => link.traceId).sort()).toEqual([first, other].sort());
    const consumed = collector.spans().filter((span) => span.name === 'process t.v1');
    expect(consumed).toHaveLength(3);
    expect(consumed.filter((span) => span.parentSpanId === CALLER).map((span) => span.traceId).sort()).toEqual([first, other].sort());
    for (const span of consumed) expect(span).toMatchObject({ statusCode: 2, attributes: expect.objectContaining({ 'error.type': 'TypeError' }) });
    expect(JSON.stringify(collector.spans())).not.toContain('secret detail');
  });
});

describe('tracing off', () => {
  it('registers nothing: no span is recorded, no traceparent handed on, no trace id for logs', async () => {
    const tracing = startTracing(readTracingConfig({}, 'tracing-spec'));
    expect(tracing.enabled).toBe(false);
    const seen = await inSpan('work', { kind: 'internal' }, async () => ({ traceparent: activeTraceparent(), traceId: activeTraceId(), metadata: withTraceparent(new Metadata()) }));
    expect(seen.traceparent).toBeNull();
    expect(seen.traceId).toBeUndefined();
    expect(seen.metadata.get('traceparent')).toEqual([]);
    await tracing.shutdown();
  });
});

describe('several apps in one process', () => {
  it('share the first provider until the last of them shuts down', async () => {
    const collector = await startOtlpTestCollector();
    try {
      const first = startTracing(readTracingConfig({ OTEL_EXPORTER_OTLP_ENDPOINT: collector.endpoint }, 'first-app'));
      const second = startTracing(readTracingConfig({ OTEL_EXPORTER_OTLP_ENDPOINT: collector.endpoint }, 'second-app'));
      await first.shutdown();
      const traceparent = await inSpan('after the first stopped', { kind: 'internal' }, async () => activeTraceparent());
      await second.flush();
      expect(collector.spans()).toEqual([expect.objectContaining({ name: 'after the first stopped', service: 'first-app', traceId: traceparent?.split('-')[1] })]);
      await second.shutdown();
      expect(await inSpan('after both stopped', { kind: 'internal' }, async () => activeTraceparent())).toBeNull();
    } finally {
      await collector.close();
    }
  });
});

describe('the export request', () => {
  it('carries the configured headers (the traces variable winning) and names the replica in the resource', async () => {
    const collector = await startOtlpTestCollector();
    try {
      const config = readTracingConfig(
        {
          OTEL_EXPORTER_OTLP_ENDPOINT: collector.endpoint,
          OTEL_EXPORTER_OTLP_HEADERS: 'x-ignored=1',
          OTEL_EXPORTER_OTLP_TRACES_HEADERS: 'Authorization=Bearer%20collector-token, x-tenant = blue',
        },
        'headers-app',
      );
      const tracing = startTracing(config, { instanceId: 'replica-7', serviceVersion: '1.2.3' });
      await inSpan('exported with headers', { kind: 'internal' }, async () => undefined);
      await tracing.shutdown();
      expect(collector.requestHeaders()).toEqual([expect.objectContaining({ authorization: 'Bearer collector-token', 'x-tenant': 'blue' })]);
      expect(collector.requestHeaders()[0]).not.toHaveProperty('x-ignored');
      expect(collector.spans()).toEqual([
        expect.objectContaining({ name: 'exported with headers', resource: expect.objectContaining({ 'service.name': 'headers-app', 'service.instance.id': 'replica-7', 'service.version': '1.2.3' }) }),
      ]);
    } finally {
      await collector.close();
    }
  });
});
