/**
 * An OTLP/HTTP traces collector in the test process: a real HTTP server on a free port that accepts what an
 * app's OTLP exporter posts to `/v1/traces` (the JSON encoding, as `@opentelemetry/exporter-trace-otlp-http`
 * sends it), decodes each request and keeps the spans, so a test reads the traces an operator's collector
 * would receive. A request it cannot decode is answered 400 and counted in `rejected`.
 */
import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

const MAX_REQUEST_BYTES = 16 * 1024 * 1024;

/** OTLP span kinds (`SPAN_KIND_*` of the trace protocol). */
export const OTLP_SPAN_KIND = { internal: 1, server: 2, client: 3, producer: 4, consumer: 5 } as const;

export interface CollectedSpan {
  traceId: string;
  spanId: string;
  /** Empty for a root span. */
  parentSpanId: string;
  name: string;
  kind: number;
  /** `service.name` of the resource that sent it. */
  service: string;
  /** The scalar attributes of that resource (`service.instance.id`, `service.version`, …). */
  resource: Record<string, string | number | boolean>;
  /** Scalar attributes as their JSON values (`intValue` as a number). */
  attributes: Record<string, string | number | boolean>;
  links: { traceId: string; spanId: string }[];
  /** `STATUS_CODE_*` of the protocol: 0 unset, 1 ok, 2 error. */
  statusCode: number;
}

export interface OtlpTestCollector {
  /** `http://127.0.0.1:<port>`: the value of OTEL_EXPORTER_OTLP_ENDPOINT. */
  readonly endpoint: string;
  /** Every span received so far, in arrival order. */
  spans(): CollectedSpan[];
  /** The headers of each export request received (lower-case names), in arrival order. */
  requestHeaders(): Record<string, string>[];
  /** Requests that were not OTLP JSON traces. */
  readonly rejected: number;
  close(): Promise<void>;
}

interface OtlpValue {
  stringValue?: string;
  intValue?: string | number;
  doubleValue?: number;
  boolValue?: boolean;
}
interface OtlpAttribute {
  key: string;
  value?: OtlpValue;
}
interface OtlpSpan {
  traceId: string;
  spanId: string;
  parentSpanId?: string;
  name: string;
  kind: number;
  attributes?: OtlpAttribute[];
  links?: { traceId: string; spanId: string }[];
  status?: { code?: number };
}
interface OtlpTraceRequest {
  resourceSpans?: { resource?: { attributes?: OtlpAttribute[] }; scopeSpans?: { spans?: OtlpSpan[] }[] }[];
}

export async function startOtlpTestCollector(): Promise<OtlpTestCollector> {
  const received: CollectedSpan[] = [];
  const headers: Record<string, string>[] = [];
  let rejected = 0;
  const server: Server = createServer((request, response) => {
    headers.push(Object.fromEntries(Object.entries(request.headers).map(([name, value]) => [name, Array.isArray(value) ? value.join(', ') : String(value)])));
    void readBody(request).then((body) => {
      const spans = request.method === 'POST' && request.url === '/v1/traces' && body !== undefined ? decode(body) : undefined;
      if (!spans) {
        rejected += 1;
        response.writeHead(400, { 'content-type': 'application/json' }).end('{}');
        return;
      }
      received.push(...spans);
      response.writeHead(200, { 'content-type': 'application/json' }).end('{}');
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    endpoint: `http://127.0.0.1:${port}`,
    spans: () => [...received],
    requestHeaders: () => [...headers],
    get rejected() {
      return rejected;
    },
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

function readBody(request: IncomingMessage): Promise<Buffer | undefined> {
  return new Promise((resolve) => {
    const chunks: Buffer[] = [];
    let size = 0;
    request.on('data', (chunk: Buffer) => {
      size += chunk.length;
      if (size <= MAX_REQUEST_BYTES) chunks.push(chunk);
    });
    request.on('end', () => resolve(size <= MAX_REQUEST_BYTES ? Buffer.concat(chunks) : undefined));
    request.on('error', () => resolve(undefined));
  });
}

function decode(body: Buffer): CollectedSpan[] | undefined {
  let parsed: OtlpTraceRequest;
  try {
    parsed = JSON.parse(body.toString('utf8')) as OtlpTraceRequest;
  } catch {
    return undefined;
  }
  if (!Array.isArray(parsed.resourceSpans)) return undefined;
  return parsed.resourceSpans.flatMap((resourceSpans) => {
    const resource = attributesOf(resourceSpans.resource?.attributes);
    const service = String(resource['service.name'] ?? '');
    return (resourceSpans.scopeSpans ?? []).flatMap((scope) =>
      (scope.spans ?? []).map((span) => ({
        traceId: span.traceId,
        spanId: span.spanId,
        parentSpanId: span.parentSpanId ?? '',
        name: span.name,
        kind: span.kind,
        service,
        resource,
        attributes: attributesOf(span.attributes),
        links: (span.links ?? []).map((link) => ({ traceId: link.traceId, spanId: link.spanId })),
        statusCode: span.status?.code ?? 0,
      })),
    );
  });
}

function attributesOf(attributes: OtlpAttribute[] | undefined): Record<string, string | number | boolean> {
  const values: Record<string, string | number | boolean> = {};
  for (const { key, value } of attributes ?? []) {
    if (value?.stringValue !== undefined) values[key] = value.stringValue;
    else if (value?.intValue !== undefined) values[key] = Number(value.intValue);
    else if (value?.doubleValue !== undefined) values[key] = value.doubleValue;
    else if (value?.boolValue !== undefined) values[key] = value.boolValue;
  }
  return values;
}
