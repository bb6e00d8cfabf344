import { ConfigError } from '@trustmesh/platform-config';

import { readTracingConfig, TracingConfigError } from './tracing.config';

const refusal = (env: Record<string, string>) => {
  try {
    readTracingConfig(env, 'shield-analyzer');
  } catch (error) {
    return error as TracingConfigError;
  }
  throw new Error('expected a refusal');
};

describe('readTracingConfig', () => {
  it('is off without an endpoint, or when the SDK is disabled', () => {
    expect(readTracingConfig({}, 'shield-analyzer')).toEqual({ enabled: false });
    expect(readTracingConfig({ OTEL_SDK_DISABLED: 'true', OTEL_EXPORTER_OTLP_ENDPOINT: 'http://collector:4318' }, 'shield-analyzer')).toEqual({ enabled: false });
  });

  it('posts to <base>/v1/traces, or to the traces endpoint as given, which wins', () => {
    expect(readTracingConfig({ OTEL_EXPORTER_OTLP_ENDPOINT: 'http://collector:4318/' }, 'shield-analyzer')).toEqual({
      enabled: true,
      tracesEndpoint: 'http://collector:4318/v1/traces',
      serviceName: 'shield-analyzer',
      sampler: 'parentbased_always_on',
      samplerRatio: 1,
      exportDelayMs: 5000,
      headers: new Map(),
    });
    const both = readTracingConfig({ OTEL_EXPORTER_OTLP_ENDPOINT: 'http://a:4318', OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: 'https://b.example/otlp/traces' }, 'x');
    expect(both).toMatchObject({ tracesEndpoint: 'https://b.example/otlp/traces' });
  });

  it('reads the service name, the sampler and its ratio', () => {
    const config = readTracingConfig(
      { OTEL_EXPORTER_OTLP_ENDPOINT: 'http://collector:4318', OTEL_SERVICE_NAME: 'shield-eu', OTEL_TRACES_SAMPLER: 'parentbased_traceidratio', OTEL_TRACES_SAMPLER_ARG: '0.25' },
      'shield-analyzer',
    );
    expect(config).toMatchObject({ serviceName: 'shield-eu', sampler: 'parentbased_traceidratio', samplerRatio: 0.25 });
  });

  it('refuses a bad endpoint with TRACING_CONFIG_INVALID naming the variable, as a ConfigError', () => {
    for (const endpoint of ['collector:4318', 'not a url', 'ftp://collector/v1/traces', `http://collector/${'a'.repeat(2100)}`]) {
      const error = refusal({ OTEL_EXPORTER_OTLP_ENDPOINT: endpoint });
      expect(error).toBeInstanceOf(ConfigError);
      expect(error.code).toBe('TRACING_CONFIG_INVALID');
      expect(error.problems).toEqual([expect.objectContaining({ variable: 'OTEL_EXPORTER_OTLP_ENDPOINT' })]);
      expect(error.message).toMatch(/^TRACING_CONFIG_INVALID: /);
    }
  });

  it('refuses credentials in the endpoint without repeating them', () => {
    const error = refusal({ OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: 'https://user:s3cret@collector.example/v1/traces' });
    expect(error.problems).toEqual([expect.objectContaining({ variable: 'OTEL_EXPORTER_OTLP_TRACES_ENDPOINT' })]);
    expect(error.message).not.toContain('s3cret');
  });

  it('refuses a bad sampler, ratio, export delay or service name, all at once', () => {
    const error = refusal({
      OTEL_EXPORTER_OTLP_ENDPOINT: 'http://collector:4318',
      OTEL_TRACES_SAMPLER: 'sometimes',
      OTEL_TRACES_SAMPLER_ARG: '2',
      OTEL_BSP_SCHEDULE_DELAY: '0',
      OTEL_SERVICE_NAME: 'has spaces',
    });
    expect(error.problems.map((problem) => problem.variable).sort()).toEqual(['OTEL_BSP_SCHEDULE_DELAY', 'OTEL_SERVICE_NAME', 'OTEL_TRACES_SAMPLER', 'OTEL_TRACES_SAMPLER_ARG']);
  });

  it('reads the export headers, URL-decoded, as secrets; the traces variable wins', () => {
    const config = readTracingConfig(
      { OTEL_EXPORTER_OTLP_ENDPOINT: 'http://collector:4318', OTEL_EXPORTER_OTLP_HEADERS: 'a=1', OTEL_EXPORTER_OTLP_TRACES_HEADERS: ' Api-Key = s%3Dcret%20value ,x-b=2' },
      'x',
    );
    if (!config.enabled) throw new Error('expected tracing on');
    expect([...config.headers.keys()]).toEqual(['api-key', 'x-b']);
    expect(config.headers.get('api-key')?.reveal()).toBe('s=cret value');
    // Held as SecretText: printed or serialized, the configuration shows no header value.
    expect(JSON.stringify({ ...config, headers: Object.fromEntries(config.headers) })).not.toContain('cret');
    expect(readTracingConfig({ OTEL_EXPORTER_OTLP_ENDPOINT: 'http://collector:4318', OTEL_EXPORTER_OTLP_HEADERS: 'a=1' }, 'x')).toMatchObject({ headers: new Map([['a', expect.anything()]]) });
  });

  it('refuses bad headers naming the variable and the entry, never echoing a key or a value', () => {
    const secret = 'tok3n-SECRET-9f8e';
    for (const headers of [
      `Bearer ${secret}`,
      `authorization=Bearer%20${secret},${secret}`,
      `x-key=${secret}%ZZ`,
      `x-key=${secret}%0D%0Ainjected: 1`,
      `${secret} x=1`,
      `content-type=${secret}`,
      `a=${secret},a=${secret}`,
    ]) {
      const error = refusal({ OTEL_EXPORTER_OTLP_ENDPOINT: 'http://collector:4318', OTEL_EXPORTER_OTLP_TRACES_HEADERS: headers });
      expect(error.code).toBe('TRACING_CONFIG_INVALID');
      expect(error.problems).toEqual([expect.objectContaining({ variable: 'OTEL_EXPORTER_OTLP_TRACES_HEADERS', message: expect.stringMatching(/entry \d/) })]);
      expect(error.message).not.toContain(secret);
      expect(JSON.stringify(error.problems)).not.toContain(secret);
    }
  });

  it('bounds the headers: their length and their number', () => {
    const long = refusal({ OTEL_EXPORTER_OTLP_ENDPOINT: 'http://collector:4318', OTEL_EXPORTER_OTLP_HEADERS: `a=${'x'.repeat(9000)}` });
    expect(long.problems).toEqual([expect.objectContaining({ variable: 'OTEL_EXPORTER_OTLP_HEADERS', message: expect.stringContaining('8192') })]);
    const many = refusal({ OTEL_EXPORTER_OTLP_ENDPOINT: 'http://collector:4318', OTEL_EXPORTER_OTLP_HEADERS: Array.from({ length: 33 }, (_, index) => `h${index}=1`).join(',') });
    expect(many.problems).toEqual([expect.objectContaining({ variable: 'OTEL_EXPORTER_OTLP_HEADERS', message: expect.stringContaining('32') })]);
  });
});
