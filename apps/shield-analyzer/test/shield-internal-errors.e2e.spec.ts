/**
 * A fault inside the service (here the analysis step throws, with driver-like text in its message) reaches
 * every caller as the same stable refusal: REST 500 `SHIELD_INTERNAL`, gRPC INTERNAL, and over MCP a tool
 * error with `SHIELD_INTERNAL`, never the error's text; the log names the error, and nothing is appended.
 */
import * as grpc from '@grpc/grpc-js';

import { ACME_TOKEN, caseInput, startShieldApp, type ShieldApp } from './support/shield-app.fixture';
import { grpcClient, mcpClient, toJson, type ShieldGrpcApi, type ShieldMcpSession } from './support/shield-clients';

const LEAK = 'relation "shield_secret_table" at 10.0.0.7:5432 password=hunter2';

describe('Shield analyzer when the analysis fails', () => {
  let app: ShieldApp;
  let api: ShieldGrpcApi;
  let mcp: ShieldMcpSession;
  let caseId: string;
  beforeAll(async () => {
    app = await startShieldApp(
      { SHIELD_MODEL_PROVIDER: 'none' },
      {
        analyzer: () => {
          throw new TypeError(LEAK);
        },
      },
    );
    api = grpcClient(app.handle.grpcAddress);
    const token = (await app.call('POST', '/v0.1/agents/agent-a/shield-tokens', ACME_TOKEN, { mcp: true })).body.token as string;
    mcp = await mcpClient(app.handle.httpUrl, token);
    caseId = (await app.call('POST', '/v0.1/shield/cases', ACME_TOKEN, caseInput())).body.caseId;
  });
  afterAll(async () => {
    await mcp?.close();
    api?.close();
    await app?.close();
  });

  it('answers a stable internal error on REST, gRPC and MCP without the error text, and stores nothing', async () => {
    const rest = await app.call('POST', `/v0.1/shield/cases/${caseId}/consult`, ACME_TOKEN, { message: 'Is order 7 on time?' });
    expect(rest).toMatchObject({ status: 500, body: { issues: [{ code: 'SHIELD_INTERNAL' }] } });
    const viaGrpc = await api.consult({ caseId, consultInputJson: toJson({ message: 'Is order 7 on time?' }) }, ACME_TOKEN);
    expect(viaGrpc.error?.code).toBe(grpc.status.INTERNAL);
    const viaMcp = await mcp.tool('openclasp_shield_consult', { caseId, message: 'Is order 7 on time?' });
    expect(viaMcp).toMatchObject({ isError: true, value: { issues: [{ code: 'SHIELD_INTERNAL' }] } });

    for (const text of [rest.text, viaGrpc.error?.details ?? '', JSON.stringify(viaMcp.value)]) {
      expect(text).not.toContain('hunter2');
      expect(text).not.toContain('shield_secret_table');
    }
    expect(app.logs.some((line) => line.includes('"msg":"shield mcp tool failed"') && line.includes('"errorName":"TypeError"'))).toBe(true);
    expect(app.logs.join('\n')).not.toContain('hunter2');
    expect((await app.call('GET', `/v0.1/shield/cases/${caseId}`, ACME_TOKEN)).body.consultations).toEqual([]);
  });
});
