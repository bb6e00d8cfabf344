/**
 * The registry's limits as a client meets them, on one registry (embedded PGlite) with small limits: the
 * per-source read limit (429 + Retry-After + RFC 7807 on REST, RESOURCE_EXHAUSTED + retryAfterSeconds on
 * gRPC, one allowance for both), X-Forwarded-For ignored from a peer that is not a trusted proxy, the
 * per-credential limit on a publisher's writes, a declared body over every route's bound, and the daily publish quota, which only stored revisions
 * spend and which stores nothing once reached.
 */
import * as grpc from '@grpc/grpc-js';

import { OPERATOR_TOKEN, onboard, startRegistryApp, type RegistryApp } from './support/registry-app.fixture';
import { aiCard, bytesOf, cardPath, type Reply } from './support/registry-clients';
import { registryGrpcClient, type RegistryGrpc } from './support/registry-grpc.client';

const READS_PER_MINUTE = 5;
const CREDENTIAL_PER_MINUTE = 4;
const QUOTA = 2;

describe('card registry: rate limits and publish quota', () => {
  let app: RegistryApp;
  let rpc: RegistryGrpc;

  beforeAll(async () => {
    app = await startRegistryApp({
      REGISTRY_RATE_READS_PER_MINUTE: String(READS_PER_MINUTE),
      REGISTRY_RATE_WRITES_PER_MINUTE: '60',
      REGISTRY_RATE_CREDENTIAL_PER_MINUTE: String(CREDENTIAL_PER_MINUTE),
      REGISTRY_PUBLISH_QUOTA_PER_DAY: String(QUOTA),
      // The test's client connects from 127.0.0.1, which is not in this list.
      REGISTRY_TRUSTED_PROXIES: '10.0.0.0/8',
    });
    rpc = registryGrpcClient(app.handle.grpcAddress);
  });
  afterAll(async () => {
    rpc?.close();
    await app?.close();
  });

  const expectRateLimited = (reply: Reply, code = 'RATE_LIMITED') => {
    expect(reply.status).toBe(429);
    const retryAfter = Number(reply.headers.get('retry-after'));
    expect(Number.isInteger(retryAfter) && retryAfter >= 1).toBe(true);
    expect(reply.headers.get('content-type')).toContain('application/problem+json');
    expect(reply.body).toMatchObject({ status: 429, code, retryAfterSeconds: retryAfter, issues: [{ code, severity: 'error' }] });
  };

  it('limits reads per source whatever X-Forwarded-For an untrusted peer sends, on REST and gRPC alike, and leaves writes their own allowance', async () => {
    const path = cardPath('https://acme.example/agents/none');
    for (let index = 0; index < READS_PER_MINUTE; index += 1) {
      expect((await app.call('GET', path, { headers: { 'x-forwarded-for': `198.51.100.${index + 1}` } })).status).toBe(404);
    }
    expectRateLimited(await app.call('GET', path, { headers: { 'x-forwarded-for': '203.0.113.77' } }));

    const overGrpc = await rpc.cards.getCard({ identifier: 'https://acme.example/agents/none', revision: '' }, null, { 'x-forwarded-for': '203.0.113.78' });
    expect(overGrpc.error?.code).toBe(grpc.status.RESOURCE_EXHAUSTED);
    expect(overGrpc.refusal).toMatchObject({ code: 'RATE_LIMITED' });
    expect(overGrpc.refusal?.retryAfterSeconds).toBeGreaterThanOrEqual(1);

    const write = await app.call('POST', '/v1/operator/publishers', { token: OPERATOR_TOKEN, json: { publisherId: 'initech', displayName: 'Initech' } });
    expect(write.status).toBe(201);
  });

  it('refuses a declared body larger than any route takes, on a route without a body too, before reading it', async () => {
    const large = 'x'.repeat(700 * 1024);
    const revoke = await app.call('DELETE', '/v1/operator/publishers/acme/credentials/0123', { token: OPERATOR_TOKEN, raw: large });
    expect(revoke.status).toBe(413);
    expect(revoke.body).toMatchObject({ code: 'BODY_TOO_LARGE', status: 413 });
  });

  it('limits one publisher credential, on REST and gRPC, without touching another credential', async () => {
    const acme = await onboard(app.call, 'acme', ['acme.example']);
    const other = (await app.call('POST', '/v1/operator/publishers/acme/credentials', { token: OPERATOR_TOKEN, json: { label: 'other' } })).body.credential as string;
    const dryRun = (token: string) => app.call('POST', '/v1/cards?dryRun=true', { token, raw: bytesOf(aiCard('acme.example')) });
    for (let index = 0; index < CREDENTIAL_PER_MINUTE; index += 1) expect((await dryRun(acme)).status).toBe(200);
    expectRateLimited(await dryRun(acme));
    const overGrpc = await rpc.cards.publishCard({ document: Buffer.from(bytesOf(aiCard('acme.example'))), kind: 0, identifier: '', dryRun: true }, acme);
    expect(overGrpc.error?.code).toBe(grpc.status.RESOURCE_EXHAUSTED);
    expect(overGrpc.refusal?.code).toBe('RATE_LIMITED');
    expect((await dryRun(other)).status).toBe(200);
  });

  it('refuses a publisher past its daily quota with 429 PUBLISH_QUOTA_EXCEEDED and stores nothing; re-sending stored bytes (answered 200 even past the quota) and dry runs cost nothing', async () => {
    const globex = await onboard(app.call, 'globex', ['globex.example']);
    const second = (await app.call('POST', '/v1/operator/publishers/globex/credentials', { token: OPERATOR_TOKEN, json: {} })).body.credential as string;
    const identifier = 'https://globex.example/agents/quota';
    const card = (day: number) => bytesOf(aiCard('globex.example', { id: identifier, updatedAt: `2026-03-0${day}T00:00:00Z` }));
    expect((await app.call('POST', '/v1/cards', { token: globex, raw: card(1) })).status).toBe(201);
    expect((await app.call('POST', '/v1/cards', { token: globex, raw: card(1) })).status).toBe(200);
    expect((await app.call('POST', '/v1/cards?dryRun=true', { token: second, raw: card(2) })).status).toBe(200);
    expect((await app.call('POST', '/v1/cards', { token: second, raw: card(2) })).status).toBe(201);

    const refused = await app.call('POST', '/v1/cards', { token: globex, raw: card(3) });
    expectRateLimited(refused, 'PUBLISH_QUOTA_EXCEEDED');
    expect(refused.body.retryAfterSeconds).toBeLessThanOrEqual(86_400);
    const overGrpc = await rpc.cards.publishCard({ document: Buffer.from(card(3)), kind: 0, identifier: '', dryRun: false }, second);
    expect(overGrpc.error?.code).toBe(grpc.status.RESOURCE_EXHAUSTED);
    expect(overGrpc.refusal?.code).toBe('PUBLISH_QUOTA_EXCEEDED');
    expect((await app.call('POST', '/v1/cards?dryRun=true', { token: second, raw: card(3) })).status).toBe(200);
    // A retry of bytes stored earlier (its answer lost, say) still learns they are stored. A third credential
    // of the publisher: the other two spent their per-minute allowance above.
    const third = (await app.call('POST', '/v1/operator/publishers/globex/credentials', { token: OPERATOR_TOKEN, json: {} })).body.credential as string;
    const retried = await app.call('POST', '/v1/cards', { token: third, raw: card(2) });
    expect(retried.status).toBe(200);
    expect(retried.body).toMatchObject({ identifier, revision: '2026-03-02T00:00:00Z', created: false, dryRun: false });
    // Still refused for anything new, and a refused document is still told why.
    expectRateLimited(await app.call('POST', '/v1/cards', { token: third, raw: card(4) }), 'PUBLISH_QUOTA_EXCEEDED');
    expect((await app.call('POST', '/v1/cards', { token: third, raw: bytesOf({ ...aiCard('globex.example', { id: identifier }), name: 7 }) })).status).toBe(422);

    // This address spent its reads in the first test: read what was stored through the service.
    const stored = await app.handle.cards.revisions(identifier);
    expect(stored.ok && stored.value.revisions.map((revision) => revision.revision)).toEqual(['2026-03-01T00:00:00Z', '2026-03-02T00:00:00Z']);
  });
});
