/**
 * Reads the model's final answer as JSON: either the whole text is one JSON object, or the whole text is one
 * fenced code block (```json or a bare ```) holding one. Nothing else is tolerated: no prose before or after,
 * no second block, no repair of broken JSON; a model that cannot follow the output contract falls back
 * (SHIELD.md §10). Whether the object is a valid analysis is the injected validator's question, not this one's.
 */
import { MODEL_ERROR_CODES, ModelProviderError } from './model-provider.error';

const FENCED = /^```(?:json)?[ \t]*\r?\n([\s\S]*?)\r?\n[ \t]*```$/i;

export function parseAnswerObject(text: string): Record<string, unknown> {
  const trimmed = text.trim();
  const fenced = FENCED.exec(trimmed);
  const body = fenced ? (fenced[1] ?? '').trim() : trimmed;
  if (!body.startsWith('{')) throw notJson();
  let value: unknown;
  try {
    value = JSON.parse(body);
  } catch {
    throw notJson();
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value)) throw notJson();
  return value as Record<string, unknown>;
}

function notJson(): ModelProviderError {
  return new ModelProviderError(MODEL_ERROR_CODES.outputNotJson, 'The model did not answer with one JSON object (bare or in one ```json block).');
}
