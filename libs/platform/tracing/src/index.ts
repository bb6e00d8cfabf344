/**
 * @trustmesh/platform-tracing: OpenTelemetry traces that follow one request across gRPC, the event bus and
 * the relay's WebSocket hops: the tracer provider started from the standard OTEL_* variables (off, at no
 * cost, without an endpoint), span helpers for each kind of edge, and the active trace id for log lines.
 */
export {
  readTracingConfig,
  collectTracingConfig,
  TracingConfigError,
  TRACING_CONFIG_INVALID,
  TRACING_SAMPLERS,
  type TracingConfig,
  type TracingSampler,
} from './tracing.config';
export { startTracing, type Tracing, type TracingResource } from './tracing.provider';
export {
  activeTraceparent,
  activeTraceId,
  traceparentOf,
  contextOfTraceparent,
  startSpan,
  runInSpan,
  inSpan,
  inSpanSync,
  outsideTraces,
  failSpan,
  type TraceSpanKind,
  type TraceSpanOptions,
} from './spans';
export { withTraceparent, traceGrpcServerCall, traceGrpcClientCall, TRACEPARENT_METADATA, type TraceMetadata } from './grpc-tracing';
export { tracedHttpRequests, type HttpMiddleware } from './http-tracing';
export { tracePublish, traceConsume, traceConsumeBatch, type MessagingTarget, type TracedEvent } from './messaging-tracing';
