/**
 * The Shield analyzer's REST API (`/v0.1`, SHIELD.md §13) as the command line calls it: one JSON request per
 * call with the bearer credential, answers bounded in size and time (bounded-http.request.ts). A refusal comes
 * back as the service's `{ error, issues: [{ code, path, message }] }` (stable codes, JSON pointers into the
 * input); a service that cannot be reached or answers something else is a `ShieldUnreachable`, whose
 * message never carries the answer's text.
 */
import { sendBoundedRequest } from './bounded-http.request';

export interface ShieldIssue {
  code: string;
  path: string;
  message: string;
}

export type ShieldAnswer = { ok: true; status: number; value: unknown } | { ok: false; status: number; error: string; issues: ShieldIssue[] };

export class ShieldUnreachable extends Error {
  override readonly name = 'ShieldUnreachable';
}

/** Long enough for a consult on the model path (its own deadline is at most 120 s). */
const REQUEST_TIMEOUT_MS = 150_000;
/** A list of 500 cases at their largest fits well within this. */
const MAX_ANSWER_BYTES = 64 * 1024 * 1024;

export class ShieldRestClient {
  private readonly base: URL;

  /** `baseUrl`: `http(s)://host:port[/prefix]` (a proxy's path prefix is kept), with or without `/v0.1`. */
  constructor(
    baseUrl: string,
    private readonly credential: string,
  ) {
    this.base = new URL(`${baseUrl.replace(/\/+$/, '').replace(/\/v0\.1$/, '')}/`);
  }

  openCase(input: unknown): Promise<ShieldAnswer> {
    return this.call('POST', 'v0.1/shield/cases', input);
  }

  consult(caseId: string, input: unknown): Promise<ShieldAnswer> {
    return this.call('POST', `v0.1/shield/cases/${encodeURIComponent(caseId)}/consult`, input);
  }

  addGuidance(caseId: string, input: unknown): Promise<ShieldAnswer> {
    return this.call('POST', `v0.1/shield/cases/${encodeURIComponent(caseId)}/guidance`, input);
  }

  closeCase(caseId: string, input: unknown): Promise<ShieldAnswer> {
    return this.call('POST', `v0.1/shield/cases/${encodeURIComponent(caseId)}/close`, input);
  }

  getCase(caseId: string): Promise<ShieldAnswer> {
    return this.call('GET', `v0.1/shield/cases/${encodeURIComponent(caseId)}`);
  }

  listCases(): Promise<ShieldAnswer> {
    return this.call('GET', 'v0.1/shield/cases');
  }

  issueAgentToken(agentId: string, input: unknown): Promise<ShieldAnswer> {
    return this.call('POST', `v0.1/agents/${encodeURIComponent(agentId)}/shield-tokens`, input);
  }

  /** `path` is relative to the base (no leading slash), so a base path prefix is kept. */
  private async call(method: 'GET' | 'POST', path: string, body?: unknown): Promise<ShieldAnswer> {
    const { status, bytes } = await sendBoundedRequest({
      method,
      url: new URL(path, this.base),
      headers: { authorization: `Bearer ${this.credential}`, accept: 'application/json' },
      json: body,
      timeoutMs: REQUEST_TIMEOUT_MS,
      maxAnswerBytes: MAX_ANSWER_BYTES,
      service: 'the shield',
      unreachable: (message) => new ShieldUnreachable(message),
    });
    let value: unknown;
    try {
      value = JSON.parse(bytes.toString('utf8'));
    } catch {
      throw new ShieldUnreachable(`the shield answered HTTP ${status} without JSON (is the URL a shield analyzer's?)`);
    }
    if (status >= 200 && status < 300) return { ok: true, status, value };
    const refusal = value as { error?: unknown; issues?: unknown };
    const issues = Array.isArray(refusal.issues) ? refusal.issues.filter(isIssue).map(({ code, path, message }) => ({ code, path, message })) : [];
    const error = typeof refusal.error === 'string' ? refusal.error : `HTTP ${status}`;
    return { ok: false, status, error, issues: issues.length > 0 ? issues : [{ code: `HTTP_${status}`, path: '', message: error }] };
  }
}

function isIssue(value: unknown): value is ShieldIssue {
  const issue = value as Partial<ShieldIssue> | null;
  return typeof issue?.code === 'string' && typeof issue.path === 'string' && typeof issue.message === 'string';
}
