/**
 * The Shield routes of API.md for a signed-in person: every call goes to gRPC `ShieldAnalyzer` with the console's
 * one delegated service credential and `trustmesh-on-behalf-of: console:<accountId>`, so the Shield itself keeps
 * each console account's cases, outcomes and counterparty history apart (SHIELD_SERVICE_CREDENTIALS, the
 * Shield's README "Acting for an account"). Framework-free: the HTTP edge hands in the account and the parsed
 * body, and turns the `ConsoleResult` into the answer.
 *
 * What a person sees of an upstream refusal: the Shield's validation issues (their codes, JSON pointers into the
 * input and messages, which never echo input: SHIELD.md §12) as 422 CONSOLE_INVALID_INPUT; an unknown or another
 * account's case as 404; a Shield that does not answer as 503 CONSOLE_SHIELD_UNAVAILABLE. Never the Shield's
 * status details or any other internal text.
 */
import { status as GrpcStatus, type Metadata, type ServiceError } from '@grpc/grpc-js';
import { bearerMetadataOf, callUnary, channelCredentialsOf, shieldAnalyzerV1GrpcJs as S, type UnaryInvoker } from '@trustmesh/contracts';
import type { GrpcClientTarget } from '@trustmesh/platform-config';
import { ON_BEHALF_OF_HEADER } from '@trustmesh/platform-credentials';

import { answered, refused, type ConsoleAccount, type ConsoleIssue, type ConsolePage, type ConsoleResult } from '../console-result';

/** `?limit=` 1-100 and `?cursor=` as the HTTP edge read them (API.md list conventions). */
export interface PageQuery {
  limit: number;
  cursor: string | null;
}

/** The records exactly as the Shield writes them (SHIELD.md schemas): the page reads their fields. */
export type ShieldRecord = Record<string, unknown>;

export interface ConsoleCaseDetail {
  case: ShieldRecord;
  /** Oldest first. */
  consultations: ShieldRecord[];
  outcome?: ShieldRecord;
}

export interface ConsoleCounterpartyHistory {
  reference: string;
  outcomes: Array<{ caseId: string; result: string; acceptedAdvice: boolean; latestDisposition?: string; riskTier: string; closedAt: string }>;
}

export interface ConsoleShieldOptions {
  /** Null: not configured (every route answers 503 CONSOLE_SHIELD_NOT_CONFIGURED). */
  target: GrpcClientTarget | null;
  /** Each call's deadline (default 30 s: a consult may run the model path, 25 s by default). */
  deadlineMs?: number;
}

const SHIELD_ISSUES_METADATA = 'shield-issues-bin';
const DEFAULT_DEADLINE_MS = 30_000;
/** The largest answer read (a case with its consultations). */
const MAX_ANSWER_BYTES = 4 * 1024 * 1024;
const CASE_ID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
const REFERENCE_MAX = 200;
const MAX_ISSUES = 100;
const MAX_CURSOR = 256;
const UNAVAILABLE_MESSAGE = 'The Shield is not answering right now; try again in a moment.';

const caseNotFound = <T>() => refused<T>(404, 'CONSOLE_CASE_NOT_FOUND', 'There is no such case in your account; open the case list to pick one.');

/** A refusal as the Shield's trailer states it, bounded and typed (anything else is dropped). */
function issuesOf(metadata: Metadata | undefined): { error?: string; issues: ConsoleIssue[] } {
  const raw = metadata?.get(SHIELD_ISSUES_METADATA)[0];
  if (!Buffer.isBuffer(raw) || raw.length > 64 * 1024) return { issues: [] };
  try {
    const parsed = JSON.parse(raw.toString('utf8')) as { error?: unknown; issues?: unknown };
    const issues = (Array.isArray(parsed.issues) ? parsed.issues : []).slice(0, MAX_ISSUES).flatMap((issue: unknown) => {
      const { code, path, message } = (issue ?? {}) as Record<string, unknown>;
      return typeof code === 'string' && typeof path === 'string' && typeof message === 'string' ? [{ code: code.slice(0, 80), path: path.slice(0, 512), message: message.slice(0, 500) }] : [];
    });
    return { ...(typeof parsed.error === 'string' ? { error: parsed.error.slice(0, 500) } : {}), issues };
  } catch {
    return { issues: [] };
  }
}

/** An upstream failure as the person's answer. */
function refusalOf<T>(error: ServiceError): ConsoleResult<T> {
  const { error: summary, issues } = issuesOf(error.metadata);
  const upstreamCode = issues[0]?.code;
  const extra = upstreamCode ? { upstreamCode } : {};
  switch (error.code) {
    case GrpcStatus.INVALID_ARGUMENT:
      return refused(422, 'CONSOLE_INVALID_INPUT', issues.length === 1 && summary ? summary : `${issues.length || 'Some'} problem${issues.length === 1 ? '' : 's'} with the input: each is shown at its field.`, { issues, ...extra });
    case GrpcStatus.NOT_FOUND:
      return caseNotFound();
    case GrpcStatus.ABORTED:
      return refused(409, 'CONSOLE_CONFLICT', 'The case changed while this was saved; reload it and try again.', extra);
    case GrpcStatus.RESOURCE_EXHAUSTED:
      return refused(413, 'CONSOLE_INPUT_TOO_LARGE', 'The input is larger than the Shield accepts; shorten it and try again.', extra);
    case GrpcStatus.UNAVAILABLE:
    case GrpcStatus.DEADLINE_EXCEEDED:
      return refused(503, 'CONSOLE_SHIELD_UNAVAILABLE', UNAVAILABLE_MESSAGE, extra);
    case GrpcStatus.UNAUTHENTICATED:
    case GrpcStatus.PERMISSION_DENIED:
      // The console's own credential or delegation was refused: an operator's configuration to fix, not the person's.
      return refused(502, 'CONSOLE_SHIELD_REFUSED', "The Shield refused the console's credential; ask the operator to check CONSOLE_SHIELD_CREDENTIAL and SHIELD_SERVICE_CREDENTIALS.", extra);
    default:
      return refused(502, 'CONSOLE_SHIELD_FAILED', 'The Shield could not complete this; try again, and tell the operator if it keeps failing.', extra);
  }
}

/** One JSON record of an answer; a malformed answer is the Shield's fault (502), never shown. */
class AnswerInvalid extends Error {}
function record(text: string): ShieldRecord {
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    throw new AnswerInvalid('not JSON');
  }
  if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) throw new AnswerInvalid('not an object');
  return parsed as ShieldRecord;
}

export class ConsoleShieldService {
  private readonly client: S.ShieldAnalyzerClient | null;
  private readonly deadlineMs: number;

  constructor(private readonly options: ConsoleShieldOptions) {
    this.client = options.target ? new S.ShieldAnalyzerClient(options.target.address, channelCredentialsOf(options.target), { 'grpc.max_receive_message_length': MAX_ANSWER_BYTES }) : null;
    this.deadlineMs = options.deadlineMs ?? DEFAULT_DEADLINE_MS;
  }

  /**
   * `GET /shield/cases?status=open|closed`: the account's cases (open: not closed), most recently changed first, a
   * page at a time through the Shield's own keyset cursor (opaque to the page).
   */
  async listCases(account: ConsoleAccount, status: string | undefined, page: PageQuery): Promise<ConsoleResult<ConsolePage<ShieldRecord>>> {
    if (status !== undefined && status !== 'open' && status !== 'closed') {
      return refused(422, 'CONSOLE_INVALID_INPUT', 'status must be open or closed', { issues: [{ code: 'CONSOLE_STATUS_INVALID', path: '?status', message: 'Use status=open or status=closed, or leave it out for both' }] });
    }
    if (page.cursor !== null && (page.cursor.length > MAX_CURSOR || !/^[A-Za-z0-9_-]+$/.test(page.cursor))) return badCursor();
    const request: S.ListCasesRequest = { status: status ?? '', limit: page.limit, cursor: page.cursor ?? '' };
    const listed = await this.call(account, 'ListCases', (r, m, o, c) => this.client?.listCases(r, m, o, c), request, (response: S.ListCasesResponse) =>
      answered({ items: response.casesJson.map(record), nextCursor: response.nextCursor === '' ? null : response.nextCursor }),
    );
    // A cursor the Shield does not recognise is the page's to drop, like any other bad cursor.
    return !listed.ok && listed.error.upstreamCode === 'SHIELD_CURSOR_INVALID' ? badCursor() : listed;
  }

  /** `POST /shield/cases` (case input): 201 the case. */
  openCase(account: ConsoleAccount, input: unknown): Promise<ConsoleResult<ShieldRecord>> {
    return this.call(account, 'OpenCase', (r, m, o, c) => this.client?.openCase(r, m, o, c), { caseInputJson: inputText(input) }, (response: S.OpenCaseResponse) => answered(record(response.caseRecordJson), 201));
  }

  /** `GET /shield/cases/:caseId`: the case, its consultations (oldest first) and its outcome once closed. */
  async getCase(account: ConsoleAccount, caseId: string): Promise<ConsoleResult<ConsoleCaseDetail>> {
    if (!CASE_ID.test(caseId)) return caseNotFound();
    return this.call(account, 'GetCase', (r, m, o, c) => this.client?.getCase(r, m, o, c), { caseId }, (response: S.GetCaseResponse) => {
      const outcome = response.outcomesJson.at(-1);
      return answered({ case: record(response.caseRecordJson), consultations: response.consultationsJson.map(record), ...(outcome !== undefined ? { outcome: record(outcome) } : {}) });
    });
  }

  /** `POST /shield/cases/:caseId/consultations` (consult input): 201 `{case, consultation}`. */
  async consult(account: ConsoleAccount, caseId: string, input: unknown): Promise<ConsoleResult<{ case: ShieldRecord; consultation: ShieldRecord }>> {
    if (!CASE_ID.test(caseId)) return caseNotFound();
    return this.call(account, 'Consult', (r, m, o, c) => this.client?.consult(r, m, o, c), { caseId, consultInputJson: inputText(input) }, (response: S.ConsultResponse) =>
      answered({ case: record(response.caseRecordJson), consultation: record(response.consultationJson) }, 201),
    );
  }

  /** `POST /shield/cases/:caseId/guidance` (guidance input): the case. */
  async addGuidance(account: ConsoleAccount, caseId: string, input: unknown): Promise<ConsoleResult<ShieldRecord>> {
    if (!CASE_ID.test(caseId)) return caseNotFound();
    return this.call(account, 'AddGuidance', (r, m, o, c) => this.client?.addGuidance(r, m, o, c), { caseId, guidanceInputJson: inputText(input) }, (response: S.AddGuidanceResponse) => answered(record(response.caseRecordJson)));
  }

  /** `POST /shield/cases/:caseId/close` (close input): the outcome. */
  async closeCase(account: ConsoleAccount, caseId: string, input: unknown): Promise<ConsoleResult<ShieldRecord>> {
    if (!CASE_ID.test(caseId)) return caseNotFound();
    return this.call(account, 'CloseCase', (r, m, o, c) => this.client?.closeCase(r, m, o, c), { caseId, closeInputJson: inputText(input) }, (response: S.CloseCaseResponse) => answered(record(response.outcomeJson)));
  }

  /** `GET /shield/counterparties/:reference`: the account's closed-case outcomes with it, newest first. */
  async counterparty(account: ConsoleAccount, reference: string): Promise<ConsoleResult<ConsoleCounterpartyHistory>> {
    if (reference.length < 1 || reference.length > REFERENCE_MAX) {
      return refused(422, 'CONSOLE_INVALID_INPUT', `A counterparty reference is 1 to ${REFERENCE_MAX} characters`, { issues: [{ code: 'CONSOLE_REFERENCE_INVALID', path: '/reference', message: `Use the case's counterparty reference (1 to ${REFERENCE_MAX} characters)` }] });
    }
    return this.call(account, 'GetCounterparty', (r, m, o, c) => this.client?.getCounterparty(r, m, o, c), { reference, limit: 100 }, (response: S.GetCounterpartyResponse) =>
      answered(record(response.counterpartyJson) as unknown as ConsoleCounterpartyHistory),
    );
  }

  close(): void {
    this.client?.close();
  }

  /** One call acting for `account`: its answer through `map`, or the refusal a person can act on. */
  private async call<Req, Res, T>(account: ConsoleAccount, rpc: string, invoke: UnaryInvoker<Req, Res>, request: Req, map: (response: Res) => ConsoleResult<T>): Promise<ConsoleResult<T>> {
    if (!this.client || !this.options.target) {
      return refused(503, 'CONSOLE_SHIELD_NOT_CONFIGURED', 'The Shield is not connected to this console; ask the operator to set CONSOLE_SHIELD_ADDRESS and CONSOLE_SHIELD_CREDENTIAL.');
    }
    const metadata = bearerMetadataOf(this.options.target);
    metadata.set(ON_BEHALF_OF_HEADER, `console:${account.accountId}`);
    let response: Res;
    try {
      response = await callUnary(invoke, request, metadata, this.deadlineMs);
    } catch (error) {
      return refusalOf(error as ServiceError);
    }
    try {
      return map(response);
    } catch (error) {
      if (error instanceof AnswerInvalid) return refused(502, 'CONSOLE_SHIELD_FAILED', `The Shield's answer to ${rpc} could not be read; try again, and tell the operator if it keeps failing.`);
      throw error;
    }
  }
}

/** The input as the Shield reads it: JSON text; nothing (undefined) is an empty field, which it refuses as missing. */
const inputText = (input: unknown): string => (input === undefined ? '' : JSON.stringify(input));

const badCursor = <T>(): ConsoleResult<T> =>
  refused(422, 'CONSOLE_INVALID_INPUT', 'cursor is not a nextCursor this list gave; start again without it', { issues: [{ code: 'CONSOLE_CURSOR_INVALID', path: '?cursor', message: 'Use the nextCursor of the previous page' }] });
