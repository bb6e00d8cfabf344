/**
 * The §10 tool loop and §8.2 generation rules against real local HTTP servers speaking each provider's wire
 * format: a successful run, every failure that must fall back (with its errorCode), the limits, and that the
 * key, the message and the context never leak into results or logs.
 */
import { analyzeWithModel, CASE_TOOL_NAME, MODEL_ERROR_CODES } from '../src';
import { analysisRequest, API_KEY, CONTEXT_SENTINEL, FALLBACK_ANALYSIS, IDS, MESSAGE_SENTINEL, MODEL_ANALYSIS } from './support/analysis-request.fixture';
import { validateAnalysisStandIn } from './support/analysis-validator.stand-in';
import type { ScriptedReply } from './support/fake-model.server';
import { ANTHROPIC_WIRE, FALLBACK_VERSION, OPENAI_WIRE, PROMPT_VERSION, runAgainst, type RunOutcome, type Wire } from './support/wires';

const fenced = (value: unknown): string => '```json\n' + JSON.stringify(value, null, 2) + '\n```';

function expectFallback(outcome: RunOutcome, wire: Wire, errorCode: string): void {
  expect(outcome.result.analysis).toEqual(FALLBACK_ANALYSIS);
  expect(outcome.result.generation).toEqual({ mode: 'fallback', model: wire.modelId, promptVersion: FALLBACK_VERSION, errorCode });
  expect(outcome.fallbackCalls).toBe(1);
}

describe.each([ANTHROPIC_WIRE, OPENAI_WIRE])('analyzeWithModel over $name', (wire) => {
  it('returns the model analysis in ai mode after two tool calls, with the token usage of every turn', async () => {
    const outcome = await runAgainst(wire, (index) =>
      [
        wire.toolCalls([{ id: 'call_1', name: CASE_TOOL_NAME, input: { section: 'policies' } }]),
        wire.toolCalls([{ id: 'call_2', name: CASE_TOOL_NAME, input: { section: 'facts', ids: [IDS.factApproval] } }]),
        wire.text(fenced(MODEL_ANALYSIS)),
      ][index]!,
    );
    expect(outcome.result.analysis).toEqual(MODEL_ANALYSIS);
    expect(outcome.result.generation).toEqual({
      mode: 'ai',
      model: wire.modelId,
      promptVersion: PROMPT_VERSION,
      tokenUsage: { inputTokens: 500, outputTokens: 190, totalTokens: 690 },
    });
    expect(outcome.requests).toHaveLength(3);
    expect(outcome.requests.every((request) => request.method === 'POST' && request.path === wire.path)).toBe(true);
    expect(outcome.fallbackCalls).toBe(0);
  });

  it('accepts a bare JSON answer and records an empty token usage when the provider reports none', async () => {
    const outcome = await runAgainst(wire, () => wire.text(JSON.stringify(MODEL_ANALYSIS), {}));
    expect(outcome.result.generation).toEqual({ mode: 'ai', model: wire.modelId, promptVersion: PROMPT_VERSION, tokenUsage: {} });
  });

  it('falls back at once without a network call when no key is configured', async () => {
    for (const apiKey of [undefined, '', '   ']) {
      const outcome = await runAgainst(wire, () => wire.text(JSON.stringify(MODEL_ANALYSIS)), { apiKey });
      expect(outcome.requests).toHaveLength(0);
      expectFallback(outcome, wire, wire.missingKeyCode);
    }
  });

  it.each([
    [500, MODEL_ERROR_CODES.unavailable],
    [503, MODEL_ERROR_CODES.unavailable],
    [401, MODEL_ERROR_CODES.authFailed],
    [403, MODEL_ERROR_CODES.authFailed],
    [429, MODEL_ERROR_CODES.rateLimited],
    [404, MODEL_ERROR_CODES.requestRejected],
  ])('falls back on HTTP %i with %s', async (status, code) => {
    const outcome = await runAgainst(wire, () => wire.error(status));
    expect(outcome.requests).toHaveLength(1);
    expectFallback(outcome, wire, code);
  });

  it.each<[string, ScriptedReply]>([
    ['a body that is not valid JSON', { kind: 'raw', body: '{"id": "msg", "content": [' }],
    ['an HTML body', { kind: 'raw', contentType: 'text/html', body: '<html>gateway</html>' }],
    ['JSON that is not the API response shape', { kind: 'json', body: { hello: 'world' } }],
  ])('falls back with MODEL_RESPONSE_INVALID on %s', async (_label, reply) => {
    expectFallback(await runAgainst(wire, () => reply), wire, MODEL_ERROR_CODES.responseInvalid);
  });

  it('falls back with MODEL_OUTPUT_NOT_JSON when the answer is prose, or JSON with prose around it', async () => {
    expectFallback(await runAgainst(wire, () => wire.text('The refund looks risky; seek approval.')), wire, MODEL_ERROR_CODES.outputNotJson);
    expectFallback(await runAgainst(wire, () => wire.text(`Here is my analysis:\n${fenced(MODEL_ANALYSIS)}`)), wire, MODEL_ERROR_CODES.outputNotJson);
  });

  it('falls back with MODEL_OUTPUT_INVALID when the answer is JSON but not a valid analysis, keeping nothing of it', async () => {
    const { nextSteps: _dropped, ...withoutNextSteps } = MODEL_ANALYSIS;
    const outcome = await runAgainst(wire, () => wire.text(JSON.stringify({ ...withoutNextSteps, disposition: 'approve' })));
    expectFallback(outcome, wire, MODEL_ERROR_CODES.outputInvalid);
    expect(outcome.result.generation.tokenUsage).toBeUndefined();
  });

  it('falls back with MODEL_OUTPUT_TRUNCATED when the model hit its token limit', async () => {
    expectFallback(await runAgainst(wire, () => wire.truncated('{"reply": "The refund')), wire, MODEL_ERROR_CODES.outputTruncated);
  });

  it('stops a model that keeps calling tools after 8 steps', async () => {
    const outcome = await runAgainst(wire, (index) => wire.toolCalls([{ id: `call_${index}`, name: CASE_TOOL_NAME, input: { section: 'goal' } }]));
    expect(outcome.requests).toHaveLength(8);
    expectFallback(outcome, wire, MODEL_ERROR_CODES.stepLimitExceeded);
  });

  it('honours a lower step limit', async () => {
    const outcome = await runAgainst(wire, (index) => wire.toolCalls([{ id: `call_${index}`, name: CASE_TOOL_NAME, input: { section: 'goal' } }]), {
      run: { maxSteps: 3 },
    });
    expect(outcome.requests).toHaveLength(3);
    expectFallback(outcome, wire, MODEL_ERROR_CODES.stepLimitExceeded);
  });

  it.each([
    ['streamed without a length', false],
    ['with a declared Content-Length', true],
  ])('refuses a response body over 1 MiB %s', async (_label, declareLength) => {
    const outcome = await runAgainst(wire, () => ({ kind: 'large', bytes: 3 * 1024 * 1024, declareLength }));
    expectFallback(outcome, wire, MODEL_ERROR_CODES.responseTooLarge);
  });

  it('falls back with TimeoutError at the deadline when the provider never answers', async () => {
    const outcome = await runAgainst(wire, () => ({ kind: 'hang' }), { run: { deadlineMs: 400 } });
    expectFallback(outcome, wire, 'TimeoutError');
    expect(outcome.elapsedMs).toBeGreaterThanOrEqual(350);
    expect(outcome.elapsedMs).toBeLessThan(3000);
  });

  it('drops a run that timed out after a tool call, token usage included', async () => {
    const outcome = await runAgainst(wire, (index) => (index === 0 ? wire.toolCalls([{ id: 'call_1', name: CASE_TOOL_NAME, input: { section: 'goal' } }]) : { kind: 'hang' }), {
      run: { deadlineMs: 500 },
    });
    expect(outcome.requests).toHaveLength(2);
    expectFallback(outcome, wire, 'TimeoutError');
  });

  it('applies the per-request timeout inside a longer deadline', async () => {
    const outcome = await runAgainst(wire, () => ({ kind: 'hang' }), { run: { deadlineMs: 20_000, requestTimeoutMs: 300 } });
    expectFallback(outcome, wire, 'TimeoutError');
    expect(outcome.elapsedMs).toBeLessThan(3000);
  });

  it('falls back with the abort when the caller cancels the run', async () => {
    const cancel = new AbortController();
    setTimeout(() => cancel.abort(), 200);
    const outcome = await runAgainst(wire, () => ({ kind: 'hang' }), { run: { signal: cancel.signal } });
    expectFallback(outcome, wire, 'AbortError');
    expect(outcome.elapsedMs).toBeLessThan(3000);
  });

  it('falls back with MODEL_UNREACHABLE when nothing listens at the base URL', async () => {
    const logs: unknown[] = [];
    const result = await analyzeWithModel(analysisRequest(), {
      provider: wire.provider('http://127.0.0.1:9', API_KEY),
      promptVersion: PROMPT_VERSION,
      fallback: () => FALLBACK_ANALYSIS,
      validateAnalysis: validateAnalysisStandIn,
      logger: { log: (...line) => logs.push(line) },
    });
    expect(result.generation).toEqual({ mode: 'fallback', model: wire.modelId, promptVersion: PROMPT_VERSION, errorCode: MODEL_ERROR_CODES.unreachable });
    expect(JSON.stringify(logs)).not.toContain(API_KEY);
  });

  it('sends the message and context to the provider, and never puts them or the key in a result or a log line', async () => {
    const scenarios: Array<(index: number) => ScriptedReply> = [
      (index) => (index === 0 ? wire.toolCalls([{ id: 'call_1', name: CASE_TOOL_NAME, input: { section: 'goal' } }]) : wire.text(JSON.stringify(MODEL_ANALYSIS))),
      () => wire.error(401),
      () => wire.error(500),
      () => ({ kind: 'raw', body: `{"echo": "${API_KEY}" ` }),
      () => wire.text(JSON.stringify({ reply: `${API_KEY} ${MESSAGE_SENTINEL}` })),
      () => wire.text(`${API_KEY} ${MESSAGE_SENTINEL} ${CONTEXT_SENTINEL}`),
    ];
    for (const script of scenarios) {
      const outcome = await runAgainst(wire, script);
      const visible = JSON.stringify({ result: outcome.result, logs: outcome.logs });
      for (const secret of [API_KEY, MESSAGE_SENTINEL, CONTEXT_SENTINEL]) expect(visible).not.toContain(secret);
      expect(outcome.logs.length).toBeGreaterThan(0);
      // The provider did get the key and the consult text: the check above has something to catch.
      expect(JSON.stringify(outcome.requests[0]!.headers)).toContain(API_KEY);
      expect(JSON.stringify(outcome.requests[0]!.body)).toContain(MESSAGE_SENTINEL);
      expect(JSON.stringify(outcome.requests[0]!.body)).toContain(CONTEXT_SENTINEL);
    }
  });

  it('rejects from the adapter with a stable code and a message without the key', async () => {
    const outcome = { error: undefined as unknown };
    const { startFakeModelServer } = await import('./support/fake-model.server');
    const server = await startFakeModelServer(() => wire.error(401));
    try {
      await wire.provider(server.baseUrl, API_KEY).complete({ system: 's', messages: [{ role: 'user', text: 'u' }], tools: [] }, new AbortController().signal).catch((error: unknown) => {
        outcome.error = error;
      });
    } finally {
      await server.close();
    }
    expect(outcome.error).toMatchObject({ code: MODEL_ERROR_CODES.authFailed, status: 401, name: 'ModelProviderError' });
    const error = outcome.error as Error;
    expect(`${error.message} ${String(error)} ${error.stack ?? ''} ${JSON.stringify(error)}`).not.toContain(API_KEY);
  });
});
