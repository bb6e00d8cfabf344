/**
 * Delegated service credentials (SHIELD_SERVICE_CREDENTIALS) and the owner's counterparty history, through the
 * real gRPC client and plain HTTP against the running analyzer: one credential acts as many operator accounts
 * `console:<id>`, each seeing only its own cases and outcomes; a missing, malformed, over-long or foreign
 * `trustmesh-on-behalf-of` is refused with a stable code on both transports; a plain operator credential
 * ignores the header.
 */
import { createHash } from 'node:crypto';

import * as grpc from '@grpc/grpc-js';
import { shieldAnalyzerV1GrpcJs as S } from '@trustmesh/contracts';

import { ACME_TOKEN, caseInput, OPERATOR_CREDENTIALS, startShieldApp, type ShieldApp } from './support/shield-app.fixture';
import { fromJson as P, toJson as J } from './support/shield-clients';

const CONSOLE_TOKEN = 'console-service-credential-for-tests-0003';
const SERVICE_CREDENTIALS = `console:${createHash('sha256').update(CONSOLE_TOKEN).digest('hex')}`;
const ALICE = 'console:6f1d2c3b-0000-4000-8000-00000000a11c';
const BOB = 'console:6f1d2c3b-0000-4000-8000-000000000b0b';

interface Reply<Res> {
  response?: Res;
  error?: grpc.ServiceError;
  issues?: { error: string; issues: Array<{ code: string; path: string; message: string }> };
}

describe('Shield analyzer delegated service credentials', () => {
  let app: ShieldApp;
  let client: S.ShieldAnalyzerClient;
  beforeAll(async () => {
    app = await startShieldApp({ SHIELD_OPERATOR_CREDENTIALS: OPERATOR_CREDENTIALS, SHIELD_SERVICE_CREDENTIALS: SERVICE_CREDENTIALS });
    client = new S.ShieldAnalyzerClient(app.handle.grpcAddress, grpc.credentials.createInsecure());
  });
  afterAll(async () => {
    client?.close();
    await app?.close();
  });

  const metadataOf = (token: string | null, onBehalfOf?: string) => {
    const metadata = new grpc.Metadata();
    if (token) metadata.set('authorization', `Bearer ${token}`);
    if (onBehalfOf !== undefined) metadata.set('trustmesh-on-behalf-of', onBehalfOf);
    return metadata;
  };
  const call = <Res>(invoke: (metadata: grpc.Metadata, callback: (error: grpc.ServiceError | null, response: Res) => void) => unknown, token: string | null, onBehalfOf?: string) =>
    new Promise<Reply<Res>>((resolve) => {
      invoke(metadataOf(token, onBehalfOf), (error, response) => {
        if (!error) return resolve({ response });
        const raw = error.metadata?.get('shield-issues-bin')[0];
        resolve({ error, ...(raw ? { issues: JSON.parse(Buffer.from(raw as Buffer).toString('utf8')) } : {}) });
      });
    });
  const rest = async (method: string, path: string, token: string, onBehalfOf?: string, body?: unknown) => {
    const response = await fetch(`${app.handle.httpUrl}${path}`, {
      method,
      headers: { authorization: `Bearer ${token}`, ...(onBehalfOf !== undefined ? { 'trustmesh-on-behalf-of': onBehalfOf } : {}), ...(body !== undefined ? { 'content-type': 'application/json' } : {}) },
      ...(body !== undefined ? { body: JSON.stringify(body) } : {}),
    });
    return { status: response.status, body: (await response.json()) as any };
  };

  it('acts as the named console account, whose cases and counterparty history no other account sees', async () => {
    const reference = `northwind-${Date.now()}`;
    const opened = await call<S.OpenCaseResponse>((m, cb) => client.openCase({ caseInputJson: J(caseInput({ counterparty: { type: 'human', reference } })) }, m, cb), CONSOLE_TOKEN, ALICE);
    expect(opened.error).toBeUndefined();
    const caseId = P(opened.response?.caseRecordJson).caseId as string;
    const closed = await call<S.CloseCaseResponse>(
      (m, cb) => client.closeCase({ caseId, closeInputJson: J({ result: 'prevented_harm', acceptedAdvice: true, actionTaken: 'Called back on the number on record.' }) }, m, cb),
      CONSOLE_TOKEN,
      ALICE,
    );
    expect(P(closed.response?.outcomeJson)).toMatchObject({ caseId, reportedBy: 'owner', result: 'prevented_harm' });

    // Alice reads her case on both transports; Bob (same credential) and acme do not find it.
    expect(P((await call<S.GetCaseResponse>((m, cb) => client.getCase({ caseId }, m, cb), CONSOLE_TOKEN, ALICE)).response?.caseRecordJson).status).toBe('closed');
    expect((await rest('GET', `/v0.1/shield/cases/${caseId}`, CONSOLE_TOKEN, ALICE)).body.case.caseId).toBe(caseId);
    const bobGets = await call<S.GetCaseResponse>((m, cb) => client.getCase({ caseId }, m, cb), CONSOLE_TOKEN, BOB);
    expect(bobGets.error?.code).toBe(grpc.status.NOT_FOUND);
    expect((await rest('GET', `/v0.1/shield/cases/${caseId}`, CONSOLE_TOKEN, BOB)).status).toBe(404);
    expect((await rest('GET', `/v0.1/shield/cases/${caseId}`, ACME_TOKEN)).status).toBe(404);

    // The counterparty history: Alice's outcome, newest first; Bob's history of the same reference is empty.
    const history = await app.eventually(async () => {
      const got = await call<S.GetCounterpartyResponse>((m, cb) => client.getCounterparty({ reference, limit: 0 }, m, cb), CONSOLE_TOKEN, ALICE);
      const value = P(got.response?.counterpartyJson);
      return value.outcomes?.length === 1 ? value : undefined;
    });
    expect(history).toEqual({ reference, outcomes: [expect.objectContaining({ caseId, result: 'prevented_harm', acceptedAdvice: true, closedAt: expect.any(String) })] });
    expect((await rest('GET', `/v0.1/shield/counterparties/${encodeURIComponent(reference)}?limit=5`, CONSOLE_TOKEN, ALICE)).body).toEqual(history);
    expect(P((await call<S.GetCounterpartyResponse>((m, cb) => client.getCounterparty({ reference, limit: 0 }, m, cb), CONSOLE_TOKEN, BOB)).response?.counterpartyJson)).toEqual({ reference, outcomes: [] });

    const bobLists = await call<S.ListCasesResponse>((m, cb) => client.listCases(S.ListCasesRequest.fromPartial({}), m, cb), CONSOLE_TOKEN, BOB);
    expect(bobLists.response?.casesJson).toEqual([]);
  });

  it('refuses a missing, malformed, over-long or foreign account with a stable code on gRPC and REST', async () => {
    const cases: Array<[string | undefined, grpc.status, number, string]> = [
      [undefined, grpc.status.UNAUTHENTICATED, 401, 'SHIELD_ON_BEHALF_OF_MISSING'],
      ['console:', grpc.status.UNAUTHENTICATED, 401, 'SHIELD_ON_BEHALF_OF_INVALID'],
      ['acme', grpc.status.UNAUTHENTICATED, 401, 'SHIELD_ON_BEHALF_OF_INVALID'],
      [`console:${'a'.repeat(200)}`, grpc.status.UNAUTHENTICATED, 401, 'SHIELD_ON_BEHALF_OF_INVALID'],
      ['billing:6f1d2c3b', grpc.status.PERMISSION_DENIED, 403, 'SHIELD_ON_BEHALF_OF_FOREIGN'],
    ];
    for (const [onBehalfOf, code, status, issue] of cases) {
      const reply = await call<S.ListCasesResponse>((m, cb) => client.listCases(S.ListCasesRequest.fromPartial({}), m, cb), CONSOLE_TOKEN, onBehalfOf);
      expect([onBehalfOf, reply.error?.code, reply.issues?.issues[0]?.code]).toEqual([onBehalfOf, code, issue]);
      const answer = await rest('GET', '/v0.1/shield/cases', CONSOLE_TOKEN, onBehalfOf);
      expect([onBehalfOf, answer.status, answer.body.issues[0].code]).toEqual([onBehalfOf, status, issue]);
    }
  });

  it('lists a page at a time, open or closed, with a cursor that neither repeats nor skips', async () => {
    const carol = 'console:6f1d2c3b-0000-4000-8000-0000000ca401';
    const ids: string[] = [];
    for (let index = 0; index < 5; index += 1) {
      const opened = await call<S.OpenCaseResponse>((m, cb) => client.openCase({ caseInputJson: J(caseInput({ counterparty: { type: 'human', reference: `pager-${index}` } })) }, m, cb), CONSOLE_TOKEN, carol);
      ids.push(P(opened.response?.caseRecordJson).caseId as string);
    }
    await call<S.CloseCaseResponse>((m, cb) => client.closeCase({ caseId: ids[0] ?? '', closeInputJson: J({ result: 'successful', acceptedAdvice: true, actionTaken: 'Paid.' }) }, m, cb), CONSOLE_TOKEN, carol);
    const list = (request: Partial<S.ListCasesRequest>) => call<S.ListCasesResponse>((m, cb) => client.listCases(S.ListCasesRequest.fromPartial(request), m, cb), CONSOLE_TOKEN, carol);
    await app.eventually(async () => {
      const closed = (await list({ status: 'closed' })).response?.casesJson ?? [];
      return closed.length === 1 ? true : undefined;
    });
    const seen: string[] = [];
    let cursor = '';
    for (let page = 0; page < 5; page += 1) {
      const reply = await list({ status: 'open', limit: 2, cursor });
      seen.push(...(reply.response?.casesJson ?? []).map((text) => P(text).caseId as string));
      cursor = reply.response?.nextCursor ?? '';
      if (cursor === '') break;
    }
    expect(seen.sort()).toEqual(ids.slice(1).sort());
    expect((await list({ status: 'closed' })).response?.casesJson.map((text) => P(text).caseId)).toEqual([ids[0]]);
    expect((await list({ status: 'pending' })).issues?.issues[0]).toMatchObject({ code: 'SHIELD_STATUS_INVALID', path: '/status' });
    expect((await list({ cursor: 'forged' })).issues?.issues[0]).toMatchObject({ code: 'SHIELD_CURSOR_INVALID', path: '/cursor' });
    expect((await list({ limit: 501 })).issues?.issues[0]).toMatchObject({ code: 'SHIELD_NUMBER_OUT_OF_RANGE', path: '/limit' });
  });

  it('lets a plain operator credential ignore the header, and refuses a bad counterparty read', async () => {
    const opened = await rest('POST', '/v0.1/shield/cases', ACME_TOKEN, ALICE, caseInput());
    expect(opened.status).toBe(201);
    // Opened for acme, not for Alice: Alice does not find it.
    expect((await rest('GET', `/v0.1/shield/cases/${opened.body.caseId}`, CONSOLE_TOKEN, ALICE)).status).toBe(404);
    expect((await rest('GET', `/v0.1/shield/cases/${opened.body.caseId}`, ACME_TOKEN)).status).toBe(200);

    const tooMany = await rest('GET', '/v0.1/shield/counterparties/northwind?limit=500', CONSOLE_TOKEN, ALICE);
    expect([tooMany.status, tooMany.body.issues[0]]).toEqual([400, expect.objectContaining({ code: 'SHIELD_NUMBER_OUT_OF_RANGE', path: '/limit' })]);
    // A reference that is not valid percent-encoding never reaches the route, and is never echoed.
    const malformed = await fetch(`${app.handle.httpUrl}/v0.1/shield/counterparties/%E0%A4%A`, { headers: { authorization: `Bearer ${CONSOLE_TOKEN}`, 'trustmesh-on-behalf-of': ALICE } });
    const malformedText = await malformed.text();
    expect([malformed.status, JSON.parse(malformedText).issues[0].code]).toEqual([400, 'SHIELD_PATH_INVALID']);
    expect(malformedText).not.toContain('%E0');
    const unknown = await fetch(`${app.handle.httpUrl}/v0.1/shield/nothing-here-<script>`);
    const unknownText = await unknown.text();
    expect([unknown.status, JSON.parse(unknownText).issues[0].code]).toEqual([404, 'SHIELD_ROUTE_NOT_FOUND']);
    expect(unknownText).not.toContain('nothing-here');
    const tooLong = await call<S.GetCounterpartyResponse>((m, cb) => client.getCounterparty({ reference: 'r'.repeat(201), limit: 0 }, m, cb), CONSOLE_TOKEN, ALICE);
    expect([tooLong.error?.code, tooLong.issues?.issues[0]?.path]).toEqual([grpc.status.INVALID_ARGUMENT, '/reference']);
  });
});
