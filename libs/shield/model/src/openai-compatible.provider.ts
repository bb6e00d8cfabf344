/**
 * `ModelProvider` over OpenAI-compatible chat completions: POST {baseUrl}/chat/completions with
 * `Authorization: Bearer <key>`, tools as `{ type: "function", function }`, calls as `tool_calls` with JSON
 * string arguments, results as `role: "tool"` messages; usage is `prompt_tokens` / `completion_tokens` /
 * `total_tokens`. The base URL includes the API version path (`https://api.openai.com/v1`, or a compatible
 * server's equivalent).
 *
 * Recorded model id (§8.2 asks for a provider prefix): `openai/<model>` by default, since the wire protocol is
 * OpenAI's; `providerLabel` names the actual vendor instead (`openrouter`, `ollama`, ...) when the operator
 * wants that in the record. Without a key it reports `openai_api_key_missing`, the analogue of §8.2's
 * `anthropic_api_key_missing`.
 */
import { MODEL_ERROR_CODES, ModelProviderError } from './model-provider.error';
import type { ModelMessage, ModelProvider, ModelStopReason, ModelToolCall, ModelTurn, ModelTurnRequest, ModelUsage } from './model-provider.port';
import { normalizeBaseUrl, presentKey } from './model-provider.config';
import { DEFAULT_MAX_RESPONSE_BYTES, postJson } from './provider-http.transport';

export const OPENAI_DEFAULT_BASE_URL = 'https://api.openai.com/v1';
export const OPENAI_KEY_MISSING_CODE = 'openai_api_key_missing';
const PROVIDER_LABEL = /^[a-z0-9][a-z0-9._-]{0,39}$/;

export interface OpenAiCompatibleConfig {
  /** Default `https://api.openai.com/v1`; `/chat/completions` is appended. */
  baseUrl?: string;
  model: string;
  /** Absent, empty or blank: not configured. Servers that ignore keys still need some value here. */
  apiKey?: string;
  /** Prefix of the recorded model id; default `openai`. Lowercase letters, digits, `.`, `_`, `-`. */
  providerLabel?: string;
  /** Sent as `max_tokens` when set; omitted otherwise (some OpenAI models refuse it). */
  maxOutputTokens?: number;
  maxResponseBytes?: number;
}

export class OpenAiCompatibleProvider implements ModelProvider {
  readonly modelId: string;
  readonly missingCredentialCode: string | undefined;
  readonly #url: string;
  readonly #model: string;
  readonly #apiKey: string | undefined;
  readonly #maxOutputTokens: number | undefined;
  readonly #maxResponseBytes: number;

  constructor(config: OpenAiCompatibleConfig) {
    const label = config.providerLabel ?? 'openai';
    if (!PROVIDER_LABEL.test(label)) throw new Error('The provider label must be 1-40 lowercase letters, digits, ".", "_" or "-".');
    this.#model = config.model;
    this.modelId = `${label}/${config.model}`;
    this.#url = `${normalizeBaseUrl(config.baseUrl ?? OPENAI_DEFAULT_BASE_URL)}/chat/completions`;
    this.#apiKey = presentKey(config.apiKey);
    this.missingCredentialCode = this.#apiKey === undefined ? OPENAI_KEY_MISSING_CODE : undefined;
    this.#maxOutputTokens = config.maxOutputTokens;
    this.#maxResponseBytes = config.maxResponseBytes ?? DEFAULT_MAX_RESPONSE_BYTES;
  }

  async complete(request: ModelTurnRequest, signal: AbortSignal): Promise<ModelTurn> {
    if (this.#apiKey === undefined) {
      throw Object.assign(new Error('No API key is configured for the OpenAI-compatible provider.'), { code: OPENAI_KEY_MISSING_CODE });
    }
    const body = {
      model: this.#model,
      messages: [{ role: 'system', content: request.system }, ...request.messages.flatMap(toWireMessages)],
      tools: request.tools.map((tool) => ({
        type: 'function',
        function: { name: tool.name, description: tool.description, parameters: tool.inputSchema },
      })),
      ...(this.#maxOutputTokens !== undefined ? { max_tokens: this.#maxOutputTokens } : {}),
    };
    const answer = await postJson({
      url: this.#url,
      headers: { authorization: `Bearer ${this.#apiKey}` },
      body,
      signal,
      maxResponseBytes: this.#maxResponseBytes,
    });
    return fromWireResponse(answer);
  }
}

function toWireMessages(message: ModelMessage): Record<string, unknown>[] {
  switch (message.role) {
    case 'user':
      return [{ role: 'user', content: message.text }];
    case 'assistant':
      return [
        {
          role: 'assistant',
          content: message.text.length > 0 ? message.text : null,
          ...(message.toolCalls.length > 0
            ? {
                tool_calls: message.toolCalls.map((call) => ({
                  id: call.id,
                  type: 'function',
                  // Unparseable arguments were kept as the raw string: echo them as they came.
                  function: { name: call.name, arguments: typeof call.input === 'string' ? call.input : JSON.stringify(call.input ?? {}) },
                })),
              }
            : {}),
        },
      ];
    case 'tool':
      return message.results.map((result) => ({ role: 'tool', tool_call_id: result.callId, content: result.content }));
  }
}

function fromWireResponse(answer: unknown): ModelTurn {
  if (!isRecord(answer) || !Array.isArray(answer['choices'])) throw invalid('has no choices array');
  const choice: unknown = answer['choices'][0];
  if (!isRecord(choice) || !isRecord(choice['message'])) throw invalid('has no first choice with a message');
  const message = choice['message'];
  const content = messageText(message['content']);
  const toolCalls: ModelToolCall[] = [];
  const wireCalls = message['tool_calls'];
  if (wireCalls !== undefined && wireCalls !== null) {
    if (!Array.isArray(wireCalls)) throw invalid('has tool_calls that are not an array');
    for (const call of wireCalls) {
      if (!isRecord(call) || typeof call['id'] !== 'string' || !isRecord(call['function']) || typeof call['function']['name'] !== 'string') {
        throw invalid('has a tool call without id or function name');
      }
      toolCalls.push({ id: call['id'], name: call['function']['name'], input: parseArguments(call['function']['arguments']) });
    }
  }
  return { text: content, toolCalls, stopReason: stopReason(choice['finish_reason']), usage: usage(answer['usage']) };
}

/** A string, null, or (as some compatible servers send it) a list of `{ type: "text", text }` parts. */
function messageText(content: unknown): string {
  if (content === null || content === undefined) return '';
  if (typeof content === 'string') return content;
  if (Array.isArray(content)) {
    return content
      .map((part: unknown) => {
        if (!isRecord(part) || (part['type'] === 'text' && typeof part['text'] !== 'string')) throw invalid('has a content part that is not text');
        return part['type'] === 'text' ? (part['text'] as string) : '';
      })
      .join('');
  }
  throw invalid('has message content that is neither text nor a list of parts');
}

function parseArguments(value: unknown): unknown {
  if (typeof value !== 'string') return value;
  try {
    return JSON.parse(value) as unknown;
  } catch {
    return value;
  }
}

function stopReason(value: unknown): ModelStopReason {
  switch (value) {
    case 'stop':
      return 'end';
    case 'tool_calls':
    case 'function_call':
      return 'tool_calls';
    case 'length':
      return 'max_tokens';
    case 'content_filter':
      return 'refused';
    default:
      return 'other';
  }
}

function usage(value: unknown): ModelUsage {
  if (!isRecord(value)) return {};
  const result: ModelUsage = {};
  const input = count(value['prompt_tokens']);
  const output = count(value['completion_tokens']);
  const total = count(value['total_tokens']);
  if (input !== undefined) result.inputTokens = input;
  if (output !== undefined) result.outputTokens = output;
  if (total !== undefined) result.totalTokens = total;
  return result;
}

function count(value: unknown): number | undefined {
  return typeof value === 'number' && Number.isSafeInteger(value) && value >= 0 ? value : undefined;
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function invalid(what: string): ModelProviderError {
  return new ModelProviderError(MODEL_ERROR_CODES.responseInvalid, `The chat completions response ${what}.`);
}
