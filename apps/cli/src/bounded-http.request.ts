/**
 * One HTTP(S) request of a REST client of the command line (registry-rest.client.ts, shield-rest.client.ts): the
 * answer bounded in size and time, redirects never followed, and every way the service cannot be had (refused
 * connection, no answer in time, an oversized answer, a connection closed mid-answer) one error of the caller's
 * type, whose message names the service and its origin and never carries the answer's text.
 */
import { request as httpRequest, type IncomingHttpHeaders, type OutgoingHttpHeaders } from 'node:http';
import { request as httpsRequest } from 'node:https';

export interface BoundedHttpRequest {
  method: 'GET' | 'POST' | 'DELETE';
  url: URL;
  headers: OutgoingHttpHeaders;
  body?: Uint8Array;
  /** A value sent as the JSON body (UTF-8, `Content-Type: application/json`) instead of `body`. */
  json?: unknown;
  timeoutMs: number;
  maxAnswerBytes: number;
  /** How messages name the service: `the registry`, `the shield`. */
  service: string;
  /** The caller's error type for a service that cannot be had. */
  unreachable: (message: string) => Error;
}

export interface BoundedHttpAnswer {
  status: number;
  headers: IncomingHttpHeaders;
  bytes: Buffer;
}

export function sendBoundedRequest(options: BoundedHttpRequest): Promise<BoundedHttpAnswer> {
  const { url, service, unreachable, maxAnswerBytes } = options;
  const body = options.json === undefined ? options.body : Buffer.from(JSON.stringify(options.json), 'utf8');
  const headers = { ...options.headers, ...(options.json === undefined ? {} : { 'content-type': 'application/json' }), ...(body ? { 'content-length': body.length } : {}) };
  const send = url.protocol === 'https:' ? httpsRequest : httpRequest;
  return new Promise((resolve, reject) => {
    let timedOut = false;
    const request = send(
      url,
      {
        method: options.method,
        timeout: options.timeoutMs,
        headers,
      },
      (response) => {
        const chunks: Buffer[] = [];
        let size = 0;
        response.on('data', (chunk: Buffer) => {
          size += chunk.length;
          if (size > maxAnswerBytes) {
            response.destroy();
            reject(unreachable(`${service}'s answer exceeds ${maxAnswerBytes} bytes`));
            return;
          }
          chunks.push(chunk);
        });
        response.on('error', () => reject(unreachable(`${service} at ${url.origin} closed the connection mid-answer`)));
        response.on('end', () => resolve({ status: response.statusCode ?? 0, headers: response.headers, bytes: Buffer.concat(chunks) }));
      },
    );
    request.on('timeout', () => {
      timedOut = true;
      request.destroy();
    });
    request.on('error', (error: NodeJS.ErrnoException) => {
      if (timedOut) reject(unreachable(`${service} at ${url.origin} did not answer within ${options.timeoutMs / 1000} s`));
      else reject(unreachable(`cannot reach ${service} at ${url.origin}${error.code ? ` (${error.code})` : ''}`));
    });
    request.end(body);
  });
}

/** An answer's body as a JSON object, or an empty one when it is not one (an error page, a truncated answer). */
export function jsonObjectOf(bytes: Buffer): Record<string, unknown> {
  try {
    const value = JSON.parse(bytes.toString('utf8')) as unknown;
    return value !== null && typeof value === 'object' && !Array.isArray(value) ? (value as Record<string, unknown>) : {};
  } catch {
    return {};
  }
}
