/**
 * ConsoleShieldService against the real Shield analyzer, started as its own process on embedded PGlite as
 * `nx serve shield-analyzer` would run it (its own process script, spawned by path: an app is not imported),
 * with the console's delegated service credential configured as a digest: every route's happy path through the
 * real gRPC client, two console accounts that never see each other's cases or counterparty history, the Shield's
 * validation issues as 422 with their pointers, and a Shield that is down or not configured.
 */
import { createHash, randomUUID } from 'node:crypto';
import { join } from 'node:path';

import { SecretText, type GrpcClientTarget } from '@trustmesh/platform-config';
import { createSeededDataDir } from '@trustmesh/platform-database/testing';
import { freeLoopbackPort, startServiceChild, type ServiceChild } from '@trustmesh/platform-testing';

import type { ConsoleAccount } from '../console-result';
import { ConsoleShieldService } from './console-shield.service';

const workspaceRoot = join(__dirname, '../../../..');
const CREDENTIAL = `console-shield-${randomUUID()}`;
const alice: ConsoleAccount = { accountId: randomUUID(), username: 'alice' };
const bob: ConsoleAccount = { accountId: randomUUID(), username: 'bob' };
const target = (address: string): GrpcClientTarget => ({ address, loopback: true, tls: null, credential: new SecretText(CREDENTIAL) });
const PAGE = { limit: 25, cursor: null };

const caseInput = (reference: string, overrides: Record<string, unknown> = {}) => ({
  agentId: 'agent-a',
  title: 'Supplier asks to change bank details',
  goal: 'Pay the March invoice of Northwind Parts to the correct account',
  counterparty: { type: 'human', reference },
  facts: [{ statement: 'Invoice INV-2231 is for 4,800 EUR', source: 'system', status: 'verified' }],
  ...overrides,
});

describe('ConsoleShieldService against the running Shield', () => {
  let dir: { dataDir: string; remove(): Promise<void> };
  let shield: ServiceChild<{ grpcAddress: string }>;
  let service: ConsoleShieldService;
  beforeAll(async () => {
    dir = await createSeededDataDir('console-shield');
    shield = await startServiceChild(join(workspaceRoot, 'apps/shield-analyzer/test/support/shield.process.ts'), {
      workspaceRoot,
      env: {
        TRUSTMESH_DATA_DIR: dir.dataDir,
        SHIELD_HTTP_PORT: '0',
        SHIELD_GRPC_PORT: '0',
        SHIELD_OPERATOR_PORT: 'off',
        SHIELD_MODEL_PROVIDER: 'none',
        SHIELD_SERVICE_CREDENTIALS: `console:${createHash('sha256').update(CREDENTIAL).digest('hex')}`,
      },
    });
    service = new ConsoleShieldService({ target: target(shield.ready.grpcAddress) });
  }, 120_000);
  afterAll(async () => {
    service?.close();
    await shield?.stop();
    await dir?.remove();
  });

  it('opens, consults, guides, lists, reads and closes a case, and builds the counterparty history', async () => {
    const reference = `northwind-${randomUUID()}`;
    const opened = await service.openCase(alice, caseInput(reference));
    if (!opened.ok) throw new Error(JSON.stringify(opened.error));
    expect(opened.status).toBe(201);
    const caseId = String(opened.value['caseId']);

    const consulted = await service.consult(alice, caseId, { message: 'Please pay invoice INV-2231 to our new account today.' });
    expect(consulted).toMatchObject({ ok: true, status: 201, value: { case: { caseId }, consultation: { caseId, analysis: { disposition: expect.any(String), riskTier: 'critical' } } } });

    const guided = await service.addGuidance(alice, caseId, { instruction: 'Call the supplier back on the number on record.' });
    expect(guided).toMatchObject({ ok: true, status: 200, value: { caseId, ownerGuidance: [expect.objectContaining({ instruction: 'Call the supplier back on the number on record.' })] } });

    const detail = await service.getCase(alice, caseId);
    expect(detail).toMatchObject({ ok: true, value: { case: { caseId, status: 'awaiting_input' }, consultations: [expect.objectContaining({ caseId })] } });
    expect(detail.ok && detail.value.outcome).toBeUndefined();

    // The list trails the case by the projection's lag (milliseconds).
    await eventually(async () => {
      const listed = await service.listCases(alice, 'open', PAGE);
      return listed.ok && listed.value.items.some((item) => item['caseId'] === caseId) ? true : undefined;
    });

    const closed = await service.closeCase(alice, caseId, { result: 'prevented_harm', acceptedAdvice: true, actionTaken: 'Called back; the supplier never changed banks.' });
    expect(closed).toMatchObject({ ok: true, status: 200, value: { caseId, result: 'prevented_harm', reportedBy: 'owner' } });
    expect(await service.getCase(alice, caseId)).toMatchObject({ ok: true, value: { case: { status: 'closed' }, outcome: { result: 'prevented_harm' } } });

    const history = await eventually(async () => {
      const read = await service.counterparty(alice, reference);
      return read.ok && read.value.outcomes.length === 1 ? read.value : undefined;
    });
    expect(history).toEqual({ reference, outcomes: [expect.objectContaining({ caseId, result: 'prevented_harm', acceptedAdvice: true, closedAt: expect.any(String) })] });
    await eventually(async () => {
      const listed = await service.listCases(alice, 'closed', PAGE);
      return listed.ok && listed.value.items.some((item) => item['caseId'] === caseId) ? true : undefined;
    });
  });

  it('pages the case list with a cursor that neither repeats nor skips', async () => {
    const account: ConsoleAccount = { accountId: randomUUID(), username: 'pager' };
    for (let index = 0; index < 3; index += 1) expect((await service.openCase(account, caseInput(`pager-${index}`))).ok).toBe(true);
    await eventually(async () => {
      const listed = await service.listCases(account, undefined, { limit: 100, cursor: null });
      return listed.ok && listed.value.items.length === 3 ? true : undefined;
    });
    const first = await service.listCases(account, undefined, { limit: 2, cursor: null });
    if (!first.ok) throw new Error('first page refused');
    expect(first.value.items).toHaveLength(2);
    const second = await service.listCases(account, undefined, { limit: 2, cursor: first.value.nextCursor });
    if (!second.ok) throw new Error('second page refused');
    expect(second.value).toEqual({ items: [expect.any(Object)], nextCursor: null });
    const ids = [...first.value.items, ...second.value.items].map((item) => item['caseId']);
    expect(new Set(ids).size).toBe(3);
    expect(await service.listCases(account, undefined, { limit: 2, cursor: 'not-a-cursor' })).toMatchObject({ ok: false, status: 422, error: { code: 'CONSOLE_INVALID_INPUT' } });
    expect(await service.listCases(account, 'pending', PAGE)).toMatchObject({ ok: false, status: 422, error: { issues: [{ code: 'CONSOLE_STATUS_INVALID' }] } });
  });

  it("keeps two console accounts apart: another account's case does not exist for it", async () => {
    const reference = `globex-${randomUUID()}`;
    const opened = await service.openCase(alice, caseInput(reference));
    if (!opened.ok) throw new Error('not opened');
    const caseId = String(opened.value['caseId']);
    expect(await service.getCase(bob, caseId)).toMatchObject({ ok: false, status: 404, error: { code: 'CONSOLE_CASE_NOT_FOUND' } });
    expect(await service.consult(bob, caseId, { message: 'hello' })).toMatchObject({ ok: false, status: 404 });
    expect(await service.closeCase(bob, caseId, { result: 'successful', acceptedAdvice: true, actionTaken: 'x' })).toMatchObject({ ok: false, status: 404 });
    expect((await service.closeCase(alice, caseId, { result: 'successful', acceptedAdvice: true, actionTaken: 'Paid.' })).ok).toBe(true);
    await eventually(async () => {
      const own = await service.counterparty(alice, reference);
      return own.ok && own.value.outcomes.length === 1 ? true : undefined;
    });
    expect(await service.counterparty(bob, reference)).toEqual({ ok: true, status: 200, value: { reference, outcomes: [] } });
    const bobs = await service.listCases(bob, undefined, PAGE);
    expect(bobs.ok && bobs.value.items.map((item) => item['caseId'])).not.toContain(caseId);
  });

  it("answers the Shield's validation issues as 422 with their pointers, and checks identifiers before calling", async () => {
    const invalid = await service.openCase(alice, caseInput('x', { title: '', counterparty: { type: 'martian' }, facts: 'none' }));
    expect(invalid).toMatchObject({ ok: false, status: 422, error: { code: 'CONSOLE_INVALID_INPUT', upstreamCode: expect.stringMatching(/^SHIELD_/) } });
    const paths = invalid.ok ? [] : (invalid.error.issues ?? []).map((issue) => issue.path);
    expect(paths).toEqual(expect.arrayContaining(['/title', '/counterparty/type', '/facts']));
    expect(invalid.ok ? [] : (invalid.error.issues ?? []).every((issue) => /^SHIELD_/.test(issue.code) && issue.message.length > 0)).toBe(true);

    expect(await service.openCase(alice, undefined)).toMatchObject({ ok: false, status: 422, error: { code: 'CONSOLE_INVALID_INPUT' } });
    expect(await service.getCase(alice, 'not-a-uuid')).toMatchObject({ ok: false, status: 404, error: { code: 'CONSOLE_CASE_NOT_FOUND' } });
    expect(await service.counterparty(alice, 'r'.repeat(201))).toMatchObject({ ok: false, status: 422, error: { issues: [{ path: '/reference' }] } });
  });

  it('answers 503 CONSOLE_SHIELD_UNAVAILABLE when the Shield does not answer, and 503 NOT_CONFIGURED without one', async () => {
    const down = new ConsoleShieldService({ target: target(`127.0.0.1:${await freeLoopbackPort()}`), deadlineMs: 3_000 });
    try {
      const refusal = await down.listCases(alice, undefined, PAGE);
      expect(refusal).toEqual({ ok: false, status: 503, error: { code: 'CONSOLE_SHIELD_UNAVAILABLE', message: 'The Shield is not answering right now; try again in a moment.' } });
    } finally {
      down.close();
    }
    expect(await new ConsoleShieldService({ target: null }).openCase(alice, caseInput('x'))).toMatchObject({ ok: false, status: 503, error: { code: 'CONSOLE_SHIELD_NOT_CONFIGURED' } });
    const wrong = new ConsoleShieldService({ target: { ...target(shield.ready.grpcAddress), credential: new SecretText('a-credential-the-shield-never-heard-of') } });
    try {
      expect(await wrong.listCases(alice, undefined, PAGE)).toMatchObject({ ok: false, status: 502, error: { code: 'CONSOLE_SHIELD_REFUSED', upstreamCode: 'SHIELD_UNAUTHENTICATED' } });
    } finally {
      wrong.close();
    }
  });
});

async function eventually<T>(check: () => Promise<T | undefined>, timeoutMs = 15_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await check();
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error('condition not met in time');
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}
