/**
 * Trace context over gRPC: a client puts the active span's `traceparent` in the call's metadata, a server
 * opens its span under the one it received. Metadata is typed structurally (grpc-js's `Metadata` fits), so
 * this library does not depend on a gRPC implementation.
 */
import { SpanStatusCode } from '@opentelemetry/api';

import { activeTraceparent, inSpan } from './spans';

/** The metadata key W3C Trace Context uses over gRPC (as over HTTP). */
export const TRACEPARENT_METADATA = 'traceparent';

export interface TraceMetadata {
  get(key: string): unknown[];
  set(key: string, value: string): void;
}

// The statuses that are the server's failure rather than a refusal of the caller's request (OpenTelemetry's
// gRPC conventions): UNKNOWN, DEADLINE_EXCEEDED, UNIMPLEMENTED, INTERNAL, UNAVAILABLE, DATA_LOSS.
const SERVER_FAILURES = new Set([2, 4, 12, 13, 14, 15]);

/** Adds the active span's `traceparent` to outgoing metadata (nothing when no span is recording); returns it. */
export function withTraceparent<M extends TraceMetadata>(metadata: M): M {
  const traceparent = activeTraceparent();
  if (traceparent) metadata.set(TRACEPARENT_METADATA, traceparent);
  return metadata;
}

/**
 * The server span of one unary call, named by its path (`/trustmesh.shield.v1.ShieldAnalyzer/OpenCase`) and
 * a child of the caller's span when the metadata carries one: `handle` answers the call and resolves to the
 * gRPC status code it sent, which the span records.
 */
export function traceGrpcServerCall(path: string, metadata: TraceMetadata, handle: () => Promise<number>): Promise<number> {
  const { service, method } = partsOf(path);
  const received = metadata.get(TRACEPARENT_METADATA)[0];
  return inSpan(
    `${service}/${method}`,
    { kind: 'server', parent: typeof received === 'string' ? received : null, attributes: { 'rpc.system': 'grpc', 'rpc.service': service, 'rpc.method': method } },
    async (span) => {
      const code = await handle();
      span.setAttribute('rpc.grpc.status_code', code);
      if (SERVER_FAILURES.has(code)) span.setStatus({ code: SpanStatusCode.ERROR });
      return code;
    },
  );
}

/** A client span around one outgoing call to `path` (`/package.Service/Method`); `call` fills its metadata with `withTraceparent`. */
export function traceGrpcClientCall<T>(path: string, call: () => Promise<T>): Promise<T> {
  const { service, method } = partsOf(path);
  return inSpan(`${service}/${method}`, { kind: 'client', attributes: { 'rpc.system': 'grpc', 'rpc.service': service, 'rpc.method': method } }, () => call());
}

// grpc-js hands over the path the client sent; an odd one is still a span, named as it came (bounded).
function partsOf(path: string): { service: string; method: string } {
  const match = /^\/([^/]{1,200})\/([^/]{1,200})$/.exec(path);
  return match ? { service: match[1] as string, method: match[2] as string } : { service: 'unknown', method: path.slice(0, 200) };
}
