/**
 * ConsoleRegistryService against the real card registry, started as its own process on embedded PGlite (its own
 * process script, spawned by path: an app is not imported), with the console's delegated service credential
 * configured as a digest and its ownership proofs run against a real DNS server on loopback: every route's happy
 * path through the real gRPC client (search with facets, a card's page, publish, namespace claims), two console
 * accounts that never act in each other's namespaces, an invalid card answered with every issue at its pointer,
 * and a registry that is down or not configured.
 */
import { createHash, randomUUID } from 'node:crypto';
import { join } from 'node:path';

import { startDnsServer, type DnsTestServer } from '@trustmesh/cards-ownership/testing';
import { SecretText, type GrpcClientTarget } from '@trustmesh/platform-config';
import { createSeededDataDir } from '@trustmesh/platform-database/testing';
import { freeLoopbackPort, startServiceChild, type ServiceChild } from '@trustmesh/platform-testing';

import type { ConsoleAccount } from '../console-result';
import { ConsoleRegistryService } from './console-registry.service';

const workspaceRoot = join(__dirname, '../../../..');
const CREDENTIAL = `console-registry-${randomUUID()}`;
const alice: ConsoleAccount = { accountId: randomUUID(), username: 'alice' };
const bob: ConsoleAccount = { accountId: randomUUID(), username: 'bob' };
const target = (address: string): GrpcClientTarget => ({ address, loopback: true, tls: null, credential: new SecretText(CREDENTIAL) });
const DOMAIN = 'alice-console.example';
const FILES_DOMAIN = 'alice-files.example';

const aiCard = (domain: string, overrides: Record<string, unknown> = {}) => ({
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

describe('ConsoleRegistryService against the running card registry', () => {
  let dir: { dataDir: string; remove(): Promise<void> };
  let dns: DnsTestServer;
  const txt: string[] = [];
  let registry: ServiceChild<{ grpcAddress: string }>;
  let service: ConsoleRegistryService;
  beforeAll(async () => {
    dir = await createSeededDataDir('console-registry');
    dns = await startDnsServer({ [`_trustmesh-challenge.${DOMAIN}`]: { txt } });
    registry = await startServiceChild(join(workspaceRoot, 'apps/card-registry/test/support/registry.process.ts'), {
      workspaceRoot,
      env: {
        TRUSTMESH_DATA_DIR: dir.dataDir,
        REGISTRY_HTTP_PORT: '0',
        REGISTRY_GRPC_PORT: '0',
        REGISTRY_OPERATOR_PORT: 'off',
        REGISTRY_TRUST_TASK_INTERVAL_MS: '0',
        REGISTRY_SERVICE_CREDENTIALS: `console:${createHash('sha256').update(CREDENTIAL).digest('hex')}`,
        REGISTRY_TEST_ONLY_DNS_SERVERS: dns.address,
        // The well-known file is fetched from loopback, where nothing serves it: the check finds no file.
        REGISTRY_TEST_ONLY_FETCH_HOSTS: `${FILES_DOMAIN}=127.0.0.1`,
        REGISTRY_TEST_ONLY_ADMIT_LOOPBACK: 'true',
        REGISTRY_TEST_ONLY_HTTPS_PORT: String(await freeLoopbackPort()),
      },
    });
    service = new ConsoleRegistryService({ target: target(registry.ready.grpcAddress) });
  }, 120_000);
  afterAll(async () => {
    service?.close();
    await registry?.stop();
    await dns?.close();
    await dir?.remove();
  });

  it('refuses a card in a namespace the account has not proved, then proves it by DNS and publishes', async () => {
    const early = await service.publish(alice, { card: aiCard(DOMAIN) });
    expect(early).toMatchObject({ ok: false, status: 403, error: { code: 'CONSOLE_NAMESPACE_NOT_OWNED', upstreamCode: 'NAMESPACE_NOT_GRANTED' } });

    const claim = await service.startClaim(alice, DOMAIN, { method: 'dns' });
    if (!claim.ok) throw new Error(JSON.stringify(claim.error));
    expect(claim).toMatchObject({ status: 201, value: { namespace: DOMAIN, method: 'dns', proof: { kind: 'dns-txt', name: `_trustmesh-challenge.${DOMAIN}`, value: expect.stringMatching(/^trustmesh-verification=/) } } });
    expect(await service.namespaces(alice)).toEqual({ ok: true, status: 200, value: { items: [{ namespace: DOMAIN, state: 'pending', method: 'dns', proof: claim.value.proof }], nextCursor: null } });

    const notYet = await service.checkClaim(alice, DOMAIN);
    expect(notYet).toMatchObject({ ok: true, status: 200, value: { namespace: DOMAIN, state: 'failed', detail: expect.stringContaining('OWNERSHIP_') } });

    txt.push((claim.value.proof as { value: string }).value);
    expect(await service.checkClaim(alice, DOMAIN)).toMatchObject({ ok: true, status: 200, value: { namespace: DOMAIN, state: 'verified' } });
    expect(await service.namespaces(alice)).toMatchObject({ ok: true, value: { items: [{ namespace: DOMAIN, state: 'verified', method: 'dns' }] } });

    const published = await service.publish(alice, { card: aiCard(DOMAIN) });
    expect(published).toMatchObject({
      ok: true,
      status: 201,
      value: {
        card: { id: `did:web:${DOMAIN}`, name: 'Invoice helper' },
        identifier: `did:web:${DOMAIN}`,
        kind: 'ai-card',
        status: 'active',
        revision: '2026-02-01T10:00:00Z',
        revisions: [expect.objectContaining({ revision: '2026-02-01T10:00:00Z', status: 'active', latest: true, digest: expect.stringMatching(/^sha256:/) })],
        signature: { state: 'unsigned' },
        ownership: { namespace: DOMAIN, state: 'verified', publisherId: `console-${alice.accountId}` },
      },
    });
    // The same bytes again: stored already, 200.
    expect(await service.publish(alice, { card: aiCard(DOMAIN) })).toMatchObject({ ok: true, status: 200 });
    expect(await service.card(`did:web:${DOMAIN}`)).toMatchObject({ ok: true, status: 200, value: { identifier: `did:web:${DOMAIN}`, ownership: { state: 'verified' } } });
  });

  it("keeps accounts apart: another account cannot publish in a namespace it did not prove, nor see its claims", async () => {
    const intruder = await service.publish(bob, { card: aiCard(DOMAIN, { updatedAt: '2026-03-01T10:00:00Z', name: 'Not Alice' }) });
    expect(intruder).toMatchObject({ ok: false, status: 403, error: { code: 'CONSOLE_NAMESPACE_NOT_OWNED' } });
    expect(await service.namespaces(bob)).toEqual({ ok: true, status: 200, value: { items: [], nextCursor: null } });
    expect(await service.startClaim(bob, DOMAIN, { method: 'dns' })).toMatchObject({ ok: false, status: 409, error: { code: 'CONSOLE_NAMESPACE_HELD' } });
  });

  it('answers an invalid card with every issue at its JSON pointer into the card', async () => {
    const broken = aiCard(DOMAIN, { updatedAt: 'yesterday', services: {}, tags: 'finance' }) as Record<string, unknown>;
    delete broken['name'];
    const refusedCard = await service.publish(alice, { card: broken });
    expect(refusedCard).toMatchObject({ ok: false, status: 422, error: { code: 'CONSOLE_CARD_INVALID', upstreamCode: 'DOCUMENT_INVALID' } });
    const issues = refusedCard.ok ? [] : (refusedCard.error.issues ?? []);
    expect(issues.length).toBeGreaterThanOrEqual(4);
    expect(issues.map((issue) => issue.path)).toEqual(expect.arrayContaining(['/updatedAt', '/services', '/tags']));
    expect(issues.some((issue) => issue.path === '' || issue.path === '/name')).toBe(true);
    for (const issue of issues) expect(issue).toEqual({ code: expect.stringMatching(/^[A-Z0-9_]+$/), path: expect.any(String), message: expect.any(String) });

    expect(await service.publish(alice, { card: 'not a card' })).toMatchObject({ ok: false, status: 422, error: { code: 'CONSOLE_INVALID_INPUT', issues: [{ path: '/card' }] } });
    expect(await service.publish(alice, { card: {}, extra: 1 })).toMatchObject({ ok: false, status: 422 });
  });

  it('searches with filters and facet counts, and answers an unknown card 404', async () => {
    const found = await eventually(async () => {
      const page = await service.search({ q: 'invoices', kind: 'ai-card', namespace: DOMAIN, status: 'active', tag: 'finance', limit: 25, cursor: null });
      return page.ok && page.value.items.length === 1 ? page.value : undefined;
    });
    expect(found.items[0]).toMatchObject({ identifier: `did:web:${DOMAIN}`, namespace: DOMAIN, kind: 'ai-card', status: 'active', name: 'Invoice helper', tags: ['finance', 'invoices'] });
    expect(found.facets.kind).toEqual([{ value: 'ai-card', count: 1 }]);
    expect(found.facets.namespace).toEqual([{ value: DOMAIN, count: 1 }]);
    expect(found.facets.tag).toEqual(expect.arrayContaining([{ value: 'finance', count: 1 }]));
    expect(found.nextCursor).toBeNull();

    expect(await service.search({ kind: 'spaceship', limit: 25, cursor: null })).toMatchObject({ ok: false, status: 422, error: { issues: [{ path: '?kind' }] } });
    expect(await service.search({ status: 'yanked', limit: 25, cursor: null })).toMatchObject({ ok: false, status: 422, error: { issues: [{ path: '?status' }] } });
    expect(await service.card('did:web:nobody.example')).toMatchObject({ ok: false, status: 404, error: { code: 'CONSOLE_CARD_NOT_FOUND' } });
  });

  it('answers a well-known claim with exactly the file to serve, and a check that finds none as failed with what it found', async () => {
    const claim = await service.startClaim(alice, FILES_DOMAIN, { method: 'well-known' });
    expect(claim).toMatchObject({ ok: true, status: 201, value: { method: 'well-known', proof: { kind: 'file', url: `https://${FILES_DOMAIN}/.well-known/trustmesh-registry-auth`, body: expect.stringMatching(/^[A-Za-z0-9_-]{43}\n$/) } } });
    expect(await service.checkClaim(alice, FILES_DOMAIN)).toMatchObject({ ok: true, value: { state: 'failed', detail: expect.stringContaining('OWNERSHIP_') } });
    const listed = await service.namespaces(alice);
    expect(listed.ok && listed.value.items.map((item) => [item.namespace, item.state])).toEqual([
      [FILES_DOMAIN, 'failed'],
      [DOMAIN, 'verified'],
    ]);
    expect(await service.startClaim(alice, 'Not A Domain', { method: 'dns' })).toMatchObject({ ok: false, status: 422, error: { issues: [{ path: '/namespace' }] } });
    expect(await service.startClaim(alice, FILES_DOMAIN, { method: 'carrier-pigeon' })).toMatchObject({ ok: false, status: 422, error: { issues: [{ path: '/method' }] } });
  });

  it('answers 503 CONSOLE_REGISTRY_UNAVAILABLE when the registry does not answer, and 503 NOT_CONFIGURED without one', async () => {
    const down = new ConsoleRegistryService({ target: target(`127.0.0.1:${await freeLoopbackPort()}`), deadlineMs: 3_000 });
    try {
      expect(await down.search({ limit: 25, cursor: null })).toEqual({ ok: false, status: 503, error: { code: 'CONSOLE_REGISTRY_UNAVAILABLE', message: 'The registry is not answering right now; try again in a moment.' } });
      expect(await down.publish(alice, { card: aiCard(DOMAIN) })).toMatchObject({ ok: false, status: 503, error: { code: 'CONSOLE_REGISTRY_UNAVAILABLE' } });
    } finally {
      down.close();
    }
    expect(await new ConsoleRegistryService({ target: null }).namespaces(alice)).toMatchObject({ ok: false, status: 503, error: { code: 'CONSOLE_REGISTRY_NOT_CONFIGURED' } });
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

describe("ConsoleRegistryService and the registry's per-source limits", () => {
  let dir: { dataDir: string; remove(): Promise<void> };
  let registry: ServiceChild<{ grpcAddress: string }>;
  let service: ConsoleRegistryService;
  beforeAll(async () => {
    dir = await createSeededDataDir('console-registry-limits');
    registry = await startServiceChild(join(workspaceRoot, 'apps/card-registry/test/support/registry.process.ts'), {
      workspaceRoot,
      env: {
        TRUSTMESH_DATA_DIR: dir.dataDir,
        REGISTRY_HTTP_PORT: '0',
        REGISTRY_GRPC_PORT: '0',
        REGISTRY_OPERATOR_PORT: 'off',
        REGISTRY_SERVICE_CREDENTIALS: `console:${createHash('sha256').update(CREDENTIAL).digest('hex')}`,
        // The console is the registry's trusted proxy: each person gets the allowance of their own address.
        REGISTRY_TRUSTED_PROXIES: '127.0.0.1',
        REGISTRY_RATE_WRITES_PER_MINUTE: '3',
      },
    });
    service = new ConsoleRegistryService({ target: target(registry.ready.grpcAddress) });
  }, 120_000);
  afterAll(async () => {
    service?.close();
    await registry?.stop();
    await dir?.remove();
  });

  it("spends each person's own allowance, so one person's burst never locks out another", async () => {
    for (let call = 0; call < 3; call += 1) expect((await service.namespaces(alice, { clientAddress: '203.0.113.7' })).ok).toBe(true);
    expect(await service.namespaces(alice, { clientAddress: '203.0.113.7' })).toMatchObject({ ok: false, status: 429, error: { code: 'CONSOLE_REGISTRY_RATE_LIMITED', upstreamCode: 'RATE_LIMITED', message: expect.stringMatching(/try again in \d+ s/) } });
    expect(await service.namespaces(bob, { clientAddress: '198.51.100.20' })).toMatchObject({ ok: true, status: 200 });
  });
});
