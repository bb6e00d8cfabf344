/**
 * A span per inbound WebSocket frame on the gateway. The Roll Relay wire frames have no field for a trace
 * context (their schemas admit no extra property, and the wire must not change), so each frame a browser or a
 * Companion sends starts a trace here: routing it to the Companion, sequencing it, and the bus records it
 * causes (the companion-inbound and frames-log envelopes carry the span's `traceparent`) all join that trace,
 * across replicas too. A Companion's response is the exception: its span is a child of the request's trace,
 * which the relay kept with the request's route (`RequestRoutes`), so browser request -> (bus) -> Companion ->
 * response reads as one trace. Span data holds the frame's type, direction and request id, never its payload.
 */
import { inSpanSync } from '@trustmesh/platform-tracing';
import type { AnyWireFrame, WireVersion } from '@trustmesh/relay-protocol';

/** `parent`: the trace the frame continues (a response's request), or null: the frame starts a trace. */
export function traceInboundFrame(socket: 'browser' | 'companion', frame: AnyWireFrame, wire: WireVersion, handle: () => void, parent: string | null = null): void {
  const requestId = (frame as { requestId?: unknown }).requestId;
  inSpanSync(
    `relay.${socket} ${frame.type}`,
    {
      kind: 'server',
      parent,
      attributes: {
        'network.protocol.name': 'websocket',
        'relay.socket': socket,
        'relay.wire.version': wire,
        'relay.frame.type': frame.type,
        ...(typeof requestId === 'string' ? { 'relay.request.id': requestId } : {}),
      },
    },
    handle,
  );
}
