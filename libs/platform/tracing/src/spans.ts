/**
 * Spans the way Trustmesh's edges open them: under the active span, or under a W3C `traceparent` that
 * crossed a process boundary (gRPC metadata, an event envelope), with links to other traces a span
 * handles together (a batch of events). A span that fails records the error's name only: span data
 * leaves the process, internal text must not.
 *
 * With tracing off every span is @opentelemetry/api's non-recording one and nothing here allocates more
 * than a context lookup.
 */
import {
  context,
  propagation,
  ROOT_CONTEXT,
  SpanKind,
  SpanStatusCode,
  trace,
  type Attributes,
  type Context,
  type Link,
  type Span,
} from '@opentelemetry/api';

const TRACER_NAME = '@trustmesh/platform-tracing';
// version 00, 32-hex trace id, 16-hex parent id, 2-hex flags (W3C Trace Context §3.2); anything else is ignored.
const TRACEPARENT = /^[0-9a-f]{2}-[0-9a-f]{32}-[0-9a-f]{16}-[0-9a-f]{2}$/;

export type TraceSpanKind = 'server' | 'client' | 'producer' | 'consumer' | 'internal';

const KINDS: Readonly<Record<TraceSpanKind, SpanKind>> = {
  server: SpanKind.SERVER,
  client: SpanKind.CLIENT,
  producer: SpanKind.PRODUCER,
  consumer: SpanKind.CONSUMER,
  internal: SpanKind.INTERNAL,
};

export interface TraceSpanOptions {
  kind: TraceSpanKind;
  attributes?: Attributes;
  /**
   * The remote parent: a W3C `traceparent` that came with the request or event. `undefined`: the active
   * span is the parent. `null` or a malformed value: a new trace.
   */
  parent?: string | null;
  /** Traces this span also belongs to (`traceparent`s; null and malformed ones are skipped). */
  links?: ReadonlyArray<string | null>;
}

/** The W3C `traceparent` of the active span, or null when none is recording (tracing off, no span). */
export function activeTraceparent(): string | null {
  const span = trace.getActiveSpan();
  return span ? traceparentOf(span) : null;
}

/** The trace id of the active span (32 hex digits) for log lines, or undefined outside a traced operation. */
export function activeTraceId(): string | undefined {
  const spanContext = trace.getActiveSpan()?.spanContext();
  return spanContext && trace.isSpanContextValid(spanContext) ? spanContext.traceId : undefined;
}

/** A span's W3C `traceparent`, or null when its context is not a valid one (a non-recording span). */
export function traceparentOf(span: Span): string | null {
  const spanContext = span.spanContext();
  if (!trace.isSpanContextValid(spanContext)) return null;
  return `00-${spanContext.traceId}-${spanContext.spanId}-${(spanContext.traceFlags & 0xff).toString(16).padStart(2, '0')}`;
}

/** The context a `traceparent` describes, as a remote parent; ROOT_CONTEXT for null or a malformed value. */
export function contextOfTraceparent(traceparent: string | null | undefined): Context {
  if (typeof traceparent !== 'string' || !TRACEPARENT.test(traceparent)) return ROOT_CONTEXT;
  return propagation.extract(ROOT_CONTEXT, { traceparent });
}

/** Starts a span (the caller ends it); run work under it with `runInSpan`. */
export function startSpan(name: string, options: TraceSpanOptions): Span {
  const parent = options.parent === undefined ? context.active() : contextOfTraceparent(options.parent);
  const links = linksOf(options.links);
  return trace.getTracer(TRACER_NAME).startSpan(name, { kind: KINDS[options.kind], ...(options.attributes ? { attributes: options.attributes } : {}), ...(links.length > 0 ? { links } : {}) }, parent);
}

/** Runs `work` with `span` active, so what it starts (spans, appended events, outgoing calls) is the span's child. */
export function runInSpan<T>(span: Span, work: () => T): T {
  return context.with(trace.setSpan(context.active(), span), work);
}

/**
 * Runs `work` in a new span and ends it when `work` settles; a rejection marks the span failed with the
 * error's name and is rethrown.
 */
export async function inSpan<T>(name: string, options: TraceSpanOptions, work: (span: Span) => Promise<T>): Promise<T> {
  const span = startSpan(name, options);
  try {
    return await runInSpan(span, () => work(span));
  } catch (error) {
    failSpan(span, error);
    throw error;
  } finally {
    span.end();
  }
}

/** `inSpan` for synchronous work (a WebSocket frame handled in its event callback). */
export function inSpanSync<T>(name: string, options: TraceSpanOptions, work: (span: Span) => T): T {
  const span = startSpan(name, options);
  try {
    return runInSpan(span, () => work(span));
  } catch (error) {
    failSpan(span, error);
    throw error;
  } finally {
    span.end();
  }
}

/**
 * `work` bound to run outside any trace, whatever is active when it is scheduled: for a timer that one
 * operation happens to start but that then serves many (a batching flush), whose spans would otherwise
 * claim the first one as their parent.
 */
export function outsideTraces<A extends unknown[], R>(work: (...args: A) => R): (...args: A) => R {
  return context.bind(ROOT_CONTEXT, work);
}

/** Marks a span failed, naming the error's class only (its message may hold internal text). */
export function failSpan(span: Span, error: unknown): void {
  const name = error instanceof Error ? error.name : 'unknown';
  span.setStatus({ code: SpanStatusCode.ERROR, message: name });
  span.setAttribute('error.type', name);
}

function linksOf(traceparents: ReadonlyArray<string | null> | undefined): Link[] {
  const links: Link[] = [];
  for (const traceparent of traceparents ?? []) {
    const spanContext = trace.getSpanContext(contextOfTraceparent(traceparent));
    if (spanContext && trace.isSpanContextValid(spanContext)) links.push({ context: spanContext });
  }
  return links;
}
