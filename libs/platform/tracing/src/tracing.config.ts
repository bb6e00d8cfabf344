/**
 * Tracing configuration, read once at startup from the standard OpenTelemetry variables. Tracing is off
 * unless an OTLP endpoint is set; a bad value stops the start with `TRACING_CONFIG_INVALID`, naming the
 * variable (a `ConfigError`, so every app's `main.ts` exits 78 on it like on any other bad variable).
 *
 * | variable | default | meaning |
 * |---|---|---|
 * | `OTEL_EXPORTER_OTLP_TRACES_ENDPOINT` | — | the OTLP/HTTP traces URL, used as is (`http://collector:4318/v1/traces`) |
 * | `OTEL_EXPORTER_OTLP_ENDPOINT` | — | the collector's base URL; traces go to `<base>/v1/traces` |
 * | `OTEL_SERVICE_NAME` | the app's name | `service.name` of every span |
 * | `OTEL_TRACES_SAMPLER` | `parentbased_always_on` | `always_on`, `always_off`, `traceidratio`, `parentbased_always_on`, `parentbased_always_off`, `parentbased_traceidratio` |
 * | `OTEL_TRACES_SAMPLER_ARG` | `1` | the ratio of the `traceidratio` samplers (0–1) |
 * | `OTEL_BSP_SCHEDULE_DELAY` | `5000` | how long finished spans wait to be exported in one batch (ms, 1–60000) |
 * | `OTEL_SDK_DISABLED` | `false` | `true` turns tracing off whatever else is set |
 *
 * The endpoint refuses user info (`https://user:secret@…`): a URL is logged and shown, a secret must not be.
 */
import { ConfigError, envReader, type ConfigProblem, type Env } from '@trustmesh/platform-config';

export const TRACING_SAMPLERS = ['always_on', 'always_off', 'traceidratio', 'parentbased_always_on', 'parentbased_always_off', 'parentbased_traceidratio'] as const;
export type TracingSampler = (typeof TRACING_SAMPLERS)[number];

export type TracingConfig =
  | { readonly enabled: false }
  | {
      readonly enabled: true;
      /** Where the OTLP/HTTP exporter posts spans (JSON). */
      readonly tracesEndpoint: string;
      readonly serviceName: string;
      readonly sampler: TracingSampler;
      /** Ratio for the `traceidratio` samplers, 0–1. */
      readonly samplerRatio: number;
      readonly exportDelayMs: number;
    };

/** The one stable code of a bad tracing variable; `problems` names each variable at fault. */
export const TRACING_CONFIG_INVALID = 'TRACING_CONFIG_INVALID';

export class TracingConfigError extends ConfigError {
  readonly code = TRACING_CONFIG_INVALID;

  constructor(problems: readonly ConfigProblem[]) {
    super(problems);
    this.name = 'TracingConfigError';
    this.message = `${TRACING_CONFIG_INVALID}: ${this.message}`;
  }
}

const MAX_URL_LENGTH = 2048;
const SERVICE_NAME = /^[A-Za-z0-9._-]{1,128}$/;

/** Reads the tracing variables; `serviceName` is the app's own name, used unless `OTEL_SERVICE_NAME` says otherwise. */
export function readTracingConfig(env: Env, serviceName: string): TracingConfig {
  const problems: ConfigProblem[] = [];
  const config = collectTracingConfig(env, serviceName, problems);
  if (problems.length > 0) throw new TracingConfigError(problems);
  return config;
}

/** As `readTracingConfig`, but adds its problems to an app's own list (one error naming every bad variable). */
export function collectTracingConfig(env: Env, serviceName: string, problems: ConfigProblem[]): TracingConfig {
  const read = envReader(env, problems);
  if (read.boolean('OTEL_SDK_DISABLED', false)) return { enabled: false };
  const tracesEndpoint = endpointOf(read.value('OTEL_EXPORTER_OTLP_TRACES_ENDPOINT'), 'OTEL_EXPORTER_OTLP_TRACES_ENDPOINT', read.fail, false)
    ?? endpointOf(read.value('OTEL_EXPORTER_OTLP_ENDPOINT'), 'OTEL_EXPORTER_OTLP_ENDPOINT', read.fail, true);
  const name = read.value('OTEL_SERVICE_NAME') ?? serviceName;
  if (!SERVICE_NAME.test(name)) read.fail('OTEL_SERVICE_NAME', 'must be 1–128 letters, digits, dots, dashes or underscores');
  const sampler = read.oneOf('OTEL_TRACES_SAMPLER', TRACING_SAMPLERS, 'parentbased_always_on');
  const samplerRatio = ratioOf(read.value('OTEL_TRACES_SAMPLER_ARG'), read.fail);
  const exportDelayMs = read.integer('OTEL_BSP_SCHEDULE_DELAY', 5000, 1, 60_000);
  if (tracesEndpoint === undefined) return { enabled: false };
  return { enabled: true, tracesEndpoint, serviceName: name, sampler, samplerRatio, exportDelayMs };
}

function endpointOf(raw: string | undefined, variable: string, fail: (variable: string, message: string) => void, isBase: boolean): string | undefined {
  if (raw === undefined) return undefined;
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    fail(variable, 'must be an http:// or https:// URL');
    return undefined;
  }
  if ((url.protocol !== 'http:' && url.protocol !== 'https:') || raw.length > MAX_URL_LENGTH) {
    fail(variable, `must be an http:// or https:// URL of at most ${MAX_URL_LENGTH} characters`);
    return undefined;
  }
  if (url.username !== '' || url.password !== '') {
    fail(variable, 'must not carry user info (credentials do not belong in a URL)');
    return undefined;
  }
  if (!isBase) return url.href;
  // The base endpoint's signal path, as the OTLP exporter specification builds it.
  return `${url.href.replace(/\/+$/, '')}/v1/traces`;
}

function ratioOf(raw: string | undefined, fail: (variable: string, message: string) => void): number {
  if (raw === undefined) return 1;
  const ratio = Number(raw);
  if (!/^\d+(\.\d+)?$/.test(raw) || ratio > 1) {
    fail('OTEL_TRACES_SAMPLER_ARG', `must be a number from 0 to 1 (got ${JSON.stringify(raw.slice(0, 32))})`);
    return 1;
  }
  return ratio;
}
