/**
 * `ModelProvider` over the Anthropic Messages API: POST {baseUrl}/v1/messages with `x-api-key` and
 * `anthropic-version: 2023-06-01`. Tool calls are `tool_use` content blocks; their results go back as
 * `tool_result` blocks in a user message; usage is `input_tokens` / `output_tokens`.
 *
 * The recorded model id is `anthropic/<model>` (SHIELD.md §8.2). Without a key the provider reports
 * `anthropic_api_key_missing` and the runner never calls it.
 */
import { MODEL_ERROR_CODES, ModelProviderError } from './model-provider.error';
import type { ModelMessage, ModelProvider, ModelStopReason, ModelToolCall, ModelTurn, ModelTurnRequest, ModelUsage } from './model-provider.port';
import { normalizeBaseUrl, presentKey } from './model-provider.config';
import { DEFAULT_MAX_RESPONSE_BYTES, postJson } from './provider-http.transport';

export const ANTHROPIC_DEFAULT_BASE_URL = 'https://api.anthropic.com';
export const ANTHROPIC_API_VERSION = '2023-06-01';
/** §8.2's code for a missing key, recorded as `errorCode`. */
export const ANTHROPIC_KEY_MISSING_CODE = 'anthropic_api_key_missing';

export interface AnthropicMessagesConfig {
  /** Default `https://api.anthropic.com`; `/v1/messages` is appended. */
  baseUrl?: string;
  model: string;
  /** Absent, empty or blank: the provider is not configured (fallback without a network call). */
  apiKey?: string;
  /** `max_tokens` per turn (required by the API). Default 8192. */
  maxOutputTokens?: number;
  maxResponseBytes?: number;
}

export class AnthropicMessagesProvider implements ModelProvider {
  readonly modelId: string;
  readonly missingCredentialCode: string | undefined;
  readonly #url: string;
  readonly #model: string;
  readonly #apiKey: string | undefined;
  readonly #maxOutputTokens: number;
  readonly #maxResponseBytes: number;

  constructor(config: AnthropicMessagesConfig) {
    this.#model = config.model;
    this.modelId = `anthropic/${config.model}`;
    this.#url = `${normalizeBaseUrl(config.baseUrl ?? ANTHROPIC_DEFAULT_BASE_URL)}/v1/messages`;
    this.#apiKey = presentKey(config.apiKey);
    this.missingCredentialCode = this.#apiKey === undefined ? ANTHROPIC_KEY_MISSING_CODE : undefined;
    this.#maxOutputTokens = config.maxOutputTokens ?? 8192;
    this.#maxResponseBytes = config.maxResponseBytes ?? DEFAULT_MAX_RESPONSE_BYTES;
  }

  async complete(request: ModelTurnRequest, signal: AbortSignal): Promise<ModelTurn> {
    if (this.#apiKey === undefined) {
      throw Object.assign(new Error('No Anthropic API key is configured.'), { code: ANTHROPIC_KEY_MISSING_CODE });
    }
    const body = {
      model: this.#model,
      max_tokens: this.#maxOutputTokens,
      system: request.system,
      messages: request.messages.map(toWireMessage),
      tools: request.tools.map((tool) => ({ name: tool.name, description: tool.description, input_schema: tool.inputSchema })),
    };
    const answer = await postJson({
      url: this.#url,
      headers: { 'x-api-key': this.#apiKey, 'anthropic-version': ANTHROPIC_API_VERSION },
      body,
      signal,
      maxResponseBytes: this.#maxResponseBytes,
    });
    return fromWireResponse(answer);
  }
}

function toWireMessage(message: ModelMessage): Record<string, unknown> {
  switch (message.role) {
    case 'user':
      return { role: 'user', content: message.text };
    case 'assistant':
      return {
        role: 'assistant',
        content: [
          ...(message.text.length > 0 ? [{ type: 'text', text: message.text }] : []),
          ...message.toolCalls.map((call) => ({ type: 'tool_use', id: call.id, name: call.name, input: call.input ?? {} })),
        ],
      };
    case 'tool':
      return {
        role: 'user',
        content: message.results.map((result) => ({
          type: 'tool_result',
          tool_use_id: result.callId,
          content: result.content,
          ...(result.isError ? { is_error: true } : {}),
        })),
      };
  }
}

function fromWireResponse(answer: unknown): ModelTurn {
  if (!isRecord(answer) || !Array.isArray(answer['content'])) throw invalid('has no content array');
  const texts: string[] = [];
  const toolCalls: ModelToolCall[] = [];
  for (const block of answer['content']) {
    if (!isRecord(block)) throw invalid('has a content block that is not an object');
    if (block['type'] === 'text') {
      if (typeof block['text'] !== 'string') throw invalid('has a text block without text');
      texts.push(block['text']);
    } else if (block['type'] === 'tool_use') {
      if (typeof block['id'] !== 'string' || typeof block['name'] !== 'string') throw invalid('has a tool_use block without id or name');
      toolCalls.push({ id: block['id'], name: block['name'], input: block['input'] });
    }
    // Other block types (thinking, redacted_thinking) carry no answer: never kept (§10: no hidden reasoning).
  }
  return { text: texts.join(''), toolCalls, stopReason: stopReason(answer['stop_reason']), usage: usage(answer['usage']) };
}

function stopReason(value: unknown): ModelStopReason {
  switch (value) {
    case 'end_turn':
    case 'stop_sequence':
      return 'end';
    case 'tool_use':
      return 'tool_calls';
    case 'max_tokens':
      return 'max_tokens';
    case 'refusal':
      return 'refused';
    default:
      return 'other';
  }
}

/** Cache reads and writes are input the model read too, so they count as input tokens. */
function usage(value: unknown): ModelUsage {
  if (!isRecord(value)) return {};
  const input = count(value['input_tokens']);
  const output = count(value['output_tokens']);
  const cached = [count(value['cache_creation_input_tokens']), count(value['cache_read_input_tokens'])].reduce<number>((sum, n) => sum + (n ?? 0), 0);
  const result: ModelUsage = {};
  if (input !== undefined) result.inputTokens = input + cached;
  if (output !== undefined) result.outputTokens = output;
  // The API reports no total; the sum of the two reported counts is one (as the reference records it).
  if (result.inputTokens !== undefined && result.outputTokens !== undefined) result.totalTokens = result.inputTokens + result.outputTokens;
  return result;
}

function count(value: unknown): number | undefined {
  return typeof value === 'number' && Number.isSafeInteger(value) && value >= 0 ? value : undefined;
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function invalid(what: string): ModelProviderError {
  return new ModelProviderError(MODEL_ERROR_CODES.responseInvalid, `The Anthropic Messages response ${what}.`);
}
