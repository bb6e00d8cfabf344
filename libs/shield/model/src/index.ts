/**
 * @trustmesh/shield-model: the Shield's model mode (SHIELD.md §10). A provider port with adapters for the
 * Anthropic Messages API and OpenAI-compatible chat completions, the read-only case tool loop, output
 * validation and the fallback to the deterministic analyzer, as `analyzeWithModel`.
 */
export type {
  ModelMessage,
  ModelProvider,
  ModelStopReason,
  ModelToolCall,
  ModelToolDefinition,
  ModelToolResult,
  ModelTurn,
  ModelTurnRequest,
  ModelUsage,
} from './model-provider.port';
export { MODEL_ERROR_CODES, ModelProviderError, type ModelErrorCode } from './model-provider.error';
export { DEFAULT_MAX_RESPONSE_BYTES } from './provider-http.transport';
export {
  ANTHROPIC_API_VERSION,
  ANTHROPIC_DEFAULT_BASE_URL,
  ANTHROPIC_KEY_MISSING_CODE,
  AnthropicMessagesProvider,
  type AnthropicMessagesConfig,
} from './anthropic-messages.provider';
export {
  OPENAI_DEFAULT_BASE_URL,
  OPENAI_KEY_MISSING_CODE,
  OpenAiCompatibleProvider,
  type OpenAiCompatibleConfig,
} from './openai-compatible.provider';
export {
  DEFAULT_ANTHROPIC_MODEL,
  MODEL_PROVIDER_KINDS,
  createModelProvider,
  type ModelProviderKind,
  type ModelProviderSettings,
} from './model-provider.factory';
export { CASE_SECTIONS, CASE_TOOL, CASE_TOOL_NAME, MAX_SECTION_IDS, type CaseSection } from './case-section.tool';
export {
  GENERATION_FAILED_CODE,
  MODEL_DEADLINE_MS,
  MODEL_MAX_STEPS,
  analyzeWithModel,
  errorCodeOf,
  type AnalysisValidation,
  type ModelAnalysisOptions,
  type ModelAnalysisResult,
  type ModelRunLogger,
} from './model-analysis.runner';
