/**
 * The one HTTP exchange both adapters make: POST a JSON body, get a JSON body back, with the guards a call to a
 * third party needs. It owns the mapping from HTTP outcomes to the stable codes of `model-provider.error.ts`.
 *
 * - The body is read from the stream and refused past `maxResponseBytes` (a declared Content-Length over the
 *   bound is refused before reading), so a misbehaving endpoint cannot fill memory.
 * - Only `application/json` (or `+json`) bodies are parsed; anything else is MODEL_RESPONSE_INVALID.
 * - Redirects are refused: following one would send the key header to wherever it points.
 * - Error bodies are discarded unread: they may echo the request (the consult message, §12), and the status
 *   alone decides the code.
 * - Aborts rethrow the signal's reason unchanged, so the runner sees its own TimeoutError (§8.2).
 *
 * Uses the global `fetch` (Node 20, browsers), no Node built-ins.
 */
import { MODEL_ERROR_CODES, ModelProviderError } from './model-provider.error';

/** Default bound on a provider's response body: 1 MiB, far above a full analysis with tool calls. */
export const DEFAULT_MAX_RESPONSE_BYTES = 1024 * 1024;

export interface JsonPostRequest {
  url: string;
  headers: Readonly<Record<string, string>>;
  body: unknown;
  signal: AbortSignal;
  maxResponseBytes: number;
}

export async function postJson(request: JsonPostRequest): Promise<unknown> {
  const { signal } = request;
  let response: Response;
  try {
    response = await fetch(request.url, {
      method: 'POST',
      headers: { ...request.headers, 'content-type': 'application/json', accept: 'application/json' },
      body: JSON.stringify(request.body),
      redirect: 'error',
      signal,
    });
  } catch {
    if (signal.aborted) throw signal.reason;
    // fetch's own error text can name the host and the cause; the code says enough.
    throw new ModelProviderError(MODEL_ERROR_CODES.unreachable, 'The model provider could not be reached: check the base URL and the network.');
  }

  if (!response.ok) {
    await discard(response);
    throw statusError(response.status);
  }

  const contentType = (response.headers.get('content-type') ?? '').split(';')[0]?.trim().toLowerCase() ?? '';
  if (contentType !== 'application/json' && !contentType.endsWith('+json')) {
    await discard(response);
    throw new ModelProviderError(MODEL_ERROR_CODES.responseInvalid, `The model provider answered with content type "${contentType.slice(0, 60)}", not JSON.`);
  }

  const text = await readBounded(response, request.maxResponseBytes, signal);
  try {
    return JSON.parse(text) as unknown;
  } catch {
    throw new ModelProviderError(MODEL_ERROR_CODES.responseInvalid, 'The model provider answered with a body that is not valid JSON.');
  }
}

function statusError(status: number): ModelProviderError {
  if (status === 401 || status === 403) {
    return new ModelProviderError(MODEL_ERROR_CODES.authFailed, `The model provider refused the credentials (HTTP ${status}): check the API key and its access to the model.`, status);
  }
  if (status === 429) {
    return new ModelProviderError(MODEL_ERROR_CODES.rateLimited, 'The model provider is rate limiting this key (HTTP 429): retry later or raise the limit.', status);
  }
  if (status >= 500 || status === 408) {
    return new ModelProviderError(MODEL_ERROR_CODES.unavailable, `The model provider is unavailable (HTTP ${status}): retry later.`, status);
  }
  return new ModelProviderError(MODEL_ERROR_CODES.requestRejected, `The model provider rejected the request (HTTP ${status}): check the base URL and the model name.`, status);
}

async function readBounded(response: Response, maxBytes: number, signal: AbortSignal): Promise<string> {
  const declared = Number(response.headers.get('content-length'));
  if (Number.isFinite(declared) && declared > maxBytes) {
    await discard(response);
    throw tooLarge(maxBytes);
  }
  const chunks: Uint8Array[] = [];
  let size = 0;
  if (response.body) {
    const reader = response.body.getReader();
    try {
      for (;;) {
        const { done, value } = await reader.read();
        if (done) break;
        size += value.byteLength;
        if (size > maxBytes) {
          await reader.cancel().catch(() => undefined);
          throw tooLarge(maxBytes);
        }
        chunks.push(value);
      }
    } catch (error) {
      if (signal.aborted) throw signal.reason;
      if (error instanceof ModelProviderError) throw error;
      throw new ModelProviderError(MODEL_ERROR_CODES.unreachable, 'The connection to the model provider broke while reading its answer.');
    }
  }
  const bytes = new Uint8Array(size);
  let offset = 0;
  for (const chunk of chunks) {
    bytes.set(chunk, offset);
    offset += chunk.byteLength;
  }
  try {
    return new TextDecoder('utf-8', { fatal: true }).decode(bytes);
  } catch {
    throw new ModelProviderError(MODEL_ERROR_CODES.responseInvalid, 'The model provider answered with a body that is not UTF-8.');
  }
}

function tooLarge(maxBytes: number): ModelProviderError {
  return new ModelProviderError(MODEL_ERROR_CODES.responseTooLarge, `The model provider's answer exceeds ${maxBytes} bytes and was refused.`);
}

async function discard(response: Response): Promise<void> {
  await response.body?.cancel().catch(() => undefined);
}
