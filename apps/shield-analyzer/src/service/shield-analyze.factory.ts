/**
 * Builds the analysis step of a consult from the configuration: with a model configured (the default,
 * SHIELD.md §10), `analyzeWithModel` runs the provider's tool loop and falls back to the deterministic
 * analyzer on any failure, recording `errorCode` (§8.2; no key → `anthropic_api_key_missing`). With
 * SHIELD_MODEL_PROVIDER=none, the deterministic analyzer alone, recorded as `fallback` with this analyzer's
 * version and the model id `trustmesh/deterministic` (the schema requires one; none is configured).
 */
import type { Logger } from '@trustmesh/platform-logging';
import { analyzeCase, SHIELD_ANALYZER_VERSION } from '@trustmesh/shield-analysis';
import { analyzeWithModel, createModelProvider } from '@trustmesh/shield-model';
import { validateShieldAnalysis, type AnalysisRequest, type ShieldAnalysis } from '@trustmesh/shield-records';

import type { ShieldModelConfig } from '../config/shield-analyzer.config';
import type { ShieldAnalyze } from './shield-case.service';

/** `generation.promptVersion` of the model path's prompt and loop. */
export const SHIELD_MODEL_PROMPT_VERSION = 'trustmesh-shield-model-2';
export const DETERMINISTIC_MODEL_ID = 'trustmesh/deterministic';

export type DeterministicAnalyzer = (request: AnalysisRequest) => ShieldAnalysis;

export function createShieldAnalyze(model: ShieldModelConfig | null, logger: Logger, analyzer: DeterministicAnalyzer = analyzeCase): ShieldAnalyze {
  if (!model) {
    return async (request) => ({ analysis: analyzer(request), generation: { mode: 'fallback', model: DETERMINISTIC_MODEL_ID, promptVersion: SHIELD_ANALYZER_VERSION } });
  }
  // Built once: an unknown provider, a bad base URL or a missing OpenAI model fails the start (the
  // configuration already refuses them, this is the second line).
  const provider = createModelProvider({
    provider: model.provider,
    ...(model.model !== undefined ? { model: model.model } : {}),
    ...(model.apiKey !== undefined ? { apiKey: model.apiKey } : {}),
    ...(model.baseUrl !== undefined ? { baseUrl: model.baseUrl } : {}),
    ...(model.providerLabel !== undefined ? { providerLabel: model.providerLabel } : {}),
    ...(model.maxOutputTokens !== undefined ? { maxOutputTokens: model.maxOutputTokens } : {}),
  });
  return (request) =>
    analyzeWithModel(request, {
      provider,
      promptVersion: SHIELD_MODEL_PROMPT_VERSION,
      fallback: analyzer,
      fallbackPromptVersion: SHIELD_ANALYZER_VERSION,
      validateAnalysis: validateShieldAnalysis,
      deadlineMs: model.deadlineMs,
      ...(model.requestTimeoutMs !== undefined ? { requestTimeoutMs: model.requestTimeoutMs } : {}),
      logger: { log: (level, message, fields) => logger.log(level, message, { component: 'shield-model', ...fields }) },
    });
}
