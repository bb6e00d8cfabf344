/**
 * The console's Shield, registry and platform routes end to end, as a person's browser uses them: a real Shield
 * analyzer and a real card registry, each its own process on embedded PGlite accepting the console's delegated
 * credential (the registry's DNS ownership proofs answered by a test DNS server on loopback), accounts made with
 * the real CLI, the console as its own process pointed at both (and at their operator ports), and real HTTP
 * requests with what a browser sends (the session cookie, Origin, the CSRF header). No relay: its routes answer
 * 503 CONSOLE_RELAY_NOT_CONFIGURED and the platform page shows it as not configured.
 */
import { randomUUID } from 'node:crypto';

import { startDnsServer, type DnsTestServer } from '@trustmesh/cards-ownership/testing';
import { waitUntil } from '@trustmesh/platform-testing';

import {
  ConsoleBrowser,
  createConsoleDataDir,
  createWebDir,
  randomCredential,
  startCardRegistry,
  startConsoleProcess,
  startShieldAnalyzer,
  trustmeshConsoleAccount,
  type ConsoleChild,
  type Reply,
  type UpstreamChild,
} from './support/console-world';

const ALICE = { username: 'alice', password: 'alice has a long passphrase' };
const BOB = { username: 'bob', password: 'bob has another passphrase' };
const DOMAIN = 'alice-console.example';
/** Written into a consult's message: it must reach the Shield and no line of the console's log. */
const SENTINEL = `sentinel-${randomUUID()}`;

type ApiError = { code: string; message: string; upstreamCode?: string; issues?: { code: string; path: string; message: string }[] };
const errorOf = (reply: Reply) => (reply.json as { error: ApiError }).error;
type Json = Record<string, unknown>;
const body = (reply: Reply) => reply.json as Json;

const caseInput = (reference: string, overrides: Json = {}) => ({
  agentId: 'agent-a',
  title: 'Supplier asks to change bank details',
  goal: 'Pay the March invoice of Northwind Parts to the correct account',
  counterparty: { type: 'human', reference },
  facts: [{ statement: 'Invoice INV-2231 is for 4,800 EUR', source: 'system', status: 'verified' }],
  ...overrides,
});

const aiCard = (domain: string, overrides: Json = {}) => ({
  $schema: 'https://schemas.example.org/ai-card/v1.json',
  specVersion: '1.0',
  id: `did:web:${domain}`,
  name: 'Invoice helper',
  description: 'Answers questions about invoices and payment dates',
  tags: ['finance', 'invoices'],
  publisher: { id: `did:web:${domain}`, name: 'Alice Ltd' },
  services: { a2a: { type: 'a2a', name: 'Invoices over A2A', protocolSpecific: { url: `https://${domain}/a2a` } } },
  createdAt: '2026-01-10T09:00:00Z',
  updatedAt: '2026-02-01T10:00:00Z',
  ...overrides,
});

/** `check` until it answers a value (the Shield's and the registry's lists trail a write by their projection). */
async function eventually<T>(check: () => Promise<T | undefined>, what: string): Promise<T> {
  let found: T | undefined;
  await waitUntil(async () => (found = await check()) !== undefined, { timeoutMs: 20_000, what });
  return found as T;
}

describe('console Shield, registry and platform routes (real Shield, real registry, real CLI)', () => {
  const credential = randomCredential();
  const txt: string[] = [];
  let dns: DnsTestServer;
  let shield: UpstreamChild;
  let registry: UpstreamChild;
  let data: { dataDir: string; remove(): Promise<void> };
  let web: Awaited<ReturnType<typeof createWebDir>>;
  let consoleApp: ConsoleChild;
  let alice: ConsoleBrowser;
  let bob: ConsoleBrowser;

  beforeAll(async () => {
    dns = await startDnsServer({ [`_trustmesh-challenge.${DOMAIN}`]: { txt } });
    [shield, registry, data, web] = await Promise.all([startShieldAnalyzer(credential), startCardRegistry(credential, dns.address), createConsoleDataDir(), createWebDir()]);
    for (const account of [ALICE, BOB]) expect(trustmeshConsoleAccount(['create', '--username', account.username], data.dataDir, `${account.password}\n`).code).toBe(0);
    consoleApp = await startConsoleProcess({
      TRUSTMESH_DATA_DIR: data.dataDir,
      CONSOLE_HTTP_PORT: '0',
      CONSOLE_WEB_DIR: web.dir,
      CONSOLE_SHIELD_ADDRESS: shield.grpc,
      CONSOLE_SHIELD_CREDENTIAL: credential,
      CONSOLE_REGISTRY_ADDRESS: registry.grpc,
      CONSOLE_REGISTRY_CREDENTIAL: credential,
      CONSOLE_SHIELD_OPERATOR_URL: shield.operatorUrl,
      CONSOLE_REGISTRY_OPERATOR_URL: registry.operatorUrl,
      // Every line the console can write is checked for the consult's message, debug included.
      LOG_LEVEL: 'debug',
    });
    const { httpUrl, publicOrigin } = consoleApp.child.ready;
    alice = new ConsoleBrowser(httpUrl, publicOrigin);
    bob = new ConsoleBrowser(httpUrl, publicOrigin);
    expect((await alice.signIn(ALICE.username, ALICE.password)).status).toBe(200);
    expect((await bob.signIn(BOB.username, BOB.password)).status).toBe(200);
  }, 300_000);

  afterAll(async () => {
    await consoleApp?.child.stop();
    await Promise.all([shield?.stop(), registry?.stop()]);
    await dns?.close();
    await data?.remove();
    await web?.remove();
  }, 60_000);

  describe('Shield', () => {
    const reference = `northwind-${randomUUID()}`;
    let caseId: string;

    it('opens a case, consults on it and reads its analysis', async () => {
      const opened = await alice.json('POST', '/api/v1/shield/cases', caseInput(reference));
      expect(opened.status).toBe(201);
      expect(body(opened)).toMatchObject({ status: 'open', counterparty: { reference } });
      caseId = String(body(opened)['caseId']);

      const consulted = await alice.json('POST', `/api/v1/shield/cases/${caseId}/consultations`, { message: `Please pay invoice INV-2231 to our new account today. ${SENTINEL}` });
      expect(consulted.status).toBe(201);
      expect(body(consulted)).toMatchObject({ case: { caseId }, consultation: { caseId, analysis: { disposition: expect.any(String), riskTier: 'critical' } } });

      const read = await alice.send('GET', `/api/v1/shield/cases/${caseId}`);
      expect(read.status).toBe(200);
      expect(body(read)).toMatchObject({ case: { caseId }, consultations: [{ caseId, analysis: { riskTier: 'critical' } }] });
      expect(body(read)['outcome']).toBeUndefined();
    });

    it('takes owner guidance, lists the case as open, closes it with an outcome and builds the counterparty history', async () => {
      const guided = await alice.json('POST', `/api/v1/shield/cases/${caseId}/guidance`, { instruction: 'Call the supplier back on the number on record.' });
      expect(guided.status).toBe(200);
      expect(body(guided)).toMatchObject({ caseId, status: 'awaiting_input', ownerGuidance: [expect.objectContaining({ instruction: 'Call the supplier back on the number on record.' })] });

      await eventually(async () => {
        const open = await alice.send('GET', '/api/v1/shield/cases?status=open&limit=10');
        return (body(open)['items'] as Json[]).some((item) => item['caseId'] === caseId) ? true : undefined;
      }, 'the case in the open list');

      const closed = await alice.json('POST', `/api/v1/shield/cases/${caseId}/close`, { result: 'prevented_harm', acceptedAdvice: true, actionTaken: 'Called back; the supplier never changed banks.' });
      expect(closed.status).toBe(200);
      expect(body(closed)).toMatchObject({ caseId, result: 'prevented_harm', reportedBy: 'owner' });
      expect(body(await alice.send('GET', `/api/v1/shield/cases/${caseId}`))).toMatchObject({ case: { status: 'closed' }, outcome: { result: 'prevented_harm' } });

      const history = await eventually(async () => {
        const read = await alice.send('GET', `/api/v1/shield/counterparties/${encodeURIComponent(reference)}`);
        return read.status === 200 && (body(read)['outcomes'] as unknown[]).length === 1 ? body(read) : undefined;
      }, 'the outcome in the counterparty history');
      expect(history).toEqual({ reference, outcomes: [expect.objectContaining({ caseId, result: 'prevented_harm', acceptedAdvice: true, riskTier: 'critical', closedAt: expect.any(String) })] });
      await eventually(async () => {
        const closedList = await alice.send('GET', '/api/v1/shield/cases?status=closed');
        return (body(closedList)['items'] as Json[]).some((item) => item['caseId'] === caseId) ? true : undefined;
      }, 'the case in the closed list');
    });

    it("shows another account none of it: the case is 404 for every route, the history and list empty", async () => {
      for (const reply of [
        await bob.send('GET', `/api/v1/shield/cases/${caseId}`),
        await bob.json('POST', `/api/v1/shield/cases/${caseId}/consultations`, { message: 'hello' }),
        await bob.json('POST', `/api/v1/shield/cases/${caseId}/guidance`, { instruction: 'Pay it.' }),
        await bob.json('POST', `/api/v1/shield/cases/${caseId}/close`, { result: 'successful', acceptedAdvice: true, actionTaken: 'x' }),
      ]) {
        expect(reply.status).toBe(404);
        expect(errorOf(reply).code).toBe('CONSOLE_CASE_NOT_FOUND');
      }
      expect(body(await bob.send('GET', `/api/v1/shield/counterparties/${encodeURIComponent(reference)}`))).toEqual({ reference, outcomes: [] });
      expect(body(await bob.send('GET', '/api/v1/shield/cases'))).toEqual({ items: [], nextCursor: null });
      const unknown = await alice.send('GET', `/api/v1/shield/cases/${randomUUID()}`);
      expect(unknown.text).toBe((await bob.send('GET', `/api/v1/shield/cases/${caseId}`)).text);
    });

    it("answers the Shield's validation issues at their pointers, and bad list parameters at theirs", async () => {
      const invalid = await alice.json('POST', '/api/v1/shield/cases', caseInput('x', { title: '', counterparty: { type: 'martian' }, facts: 'none' }));
      expect(invalid.status).toBe(422);
      expect(errorOf(invalid)).toMatchObject({ code: 'CONSOLE_INVALID_INPUT', upstreamCode: expect.stringMatching(/^SHIELD_/) });
      expect(errorOf(invalid).issues?.map((issue) => issue.path)).toEqual(expect.arrayContaining(['/title', '/counterparty/type', '/facts']));
      for (const [query, path] of [
        ['status=pending', '?status'],
        ['limit=0', '?limit'],
        ['cursor=not-a-cursor', '?cursor'],
        ['status=open&status=closed', '?status'],
      ] as const) {
        const reply = await alice.send('GET', `/api/v1/shield/cases?${query}`);
        expect({ query, status: reply.status, code: errorOf(reply).code, path: errorOf(reply).issues?.[0]?.path }).toEqual({ query, status: 422, code: 'CONSOLE_INVALID_INPUT', path });
      }
      const tooLarge = await alice.json('POST', '/api/v1/shield/cases', caseInput('x', { goal: 'g'.repeat(70 * 1024) }));
      expect(tooLarge.status).toBe(413);
      expect(errorOf(tooLarge).code).toBe('CONSOLE_BODY_TOO_LARGE');
    });
  });

  describe('registry', () => {
    it('answers a namespace claim with the exact DNS record to create, then verifies it', async () => {
      const claim = await alice.json('POST', `/api/v1/registry/namespaces/${DOMAIN}/claims`, { method: 'dns' });
      expect(claim.status).toBe(201);
      const proof = body(claim)['proof'] as { kind: string; name: string; value: string };
      expect(body(claim)).toEqual({ namespace: DOMAIN, method: 'dns', proof: { kind: 'dns-txt', name: `_trustmesh-challenge.${DOMAIN}`, value: expect.stringMatching(/^trustmesh-verification=/) } });
      expect(body(await alice.send('GET', '/api/v1/registry/namespaces'))).toEqual({ items: [{ namespace: DOMAIN, state: 'pending', method: 'dns', proof }], nextCursor: null });

      const notYet = await alice.send('POST', `/api/v1/registry/namespaces/${DOMAIN}/claims/check`);
      expect(notYet.status).toBe(200);
      expect(body(notYet)).toMatchObject({ namespace: DOMAIN, state: 'failed', detail: expect.stringContaining('OWNERSHIP_') });

      txt.push(proof.value);
      const verified = await alice.send('POST', `/api/v1/registry/namespaces/${DOMAIN}/claims/check`);
      expect(body(verified)).toMatchObject({ namespace: DOMAIN, state: 'verified' });
      expect(body(await alice.send('GET', '/api/v1/registry/namespaces'))).toMatchObject({ items: [{ namespace: DOMAIN, state: 'verified', method: 'dns' }] });
    });

    it("publishes a valid card, reads its page and finds it by search with facets", async () => {
      const published = await alice.json('POST', '/api/v1/registry/cards', { card: aiCard(DOMAIN) });
      expect(published.status).toBe(201);
      expect(body(published)).toMatchObject({ identifier: `did:web:${DOMAIN}`, kind: 'ai-card', status: 'active', ownership: { namespace: DOMAIN, state: 'verified' } });

      const page = await alice.send('GET', `/api/v1/registry/cards/${encodeURIComponent(`did:web:${DOMAIN}`)}`);
      expect(page.status).toBe(200);
      expect(body(page)).toMatchObject({
        card: { id: `did:web:${DOMAIN}`, name: 'Invoice helper' },
        identifier: `did:web:${DOMAIN}`,
        revision: '2026-02-01T10:00:00Z',
        revisions: [expect.objectContaining({ revision: '2026-02-01T10:00:00Z', status: 'active', latest: true, digest: expect.stringMatching(/^sha256:/) })],
        signature: { state: 'unsigned' },
        ownership: { namespace: DOMAIN, state: 'verified' },
      });
      // The same card again is stored already: 200, not a new revision.
      expect((await alice.json('POST', '/api/v1/registry/cards', { card: aiCard(DOMAIN) })).status).toBe(200);

      const found = await eventually(async () => {
        const search = await bob.send('GET', `/api/v1/registry/search?q=invoices&kind=ai-card&namespace=${DOMAIN}&status=active&tag=finance`);
        return search.status === 200 && (body(search)['items'] as unknown[]).length === 1 ? body(search) : undefined;
      }, 'the card in search');
      expect((found['items'] as Json[])[0]).toMatchObject({ identifier: `did:web:${DOMAIN}`, namespace: DOMAIN, kind: 'ai-card', status: 'active', name: 'Invoice helper', tags: ['finance', 'invoices'] });
      expect(found['facets']).toMatchObject({ kind: [{ value: 'ai-card', count: 1 }], namespace: [{ value: DOMAIN, count: 1 }] });
      expect(found['nextCursor']).toBeNull();

      const unknown = await alice.send('GET', `/api/v1/registry/cards/${encodeURIComponent('did:web:nobody.example')}`);
      expect(unknown.status).toBe(404);
      expect(errorOf(unknown).code).toBe('CONSOLE_CARD_NOT_FOUND');
      const badKind = await alice.send('GET', '/api/v1/registry/search?kind=spaceship');
      expect({ status: badKind.status, path: errorOf(badKind).issues?.[0]?.path }).toEqual({ status: 422, path: '?kind' });
    });

    it('answers an invalid card with 422 and every issue at its pointer into the card', async () => {
      const broken = aiCard(DOMAIN, { updatedAt: 'yesterday', services: {}, tags: 'finance' }) as Json;
      delete broken['name'];
      const refusedCard = await alice.json('POST', '/api/v1/registry/cards', { card: broken });
      expect(refusedCard.status).toBe(422);
      const error = errorOf(refusedCard);
      expect(error).toMatchObject({ code: 'CONSOLE_CARD_INVALID', upstreamCode: 'DOCUMENT_INVALID' });
      expect(error.issues?.map((issue) => issue.path)).toEqual(expect.arrayContaining(['/updatedAt', '/services', '/tags']));
      for (const issue of error.issues ?? []) expect(issue).toEqual({ code: expect.stringMatching(/^[A-Z0-9_]+$/), path: expect.any(String), message: expect.any(String) });
      expect(body(await alice.json('POST', '/api/v1/registry/cards', { card: 'not a card' }))).toMatchObject({ error: { code: 'CONSOLE_INVALID_INPUT', issues: [{ path: '/card' }] } });
    });

    it('takes a card body up to 256 KiB and refuses a larger one with 413', async () => {
      // It reaches the registry, which refuses a different card with the same updatedAt as a conflict.
      const large = await alice.json('POST', '/api/v1/registry/cards', { card: aiCard(DOMAIN, { description: 'd'.repeat(200 * 1024) }) });
      expect({ status: large.status, code: errorOf(large).code }).toEqual({ status: 409, code: 'CONSOLE_CARD_CONFLICT' });
      const tooLarge = await alice.json('POST', '/api/v1/registry/cards', { card: aiCard(DOMAIN, { description: 'd'.repeat(260 * 1024) }) });
      expect(tooLarge.status).toBe(413);
      expect(errorOf(tooLarge).code).toBe('CONSOLE_BODY_TOO_LARGE');
    });

    it("keeps another account out of the namespace and its claims", async () => {
      expect(body(await bob.send('GET', '/api/v1/registry/namespaces'))).toEqual({ items: [], nextCursor: null });
      const intruder = await bob.json('POST', '/api/v1/registry/cards', { card: aiCard(DOMAIN, { updatedAt: '2026-03-01T10:00:00Z', name: 'Not Alice' }) });
      expect({ status: intruder.status, code: errorOf(intruder).code }).toEqual({ status: 403, code: 'CONSOLE_NAMESPACE_NOT_OWNED' });
      const held = await bob.json('POST', `/api/v1/registry/namespaces/${DOMAIN}/claims`, { method: 'dns' });
      expect({ status: held.status, code: errorOf(held).code }).toEqual({ status: 409, code: 'CONSOLE_NAMESPACE_HELD' });
      const check = await bob.send('POST', `/api/v1/registry/namespaces/${DOMAIN}/claims/check`);
      expect({ status: check.status, code: errorOf(check).code }).toEqual({ status: 404, code: 'CONSOLE_CLAIM_NOT_FOUND' });
    });
  });

  describe('CSRF and Origin on every new state-changing route', () => {
    it('refuses each POST without the CSRF token and from another origin, and changes nothing', async () => {
      const caseId = randomUUID();
      const routes: Array<[string, unknown]> = [
        ['/api/v1/shield/cases', caseInput('csrf-probe')],
        [`/api/v1/shield/cases/${caseId}/consultations`, { message: 'hello' }],
        [`/api/v1/shield/cases/${caseId}/guidance`, { instruction: 'Pay it.' }],
        [`/api/v1/shield/cases/${caseId}/close`, { result: 'successful', acceptedAdvice: true, actionTaken: 'x' }],
        ['/api/v1/registry/cards', { card: aiCard(DOMAIN, { updatedAt: '2026-04-01T10:00:00Z' }) }],
        ['/api/v1/registry/namespaces/csrf-probe.example/claims', { method: 'dns' }],
        [`/api/v1/registry/namespaces/${DOMAIN}/claims/check`, {}],
      ];
      for (const [path, payload] of routes) {
        const noToken = await alice.json('POST', path, payload, { csrf: false });
        expect({ path, status: noToken.status, code: errorOf(noToken).code }).toEqual({ path, status: 403, code: 'CONSOLE_CSRF_INVALID' });
        const bobsToken = await alice.json('POST', path, payload, { csrf: false, headers: { 'x-csrf-token': bob.csrfToken! } });
        expect({ path, code: errorOf(bobsToken).code }).toEqual({ path, code: 'CONSOLE_CSRF_INVALID' });
        const elsewhere = await alice.json('POST', path, payload, { origin: 'https://evil.example' });
        expect({ path, status: elsewhere.status, code: errorOf(elsewhere).code }).toEqual({ path, status: 403, code: 'CONSOLE_ORIGIN_REFUSED' });
      }
      const cases = body(await alice.send('GET', '/api/v1/shield/cases?limit=100'))['items'] as Json[];
      expect(cases.some((item) => (item['counterparty'] as Json | undefined)?.['reference'] === 'csrf-probe')).toBe(false);
      expect((body(await alice.send('GET', '/api/v1/registry/namespaces'))['items'] as Json[]).map((item) => item['namespace'])).toEqual([DOMAIN]);
      expect(body(await alice.send('GET', `/api/v1/registry/cards/${encodeURIComponent(`did:web:${DOMAIN}`)}`))['revision']).toBe('2026-02-01T10:00:00Z');
    });

    it('answers every new route signed out with 401', async () => {
      const anonymous = new ConsoleBrowser(alice.baseUrl, alice.origin);
      for (const path of ['/api/v1/shield/cases', '/api/v1/registry/search', '/api/v1/registry/namespaces', '/api/v1/platform/health', '/api/v1/platform/metrics']) {
        const reply = await anonymous.send('GET', path);
        expect({ path, status: reply.status, code: errorOf(reply).code }).toEqual({ path, status: 401, code: 'CONSOLE_SIGNED_OUT' });
      }
    });
  });

  describe('platform', () => {
    it("lists each app's health: the Shield and the registry ready, the relay not configured", async () => {
      const health = await alice.send('GET', '/api/v1/platform/health');
      expect(health.status).toBe(200);
      const apps = body(health)['apps'] as Json[];
      expect(apps).toEqual([
        { app: 'relay-gateway', ready: false, checkedAt: expect.any(String), detail: 'not configured (CONSOLE_RELAY_OPERATOR_URL)' },
        { app: 'shield-analyzer', ready: true, checkedAt: expect.any(String) },
        { app: 'card-registry', ready: true, checkedAt: expect.any(String) },
        { app: 'console', ready: true, checkedAt: expect.any(String) },
      ]);
      for (const app of apps) expect(Number.isNaN(Date.parse(String(app['checkedAt'])))).toBe(false);
    });

    it('answers the live series: null for the relay, and consults per second that rise after a consult', async () => {
      const first = body(await alice.send('GET', '/api/v1/platform/metrics'));
      expect(first).toEqual({ at: expect.any(String), series: { connections: null, framesPerSecond: null, consultsPerSecond: expect.any(Number), publishesPerSecond: expect.any(Number) } });
      const opened = await alice.json('POST', '/api/v1/shield/cases', caseInput(`metrics-${randomUUID()}`));
      expect((await alice.json('POST', `/api/v1/shield/cases/${String(body(opened)['caseId'])}/consultations`, { message: 'Please pay invoice INV-2231 today.' })).status).toBe(201);
      // Answers are reused for a second: the next scrape is a new one.
      await new Promise((resolve) => setTimeout(resolve, 1_100));
      const second = body(await alice.send('GET', '/api/v1/platform/metrics'));
      expect((second['series'] as Json)['consultsPerSecond']).toBeGreaterThan(0);
      expect(Date.parse(String(second['at']))).toBeGreaterThan(Date.parse(String(first['at'])));
    });
  });

  it('answers the relay routes 503 CONSOLE_RELAY_NOT_CONFIGURED, saying what to set', async () => {
    const reply = await alice.send('GET', '/api/v1/workspaces');
    expect(reply.status).toBe(503);
    expect(errorOf(reply).code).toBe('CONSOLE_RELAY_NOT_CONFIGURED');
    expect(errorOf(reply).message).toContain('CONSOLE_RELAY_CONTROL_ADDRESS');
  });

  it('counts the new routes by template and never wrote a consult message or a credential to its log', async () => {
    const metrics = await (await fetch(new URL('/metrics', consoleApp.child.ready.operatorUrl!))).text();
    expect(metrics).toContain('console_http_requests_total{method="POST",route="/api/v1/shield/cases/:caseId/consultations",status="201"}');
    expect(metrics).toContain('console_http_requests_total{method="GET",route="/api/v1/registry/cards/:identifier",status="200"}');
    expect(metrics).not.toContain(DOMAIN);
    const log = consoleApp.logs.join('\n');
    expect(log).toContain('"route":"/api/v1/shield/cases/:caseId/consultations"');
    for (const secret of [SENTINEL, credential, ALICE.password, BOB.password, alice.csrfToken!]) expect(log).not.toContain(secret);
    // A counterparty reference is the account's data: its route is logged as the template, even at debug.
    expect(log).toContain('"path":"/api/v1/shield/counterparties/:reference"');
    expect(log).not.toContain('northwind-');
  });
});
