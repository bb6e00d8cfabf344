/**
 * The model path's failures as stable codes. A thrown `ModelProviderError`'s `code` becomes the consultation's
 * `generation.errorCode` (SHIELD.md §8.2: "the thrown value's string `code`"), so these strings are part of the
 * stored record: never rename one. Messages say what to check; they never carry the API key, the request or
 * the provider's response text (§12: error logs carry codes and ids only).
 */

export const MODEL_ERROR_CODES = {
  /** HTTP 401 or 403: the key is wrong, revoked or lacks access to the model. */
  authFailed: 'MODEL_AUTH_FAILED',
  /** HTTP 429. */
  rateLimited: 'MODEL_RATE_LIMITED',
  /** HTTP 5xx (Anthropic's 529 "overloaded" included) or 408. */
  unavailable: 'MODEL_UNAVAILABLE',
  /** Any other non-2xx status (a wrong base URL or model name usually gives 400 or 404). */
  requestRejected: 'MODEL_REQUEST_REJECTED',
  /** No HTTP answer at all: DNS, refused connection, reset, TLS, a redirect (refused so the key is never forwarded). */
  unreachable: 'MODEL_UNREACHABLE',
  /** A 2xx answer that is not JSON, or JSON not in the API's response shape. */
  responseInvalid: 'MODEL_RESPONSE_INVALID',
  /** A response body larger than the configured bound. */
  responseTooLarge: 'MODEL_RESPONSE_TOO_LARGE',
  /** The model stopped at its output token limit before finishing its answer. */
  outputTruncated: 'MODEL_OUTPUT_TRUNCATED',
  /** The model refused, or the provider's content filter stopped it. */
  refused: 'MODEL_REFUSED',
  /** The final answer is not one JSON object (bare or in one fenced ```json block). */
  outputNotJson: 'MODEL_OUTPUT_NOT_JSON',
  /** The final answer is JSON but not a valid analysis (§9, `shield_analysis.schema.json`). */
  outputInvalid: 'MODEL_OUTPUT_INVALID',
  /** The model still called tools at the last allowed step (§10: at most 8 steps). */
  stepLimitExceeded: 'MODEL_STEP_LIMIT_EXCEEDED',
} as const;

export type ModelErrorCode = (typeof MODEL_ERROR_CODES)[keyof typeof MODEL_ERROR_CODES];

export class ModelProviderError extends Error {
  override readonly name = 'ModelProviderError';

  constructor(
    readonly code: ModelErrorCode,
    message: string,
    /** The HTTP status, when the failure was one. */
    readonly status?: number,
  ) {
    super(message);
  }
}
