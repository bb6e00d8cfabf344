/**
 * Builds the configured `ModelProvider` from plain settings (the service reads them from its environment and
 * fails fast on a bad base URL or an unknown provider). A missing key is not an error here: the provider then
 * reports its `*_api_key_missing` code and every consultation falls back (SHIELD.md §10).
 */
import { AnthropicMessagesProvider } from './anthropic-messages.provider';
import type { ModelProvider } from './model-provider.port';
import { OpenAiCompatibleProvider } from './openai-compatible.provider';

export const MODEL_PROVIDER_KINDS = ['anthropic', 'openai'] as const;
export type ModelProviderKind = (typeof MODEL_PROVIDER_KINDS)[number];

/** The reference's default model (its examples record `anthropic/claude-sonnet-5`). */
export const DEFAULT_ANTHROPIC_MODEL = 'claude-sonnet-5';

export interface ModelProviderSettings {
  provider: ModelProviderKind;
  /** Required for `openai`; default `DEFAULT_ANTHROPIC_MODEL` for `anthropic`. */
  model?: string;
  apiKey?: string;
  baseUrl?: string;
  /** `openai` only: prefix of the recorded model id (default `openai`). */
  providerLabel?: string;
  maxOutputTokens?: number;
  maxResponseBytes?: number;
}

export function createModelProvider(settings: ModelProviderSettings): ModelProvider {
  const model = settings.model?.trim();
  const common = {
    ...(settings.apiKey !== undefined ? { apiKey: settings.apiKey } : {}),
    ...(settings.baseUrl !== undefined && settings.baseUrl.trim() !== '' ? { baseUrl: settings.baseUrl } : {}),
    ...(settings.maxOutputTokens !== undefined ? { maxOutputTokens: settings.maxOutputTokens } : {}),
    ...(settings.maxResponseBytes !== undefined ? { maxResponseBytes: settings.maxResponseBytes } : {}),
  };
  switch (settings.provider) {
    case 'anthropic':
      return new AnthropicMessagesProvider({ ...common, model: model || DEFAULT_ANTHROPIC_MODEL });
    case 'openai':
      if (!model) throw new Error('An OpenAI-compatible provider needs a model name (SHIELD_MODEL).');
      return new OpenAiCompatibleProvider({
        ...common,
        model,
        ...(settings.providerLabel !== undefined ? { providerLabel: settings.providerLabel } : {}),
      });
    default:
      throw new Error(`Unknown model provider "${String(settings.provider).slice(0, 40)}": use ${MODEL_PROVIDER_KINDS.join(' or ')}.`);
  }
}
