/**
 * The two wire formats behind one test interface, so the failure rules of the tool loop run against both
 * adapters, and a harness that runs one analysis against a fake server and captures what a user could see:
 * the result, the requests the adapter sent and the log lines.
 */
import {
  AnthropicMessagesProvider,
  OpenAiCompatibleProvider,
  analyzeWithModel,
  type ModelAnalysisOptions,
  type ModelAnalysisResult,
  type ModelProvider,
} from '../../src';
import type { AnalysisRequest } from '@trustmesh/shield-records';

import { analysisRequest, FALLBACK_ANALYSIS } from './analysis-request.fixture';
import { validateAnalysisStandIn } from './analysis-validator.stand-in';
import { anthropicError, anthropicText, anthropicToolUse, type WireToolCall } from './anthropic.wire';
import { startFakeModelServer, type RecordedRequest, type ScriptedReply } from './fake-model.server';
import { openAiError, openAiText, openAiToolCalls } from './openai.wire';

export const PROMPT_VERSION = 'shield-model-test-v1';
export const FALLBACK_VERSION = 'shield-fallback-test-v1';

export interface Wire {
  name: string;
  provider(baseUrl: string, apiKey: string | undefined): ModelProvider;
  modelId: string;
  path: string;
  missingKeyCode: string;
  toolCalls(calls: WireToolCall[]): ScriptedReply;
  text(text: string, usage?: Record<string, number>): ScriptedReply;
  truncated(text: string): ScriptedReply;
  error(status: number): ScriptedReply;
}

export const ANTHROPIC_WIRE: Wire = {
  name: 'Anthropic Messages',
  provider: (baseUrl, apiKey) => new AnthropicMessagesProvider({ baseUrl, model: 'test-model', ...(apiKey !== undefined ? { apiKey } : {}) }),
  modelId: 'anthropic/test-model',
  path: '/v1/messages',
  missingKeyCode: 'anthropic_api_key_missing',
  toolCalls: (calls) => anthropicToolUse(calls),
  text: (text, usage) => anthropicText(text, usage),
  truncated: (text) => anthropicText(text, undefined, 'max_tokens'),
  error: anthropicError,
};

export const OPENAI_WIRE: Wire = {
  name: 'OpenAI-compatible chat completions',
  provider: (baseUrl, apiKey) => new OpenAiCompatibleProvider({ baseUrl: `${baseUrl}/v1`, model: 'test-model', ...(apiKey !== undefined ? { apiKey } : {}) }),
  modelId: 'openai/test-model',
  path: '/v1/chat/completions',
  missingKeyCode: 'openai_api_key_missing',
  toolCalls: (calls) => openAiToolCalls(calls),
  text: (text, usage) => openAiText(text, usage),
  truncated: (text) => openAiText(text, undefined, 'length'),
  error: openAiError,
};

export interface LogLine {
  level: string;
  message: string;
  fields: Record<string, unknown> | undefined;
}

export interface RunOutcome {
  result: ModelAnalysisResult;
  requests: RecordedRequest[];
  logs: LogLine[];
  elapsedMs: number;
  fallbackCalls: number;
}

export async function runAgainst(
  wire: Wire,
  script: (index: number, request: RecordedRequest) => ScriptedReply,
  options: { apiKey?: string | undefined; request?: AnalysisRequest; run?: Partial<ModelAnalysisOptions> } = {},
): Promise<RunOutcome> {
  const server = await startFakeModelServer(script);
  const logs: LogLine[] = [];
  let fallbackCalls = 0;
  try {
    const started = Date.now();
    const result = await analyzeWithModel(options.request ?? analysisRequest(), {
      provider: wire.provider(server.baseUrl, 'apiKey' in options ? options.apiKey : 'sk-test-SECRET-KEY-0123456789abcdef'),
      promptVersion: PROMPT_VERSION,
      fallbackPromptVersion: FALLBACK_VERSION,
      fallback: () => {
        fallbackCalls += 1;
        return FALLBACK_ANALYSIS;
      },
      validateAnalysis: validateAnalysisStandIn,
      logger: { log: (level, message, fields) => logs.push({ level, message, fields }) },
      ...options.run,
    });
    return { result, requests: server.requests, logs, elapsedMs: Date.now() - started, fallbackCalls };
  } finally {
    await server.close();
  }
}
