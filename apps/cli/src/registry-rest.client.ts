/**
 * The card registry's REST API (`/v1`, apps/card-registry/README.md) as the command line calls it: one
 * request per call, the bearer credential when there is one, answers bounded in size and time, redirects
 * never followed here (the command decides; bounded-http.request.ts). Refusals are RFC 7807 documents
 * `{ code, detail, issues: [{ path, code, severity, message }] }`; a registry that cannot be reached or
 * answers something else is a `RegistryUnreachable`, whose message never carries the answer's text.
 */
import type { IncomingHttpHeaders } from 'node:http';

import { sendBoundedRequest } from './bounded-http.request';

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
  async call(method: 'GET' | 'POST', path: string, options: RegistryRequest = {}): Promise<RegistryAnswer> {
    const answer = await sendBoundedRequest({
      method,
      url: new URL(path, this.base),
      headers: {
        accept: 'application/json, application/problem+json',
        ...(options.token ? { authorization: `Bearer ${options.token}` } : {}),
        ...(options.body ? { 'content-type': options.contentType ?? 'application/json' } : {}),
      },
      ...(options.body ? { body: options.body } : {}),
      timeoutMs: REQUEST_TIMEOUT_MS,
      maxAnswerBytes: MAX_ANSWER_BYTES,
      service: 'the registry',
      unreachable: (message) => new RegistryUnreachable(message),
    });
    let json: unknown;
    try {
      json = answer.bytes.length === 0 ? undefined : JSON.parse(answer.bytes.toString('utf8'));
    } catch {
      json = undefined;
    }
    return { ...answer, json };
  }
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
