/**
 * The client a registry user has, pointed at a running registry (in-process or a child process): plain
 * HTTP (`fetch`), answering with what a caller sees (status, headers, parsed body, raw bytes), and the
 * card documents the suites publish (written for these tests, not copied from any spec folder).
 */
export interface Reply {
  status: number;
  headers: Headers;
  /** The parsed JSON body (undefined when it is not JSON). */
  body: any;
  bytes: Buffer;
}

export interface CallOptions {
  token?: string | null;
  /** A JSON body (serialised here). */
  json?: unknown;
  /** Raw body bytes, sent as they are. */
  raw?: string;
  contentType?: string;
  headers?: Record<string, string>;
}

export type Call = (method: string, path: string, options?: CallOptions) => Promise<Reply>;

export function registryClient(baseUrl: string): Call {
  return async (method, path, options = {}) => {
    const body = options.raw ?? (options.json !== undefined ? JSON.stringify(options.json) : undefined);
    const response = await fetch(`${baseUrl}${path}`, {
      method,
      redirect: 'manual',
      headers: {
        ...(options.token ? { authorization: `Bearer ${options.token}` } : {}),
        ...(body !== undefined ? { 'content-type': options.contentType ?? 'application/json' } : {}),
        ...options.headers,
      },
      ...(body !== undefined ? { body } : {}),
    });
    const bytes = Buffer.from(await response.arrayBuffer());
    let parsed: unknown;
    try {
      parsed = JSON.parse(bytes.toString('utf8'));
    } catch {
      parsed = undefined;
    }
    return { status: response.status, headers: response.headers, body: parsed, bytes };
  };
}

/** `/v1/cards/{identifier}` with the identifier URL-encoded, plus `rest`. */
export const cardPath = (identifier: string, rest = '') => `/v1/cards/${encodeURIComponent(identifier)}${rest}`;

/** An AI Card v1 document of `domain`, as its publisher would write it (pretty-printed: the bytes matter). */
export function aiCard(domain: string, overrides: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    $schema: 'https://schemas.example.org/ai-card/v1.json',
    specVersion: '1.0',
    id: `did:web:${domain}`,
    name: 'Invoice helper',
    description: 'Answers questions about invoices and payment dates',
    tags: ['finance', 'invoices'],
    publisher: { id: `did:web:${domain}`, name: 'Acme Ltd' },
    services: { a2a: { type: 'a2a', name: 'Invoices over A2A', protocolSpecific: { url: `https://${domain}/a2a` } } },
    createdAt: '2026-01-10T09:00:00Z',
    updatedAt: '2026-02-01T10:00:00Z',
    ...overrides,
  };
}

export const bytesOf = (document: unknown) => JSON.stringify(document, null, 2);

/** An MCP server.json under the reverse-DNS name of `domain`. */
export function mcpServer(domain: string, version: string, overrides: Record<string, unknown> = {}): Record<string, unknown> {
  const name = `${domain.split('.').reverse().join('.')}/ledger`;
  return {
    $schema: 'https://static.modelcontextprotocol.io/schemas/2025-12-11/server.schema.json',
    name,
    description: 'Reads the ledger',
    version,
    remotes: [{ type: 'streamable-http', url: `https://${domain}/mcp` }],
    ...overrides,
  };
}
