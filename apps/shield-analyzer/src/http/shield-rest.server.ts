/**
 * REST under `/v0.1` (SHIELD.md §13) on a plain Node HTTP listener: bearer authentication, bounded JSON
 * bodies (413 beyond SHIELD_MAX_BODY_BYTES, counted while reading), and the application service behind
 * every route. Errors are `{ error, issues: [{ code, path, message }] }` and never echo input.
 *
 * Status codes: 400 validation and closed cases (§5), 401 no or unknown credential, 403 a credential that
 * may not do this (agent adding guidance, agent bound to another agent, missing scope), 404 an unknown case
 * or another account's, 409 a concurrent change, 413 an oversized body. Request logs carry the method, the
 * route template, the status and the duration: never a body (§12).
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

import type { Logger } from '@trustmesh/platform-logging';

import { handleMcpRequest } from '../mcp/shield-mcp.server';
import type { ShieldCaller } from '../service/shield-callers';
import type { ShieldCaseService } from '../service/shield-case.service';
import type { ServiceResult, ShieldFailureKind } from '../service/shield-service.result';

const STATUS: Record<ShieldFailureKind, number> = { invalid: 400, unauthenticated: 401, forbidden: 403, not_found: 404, conflict: 409 };

type Handler = (caller: ShieldCaller, params: string[], body: unknown) => Promise<{ status: number; result: ServiceResult<unknown> }>;

interface Route {
  method: 'GET' | 'POST';
  template: string;
  pattern: RegExp;
  takesBody: boolean;
  handle: Handler;
}

class BodyTooLarge extends Error {}
class BodyNotJson extends Error {}

export interface ShieldRestServerOptions {
  service: ShieldCaseService;
  logger: Logger;
  maxBodyBytes: number;
  /** GET /healthz and /readyz on the data port, where load balancers look for them. */
  readiness: () => Promise<boolean>;
  /** Told of every answered request (operator metrics). */
  onAnswered?: (method: string, route: string, status: number) => void;
}

export class ShieldRestServer {
  private readonly server: Server;
  private readonly routes: Route[];

  constructor(private readonly options: ShieldRestServerOptions) {
    const { service } = options;
    const segment = '([^/]+)';
    const route = (method: Route['method'], template: string, takesBody: boolean, handle: Handler): Route => ({
      method,
      template,
      takesBody,
      handle,
      pattern: new RegExp(`^${template.replace(/:[a-z]+/g, segment)}$`),
    });
    this.routes = [
      route('GET', '/v0.1/shield/cases', false, async (caller) => ({ status: 200, result: await service.list(caller) })),
      route('POST', '/v0.1/shield/cases', true, async (caller, _params, body) => ({ status: 201, result: await service.open(caller, body) })),
      route('GET', '/v0.1/shield/cases/:id', false, async (caller, [id]) => ({ status: 200, result: await service.get(caller, id ?? '') })),
      route('POST', '/v0.1/shield/cases/:id/consult', true, async (caller, [id], body) => ({ status: 200, result: await service.consult(caller, id ?? '', body) })),
      route('POST', '/v0.1/shield/cases/:id/guidance', true, async (caller, [id], body) => ({ status: 200, result: await service.addGuidance(caller, id ?? '', body) })),
      route('POST', '/v0.1/shield/cases/:id/close', true, async (caller, [id], body) => ({ status: 200, result: await service.close(caller, id ?? '', body) })),
      route('POST', '/v0.1/agents/:id/shield-tokens', true, async (caller, [id], body) => ({ status: 201, result: await service.issueAgentToken(caller, id ?? '', body) })),
    ];
    this.server = createServer((request, response) => {
      const started = Date.now();
      response.setHeader('Cache-Control', 'no-store');
      response.setHeader('X-Content-Type-Options', 'nosniff');
      this.handle(request, response).then(
        (template) => this.log(request, response, template, started),
        (error: unknown) => {
          this.options.logger.log('error', 'shield request failed', { errorName: error instanceof Error ? error.name : 'unknown' });
          if (!response.headersSent) send(response, 500, { error: 'Internal error', issues: [{ code: 'SHIELD_INTERNAL', path: '', message: 'Internal error' }] });
          this.log(request, response, 'unknown', started);
        },
      );
    });
    this.server.requestTimeout = 60_000;
    this.server.headersTimeout = 10_000;
  }

  async listen(host: string, port: number): Promise<AddressInfo> {
    await new Promise<void>((resolve, reject) => {
      this.server.once('error', reject);
      this.server.listen(port, host, () => {
        this.server.off('error', reject);
        resolve();
      });
    });
    return this.server.address() as AddressInfo;
  }

  close(): Promise<void> {
    return new Promise((resolve) => {
      this.server.close(() => resolve());
      this.server.closeAllConnections();
    });
  }

  /** Answers one request; resolves with the route template for the request log. */
  private async handle(request: IncomingMessage, response: ServerResponse): Promise<string> {
    const path = decodeSafely((request.url ?? '/').split('?')[0] ?? '/');
    if (request.method === 'GET' && (path === '/healthz' || path === '/readyz')) {
      const ready = path === '/healthz' || (await this.options.readiness());
      send(response, ready ? 200 : 503, { status: ready ? 'ok' : 'not-ready' });
      return path;
    }
    if (path === '/mcp') return this.handleMcp(request, response);
    const matching = this.routes.filter((candidate) => candidate.pattern.test(path));
    const route = matching.find((candidate) => candidate.method === request.method);
    if (!route) {
      request.resume();
      if (matching.length > 0) failWith(response, 405, 'SHIELD_METHOD_NOT_ALLOWED', 'Method not allowed');
      else failWith(response, 404, 'SHIELD_ROUTE_NOT_FOUND', 'No such route');
      return 'unmatched';
    }
    const caller = await this.options.service.authenticate(bearerOf(request));
    if (!caller) {
      request.resume();
      response.setHeader('WWW-Authenticate', 'Bearer');
      failWith(response, 401, 'SHIELD_UNAUTHENTICATED', 'A valid bearer credential is required');
      return route.template;
    }
    let body: unknown;
    if (route.takesBody) {
      try {
        body = await readJson(request, this.options.maxBodyBytes);
      } catch (error) {
        if (error instanceof BodyTooLarge) {
          response.setHeader('Connection', 'close');
          failWith(response, 413, 'SHIELD_BODY_TOO_LARGE', `The body exceeds ${this.options.maxBodyBytes} bytes`);
        } else if (error instanceof BodyNotJson) failWith(response, 400, 'SHIELD_BODY_NOT_JSON', 'The body must be one JSON value (UTF-8)');
        else throw error;
        return route.template;
      }
    }
    const params = (route.pattern.exec(path) ?? []).slice(1);
    const { status, result } = await route.handle(caller, params, body);
    if (result.ok) send(response, status, result.value);
    else send(response, STATUS[result.failure.kind], { error: result.failure.error, issues: result.failure.issues });
    return route.template;
  }

  /** `POST /mcp`: the MCP server, for agent tokens with `mcp:access` (§13); bodies bounded as REST's. */
  private async handleMcp(request: IncomingMessage, response: ServerResponse): Promise<string> {
    const template = '/mcp';
    if (request.method !== 'POST') {
      request.resume();
      failWith(response, 405, 'SHIELD_METHOD_NOT_ALLOWED', 'The MCP endpoint is stateless: POST only');
      return template;
    }
    const caller = await this.options.service.authenticate(bearerOf(request));
    if (!caller) {
      request.resume();
      response.setHeader('WWW-Authenticate', 'Bearer');
      failWith(response, 401, 'SHIELD_UNAUTHENTICATED', 'A valid bearer credential is required');
      return template;
    }
    if (caller.kind !== 'agent' || !caller.scopes.includes('mcp:access')) {
      request.resume();
      failWith(response, 403, 'SHIELD_SCOPE_MISSING', 'The MCP tools are for agent tokens with the mcp:access scope');
      return template;
    }
    let body: unknown;
    try {
      body = await readJson(request, this.options.maxBodyBytes);
    } catch (error) {
      if (error instanceof BodyTooLarge) failWith(response, 413, 'SHIELD_BODY_TOO_LARGE', `The body exceeds ${this.options.maxBodyBytes} bytes`);
      else if (error instanceof BodyNotJson) failWith(response, 400, 'SHIELD_BODY_NOT_JSON', 'The body must be one JSON value (UTF-8)');
      else throw error;
      return template;
    }
    await handleMcpRequest(this.options.service, caller, request, response, body);
    return template;
  }

  private log(request: IncomingMessage, response: ServerResponse, route: string, started: number): void {
    this.options.onAnswered?.(request.method ?? '', route, response.statusCode);
    this.options.logger.log('info', 'shield request', { method: request.method ?? '', route, status: response.statusCode, durationMs: Date.now() - started });
  }
}

function bearerOf(request: IncomingMessage): string | undefined {
  const header = request.headers.authorization;
  const match = header ? /^Bearer ([\x21-\x7e]{1,512})$/i.exec(header) : null;
  return match?.[1];
}

function decodeSafely(path: string): string {
  try {
    return decodeURIComponent(path);
  } catch {
    return path;
  }
}

/**
 * Reads one JSON body of at most `maxBytes`. Beyond that it stops collecting (the rest is drained, not
 * destroyed, so the 413 answer still reaches the client) and rejects with `BodyTooLarge`.
 */
function readJson(request: IncomingMessage, maxBytes: number): Promise<unknown> {
  return new Promise((resolve, reject) => {
    const declared = Number(request.headers['content-length'] ?? '0');
    if (declared > maxBytes) {
      request.resume();
      reject(new BodyTooLarge());
      return;
    }
    const chunks: Buffer[] = [];
    let size = 0;
    let refused = false;
    request.on('data', (chunk: Buffer) => {
      if (refused) return;
      size += chunk.length;
      if (size > maxBytes) {
        refused = true;
        chunks.length = 0;
        reject(new BodyTooLarge());
        return;
      }
      chunks.push(chunk);
    });
    request.on('error', reject);
    request.on('end', () => {
      if (refused) return;
      try {
        if (size === 0) throw new BodyNotJson();
        resolve(JSON.parse(new TextDecoder('utf-8', { fatal: true }).decode(Buffer.concat(chunks))) as unknown);
      } catch {
        reject(new BodyNotJson());
      }
    });
  });
}

function failWith(response: ServerResponse, status: number, code: string, message: string): void {
  send(response, status, { error: message, issues: [{ code, path: '', message }] });
}

function send(response: ServerResponse, status: number, body: unknown): void {
  const text = JSON.stringify(body);
  response.writeHead(status, { 'Content-Type': 'application/json; charset=utf-8', 'Content-Length': Buffer.byteLength(text) });
  response.end(text);
}
