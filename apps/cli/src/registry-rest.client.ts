/**
 * The card registry's REST API (`/v1`, apps/card-registry/README.md) as the command line calls it: one
 * request per call, the bearer credential when there is one, answers bounded in size and time, redirects
 * never followed here (the command decides). Refusals are RFC 7807 documents
 * `{ code, detail, issues: [{ path, code, severity, message }] }`; a registry that cannot be reached or
 * answers something else is a `RegistryUnreachable`, whose message never carries the answer's text.
 */
import { request as httpRequest, type IncomingHttpHeaders, type IncomingMessage } from 'node:http';
import { request as httpsRequest } from 'node:https';

export interface RegistryIssue {
  path: string;
  code: string;
  severity?: string;
  message: string;
}

export interface RegistryAnswer {
  status: number;
  headers: IncomingHttpHeaders;
  bytes: Buffer;
  /** The parsed JSON body; undefined when the body is not JSON. */
  json: unknown;
}

export class RegistryUnreachable extends Error {
  override readonly name = 'RegistryUnreachable';
}

const REQUEST_TIMEOUT_MS = 60_000;
/** A search page or a card's revisions fit well within this. */
const MAX_ANSWER_BYTES = 16 * 1024 * 1024;

export interface RegistryRequest {
  token?: string;
  body?: Uint8Array;
  contentType?: string;
}

export class RegistryRestClient {
  private readonly base: URL;

  /** `baseUrl`: `http(s)://host:port[/prefix]` (a proxy's path prefix is kept), with or without `/v1`. */
  constructor(baseUrl: string) {
    this.base = new URL(`${baseUrl.replace(/\/+$/, '').replace(/\/v1$/, '')}/`);
  }

  get origin(): string {
    return this.base.origin;
  }

  /** `path` is relative to the base (no leading slash), so a base path prefix is kept. */
  call(method: 'GET' | 'POST', path: string, options: RegistryRequest = {}): Promise<RegistryAnswer> {
    const url = new URL(path, this.base);
    const send = url.protocol === 'https:' ? httpsRequest : httpRequest;
    return new Promise((resolve, reject) => {
      const request = send(
        url,
        {
          method,
          timeout: REQUEST_TIMEOUT_MS,
          headers: {
            accept: 'application/json, application/problem+json',
            ...(options.token ? { authorization: `Bearer ${options.token}` } : {}),
            ...(options.body ? { 'content-type': options.contentType ?? 'application/json', 'content-length': options.body.length } : {}),
          },
        },
        (response) => readAnswer(response, this.base.origin).then(resolve, reject),
      );
      request.on('timeout', () => request.destroy(new RegistryUnreachable(`the registry at ${this.base.origin} did not answer within ${REQUEST_TIMEOUT_MS / 1000} s`)));
      request.on('error', (error: NodeJS.ErrnoException) => {
        reject(error instanceof RegistryUnreachable ? error : new RegistryUnreachable(`cannot reach the registry at ${this.base.origin}${error.code ? ` (${error.code})` : ''}`));
      });
      request.end(options.body);
    });
  }
}

function readAnswer(response: IncomingMessage, origin: string): Promise<RegistryAnswer> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    response.on('data', (chunk: Buffer) => {
      size += chunk.length;
      if (size > MAX_ANSWER_BYTES) {
        response.destroy();
        reject(new RegistryUnreachable(`the registry's answer exceeds ${MAX_ANSWER_BYTES} bytes`));
        return;
      }
      chunks.push(chunk);
    });
    response.on('error', () => reject(new RegistryUnreachable(`the registry at ${origin} closed the connection mid-answer`)));
    response.on('end', () => {
      const bytes = Buffer.concat(chunks);
      let json: unknown;
      try {
        json = bytes.length === 0 ? undefined : JSON.parse(bytes.toString('utf8'));
      } catch {
        json = undefined;
      }
      resolve({ status: response.statusCode ?? 0, headers: response.headers, bytes, json });
    });
  });
}

/** The problem document's code, message and issues, or a generic line when the answer is not one. */
export function refusalOf(answer: RegistryAnswer): { code: string; detail: string; issues: RegistryIssue[] } {
  const body = answer.json as { code?: unknown; detail?: unknown; issues?: unknown } | undefined;
  const issues = Array.isArray(body?.issues)
    ? (body.issues as unknown[]).filter((issue): issue is RegistryIssue => typeof issue === 'object' && issue !== null && typeof (issue as RegistryIssue).code === 'string' && typeof (issue as RegistryIssue).message === 'string')
    : [];
  return {
    code: typeof body?.code === 'string' ? body.code : `HTTP_${answer.status}`,
    detail: typeof body?.detail === 'string' ? body.detail : `the registry answered HTTP ${answer.status} (is the URL a card registry's, and does it serve this route?)`,
    issues,
  };
}
