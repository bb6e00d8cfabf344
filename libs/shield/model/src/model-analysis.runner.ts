/**
 * The model path of a consultation (SHIELD.md §10, §8.2): the read-only case tool loop over a `ModelProvider`,
 * its limits, output validation and the fallback.
 *
 * Rules this file keeps:
 * - `generation.mode` is `ai` only when the model's final answer parsed as one JSON object and the injected
 *   validator accepted it; the analysis is then the validator's value (§8.2).
 * - Any failure (no key, deadline, per-request timeout, provider error, too many steps, output not JSON or not
 *   an analysis) returns `fallback(request)` with `errorCode` and no `tokenUsage`; nothing the failed run
 *   produced is kept (§10). No key means no network call at all.
 * - At most 8 steps (one step = one provider call), one deadline for the whole run (25 s by default) and an
 *   optional shorter per-request timeout; both abort the provider call and record `TimeoutError` (§8.2).
 * - The logger gets codes, counts and ids only: never the message, the context, case text or the key (§12).
 */
import type { AnalysisRequest, Generation, ShieldAnalysis, TokenUsage } from '@trustmesh/shield-records';

import { analysisSystemPrompt, analysisUserPrompt } from './analysis.prompt';
import { parseAnswerObject } from './analysis-output.parser';
import { CASE_TOOL, runCaseTool } from './case-section.tool';
import { MODEL_ERROR_CODES, ModelProviderError } from './model-provider.error';
import type { ModelMessage, ModelProvider, ModelTurn, ModelUsage } from './model-provider.port';

/** §10: at most 8 steps. */
export const MODEL_MAX_STEPS = 8;
/** §10: the run is aborted after 25 s. */
export const MODEL_DEADLINE_MS = 25_000;
/** §8.2: the code when nothing better names the failure. */
export const GENERATION_FAILED_CODE = 'generation_failed';

/**
 * The slice of `@trustmesh/platform-logging`'s `Logger` this file uses, stated here so this browser-safe
 * library does not pull in that package's Node adapter; any platform `Logger` fits.
 */
export interface ModelRunLogger {
  log(level: 'debug' | 'info' | 'warn' | 'error', message: string, fields?: Readonly<Record<string, string | number | boolean | undefined>>): void;
}

export type AnalysisValidation =
  | { ok: true; value: ShieldAnalysis }
  | { ok: false; issues: Array<{ code: string; path: string; message: string }> };

export interface ModelAnalysisOptions {
  provider: ModelProvider;
  /** `generation.promptVersion` of a model-made analysis: the label of this prompt and loop (§8.2). */
  promptVersion: string;
  /** The deterministic analyzer, used on every failure. */
  fallback: (request: AnalysisRequest) => ShieldAnalysis;
  /** `generation.promptVersion` when the fallback made the analysis; default `promptVersion`. */
  fallbackPromptVersion?: string;
  /** The analysis schema check (§9); its `value` is what a successful run returns. */
  validateAnalysis: (value: unknown) => AnalysisValidation;
  /** Whole-run deadline; default 25 000 ms (§10). */
  deadlineMs?: number;
  /** Timeout of each provider call; default: only the deadline applies. */
  requestTimeoutMs?: number;
  /** Default and maximum 8 (§10); a larger value is capped. */
  maxSteps?: number;
  /** The caller's cancellation (e.g. shutdown): aborts the run, which then falls back. */
  signal?: AbortSignal;
  logger?: ModelRunLogger;
}

export interface ModelAnalysisResult {
  analysis: ShieldAnalysis;
  generation: Generation;
}

export async function analyzeWithModel(request: AnalysisRequest, options: ModelAnalysisOptions): Promise<ModelAnalysisResult> {
  const { provider, logger } = options;
  const caseId = request.caseRecord.caseId;
  if (provider.missingCredentialCode !== undefined) {
    logger?.log('info', 'shield.model.not_configured', { caseId, model: provider.modelId, errorCode: provider.missingCredentialCode });
    return fallBack(request, options, provider.missingCredentialCode);
  }

  const started = Date.now();
  const run = new AbortController();
  const timer = setTimeout(() => run.abort(timeoutError('The model run passed its deadline.')), options.deadlineMs ?? MODEL_DEADLINE_MS);
  const callerSignal = options.signal;
  const onCallerAbort = (): void => run.abort(callerSignal?.reason);
  if (callerSignal?.aborted) onCallerAbort();
  else callerSignal?.addEventListener('abort', onCallerAbort, { once: true });
  const progress = { steps: 0 };
  try {
    const { analysis, usage } = await untilAborted(toolLoop(request, options, run.signal, progress), run.signal);
    logger?.log('info', 'shield.model.analysed', {
      caseId,
      model: provider.modelId,
      steps: progress.steps,
      durationMs: Date.now() - started,
      inputTokens: usage.inputTokens,
      outputTokens: usage.outputTokens,
    });
    return { analysis, generation: { mode: 'ai', model: provider.modelId, promptVersion: options.promptVersion, tokenUsage: usage } };
  } catch (error) {
    const errorCode = errorCodeOf(error);
    logger?.log('warn', 'shield.model.fell_back', { caseId, model: provider.modelId, errorCode, steps: progress.steps, durationMs: Date.now() - started });
    return fallBack(request, options, errorCode);
  } finally {
    clearTimeout(timer);
    callerSignal?.removeEventListener('abort', onCallerAbort);
    // Ends whatever the provider still has in flight once the result is decided.
    if (!run.signal.aborted) run.abort(new DOMException('The model run is over.', 'AbortError'));
  }
}

/**
 * §8.2: the thrown value's string `code` (first 100 chars), else an Error's `name`, else `generation_failed`.
 * Our own failures carry stable codes (`model-provider.error.ts`); a DOMException's numeric `code` is skipped,
 * so a timeout records its name, `TimeoutError`, and a caller's cancellation `AbortError`.
 */
export function errorCodeOf(thrown: unknown): string {
  if (typeof thrown === 'object' && thrown !== null) {
    const code = (thrown as { code?: unknown }).code;
    if (typeof code === 'string' && code.length > 0) return code.slice(0, 100);
    // Error-like rather than `instanceof Error`: a DOMException or an Error from another realm (a worker, a
    // test sandbox) is still an Error whose name §8.2 wants.
    const { name, message } = thrown as { name?: unknown; message?: unknown };
    if ((thrown instanceof Error || typeof message === 'string') && typeof name === 'string' && name.length > 0) return name.slice(0, 100);
  }
  return GENERATION_FAILED_CODE;
}

async function toolLoop(
  request: AnalysisRequest,
  options: ModelAnalysisOptions,
  signal: AbortSignal,
  progress: { steps: number },
): Promise<{ analysis: ShieldAnalysis; usage: TokenUsage }> {
  const maxSteps = Math.max(1, Math.min(options.maxSteps ?? MODEL_MAX_STEPS, MODEL_MAX_STEPS));
  const system = analysisSystemPrompt();
  const messages: ModelMessage[] = [{ role: 'user', text: analysisUserPrompt(request) }];
  const usages: ModelUsage[] = [];
  for (let step = 1; step <= maxSteps; step += 1) {
    // A provider that ignored the abort may still resolve after the deadline: stop here rather than call again.
    signal.throwIfAborted();
    progress.steps = step;
    const turn = await withRequestTimeout(signal, options.requestTimeoutMs, (stepSignal) =>
      options.provider.complete({ system, messages, tools: [CASE_TOOL] }, stepSignal),
    );
    usages.push(turn.usage);
    if (turn.toolCalls.length > 0) {
      if (step === maxSteps) {
        throw new ModelProviderError(MODEL_ERROR_CODES.stepLimitExceeded, `The model was still calling tools after ${maxSteps} steps.`);
      }
      messages.push({ role: 'assistant', text: turn.text, toolCalls: turn.toolCalls });
      messages.push({ role: 'tool', results: turn.toolCalls.map((call) => runCaseTool(request.caseRecord, call)) });
      continue;
    }
    return { analysis: finalAnalysis(turn, options), usage: totalUsage(usages) };
  }
  // Unreachable: the last step either returns or throws; kept for the compiler.
  throw new ModelProviderError(MODEL_ERROR_CODES.stepLimitExceeded, `The model did not finish within ${maxSteps} steps.`);
}

function finalAnalysis(turn: ModelTurn, options: ModelAnalysisOptions): ShieldAnalysis {
  if (turn.stopReason === 'max_tokens') {
    throw new ModelProviderError(MODEL_ERROR_CODES.outputTruncated, 'The model reached its output token limit before finishing the analysis.');
  }
  if (turn.stopReason === 'refused') throw new ModelProviderError(MODEL_ERROR_CODES.refused, 'The model or its provider declined to answer.');
  const validation = options.validateAnalysis(parseAnswerObject(turn.text));
  if (!validation.ok) {
    throw new ModelProviderError(MODEL_ERROR_CODES.outputInvalid, `The model's answer is not a valid analysis (${validation.issues.length} issue(s)).`);
  }
  return validation.value;
}

/** A count is recorded only when every turn reported it: a sum over some turns would be a wrong number. */
function totalUsage(usages: readonly ModelUsage[]): TokenUsage {
  const total: TokenUsage = {};
  for (const key of ['inputTokens', 'outputTokens', 'totalTokens'] as const) {
    if (usages.length > 0 && usages.every((usage) => usage[key] !== undefined)) {
      total[key] = usages.reduce((sum, usage) => sum + (usage[key] ?? 0), 0);
    }
  }
  return total;
}

function fallBack(request: AnalysisRequest, options: ModelAnalysisOptions, errorCode: string): ModelAnalysisResult {
  return {
    analysis: options.fallback(request),
    generation: {
      mode: 'fallback',
      // §8.2: the configured model, although none ran.
      model: options.provider.modelId,
      promptVersion: options.fallbackPromptVersion ?? options.promptVersion,
      errorCode: errorCode.slice(0, 100),
    },
  };
}

function timeoutError(message: string): DOMException {
  return new DOMException(message, 'TimeoutError');
}

/** Runs one provider call under the run's signal and, when set, its own timeout. */
async function withRequestTimeout<T>(runSignal: AbortSignal, timeoutMs: number | undefined, call: (signal: AbortSignal) => Promise<T>): Promise<T> {
  if (timeoutMs === undefined) return call(runSignal);
  const step = new AbortController();
  const timer = setTimeout(() => step.abort(timeoutError('A model request passed its timeout.')), timeoutMs);
  const onRunAbort = (): void => step.abort(runSignal.reason);
  runSignal.addEventListener('abort', onRunAbort, { once: true });
  try {
    return await untilAborted(call(step.signal), step.signal);
  } finally {
    clearTimeout(timer);
    runSignal.removeEventListener('abort', onRunAbort);
  }
}

/**
 * Settles with `work`, or rejects with the signal's reason as soon as it aborts: the deadline holds even if a
 * provider ignored its signal.
 */
function untilAborted<T>(work: Promise<T>, signal: AbortSignal): Promise<T> {
  if (signal.aborted) {
    work.catch(() => undefined);
    return Promise.reject(signal.reason);
  }
  return new Promise<T>((resolve, reject) => {
    const onAbort = (): void => reject(signal.reason);
    signal.addEventListener('abort', onAbort, { once: true });
    work.then(
      (value) => {
        signal.removeEventListener('abort', onAbort);
        resolve(value);
      },
      (error: unknown) => {
        signal.removeEventListener('abort', onAbort);
        reject(error);
      },
    );
  });
}
