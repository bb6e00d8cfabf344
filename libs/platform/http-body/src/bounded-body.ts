/**
 * Request bodies read by the app itself, never by a framework body parser: the size bound holds while
 * reading (not after buffering everything), and nothing of a refused body can reach a log or error page.
 */
import type { IncomingMessage } from 'node:http';

/** The body is larger than the bound (declared or counted). */
export class BodyTooLargeError extends Error {
  constructor(readonly maxBytes: number) {
    super(`The body exceeds ${maxBytes} bytes`);
    this.name = 'BodyTooLargeError';
  }
}

/**
 * The whole body of `request`, at most `maxBytes`. A declared `Content-Length` beyond the bound is refused
 * before reading; a body that grows beyond it while streaming is refused at that point. Either way the rest
 * is drained, not destroyed, so the caller's 413 answer still reaches the client.
 */
export function readBoundedBody(request: IncomingMessage, maxBytes: number): Promise<Buffer> {
  const declared = Number(request.headers['content-length']);
  if (Number.isFinite(declared) && declared > maxBytes) {
    request.resume();
    return Promise.reject(new BodyTooLargeError(maxBytes));
  }
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    let refused = false;
    request.on('data', (chunk: Buffer) => {
      if (refused) return;
      size += chunk.length;
      if (size > maxBytes) {
        refused = true;
        chunks.length = 0;
        reject(new BodyTooLargeError(maxBytes));
        return;
      }
      chunks.push(chunk);
    });
    request.on('end', () => {
      if (!refused) resolve(Buffer.concat(chunks));
    });
    request.on('error', (error) => {
      if (!refused) reject(error);
    });
  });
}

/** Whether the request declares a JSON body (`application/json`, any parameters, any case). */
export function hasJsonContentType(request: IncomingMessage): boolean {
  return (request.headers['content-type'] ?? '').split(';')[0]?.trim().toLowerCase() === 'application/json';
}
