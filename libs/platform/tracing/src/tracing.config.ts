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
 * | `OTEL_EXPORTER_OTLP_HEADERS` | — | headers sent with every export, `key=value` pairs separated by commas, values URL-encoded (`authorization=Bearer%20abc`) |
 * | `OTEL_EXPORTER_OTLP_TRACES_HEADERS` | — | as above for traces; when set, it is used instead of `OTEL_EXPORTER_OTLP_HEADERS` |
 *
 * The endpoint refuses user info (`https://user:secret@…`): a URL is logged and shown, a secret must not be.
 * Headers are where a collector's credential goes, so they are secrets: held as `SecretText`, and a refusal
 * names the variable and the entry's position, never a key or a value (a misformatted entry may be a token).
 */
import { ConfigError, envReader, SecretText, type ConfigProblem, type Env } from '@trustmesh/platform-config';

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
      /** Headers of every export request (lower-case names): the collector's credential, so secret. */
      readonly headers: ReadonlyMap<string, SecretText>;
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
// Bounds of the headers variable: an export request carries them all, and a collector refuses huge headers.
const MAX_HEADERS_LENGTH = 8192;
const MAX_HEADERS = 32;
// An HTTP field name (RFC 9110 token); values, once decoded, must be visible ASCII or spaces/tabs (no CR/LF).
const HEADER_NAME = /^[!#$%&'*+.^_`|~0-9A-Za-z-]{1,128}$/;
const HEADER_VALUE = /^[\t\x20-\x7e]*$/;
// Headers the exporter sets itself; one from the environment would break the export.
const RESERVED_HEADERS = new Set(['content-type', 'content-length', 'content-encoding', 'host', 'transfer-encoding', 'connection']);
const SERVICE_NAME = /^[A-Za-z0-9._-]{1,128}$/;

/** Reads the tracing variables; `serviceName` is the app's own name, used unless `OTEL_SERVICE_NAME` says otherwise. */
export function readTracingConfig(env: Env, serviceName: string): TracingConfig {
  const problems: ConfigProblem[] = [];
  const config = collectTracingConfig(env, serviceName, problems);
  if (problems.length > 0) throw new TracingConfigError(problems);
  return config;
}

/**
 * As `readTracingConfig`, but adds its problems to an app's own list (one error naming every bad variable),
 * each with the code `TRACING_CONFIG_INVALID`.
 */
export function collectTracingConfig(env: Env, serviceName: string, problems: ConfigProblem[]): TracingConfig {
  const own: ConfigProblem[] = [];
  const config = readVariables(env, serviceName, own);
  for (const problem of own) problems.push({ ...problem, code: TRACING_CONFIG_INVALID });
  return config;
}

function readVariables(env: Env, serviceName: string, problems: ConfigProblem[]): TracingConfig {
  const read = envReader(env, problems);
  if (read.boolean('OTEL_SDK_DISABLED', false)) return { enabled: false };
  const tracesEndpoint = endpointOf(read.value('OTEL_EXPORTER_OTLP_TRACES_ENDPOINT'), 'OTEL_EXPORTER_OTLP_TRACES_ENDPOINT', read.fail, false)
    ?? endpointOf(read.value('OTEL_EXPORTER_OTLP_ENDPOINT'), 'OTEL_EXPORTER_OTLP_ENDPOINT', read.fail, true);
  const name = read.value('OTEL_SERVICE_NAME') ?? serviceName;
  if (!SERVICE_NAME.test(name)) read.fail('OTEL_SERVICE_NAME', 'must be 1–128 letters, digits, dots, dashes or underscores');
  const sampler = read.oneOf('OTEL_TRACES_SAMPLER', TRACING_SAMPLERS, 'parentbased_always_on');
  const samplerRatio = ratioOf(read.value('OTEL_TRACES_SAMPLER_ARG'), read.fail);
  const exportDelayMs = read.integer('OTEL_BSP_SCHEDULE_DELAY', 5000, 1, 60_000);
  const headersVariable = read.value('OTEL_EXPORTER_OTLP_TRACES_HEADERS') !== undefined ? 'OTEL_EXPORTER_OTLP_TRACES_HEADERS' : 'OTEL_EXPORTER_OTLP_HEADERS';
  const headers = headersOf(read.value(headersVariable), headersVariable, read.fail);
  if (tracesEndpoint === undefined) return { enabled: false };
  return { enabled: true, tracesEndpoint, serviceName: name, sampler, samplerRatio, exportDelayMs, headers };
}

/**
 * The OTLP exporter headers format (OpenTelemetry's exporter specification, after W3C Baggage): `key=value`
 * entries separated by commas, blanks around them ignored, values percent-decoded. Messages never quote the
 * text: they name the entry by its position.
 */
function headersOf(raw: string | undefined, variable: string, fail: (variable: string, message: string) => void): ReadonlyMap<string, SecretText> {
  const headers = new Map<string, SecretText>();
  if (raw === undefined) return headers;
  if (raw.length > MAX_HEADERS_LENGTH) {
    fail(variable, `must be at most ${MAX_HEADERS_LENGTH} characters`);
    return headers;
  }
  const entries = raw.split(',');
  if (entries.length > MAX_HEADERS) {
    fail(variable, `must hold at most ${MAX_HEADERS} headers`);
    return headers;
  }
  const refused: string[] = [];
  entries.forEach((entry, index) => {
    const position = `entry ${index + 1}`;
    const equals = entry.indexOf('=');
    const name = equals < 0 ? '' : entry.slice(0, equals).trim().toLowerCase();
    if (equals < 0 || !HEADER_NAME.test(name)) {
      refused.push(`${position} is not key=value with a header name of letters, digits and !#$%&'*+.^_\`|~-`);
      return;
    }
    let value: string;
    try {
      value = decodeURIComponent(entry.slice(equals + 1).trim());
    } catch {
      refused.push(`${position} has a value that is not valid URL encoding`);
      return;
    }
    if (!HEADER_VALUE.test(value)) refused.push(`${position} has a value with characters a header cannot carry (control characters or non-ASCII)`);
    else if (RESERVED_HEADERS.has(name)) refused.push(`${position} sets a header the exporter sets itself`);
    else if (headers.has(name)) refused.push(`${position} repeats a header name`);
    else headers.set(name, new SecretText(value));
  });
  if (refused.length > 0) {
    fail(variable, `must be comma-separated key=value pairs with URL-encoded values: ${refused.join('; ')}`);
    return new Map();
  }
  return headers;
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
