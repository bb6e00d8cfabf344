/**
 * Bad input on every route, table-driven, through real clients: every REST route (and POST /mcp) gets
 * malformed JSON, invalid UTF-8, duplicate keys, empty and oversized bodies (declared and streamed), the wrong
 * content type, wrong types, unknown and malformed ids, another account's case and another agent's; every gRPC
 * method gets bytes that are no message of it, an oversized message, malformed and mistyped JSON and the same
 * ids; every MCP tool gets mistyped arguments and the same ids through the official MCP client. Each answer is
 * a stable code, never a 5xx; afterwards nothing was stored and the service still serves.
 */
import { request as httpRequest } from 'node:http';

import * as grpc from '@grpc/grpc-js';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { shieldAnalyzerV1GrpcJs as S } from '@trustmesh/contracts';

import { ACME_TOKEN, caseInput, GLOBEX_TOKEN, startShieldApp, type ShieldApp } from './support/shield-app.fixture';

const UNKNOWN_ID = '6f1c2a3b-4d5e-4f60-8a7b-9c0d1e2f3a4b';
const BAD_IDS = ['not-a-uuid', '6F1C2A3B4D5E4F608A7B9C0D1E2F3A4B', `${UNKNOWN_ID}x`, 'x'.repeat(300)];
const MAX_BODY = 256 * 1024;

interface Answer {
  status: number;
  body: any;
}

/** One raw HTTP request: exact bytes, headers and framing (`chunked`: no Content-Length, the body streamed). */
function send(app: ShieldApp, method: string, path: string, options: { token?: string | null; contentType?: string | null; body?: Buffer | string; chunked?: boolean } = {}): Promise<Answer> {
  const { token = ACME_TOKEN, contentType = 'application/json', body, chunked = false } = options;
  const bytes = body === undefined ? undefined : Buffer.isBuffer(body) ? body : Buffer.from(body, 'utf8');
  const headers: Record<string, string> = { accept: 'application/json, text/event-stream' };
  if (token) headers['authorization'] = `Bearer ${token}`;
  if (contentType) headers['content-type'] = contentType;
  if (bytes && !chunked) headers['content-length'] = String(bytes.length);
  return new Promise((resolve, reject) => {
    const request = httpRequest(`${app.handle.httpUrl}${path}`, { method, headers, agent: false }, (response) => {
      const chunks: Buffer[] = [];
      response.on('data', (chunk: Buffer) => chunks.push(chunk));
      response.on('end', () => {
        const text = Buffer.concat(chunks).toString('utf8');
        let parsed: unknown;
        try {
          parsed = JSON.parse(text);
        } catch {
          parsed = text;
        }
        resolve({ status: response.statusCode ?? 0, body: parsed });
      });
    });
    // A server that answers 413 before reading the rest may close while we still write: that is its right.
    request.on('error', (error: NodeJS.ErrnoException) => (error.code === 'EPIPE' || error.code === 'ECONNRESET' ? undefined : reject(error)));
    if (bytes && chunked) {
      for (let offset = 0; offset < bytes.length; offset += 64 * 1024) request.write(bytes.subarray(offset, offset + 64 * 1024));
    } else if (bytes) request.write(bytes);
    request.end();
  });
}

const codeOf = (answer: Answer) => [answer.status, answer.body?.issues?.[0]?.code];

describe('Shield analyzer: bad input on every route', () => {
  let app: ShieldApp;
  let acmeCase: string;
  let globexCase: string;
  let otherAgentCase: string;
  let agentToken: string;
  let globexTokenId: string;
  let eventsAfterSetup: number;

  beforeAll(async () => {
    app = await startShieldApp();
    acmeCase = (await app.call('POST', '/v0.1/shield/cases', ACME_TOKEN, caseInput({ agentId: 'agent-a' }))).body.caseId;
    otherAgentCase = (await app.call('POST', '/v0.1/shield/cases', ACME_TOKEN, caseInput({ agentId: 'agent-b' }))).body.caseId;
    globexCase = (await app.call('POST', '/v0.1/shield/cases', GLOBEX_TOKEN, caseInput({ agentId: 'agent-a' }))).body.caseId;
    agentToken = (await app.call('POST', '/v0.1/agents/agent-a/shield-tokens', ACME_TOKEN, { mcp: true })).body.token;
    globexTokenId = (await app.call('POST', '/v0.1/agents/agent-a/shield-tokens', GLOBEX_TOKEN, {})).body.tokenId;
    eventsAfterSetup = await eventCount(app);
  });
  afterAll(async () => {
    // Nothing any test below sent was stored, nothing answered 5xx or logged a failure, and the app still serves.
    if (app) {
      expect(await eventCount(app)).toBe(eventsAfterSetup);
      expect(app.logs.filter((line) => /"level":"error"/.test(line))).toEqual([]);
      expect(app.logs.filter((line) => /"status":5\d\d/.test(line))).toEqual([]);
      expect((await app.call('GET', `/v0.1/shield/cases/${acmeCase}`, ACME_TOKEN)).status).toBe(200);
      await app.close();
    }
  });

  describe('REST', () => {
    /** Every route that reads a body, with a body it would accept (sent only where the id makes it fail). */
    const BODY_ROUTES: Array<{ route: string; path: (id: string) => string; valid: unknown }> = [
      { route: 'POST /v0.1/shield/cases', path: () => '/v0.1/shield/cases', valid: caseInput() },
      { route: 'POST /v0.1/shield/cases/:id/consult', path: (id) => `/v0.1/shield/cases/${id}/consult`, valid: { message: 'Can you confirm the delivery date?' } },
      { route: 'POST /v0.1/shield/cases/:id/guidance', path: (id) => `/v0.1/shield/cases/${id}/guidance`, valid: { instruction: 'Call the supplier back first.' } },
      { route: 'POST /v0.1/shield/cases/:id/close', path: (id) => `/v0.1/shield/cases/${id}/close`, valid: { result: 'successful', acceptedAdvice: true, actionTaken: 'Done.' } },
      { route: 'POST /v0.1/agents/:id/shield-tokens', path: () => '/v0.1/agents/agent-a/shield-tokens', valid: {} },
      { route: 'POST /mcp', path: () => '/mcp', valid: { jsonrpc: '2.0', id: 1, method: 'tools/list' } },
    ];
    const bodyPath = (route: (typeof BODY_ROUTES)[number]) => route.path(acmeCase);
    const tokenFor = (route: (typeof BODY_ROUTES)[number]) => (route.route === 'POST /mcp' ? agentToken : ACME_TOKEN);

    const BODIES: Array<{ what: string; body: Buffer | string; chunked?: boolean; expected: [number, string] }> = [
      { what: 'malformed JSON', body: '{"message": "unterminated', expected: [400, 'SHIELD_BODY_NOT_JSON'] },
      { what: 'an empty body', body: '', expected: [400, 'SHIELD_BODY_NOT_JSON'] },
      { what: 'invalid UTF-8', body: Buffer.from([0x7b, 0x22, 0x61, 0x22, 0x3a, 0x22, 0xc3, 0x28, 0x22, 0x7d]), expected: [400, 'SHIELD_BODY_NOT_JSON'] },
      { what: 'duplicate keys', body: '{"message":"a","message":"b"}', expected: [400, 'SHIELD_BODY_NOT_JSON'] },
      { what: 'nesting past the bound', body: `${'['.repeat(5000)}${']'.repeat(5000)}`, expected: [400, 'SHIELD_BODY_NOT_JSON'] },
      { what: 'a declared oversized body', body: JSON.stringify({ message: 'x'.repeat(MAX_BODY) }), expected: [413, 'SHIELD_BODY_TOO_LARGE'] },
      { what: 'an oversized body streamed without a length', body: JSON.stringify({ message: 'x'.repeat(MAX_BODY) }), chunked: true, expected: [413, 'SHIELD_BODY_TOO_LARGE'] },
    ];
    const cases = BODY_ROUTES.flatMap((route) => BODIES.map((body) => [route.route, body.what, route, body] as const));
    it.each(cases)('%s refuses %s', async (_route, _what, route, body) => {
      const answer = await send(app, 'POST', bodyPath(route), { token: tokenFor(route), body: body.body, ...(body.chunked ? { chunked: true } : {}) });
      expect(codeOf(answer)).toEqual(body.expected);
      expect(JSON.stringify(answer.body)).not.toContain('xxxxxxxx');
    });

    it('says why a body is not one JSON value and where, without echoing the key', async () => {
      const duplicate = await send(app, 'POST', '/v0.1/shield/cases', { body: '{"title":"a","facts":[{"secretKeyName":1,"secretKeyName":2}]}' });
      expect(codeOf(duplicate)).toEqual([400, 'SHIELD_BODY_NOT_JSON']);
      expect(duplicate.body.issues[0]).toMatchObject({ path: '/facts/0', message: expect.stringContaining('the same key twice') });
      expect(duplicate.body.issues[0].message).not.toContain('secretKeyName');
      const deep = await send(app, 'POST', '/v0.1/shield/cases', { body: `{"title":${'['.repeat(10_000)}${']'.repeat(10_000)}}` });
      expect(codeOf(deep)).toEqual([400, 'SHIELD_BODY_NOT_JSON']);
      expect(deep.body.issues[0].message).toContain('more than 128 deep');
      const surrogate = await send(app, 'POST', '/v0.1/shield/cases', { body: '{"title":"\\ud800x"}' });
      expect(surrogate.body.issues[0]).toMatchObject({ code: 'SHIELD_BODY_NOT_JSON', path: '/title', message: expect.stringContaining('unpaired UTF-16 surrogate') });
    });

    it.each(BODY_ROUTES.map((route) => [route.route, route] as const))('%s refuses a body not declared application/json (415), and no credential (401) first', async (_name, route) => {
      for (const contentType of ['text/plain', 'application/x-www-form-urlencoded', null]) {
        expect(codeOf(await send(app, 'POST', bodyPath(route), { token: tokenFor(route), contentType, body: JSON.stringify(route.valid) }))).toEqual([415, 'SHIELD_CONTENT_TYPE_UNSUPPORTED']);
      }
      expect(codeOf(await send(app, 'POST', bodyPath(route), { token: null, body: '{"not json' }))).toEqual([401, 'SHIELD_UNAUTHENTICATED']);
      expect(codeOf(await send(app, 'POST', bodyPath(route), { token: 'tmsa_not-a-token', body: JSON.stringify(route.valid) }))).toEqual([401, 'SHIELD_UNAUTHENTICATED']);
    });

    it.each(BODY_ROUTES.filter((route) => route.route !== 'POST /mcp').map((route) => [route.route, route] as const))('%s refuses a body of the wrong type with SHIELD_FIELD_TYPE at the root', async (_name, route) => {
      for (const body of ['[]', '"text"', '42', 'null', 'true']) {
        const answer = await send(app, 'POST', bodyPath(route), { body });
        expect(codeOf(answer)).toEqual([400, 'SHIELD_FIELD_TYPE']);
        expect(answer.body.issues[0].path).toBe('');
      }
    });

    it('refuses fields of the wrong type with their code and pointer on each route', async () => {
      const table: Array<[string, unknown, string, string]> = [
        ['/v0.1/shield/cases', { ...caseInput(), title: 5 }, 'SHIELD_FIELD_TYPE', '/title'],
        ['/v0.1/shield/cases', { ...caseInput(), counterparty: 'bob' }, 'SHIELD_FIELD_TYPE', '/counterparty'],
        ['/v0.1/shield/cases', { ...caseInput(), facts: {} }, 'SHIELD_FIELD_TYPE', '/facts'],
        [`/v0.1/shield/cases/${acmeCase}/consult`, { message: ['hi'] }, 'SHIELD_FIELD_TYPE', '/message'],
        [`/v0.1/shield/cases/${acmeCase}/guidance`, { instruction: 7 }, 'SHIELD_FIELD_TYPE', '/instruction'],
        [`/v0.1/shield/cases/${acmeCase}/close`, { result: 'successful', acceptedAdvice: 'yes', actionTaken: 'Done.' }, 'SHIELD_FIELD_TYPE', '/acceptedAdvice'],
        ['/v0.1/agents/agent-a/shield-tokens', { expiresInDays: '7' }, 'SHIELD_NUMBER_OUT_OF_RANGE', '/expiresInDays'],
        ['/v0.1/agents/agent-a/shield-tokens', { expiresInDays: 2.5 }, 'SHIELD_NUMBER_OUT_OF_RANGE', '/expiresInDays'],
        ['/v0.1/agents/agent-a/shield-tokens', { mcp: 'yes' }, 'SHIELD_FIELD_TYPE', '/mcp'],
        ['/v0.1/agents/agent-a/shield-tokens', { name: 5 }, 'SHIELD_FIELD_TYPE', '/name'],
        ['/v0.1/agents/agent-a/shield-tokens', { scopes: ['admin'] }, 'SHIELD_FIELD_UNKNOWN', '/scopes'],
      ];
      for (const [path, body, code, pointer] of table) {
        const answer = await send(app, 'POST', path, { body: JSON.stringify(body) });
        expect([answer.status, answer.body.issues.find((issue: { path: string }) => issue.path === pointer)?.code]).toEqual([400, code]);
      }
    });

    /** Every route with a case id, with what makes it otherwise acceptable. */
    const CASE_ROUTES: Array<{ route: string; method: string; path: (id: string) => string; body?: unknown }> = [
      { route: 'GET /v0.1/shield/cases/:id', method: 'GET', path: (id) => `/v0.1/shield/cases/${id}` },
      ...BODY_ROUTES.filter((route) => route.route.includes('/cases/:id/')).map((route) => ({ route: route.route, method: 'POST', path: route.path, body: route.valid })),
    ];
    it.each(CASE_ROUTES.map((route) => [route.route, route] as const))("%s: an unknown, malformed or another account's case id is 404 SHIELD_CASE_NOT_FOUND", async (_name, route) => {
      const body = route.body === undefined ? {} : { body: JSON.stringify(route.body) };
      for (const id of [UNKNOWN_ID, ...BAD_IDS.map(encodeURIComponent), globexCase]) {
        expect(codeOf(await send(app, route.method, route.path(id), body))).toEqual([404, 'SHIELD_CASE_NOT_FOUND']);
      }
      // Another agent's case, with an agent token: 403 on REST (guidance is the owner's whatever the case).
      const asAgent = await send(app, route.method, route.path(otherAgentCase), { token: agentToken, ...body });
      expect(codeOf(asAgent)).toEqual([403, route.route.endsWith('/guidance') ? 'SHIELD_OWNER_ONLY' : 'SHIELD_AGENT_MISMATCH']);
    });

    it('agent-token routes refuse an agent id that is too long, and unknown, malformed or foreign token ids', async () => {
      const longAgent = `/v0.1/agents/${'a'.repeat(201)}/shield-tokens`;
      expect(codeOf(await send(app, 'POST', longAgent, { body: '{}' }))).toEqual([400, 'SHIELD_FIELD_TOO_LONG']);
      expect(codeOf(await send(app, 'GET', longAgent))).toEqual([400, 'SHIELD_FIELD_TOO_LONG']);
      expect(codeOf(await send(app, 'DELETE', `${longAgent}/${UNKNOWN_ID}`))).toEqual([400, 'SHIELD_FIELD_TOO_LONG']);
      for (const id of [UNKNOWN_ID, ...BAD_IDS.map(encodeURIComponent), globexTokenId]) {
        expect(codeOf(await send(app, 'DELETE', `/v0.1/agents/agent-a/shield-tokens/${id}`))).toEqual([404, 'SHIELD_AGENT_TOKEN_NOT_FOUND']);
      }
      for (const [method, path] of [
        ['GET', '/v0.1/shield/cases'],
        ['GET', `/v0.1/shield/cases/${acmeCase}`],
        ['GET', '/v0.1/agents/agent-a/shield-tokens'],
        ['DELETE', `/v0.1/agents/agent-a/shield-tokens/${UNKNOWN_ID}`],
      ] as const) {
        expect(codeOf(await send(app, method, path, { token: null }))).toEqual([401, 'SHIELD_UNAUTHENTICATED']);
      }
    });

    it('POST /mcp refuses valid JSON that is not a JSON-RPC message with the JSON-RPC parse error', async () => {
      const answer = await send(app, 'POST', '/mcp', { token: agentToken, body: '{"hello":"world"}' });
      expect(answer.status).toBe(400);
      expect(answer.body).toMatchObject({ jsonrpc: '2.0', error: { code: -32700 } });
    });
  });

  describe('gRPC', () => {
    let client: grpc.Client;
    beforeAll(() => {
      client = new grpc.Client(app.handle.grpcAddress, grpc.credentials.createInsecure());
    });
    afterAll(() => client?.close());

    type Method = keyof typeof S.ShieldAnalyzerService;
    const METHODS = Object.keys(S.ShieldAnalyzerService) as Method[];

    /** A unary call with raw request bytes, so tests can send what no generated client would. */
    function raw(method: Method, bytes: Buffer, token: string | null = ACME_TOKEN): Promise<{ code: grpc.status; issue?: string }> {
      const metadata = new grpc.Metadata();
      if (token) metadata.set('authorization', `Bearer ${token}`);
      return new Promise((resolve) => {
        client.makeUnaryRequest(
          S.ShieldAnalyzerService[method].path,
          (value: Buffer) => value,
          (value: Buffer) => value,
          bytes,
          metadata,
          (error) => {
            const issues = error?.metadata?.get('shield-issues-bin')[0];
            resolve({ code: error?.code ?? grpc.status.OK, ...(issues ? { issue: JSON.parse(Buffer.from(issues as Buffer).toString('utf8')).issues[0].code } : {}) });
          },
        );
      });
    }
    /** A unary call with a typed request, encoded by the generated codec. */
    const typed = <M extends Method>(method: M, request: Parameters<(typeof S.ShieldAnalyzerService)[M]['requestSerialize']>[0], token: string | null = ACME_TOKEN) =>
      raw(method, (S.ShieldAnalyzerService[method].requestSerialize as (value: unknown) => Buffer)(request), token);

    it.each(METHODS)('%s refuses bytes that are no message of it, an oversized message and a missing credential', async (method) => {
      expect(await raw(method, Buffer.from([0xff, 0xff, 0xff, 0xff, 0x0f]))).toEqual({ code: grpc.status.INVALID_ARGUMENT, issue: 'SHIELD_MESSAGE_INVALID' });
      expect((await raw(method, Buffer.alloc(MAX_BODY + 1, 0x41))).code).toBe(grpc.status.RESOURCE_EXHAUSTED);
      expect(await raw(method, Buffer.alloc(0), null)).toEqual({ code: grpc.status.UNAUTHENTICATED, issue: 'SHIELD_UNAUTHENTICATED' });
    });

    const JSON_INPUTS: Array<[Method, (json: string) => unknown]> = [
      ['openCase', (json) => ({ caseInputJson: json })],
      ['consult', (json) => ({ caseId: UNKNOWN_ID, consultInputJson: json })],
      ['addGuidance', (json) => ({ caseId: UNKNOWN_ID, guidanceInputJson: json })],
      ['closeCase', (json) => ({ caseId: UNKNOWN_ID, closeInputJson: json })],
      ['issueAgentToken', (json) => ({ agentId: 'agent-a', tokenInputJson: json })],
    ];
    it.each(JSON_INPUTS)('%s refuses malformed and mistyped JSON input', async (method, request) => {
      for (const json of ['{"a":', '{"a":1,"a":2}', '\ud800"']) expect(await typed(method, request(json) as never)).toEqual({ code: grpc.status.INVALID_ARGUMENT, issue: 'SHIELD_BODY_NOT_JSON' });
      for (const json of ['[]', '"text"', '7']) expect(await typed(method, request(json) as never)).toEqual({ code: grpc.status.INVALID_ARGUMENT, issue: 'SHIELD_FIELD_TYPE' });
    });

    const CASE_METHODS: Array<[Method, (caseId: string) => unknown]> = [
      ['getCase', (caseId) => ({ caseId })],
      ['consult', (caseId) => ({ caseId, consultInputJson: JSON.stringify({ message: 'When will it arrive?' }) })],
      ['addGuidance', (caseId) => ({ caseId, guidanceInputJson: JSON.stringify({ instruction: 'Call back first.' }) })],
      ['closeCase', (caseId) => ({ caseId, closeInputJson: JSON.stringify({ result: 'successful', acceptedAdvice: true, actionTaken: 'Done.' }) })],
    ];
    it.each(CASE_METHODS)("%s: an unknown, malformed or another account's case id is NOT_FOUND", async (method, request) => {
      for (const caseId of [UNKNOWN_ID, ...BAD_IDS, '', globexCase]) expect(await typed(method, request(caseId) as never)).toEqual({ code: grpc.status.NOT_FOUND, issue: 'SHIELD_CASE_NOT_FOUND' });
      expect((await typed(method, request(otherAgentCase) as never, agentToken)).code).toBe(grpc.status.PERMISSION_DENIED);
    });

    it('the agent-token methods refuse a too-long agent id and unknown, malformed or foreign token ids', async () => {
      const long = 'a'.repeat(201);
      expect(await typed('issueAgentToken', { agentId: long, tokenInputJson: '{}' })).toEqual({ code: grpc.status.INVALID_ARGUMENT, issue: 'SHIELD_FIELD_TOO_LONG' });
      expect(await typed('issueAgentToken', { agentId: '', tokenInputJson: '{}' })).toEqual({ code: grpc.status.INVALID_ARGUMENT, issue: 'SHIELD_FIELD_TOO_LONG' });
      expect(await typed('listAgentTokens', { agentId: long })).toEqual({ code: grpc.status.INVALID_ARGUMENT, issue: 'SHIELD_FIELD_TOO_LONG' });
      for (const tokenId of [UNKNOWN_ID, ...BAD_IDS, '', globexTokenId]) {
        expect(await typed('revokeAgentToken', { agentId: 'agent-a', tokenId })).toEqual({ code: grpc.status.NOT_FOUND, issue: 'SHIELD_AGENT_TOKEN_NOT_FOUND' });
      }
    });
  });

  describe('MCP', () => {
    let client: Client;
    beforeAll(async () => {
      client = new Client({ name: 'shield-bad-input', version: '1.0.0' });
      await client.connect(new StreamableHTTPClientTransport(new URL(`${app.handle.httpUrl}/mcp`), { requestInit: { headers: { authorization: `Bearer ${agentToken}` } } }));
    });
    afterAll(async () => {
      await client?.close();
    });

    const call = async (name: string, args: Record<string, unknown>) => {
      const result = (await client.callTool({ name, arguments: args })) as { isError?: boolean; content: Array<{ text: string }> };
      const text = result.content[0]?.text ?? '';
      let parsed: any;
      try {
        parsed = JSON.parse(text);
      } catch {
        parsed = undefined;
      }
      return { isError: result.isError === true, text, code: parsed?.issues?.[0]?.code as string | undefined };
    };

    const WITH_CASE: Array<[string, (caseId: string) => Record<string, unknown>]> = [
      ['openclasp_shield_get_case', (caseId) => ({ caseId })],
      ['openclasp_shield_consult', (caseId) => ({ caseId, message: 'When will it arrive?' })],
      ['openclasp_shield_close_case', (caseId) => ({ caseId, result: 'successful', acceptedAdvice: true, actionTaken: 'Done.' })],
    ];
    it.each(WITH_CASE)("%s: an unknown, malformed, another account's or another agent's case is SHIELD_CASE_NOT_FOUND", async (tool, args) => {
      for (const caseId of [UNKNOWN_ID, ...BAD_IDS, '', globexCase, otherAgentCase]) {
        const answer = await call(tool, args(caseId));
        expect([answer.isError, answer.code]).toEqual([true, 'SHIELD_CASE_NOT_FOUND']);
      }
    });

    // Argument types are the tools' input schemas', checked by the MCP SDK before the Shield sees a call: the
    // refusal is the SDK's "Input validation error" tool result naming the field (rules get SHIELD_* codes).
    const MISTYPED: Array<[string, Record<string, unknown>, string]> = [
      ['openclasp_shield_open_case', { ...caseInput({ agentId: undefined }), title: 5 }, 'title'],
      ['openclasp_shield_open_case', { ...caseInput({ agentId: undefined }), agentId: 'agent-b' }, 'agentId'],
      ['openclasp_shield_consult', { caseId: 5, message: 'hi' }, 'caseId'],
      ['openclasp_shield_consult', { caseId: UNKNOWN_ID, message: { text: 'hi' } }, 'message'],
      ['openclasp_shield_get_case', { caseId: ['x'] }, 'caseId'],
      ['openclasp_shield_list_cases', { agentId: 'agent-b' }, 'agentId'],
      ['openclasp_shield_close_case', { caseId: UNKNOWN_ID, result: 'successful', acceptedAdvice: 'yes', actionTaken: 'Done.' }, 'acceptedAdvice'],
    ];
    it.each(MISTYPED)('%s refuses mistyped or unknown arguments (%#)', async (tool, args, field) => {
      const answer = await call(tool, JSON.parse(JSON.stringify(args)));
      expect(answer.isError).toBe(true);
      expect(answer.text).toMatch(/^MCP error -32602: Input validation error/);
      expect(answer.text).toContain(field);
    });

    it('refuses values against the rules with the same SHIELD_* codes as REST', async () => {
      const input: Record<string, unknown> = caseInput({ title: '   ' });
      delete input['agentId'];
      expect(await call('openclasp_shield_open_case', input)).toMatchObject({ isError: true, code: 'SHIELD_FIELD_TOO_SHORT' });
      expect(await call('openclasp_shield_consult', { caseId: acmeCase, message: '  ' })).toMatchObject({ isError: true, code: 'SHIELD_FIELD_TOO_SHORT' });
      expect(await call('openclasp_shield_close_case', { caseId: acmeCase, result: 'great', acceptedAdvice: true, actionTaken: 'Done.' })).toMatchObject({ isError: true, code: 'SHIELD_FIELD_ENUM' });
      expect((await call('openclasp_shield_no_such_tool', {})).text).toMatch(/-32602.*not found/);
    });

    it('refuses an oversized call with 413 before any tool runs', async () => {
      const refused = await client.callTool({ name: 'openclasp_shield_consult', arguments: { caseId: acmeCase, message: 'x'.repeat(MAX_BODY) } }).then(
        () => null,
        (error: { code?: number; message: string }) => error,
      );
      expect(refused?.code).toBe(413);
      expect(refused?.message).toContain('SHIELD_BODY_TOO_LARGE');
    });
  });
});

async function eventCount(app: ShieldApp): Promise<number> {
  return app.handle.infrastructure.database.withConnection(async (connection) => {
    const events = await connection.query<{ n: string }>('SELECT count(*)::text AS n FROM events');
    return Number(events[0]?.n ?? 0);
  });
}
