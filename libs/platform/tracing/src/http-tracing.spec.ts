import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

import { startOtlpTestCollector, OTLP_SPAN_KIND, type OtlpTestCollector } from '@trustmesh/platform-testing';

import { tracedHttpRequests } from './http-tracing';
import { activeTraceId } from './spans';
import { readTracingConfig } from './tracing.config';
import { startTracing, type Tracing } from './tracing.provider';

const TRACE = 'dddddddddddddddddddddddddddddddd';
const CALLER = '1111111111111111';

describe('tracedHttpRequests', () => {
  let collector: OtlpTestCollector;
  let tracing: Tracing;
  let server: Server;
  let base: string;
  const seenTraceIds: Array<string | undefined> = [];
  beforeAll(async () => {
    collector = await startOtlpTestCollector();
    tracing = startTracing(readTracingConfig({ OTEL_EXPORTER_OTLP_ENDPOINT: collector.endpoint }, 'http-spec'));
    const middleware = tracedHttpRequests();
    server = createServer((request, response) =>
      middleware(request, response, () => {
        seenTraceIds.push(activeTraceId());
        response.writeHead(request.url?.startsWith('/broken') ? 503 : 200).end('ok');
      }),
    );
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  afterAll(async () => {
    await new Promise((resolve) => server.close(resolve));
    await tracing.shutdown();
    await collector.close();
  });

  it('runs a request under a server span continuing its traceparent header, without the query', async () => {
    await fetch(`${base}/v1/cards?token=secret-value`, { headers: { traceparent: `00-${TRACE}-${CALLER}-01` } });
    await fetch(`${base}/broken`, { method: 'POST' });
    await fetch(`${base}/healthz`);
    await tracing.flush();
    expect(seenTraceIds[0]).toBe(TRACE);
    expect(seenTraceIds[2]).toBeUndefined();
    const spans = collector.spans();
    expect(spans).toEqual([
      expect.objectContaining({ name: 'GET', kind: OTLP_SPAN_KIND.server, traceId: TRACE, parentSpanId: CALLER, attributes: { 'http.request.method': 'GET', 'url.path': '/v1/cards', 'http.response.status_code': 200 } }),
      expect.objectContaining({ name: 'POST', parentSpanId: '', statusCode: 2, attributes: expect.objectContaining({ 'http.response.status_code': 503 }) }),
    ]);
    expect(JSON.stringify(spans)).not.toContain('secret-value');
  });
});
