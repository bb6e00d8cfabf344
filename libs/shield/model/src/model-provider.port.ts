/**
 * The model provider port: one turn of a tool-using conversation in a provider-neutral shape. The case tool
 * loop (`model-analysis.runner.ts`) speaks only this; `anthropic-messages.provider.ts` and
 * `openai-compatible.provider.ts` translate it to their wire formats. A turn is abortable with an AbortSignal
 * (SHIELD.md §10: the whole run is aborted at its deadline).
 *
 * Everything in a turn (the consult message, the context, case text, tool results) is sent to the provider
 * and nowhere else: adapters never log or keep it (§12).
 */

/** A tool the model may call; `inputSchema` is a JSON Schema object for the call's input. */
export interface ModelToolDefinition {
  name: string;
  description: string;
  inputSchema: Readonly<Record<string, unknown>>;
}

/**
 * A tool call the model made. `input` is the parsed input object; when a provider sent arguments that are not
 * JSON, it is the raw string, and the tool answers with an error result rather than ending the run.
 */
export interface ModelToolCall {
  id: string;
  name: string;
  input: unknown;
}

export interface ModelToolResult {
  callId: string;
  /** The tool's answer as text (JSON for the case tool). */
  content: string;
  isError: boolean;
}

export type ModelMessage =
  | { role: 'user'; text: string }
  | { role: 'assistant'; text: string; toolCalls: ModelToolCall[] }
  | { role: 'tool'; results: ModelToolResult[] };

export interface ModelTurnRequest {
  system: string;
  messages: readonly ModelMessage[];
  tools: readonly ModelToolDefinition[];
}

/** Token counts as the provider reported them for this turn; a count it did not report is absent. */
export interface ModelUsage {
  inputTokens?: number;
  outputTokens?: number;
  totalTokens?: number;
}

/**
 * Why the model stopped: `tool_calls` (it wants tool results), `end` (final answer), `max_tokens` (cut off),
 * `refused` (a refusal or content filter), `other` (anything else the provider said).
 */
export type ModelStopReason = 'end' | 'tool_calls' | 'max_tokens' | 'refused' | 'other';

export interface ModelTurn {
  /** The assistant's text in this turn ("" when it only called tools). */
  text: string;
  toolCalls: ModelToolCall[];
  stopReason: ModelStopReason;
  usage: ModelUsage;
}

export interface ModelProvider {
  /** Provider-prefixed model id recorded in `generation.model` (§8.2), e.g. `anthropic/claude-sonnet-5`. */
  readonly modelId: string;
  /**
   * The `errorCode` to record when this provider cannot run because no API key is configured (§8.2:
   * `anthropic_api_key_missing`); undefined when a key is configured. The runner then falls back without
   * a network call.
   */
  readonly missingCredentialCode: string | undefined;
  /** One turn. Rejects with a `ModelProviderError` (stable `code`) or with the signal's reason when aborted. */
  complete(request: ModelTurnRequest, signal: AbortSignal): Promise<ModelTurn>;
}
