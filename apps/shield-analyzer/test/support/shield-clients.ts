/**
 * The clients a Shield user has, pointed at a running analyzer (in-process or a child process): plain HTTP
 * for REST, the generated grpc-js client for `ShieldAnalyzer`, and the official MCP client over streamable
 * HTTP. Each answers with what a caller sees (status, parsed body, issues), never with framework objects.
 */
import * as grpc from '@grpc/grpc-js';
import { Client as McpClient } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { shieldAnalyzerV1GrpcJs as S } from '@trustmesh/contracts';

export interface RestReply {
  status: number;
  /** The parsed JSON body (undefined when it is not JSON). */
  body: any;
  text: string;
}

export type RestCall = (method: string, path: string, token: string | null, body?: unknown, raw?: string) => Promise<RestReply>;

/** A REST caller for `baseUrl` (`http://host:port`); `raw` sends a body as is. */
export function restClient(baseUrl: string): RestCall {
  return async (method, path, token, body, raw) => {
    const response = await fetch(`${baseUrl}${path}`, {
      method,
      headers: { ...(token ? { authorization: `Bearer ${token}` } : {}), ...(body !== undefined || raw !== undefined ? { 'content-type': 'application/json' } : {}) },
      ...(raw !== undefined ? { body: raw } : body !== undefined ? { body: JSON.stringify(body) } : {}),
    });
    const text = await response.text();
    let parsed: unknown;
    try {
      parsed = JSON.parse(text);
    } catch {
      parsed = undefined;
    }
    return { status: response.status, body: parsed, text };
  };
}

export interface GrpcReply<Res> {
  response?: Res;
  error?: grpc.ServiceError;
  /** The refusal's `{ error, issues }` from the `shield-issues-bin` trailer. */
  issues?: any;
}

export interface ShieldGrpcApi {
  openCase(request: S.OpenCaseRequest, token: string | null): Promise<GrpcReply<S.OpenCaseResponse>>;
  consult(request: S.ConsultRequest, token: string | null): Promise<GrpcReply<S.ConsultResponse>>;
  addGuidance(request: S.AddGuidanceRequest, token: string | null): Promise<GrpcReply<S.AddGuidanceResponse>>;
  closeCase(request: S.CloseCaseRequest, token: string | null): Promise<GrpcReply<S.CloseCaseResponse>>;
  getCase(request: S.GetCaseRequest, token: string | null): Promise<GrpcReply<S.GetCaseResponse>>;
  /** Unset fields are the defaults (both statuses, 500 a page, the first page). */
  listCases(request: Partial<S.ListCasesRequest>, token: string | null): Promise<GrpcReply<S.ListCasesResponse>>;
  close(): void;
}

/** A `ShieldAnalyzer` client for `address` (`host:port`, plaintext) with a bearer per call. */
export function grpcClient(address: string): ShieldGrpcApi {
  const client = new S.ShieldAnalyzerClient(address, grpc.credentials.createInsecure());
  const call = <Res>(invoke: (metadata: grpc.Metadata, callback: (error: grpc.ServiceError | null, response: Res) => void) => grpc.ClientUnaryCall, token: string | null) => {
    const metadata = new grpc.Metadata();
    if (token) metadata.set('authorization', `Bearer ${token}`);
    return new Promise<GrpcReply<Res>>((resolve) => {
      invoke(metadata, (error, response) => {
        if (!error) return resolve({ response });
        const raw = error.metadata?.get('shield-issues-bin')[0];
        resolve({ error, ...(raw ? { issues: JSON.parse(Buffer.from(raw as Buffer).toString('utf8')) } : {}) });
      });
    });
  };
  return {
    openCase: (request, token) => call((m, cb) => client.openCase(request, m, cb), token),
    consult: (request, token) => call((m, cb) => client.consult(request, m, cb), token),
    addGuidance: (request, token) => call((m, cb) => client.addGuidance(request, m, cb), token),
    closeCase: (request, token) => call((m, cb) => client.closeCase(request, m, cb), token),
    getCase: (request, token) => call((m, cb) => client.getCase(request, m, cb), token),
    listCases: (request, token) => call((m, cb) => client.listCases(S.ListCasesRequest.fromPartial(request), m, cb), token),
    close: () => client.close(),
  };
}

export interface ShieldMcpSession {
  /** Calls a tool; `value` is its JSON text parsed, `isError` the tool's error flag. */
  tool(name: string, args: Record<string, unknown>): Promise<{ isError: boolean; value: any }>;
  listTools(): Promise<string[]>;
  close(): Promise<void>;
}

/** An MCP session with the analyzer at `baseUrl` (`POST /mcp`), as an agent connects with its token. */
export async function mcpClient(baseUrl: string, agentToken: string): Promise<ShieldMcpSession> {
  const client = new McpClient({ name: 'shield-e2e', version: '1.0.0' });
  await client.connect(new StreamableHTTPClientTransport(new URL(`${baseUrl}/mcp`), { requestInit: { headers: { authorization: `Bearer ${agentToken}` } } }));
  return {
    async tool(name, args) {
      const result = (await client.callTool({ name, arguments: args })) as { isError?: boolean; content: Array<{ type: string; text: string }> };
      return { isError: result.isError === true, value: JSON.parse(result.content[0]?.text ?? 'null') };
    },
    async listTools() {
      return (await client.listTools()).tools.map((tool) => tool.name);
    },
    close: () => client.close(),
  };
}

export const toJson = (value: unknown) => JSON.stringify(value);
export const fromJson = (text: string | undefined): Record<string, any> => JSON.parse(text ?? 'null');
