/**
 * The WebSocket hop traced on the real gateway (embedded PGlite, its local bus, the real control plane),
 * as an operator's collector receives it over OTLP/HTTP (a collector in this process). The wire frames have
 * no field for a trace context, so each frame a Companion or a browser sends starts a trace on the gateway;
 * what the frame causes joins it: the frames log written to the bus, and the interaction audit appended to
 * the control plane's store, published by its outbox and applied by the control read model's projection.
 * A Companion's response frame has no trace of its own: it continues its request's.
 */
import { randomUUID } from 'node:crypto';

import { OTLP_SPAN_KIND, startOtlpTestCollector, waitUntil, type CollectedSpan, type OtlpTestCollector } from '@trustmesh/platform-testing';

import { WORKSPACE_FRAMES_TOPIC } from '../../src/data-plane/frames-bus.records';
import { frames } from './support/frames';
import { browser, companion, type TestPeer } from './support/peers';
import { startTestRelay, TEST_ORIGIN, type TestRelay } from './support/test-relay';

describe('data plane traces', () => {
  let collector: OtlpTestCollector;
  let relay: TestRelay | undefined;
  const peers: TestPeer[] = [];
  beforeAll(async () => {
    collector = await startOtlpTestCollector();
  });
  afterAll(async () => {
    for (const peer of peers) peer.close();
    await relay?.close();
    await collector?.close();
  });

  it('follows a Companion frame into the frames log and the audit projection, and a browser request to the Companion', async () => {
    // A short export delay: the test waits on spans reaching the collector, as an operator would look for them.
    // The collector's credential travels as an export header (OTEL_EXPORTER_OTLP_HEADERS, URL-encoded).
    relay = await startTestRelay({ env: { OTEL_EXPORTER_OTLP_ENDPOINT: collector.endpoint, OTEL_BSP_SCHEDULE_DELAY: '50', OTEL_EXPORTER_OTLP_HEADERS: 'authorization=Bearer%20collector-secret-1' } });
    const device = await relay.enrollCompanion();
    const { workspaceId } = device;
    const runtime = await companion(relay.wsUrl, frames.deviceConnect(device.deviceId, device.credential));
    peers.push(runtime);
    await relay.waitForStatus(workspaceId, 'online');
    const session = await browser(relay.wsUrl, await relay.browserTicket(workspaceId), TEST_ORIGIN);
    peers.push(session);
    session.send(frames.ack(workspaceId, -1));
    await runtime.waitFor((frame) => frame.type === 'runtime.ack', 'the first ACK');

    const interactionId = randomUUID();
    runtime.send(frames.interactionRequest(workspaceId, 0, interactionId));
    await session.waitFor((frame) => frame.type === 'interaction.request', 'the interaction request at the browser');
    const request = frames.request(workspaceId);
    session.send(request);
    await runtime.waitFor((frame) => frame.type === 'runtime.request' && frame['requestId'] === request.requestId, 'the request at the Companion');

    const spans = () => collector.spans();
    const frameSpan = () => spans().find((span) => span.name === 'relay.companion interaction.request');
    const audited = (frame: CollectedSpan) =>
      spans().find((span) => span.traceId === frame.traceId && span.kind === OTLP_SPAN_KIND.consumer && span.attributes['trustmesh.event.type'] === 'InteractionAudited');
    await waitUntil(() => {
      const frame = frameSpan();
      return frame !== undefined && audited(frame) !== undefined;
    }, { what: 'the audit projection span in the frame trace', timeoutMs: 30_000 });

    const frame = frameSpan() as CollectedSpan;
    expect(frame).toMatchObject({
      kind: OTLP_SPAN_KIND.server,
      parentSpanId: '',
      service: 'relay-gateway',
      attributes: expect.objectContaining({ 'network.protocol.name': 'websocket', 'relay.socket': 'companion', 'relay.frame.type': 'interaction.request' }),
    });
    // The control plane's projection applied the audit event the frame caused, as a child of the frame.
    expect(audited(frame)).toMatchObject({ parentSpanId: frame.spanId, attributes: expect.objectContaining({ 'messaging.system': 'trustmesh_local' }) });
    // The frames log: the gateway's publish of the frame to the bus is in the frame's trace.
    await waitUntil(() => framesLogSend(spans(), frame) !== undefined, { what: 'the frames log publish in the frame trace', timeoutMs: 30_000 });

    // The browser's request frame has a span of its own, named by its request id (never its payload).
    await waitUntil(() => spans().some((span) => span.name === 'relay.browser runtime.request'), { what: 'the browser request span', timeoutMs: 30_000 });
    const browserRequest = spans().find((span) => span.name === 'relay.browser runtime.request') as CollectedSpan;
    expect(browserRequest.attributes).toMatchObject({ 'relay.socket': 'browser', 'relay.request.id': request.requestId });

    // The Companion's response: its frame's span is a child of the browser's request span (one trace), and
    // the route that kept the request's trace is gone with it (a late duplicate starts a trace of its own).
    runtime.send(frames.response(workspaceId, request.requestId));
    await session.waitFor((frame) => frame.type === 'runtime.response' && frame['requestId'] === request.requestId, 'the response at the browser');
    runtime.send(frames.response(workspaceId, request.requestId));
    const responseSpans = () => spans().filter((span) => span.name === 'relay.companion runtime.response' && span.attributes['relay.request.id'] === request.requestId);
    await waitUntil(() => responseSpans().length === 2, { what: 'both response frame spans', timeoutMs: 30_000 });
    const [answered, duplicate] = responseSpans() as [CollectedSpan, CollectedSpan];
    expect(answered).toMatchObject({ traceId: browserRequest.traceId, parentSpanId: browserRequest.spanId, kind: OTLP_SPAN_KIND.server });
    expect(duplicate.parentSpanId).toBe('');
    expect(duplicate.traceId).not.toBe(browserRequest.traceId);
    expect(JSON.stringify(spans())).not.toContain('thread.list');
    expect(collector.requestHeaders().length).toBeGreaterThan(0);
    for (const headers of collector.requestHeaders()) expect(headers['authorization']).toBe('Bearer collector-secret-1');
    expect(collector.rejected).toBe(0);
  });

  it('refuses to start with malformed export headers, naming the variable but not repeating the secret in them', async () => {
    const secret = 'collector-secret-2';
    const started = startTestRelay({ env: { OTEL_EXPORTER_OTLP_ENDPOINT: collector.endpoint, OTEL_EXPORTER_OTLP_HEADERS: `authorization=Bearer%20${secret},${secret}` } });
    const error = (await started.then(
      async (unexpected) => {
        await unexpected.close();
        throw new Error('the gateway started');
      },
      (refusal: unknown) => refusal,
    )) as Error & { problems?: { variable: string; code?: string }[] };
    expect(error.problems).toEqual([expect.objectContaining({ variable: 'OTEL_EXPORTER_OTLP_HEADERS', code: 'TRACING_CONFIG_INVALID' })]);
    expect(error.message).toContain('OTEL_EXPORTER_OTLP_HEADERS');
    expect(error.message).not.toContain(secret);
    expect(JSON.stringify(error.problems)).not.toContain(secret);
  });
});

/** The producer span of the frames log that carries `frame`'s record: its child, or linked when a flush carried several traces. */
function framesLogSend(spans: CollectedSpan[], frame: CollectedSpan): CollectedSpan | undefined {
  return spans.find(
    (span) =>
      span.kind === OTLP_SPAN_KIND.producer &&
      span.name === `send ${WORKSPACE_FRAMES_TOPIC}` &&
      ((span.traceId === frame.traceId && span.parentSpanId === frame.spanId) || span.links.some((link) => link.spanId === frame.spanId)),
  );
}
