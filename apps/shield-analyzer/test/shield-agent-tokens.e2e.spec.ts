/**
 * Agent tokens as an operator manages them (§13), through real REST, gRPC and MCP clients: issue, list
 * (never a secret or digest), revoke (refused at once on every transport, and on another replica of the
 * same Postgres database), the live-token bound, operators only, and the MCP installation the owner must
 * confirm (`mcp: true`).
 */
import * as grpc from '@grpc/grpc-js';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { shieldAnalyzerV1GrpcJs as S } from '@trustmesh/contracts';
import { LOCAL_BUS_MIGRATIONS } from '@trustmesh/platform-bus';
import { applyMigrations, openDatabase } from '@trustmesh/platform-database';
import { createTestPostgresDatabase, type TestPostgresDatabase } from '@trustmesh/platform-database/testing';
import { EVENT_STORE_MIGRATIONS } from '@trustmesh/platform-event-store';
import { PROJECTION_MIGRATIONS } from '@trustmesh/platform-projections';

import { SHIELD_ANALYZER_MIGRATIONS } from '../src/persistence/shield-analyzer.migrations';
import { MAX_LIVE_AGENT_TOKENS } from '../src/service/shield-agent-tokens';
import { ACME_TOKEN, caseInput, GLOBEX_TOKEN, startShieldApp, type ShieldApp } from './support/shield-app.fixture';

type Outcome = { ok: true; value: unknown } | { ok: false; code: grpc.status; issues: Array<{ code: string }> };

function grpcCall<Req, Res>(client: S.ShieldAnalyzerClient, method: 'issueAgentToken' | 'listAgentTokens' | 'revokeAgentToken' | 'listCases', request: Req, token: string): Promise<Outcome> {
  const metadata = new grpc.Metadata();
  metadata.set('authorization', `Bearer ${token}`);
  return new Promise((resolve) => {
    (client[method] as unknown as (r: Req, m: grpc.Metadata, cb: (e: grpc.ServiceError | null, r: Res) => void) => void).call(client, request, metadata, (error, response) => {
      if (!error) return resolve({ ok: true, value: response });
      const raw = error.metadata?.get('shield-issues-bin')[0];
      resolve({ ok: false, code: error.code, issues: raw ? JSON.parse(Buffer.from(raw as Buffer).toString('utf8')).issues : [] });
    });
  });
}

interface McpRefusal {
  /** The HTTP status (the SDK's `StreamableHTTPError.code`). */
  status: number | undefined;
  /** The SDK's message, which carries the answer's body. */
  message: string;
}

const refusalOf = (error: unknown): McpRefusal => ({ status: (error as { code?: number }).code, message: (error as Error).message });

/** Connects the official MCP client with `token`; resolves with the client, or how connecting was refused. */
async function connectMcp(app: ShieldApp, token: string): Promise<{ client?: Client; error?: McpRefusal }> {
  const client = new Client({ name: 'shield-tokens-e2e', version: '1.0.0' });
  try {
    await client.connect(new StreamableHTTPClientTransport(new URL(`${app.handle.httpUrl}/mcp`), { requestInit: { headers: { authorization: `Bearer ${token}` } } }));
    return { client };
  } catch (error) {
    await client.close().catch(() => undefined);
    return { error: refusalOf(error) };
  }
}

describe('Shield agent tokens', () => {
  let app: ShieldApp;
  let client: S.ShieldAnalyzerClient;
  beforeAll(async () => {
    app = await startShieldApp();
    client = new S.ShieldAnalyzerClient(app.handle.grpcAddress, grpc.credentials.createInsecure());
  });
  afterAll(async () => {
    client?.close();
    await app?.close();
  });

  it('lists an agent’s tokens newest first without secret or digest, to its own account only', async () => {
    const first = await app.call('POST', '/v0.1/agents/agent-list/shield-tokens', ACME_TOKEN, { name: 'laptop', expiresInDays: 3 });
    const second = await app.call('POST', '/v0.1/agents/agent-list/shield-tokens', ACME_TOKEN, { name: 'ci runner', mcp: true });
    expect([first.status, second.status]).toEqual([201, 201]);
    expect(second.body).toMatchObject({ agentId: 'agent-list', name: 'ci runner', status: 'active', mcpInstallationConfirmedAt: second.body.issuedAt, token: expect.stringMatching(/^tmsa_/) });

    const listed = await app.call('GET', '/v0.1/agents/agent-list/shield-tokens', ACME_TOKEN);
    expect(listed.status).toBe(200);
    expect(listed.body.map((token: { tokenId: string }) => token.tokenId)).toEqual([second.body.tokenId, first.body.tokenId]);
    const { token: _shownOnce, ...firstView } = first.body;
    expect(listed.body[1]).toEqual(firstView);
    expect(Object.keys(listed.body[1]).sort()).toEqual(['agentId', 'expiresAt', 'issuedAt', 'name', 'scopes', 'status', 'tokenId']);
    for (const issued of [first.body.token, second.body.token]) expect(listed.text).not.toContain(issued.split('.')[1]);

    // Another account has no such agent's tokens, and cannot revoke them.
    expect((await app.call('GET', '/v0.1/agents/agent-list/shield-tokens', GLOBEX_TOKEN)).body).toEqual([]);
    const foreign = await app.call('DELETE', `/v0.1/agents/agent-list/shield-tokens/${first.body.tokenId}`, GLOBEX_TOKEN);
    expect([foreign.status, foreign.body.issues[0].code]).toEqual([404, 'SHIELD_AGENT_TOKEN_NOT_FOUND']);
    expect((await app.call('GET', '/v0.1/shield/cases', first.body.token)).status).toBe(200);

    // The same over gRPC.
    const overGrpc = await grpcCall<S.ListAgentTokensRequest, S.ListAgentTokensResponse>(client, 'listAgentTokens', { agentId: 'agent-list' }, ACME_TOKEN);
    expect(overGrpc.ok && (overGrpc.value as S.ListAgentTokensResponse).agentTokensJson.map((text) => JSON.parse(text))).toEqual(listed.body);
  });

  it('revokes a token: refused at once on REST, gRPC and MCP; revoking again answers the same', async () => {
    const issued = (await app.call('POST', '/v0.1/agents/agent-revoke/shield-tokens', ACME_TOKEN, { mcp: true })).body;
    const mcp = await connectMcp(app, issued.token);
    expect(mcp.error).toBeUndefined();
    expect((await mcp.client!.listTools()).tools).toHaveLength(5);

    const revoked = await app.call('DELETE', `/v0.1/agents/agent-revoke/shield-tokens/${issued.tokenId}`, ACME_TOKEN);
    expect(revoked.status).toBe(200);
    expect(revoked.body).toMatchObject({ tokenId: issued.tokenId, status: 'revoked', revokedAt: expect.any(String) });

    const rest = await app.call('GET', '/v0.1/shield/cases', issued.token);
    expect([rest.status, rest.body.issues[0].code]).toEqual([401, 'SHIELD_UNAUTHENTICATED']);
    const overGrpc = await grpcCall<S.ListCasesRequest, S.ListCasesResponse>(client, 'listCases', S.ListCasesRequest.fromPartial({}), issued.token);
    expect(overGrpc.ok ? 'ok' : overGrpc.code).toBe(grpc.status.UNAUTHENTICATED);
    // The MCP client connected before the revocation is refused on its next call.
    const later = await mcp.client!.listTools().then(() => null, refusalOf);
    expect(later?.status).toBe(401);
    expect(later?.message).toContain('SHIELD_UNAUTHENTICATED');
    await mcp.client!.close();
    expect((await connectMcp(app, issued.token)).error?.status).toBe(401);

    const again = await app.call('DELETE', `/v0.1/agents/agent-revoke/shield-tokens/${issued.tokenId}`, ACME_TOKEN);
    expect([again.status, again.body]).toEqual([200, revoked.body]);
    expect((await app.call('GET', '/v0.1/agents/agent-revoke/shield-tokens', ACME_TOKEN)).body).toEqual([revoked.body]);

    // gRPC revokes too.
    const other = (await app.call('POST', '/v0.1/agents/agent-revoke/shield-tokens', ACME_TOKEN, {})).body;
    const byGrpc = await grpcCall<S.RevokeAgentTokenRequest, S.RevokeAgentTokenResponse>(client, 'revokeAgentToken', { agentId: 'agent-revoke', tokenId: other.tokenId }, ACME_TOKEN);
    expect(byGrpc.ok && JSON.parse((byGrpc.value as S.RevokeAgentTokenResponse).agentTokenJson).status).toBe('revoked');
    expect((await app.call('GET', '/v0.1/shield/cases', other.token)).status).toBe(401);
  });

  it('keeps token management to operators: an agent token gets 403 on REST and gRPC, even for its own agent', async () => {
    const agent = (await app.call('POST', '/v0.1/agents/agent-self/shield-tokens', ACME_TOKEN, {})).body;
    for (const [method, path] of [
      ['GET', '/v0.1/agents/agent-self/shield-tokens'],
      ['DELETE', `/v0.1/agents/agent-self/shield-tokens/${agent.tokenId}`],
    ] as const) {
      const refused = await app.call(method, path, agent.token);
      expect([refused.status, refused.body.issues[0].code]).toEqual([403, 'SHIELD_OWNER_ONLY']);
    }
    const issue = await grpcCall<S.IssueAgentTokenRequest, S.IssueAgentTokenResponse>(client, 'issueAgentToken', { agentId: 'agent-self', tokenInputJson: '{}' }, agent.token);
    expect(issue.ok ? 'ok' : [issue.code, issue.issues[0]?.code]).toEqual([grpc.status.PERMISSION_DENIED, 'SHIELD_OWNER_ONLY']);
    // Still live: the refusals changed nothing.
    expect((await app.call('GET', '/v0.1/agents/agent-self/shield-tokens', ACME_TOKEN)).body[0].status).toBe('active');
  });

  it(`refuses a live token beyond the ${MAX_LIVE_AGENT_TOKENS} of one agent with a stable code until one is revoked`, async () => {
    const issue = () => app.call('POST', '/v0.1/agents/agent-many/shield-tokens', ACME_TOKEN, { expiresInDays: 1 });
    const issued: string[] = [];
    for (let index = 0; index < MAX_LIVE_AGENT_TOKENS; index += 1) {
      const answer = await issue();
      expect(answer.status).toBe(201);
      issued.push(answer.body.tokenId);
    }
    const refused = await issue();
    expect([refused.status, refused.body.issues[0].code]).toEqual([409, 'SHIELD_AGENT_TOKEN_LIMIT']);
    expect(refused.body.error).toContain('DELETE /v0.1/agents/:id/shield-tokens/:tokenId');
    const overGrpc = await grpcCall<S.IssueAgentTokenRequest, S.IssueAgentTokenResponse>(client, 'issueAgentToken', { agentId: 'agent-many', tokenInputJson: '' }, ACME_TOKEN);
    expect(overGrpc.ok ? 'ok' : [overGrpc.code, overGrpc.issues[0]?.code]).toEqual([grpc.status.ABORTED, 'SHIELD_AGENT_TOKEN_LIMIT']);
    expect((await app.call('GET', '/v0.1/agents/agent-many/shield-tokens', ACME_TOKEN)).body).toHaveLength(MAX_LIVE_AGENT_TOKENS);

    await app.call('DELETE', `/v0.1/agents/agent-many/shield-tokens/${issued[0]}`, ACME_TOKEN);
    expect((await issue()).status).toBe(201);
    // Other agents are not affected by this one's bound.
    expect((await app.call('POST', '/v0.1/agents/agent-few/shield-tokens', ACME_TOKEN, {})).status).toBe(201);
  });

  it('refuses MCP to a token whose installation the owner never confirmed, saying what to do, and serves it once confirmed', async () => {
    const plain = (await app.call('POST', '/v0.1/agents/agent-install/shield-tokens', ACME_TOKEN, {})).body;
    expect(plain.mcpInstallationConfirmedAt).toBeUndefined();
    const refused = await connectMcp(app, plain.token);
    expect(refused.error?.status).toBe(403);
    // The SDK's error carries the answer: a stable code and a message that tells the person what to do.
    const answer = JSON.parse(refused.error!.message.slice(refused.error!.message.indexOf('{')));
    expect(answer.issues[0].code).toBe('SHIELD_MCP_INSTALLATION_NOT_CONFIRMED');
    expect(answer.error).toContain('{"mcp": true}');
    // The same token still works on REST, which needs no installation.
    expect((await app.call('POST', '/v0.1/shield/cases', plain.token, caseInput({ agentId: 'agent-install' }))).status).toBe(201);

    const confirmed = (await app.call('POST', '/v0.1/agents/agent-install/shield-tokens', ACME_TOKEN, { mcp: true })).body;
    const served = await connectMcp(app, confirmed.token);
    expect(served.error).toBeUndefined();
    const listed = (await served.client!.callTool({ name: 'openclasp_shield_list_cases', arguments: {} })) as { content: Array<{ text: string }> };
    const cases = await app.eventually(async () => {
      const again = (await served.client!.callTool({ name: 'openclasp_shield_list_cases', arguments: {} })) as { content: Array<{ text: string }> };
      const parsed = JSON.parse(again.content[0]?.text ?? '[]');
      return parsed.length > 0 ? parsed : undefined;
    });
    expect(listed.content).toHaveLength(1);
    expect(cases.every((c: { agentId: string }) => c.agentId === 'agent-install')).toBe(true);
    await served.client!.close();

    // Operator credentials are not agents: their own code.
    const operator = await connectMcp(app, ACME_TOKEN);
    expect([operator.error?.status, operator.error?.message.includes('SHIELD_MCP_AGENT_ONLY')]).toEqual([403, true]);
  });
});

describe('Shield agent tokens across replicas (server mode, one Postgres database)', () => {
  let db: TestPostgresDatabase;
  const replicas: ShieldApp[] = [];
  beforeAll(async () => {
    db = await createTestPostgresDatabase('shield-token-replicas');
    // On a server the app only verifies the schema: deploy it first, as `trustmesh db migrate deploy` would.
    const database = await openDatabase({ mode: 'server', url: db.url });
    await applyMigrations(database, [EVENT_STORE_MIGRATIONS, LOCAL_BUS_MIGRATIONS, PROJECTION_MIGRATIONS, SHIELD_ANALYZER_MIGRATIONS]);
    await database.close();
    for (const replica of ['replica-a', 'replica-b']) replicas.push(await startShieldApp({ DATABASE_URL: db.url, SHIELD_REPLICA_ID: replica, SHIELD_HTTP_HOST: '127.0.0.1', SHIELD_GRPC_HOST: '127.0.0.1' }));
  });
  afterAll(async () => {
    for (const replica of replicas) await replica.close();
    await db?.drop();
  });

  it('a token revoked on one replica is refused at once by the other', async () => {
    const [a, b] = replicas as [ShieldApp, ShieldApp];
    const issued = (await a.call('POST', '/v0.1/agents/agent-r/shield-tokens', ACME_TOKEN, { mcp: true })).body;
    expect((await b.call('GET', '/v0.1/shield/cases', issued.token)).status).toBe(200);
    expect((await b.call('GET', '/v0.1/agents/agent-r/shield-tokens', ACME_TOKEN)).body.map((t: { tokenId: string }) => t.tokenId)).toEqual([issued.tokenId]);

    expect((await a.call('DELETE', `/v0.1/agents/agent-r/shield-tokens/${issued.tokenId}`, ACME_TOKEN)).status).toBe(200);
    expect((await b.call('GET', '/v0.1/shield/cases', issued.token)).status).toBe(401);
    expect((await connectMcp(b, issued.token)).error?.status).toBe(401);
    expect((await b.call('GET', '/v0.1/agents/agent-r/shield-tokens', ACME_TOKEN)).body[0].status).toBe('revoked');
  });
});
