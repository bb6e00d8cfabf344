/**
 * Starts (and stops) the process's tracer provider from `TracingConfig`: spans are batched and posted as
 * OTLP/HTTP JSON to the configured endpoint, W3C Trace Context is the propagator, and the active span follows
 * async calls (AsyncLocalStorage). Off, nothing is registered: @opentelemetry/api's no-op tracer then hands
 * out non-recording spans and every helper of this library costs a function call.
 *
 * One provider per process: the API's globals are process-wide. Apps started in one process (`npm start`)
 * share the first one's provider, and with it its `service.name` (set OTEL_SERVICE_NAME for such a process);
 * the last `shutdown` flushes what is pending and clears the globals again, so a test process can start app
 * after app.
 */
import { hostname } from 'node:os';

import { context, propagation, trace } from '@opentelemetry/api';
import { W3CTraceContextPropagator } from '@opentelemetry/core';
import { OTLPTraceExporter } from '@opentelemetry/exporter-trace-otlp-http';
import { resourceFromAttributes } from '@opentelemetry/resources';
import {
  AlwaysOffSampler,
  AlwaysOnSampler,
  BatchSpanProcessor,
  NodeTracerProvider,
  ParentBasedSampler,
  TraceIdRatioBasedSampler,
  type Sampler,
} from '@opentelemetry/sdk-trace-node';
import { ATTR_SERVICE_NAME, ATTR_SERVICE_VERSION } from '@opentelemetry/semantic-conventions';

import type { TracingConfig, TracingSampler } from './tracing.config';

// An export that hangs must not hold a shutdown: the collector is an observer, never a dependency.
const EXPORT_TIMEOUT_MS = 5_000;

export interface Tracing {
  /** Whether spans are recorded and exported. */
  readonly enabled: boolean;
  /** Exports the finished spans now (tests, and before a planned stop). */
  flush(): Promise<void>;
  /** Flushes, stops the exporter and clears the process's tracing globals; idempotent. */
  shutdown(): Promise<void>;
}

/** What the resource of every span says of the process, besides `service.name`. */
export interface TracingResource {
  /** `service.version`. */
  serviceVersion?: string;
  /**
   * `service.instance.id`: the replica, the value the app's logger puts in `replica` (its replica id), so a
   * span and a log line of one process name it alike. Default: the host name, as the logger's default.
   */
  instanceId?: string;
}

// `service.instance.id` is still in the incubating semantic conventions, which are not to be imported.
const ATTR_SERVICE_INSTANCE_ID = 'service.instance.id';

const OFF: Tracing = { enabled: false, flush: async () => undefined, shutdown: async () => undefined };

interface SharedProvider {
  readonly provider: NodeTracerProvider;
  users: number;
}

/** The process's registered provider while any started `Tracing` is not shut down. */
let shared: SharedProvider | undefined;

/** Registers the process's tracer provider when `config` enables tracing; `resource` describes the process. */
export function startTracing(config: TracingConfig, resource: TracingResource = {}): Tracing {
  if (!config.enabled) return OFF;
  const registered = (shared ??= { provider: registerProvider(config, resource), users: 0 });
  registered.users += 1;
  let stopping: Promise<void> | undefined;
  return {
    enabled: true,
    flush: () => registered.provider.forceFlush(),
    shutdown: () =>
      (stopping ??= (async () => {
        registered.users -= 1;
        if (registered.users > 0) return registered.provider.forceFlush();
        shared = undefined;
        try {
          await registered.provider.shutdown();
        } finally {
          trace.disable();
          context.disable();
          propagation.disable();
        }
      })()),
  };
}

function registerProvider(config: Extract<TracingConfig, { enabled: true }>, resource: TracingResource): NodeTracerProvider {
  const { serviceVersion, instanceId = hostname() } = resource;
  // The headers (a collector's credential) are revealed here, for the exporter's requests, and nowhere else.
  const headers = Object.fromEntries([...config.headers].map(([name, value]) => [name, value.reveal()]));
  const provider = new NodeTracerProvider({
    resource: resourceFromAttributes({
      [ATTR_SERVICE_NAME]: config.serviceName,
      [ATTR_SERVICE_INSTANCE_ID]: instanceId,
      ...(serviceVersion ? { [ATTR_SERVICE_VERSION]: serviceVersion } : {}),
    }),
    sampler: samplerOf(config.sampler, config.samplerRatio),
    spanProcessors: [
      new BatchSpanProcessor(new OTLPTraceExporter({ url: config.tracesEndpoint, timeoutMillis: EXPORT_TIMEOUT_MS, headers }), {
        scheduledDelayMillis: config.exportDelayMs,
        exportTimeoutMillis: EXPORT_TIMEOUT_MS,
      }),
    ],
  });
  provider.register({ propagator: new W3CTraceContextPropagator() });
  return provider;
}

function samplerOf(sampler: TracingSampler, ratio: number): Sampler {
  switch (sampler) {
    case 'always_on':
      return new AlwaysOnSampler();
    case 'always_off':
      return new AlwaysOffSampler();
    case 'traceidratio':
      return new TraceIdRatioBasedSampler(ratio);
    case 'parentbased_always_on':
      return new ParentBasedSampler({ root: new AlwaysOnSampler() });
    case 'parentbased_always_off':
      return new ParentBasedSampler({ root: new AlwaysOffSampler() });
    case 'parentbased_traceidratio':
      return new ParentBasedSampler({ root: new TraceIdRatioBasedSampler(ratio) });
  }
}
