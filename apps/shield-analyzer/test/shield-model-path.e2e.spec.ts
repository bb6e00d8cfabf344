/**
 * The model path wired end to end (SHIELD.md §8.2, §10): an OpenAI-compatible endpoint (a local HTTP server
 * speaking its wire format) produces the analysis → `generation.mode: "ai"` with the configured model id and
 * token usage; an endpoint that fails → the deterministic analysis with `mode: "fallback"` and the error code.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

import { analyzeCase } from '@trustmesh/shield-analysis';
import { createRandomShieldId, validateShieldConsultation, type ShieldCase } from '@trustmesh/shield-records';

import { ACME_TOKEN, caseInput, startShieldApp, type ShieldApp } from './support/shield-app.fixture';

const MODEL_RATIONALE = 'Rationale written by the stand-in model.';

function modelAnalysis() {
  const now = new Date().toISOString();
  const caseRecord: ShieldCase = {
    protocolVersion: '0.1',
    caseId: createRandomShieldId(),
    agentId: 'agent-a',
    title: 'A request',
    goal: 'Handle it well',
    brief: '',
    counterparty: { type: 'human' },
    status: 'open',
    riskTier: 'medium',
    facts: [],
    evidence: [],
    policies: [],
    ownerGuidance: [],
    createdAt: now,
    updatedAt: now,
  };
  const analysis = analyzeCase({ caseRecord, consult: { message: 'Please confirm the order.', situationContext: '', facts: [], evidence: [], policies: [] }, priorConsultations: [] });
  return { ...analysis, rationale: [MODEL_RATIONALE] };
}

async function fakeOpenAi(status: number): Promise<{ server: Server; url: string; requests: string[] }> {
  const requests: string[] = [];
  const server = createServer((request, response) => {
    let body = '';
    request.on('data', (chunk: Buffer) => (body += chunk.toString('utf8')));
    request.on('end', () => {
      requests.push(`${request.method} ${request.url} ${body.length}`);
      if (status !== 200) {
        response.writeHead(status, { 'content-type': 'application/json' }).end('{"error":{"message":"down"}}');
        return;
      }
      const answer = {
        id: 'chatcmpl-1',
        object: 'chat.completion',
        choices: [{ index: 0, message: { role: 'assistant', content: JSON.stringify(modelAnalysis()) }, finish_reason: 'stop' }],
        usage: { prompt_tokens: 120, completion_tokens: 80, total_tokens: 200 },
      };
      response.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(answer));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { server, url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1`, requests };
}

describe.each([
  { status: 200, mode: 'ai' },
  { status: 503, mode: 'fallback' },
])('the model path with an endpoint answering $status', ({ status, mode }) => {
  let app: ShieldApp;
  let model: Awaited<ReturnType<typeof fakeOpenAi>>;
  beforeAll(async () => {
    model = await fakeOpenAi(status);
    app = await startShieldApp({ SHIELD_MODEL_PROVIDER: 'openai', SHIELD_MODEL: 'stand-in-1', SHIELD_MODEL_API_KEY: 'test-key', SHIELD_MODEL_BASE_URL: model.url, SHIELD_MODEL_LABEL: 'local' });
  });
  afterAll(async () => {
    await app?.close();
    await new Promise((resolve) => model?.server.close(resolve));
  });

  it(`records generation.mode "${mode}"`, async () => {
    const opened = await app.call('POST', '/v0.1/shield/cases', ACME_TOKEN, caseInput());
    const consulted = await app.call('POST', `/v0.1/shield/cases/${opened.body.caseId}/consult`, ACME_TOKEN, { message: 'Please confirm the order for next week.' });
    expect(consulted.status).toBe(200);
    const { consultation } = consulted.body;
    expect(validateShieldConsultation(consultation).ok).toBe(true);
    expect(model.requests.length).toBeGreaterThan(0);
    if (mode === 'ai') {
      expect(consultation.generation).toMatchObject({ mode: 'ai', model: 'local/stand-in-1', tokenUsage: { inputTokens: 120, outputTokens: 80, totalTokens: 200 } });
      expect(consultation.analysis.rationale).toEqual([MODEL_RATIONALE]);
    } else {
      expect(consultation.generation).toMatchObject({ mode: 'fallback', model: 'local/stand-in-1', errorCode: 'MODEL_UNAVAILABLE', promptVersion: 'trustmesh-shield-rules-3' });
      expect(consultation.analysis.rationale).not.toEqual([MODEL_RATIONALE]);
    }
  });
});
