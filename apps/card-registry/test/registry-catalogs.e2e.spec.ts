/**
 * Publishing AI Catalogs through the real HTTP API of one registry on embedded PGlite, with a real HTTPS
 * server serving did:web keys (trust-world.fixture.ts): a final catalog with inline native cards, a reference
 * and a nested catalog, its entries readable as cards and its record readable per namespace; the same bytes
 * again; a changed entry (409); an entry outside the caller's namespaces (403); signatures under `require`;
 * seed catalogs; nesting deeper than 4 levels; bad input. Every refusal is read back: nothing was stored.
 */
import { createHash } from 'node:crypto';

import { signCatalog, signTrustManifest } from '@trustmesh/cards-signatures/testing';
import { waitUntil } from '@trustmesh/platform-testing';
import { canonicalJson } from '@trustmesh/shared-canonical-json';

import { OPERATOR_TOKEN, onboard, startRegistryApp, type RegistryApp } from './support/registry-app.fixture';
import { aiCard, bytesOf, cardPath } from './support/registry-clients';
import { a2aAgent, A2A_TYPE, entryId, finalCatalog, nestedChain, seedCatalog } from './support/catalog-documents';
import { startTrustWorld, type TrustWorld } from './support/trust-world.fixture';

const MAX_CARD_BYTES = 65_536;
/** Above what acme stores in this file; globex spends it in one catalog. */
const QUOTA_PER_DAY = 40;
const sha256 = (text: string) => `sha256:${createHash('sha256').update(text).digest('hex')}`;

describe('card registry: publishing AI Catalogs', () => {
  let world: TrustWorld;
  let app: RegistryApp;
  let acme: string;
  let globex: string;

  beforeAll(async () => {
    world = await startTrustWorld(['acme.example', 'signed.example', 'globex.example']);
    app = await startRegistryApp({ ...world.registryEnv, REGISTRY_TRUST_TASK_INTERVAL_MS: '0', REGISTRY_MAX_CARD_BYTES: String(MAX_CARD_BYTES), REGISTRY_PUBLISH_QUOTA_PER_DAY: String(QUOTA_PER_DAY) });
    acme = await onboard(app.call, 'acme', ['acme.example', 'signed.example']);
    globex = await onboard(app.call, 'globex', ['globex.example']);
    // A PGlite start and a test CA on two cores shared with other suites can take a while.
  }, 180_000);
  afterAll(async () => {
    await app?.close();
    await world?.close();
  });

  const publish = (token: string | null, document: unknown, query = '', contentType = 'application/ai-catalog+json') =>
    app.call('POST', `/v1/catalogs${query}`, { token, raw: typeof document === 'string' ? document : bytesOf(document), contentType });
  const status = async (identifier: string) => (await app.call('GET', cardPath(identifier))).status;

  it('publishes a final catalog: inline cards as revisions of their exact JCS bytes, nested entries with their parent, references recorded unfetched', async () => {
    const catalog = finalCatalog('acme.example', 'one');
    const raw = bytesOf(catalog);
    const created = await publish(acme, raw);
    expect(created.status).toBe(201);
    const catalogId = sha256(raw);
    expect(created.body).toMatchObject({ catalogId, form: 'final', created: true, dryRun: false, records: [{ namespace: 'acme.example', href: `/v1/namespaces/acme.example/catalogs/${encodeURIComponent(catalogId)}` }] });
    const byId = Object.fromEntries((created.body.entries as Array<Record<string, unknown>>).map((entry) => [entry['identifier'], entry]));
    const quotes = entryId('acme.example', 'agent', 'one-quotes');
    const tickets = entryId('acme.example', 'agent', 'one-tickets');
    const bundle = entryId('acme.example', 'bundle', 'one-support');
    expect(byId[quotes]).toMatchObject({ pointer: '/entries/0', kind: 'a2a', revision: '1.0.0', reference: false, created: true });
    expect(byId[entryId('acme.example', 'mcp', 'one-ledger')]).toMatchObject({ kind: 'mcp-server', revision: '2.1.0', created: true });
    expect(byId[entryId('acme.example', 'skills', 'one-pack')]).toMatchObject({ reference: true, type: 'application/agent-skills+zip', url: 'https://acme.example/skills/one.zip', version: '0.3.0', created: false });
    expect(byId[bundle]).toMatchObject({ kind: 'ai-catalog', reference: false, created: true });
    expect(byId[tickets]).toMatchObject({ pointer: '/entries/3/data/entries/0', parent: bundle, kind: 'a2a', revision: '1.0.0', created: true });
    expect(byId[entryId('acme.example', 'mcp', 'one-helpdesk')]).toMatchObject({ parent: bundle, reference: true, type: 'application/mcp-server-card+json' });

    // The inline A2A card is a card like any other: latest read, exact bytes = UTF-8 JCS of the data, its digest.
    const entries = catalog['entries'] as Array<Record<string, unknown>>;
    const jcs = canonicalJson(entries[0]?.['data']);
    const latest = await app.call('GET', cardPath(quotes));
    expect(latest.status).toBe(200);
    expect(latest.body).toMatchObject({ identifier: quotes, namespace: 'acme.example', kind: 'a2a', latest: { revision: '1.0.0', digest: sha256(jcs), summary: { name: 'Agent one-quotes' }, catalog: { id: catalogId, pointer: '/entries/0' } } });
    const bytes = await app.call('GET', cardPath(quotes, '/revisions/1.0.0'));
    expect(bytes.bytes.toString('utf8')).toBe(jcs);
    expect(bytes.headers.get('content-type')).toBe('application/a2a-agent-card+json');
    expect((await app.call('GET', cardPath(tickets))).body.latest.catalog).toEqual({ id: catalogId, pointer: '/entries/3/data/entries/0', parent: bundle });
    // References are not cards: their artifact is published (or crawled) on its own.
    expect(await status(entryId('acme.example', 'skills', 'one-pack'))).toBe(404);

    const record = await app.call('GET', `/v1/namespaces/acme.example/catalogs/${encodeURIComponent(catalogId)}`);
    expect(record.status).toBe(200);
    expect(record.body).toMatchObject({ namespace: 'acme.example', catalogId, form: 'final', publisherId: 'acme', host: { identifier: 'did:web:acme.example', displayName: 'Catalog of acme.example' } });
    expect((record.body.entries as unknown[]).length).toBe(6);
    const listed = await app.call('GET', '/v1/namespaces/acme.example/catalogs');
    expect(listed.body.catalogs).toEqual(expect.arrayContaining([expect.objectContaining({ catalogId, entries: 6 })]));

    // The stored entries are cards like any other: the namespace's served catalog lists them (read model).
    const served = async () => ((await app.call('GET', '/namespaces/acme.example/.well-known/ai-catalog.json')).body?.entries ?? []) as Array<{ identifier: string; type: string }>;
    await waitUntil(async () => (await served()).some((entry) => entry.identifier === tickets), { what: 'the nested entry in the served catalog' });
    expect(await served()).toEqual(expect.arrayContaining([expect.objectContaining({ identifier: quotes, type: A2A_TYPE }), expect.objectContaining({ identifier: bundle, type: 'application/ai-catalog+json' })]));
  });

  it('answers the same catalog bytes again with 200 and stores nothing new; a dry run stores nothing', async () => {
    const raw = bytesOf(finalCatalog('acme.example', 'two'));
    expect((await publish(acme, raw)).status).toBe(201);
    const again = await publish(acme, raw);
    expect(again.status).toBe(200);
    expect(again.body.created).toBe(false);
    expect((again.body.entries as Array<{ created: boolean }>).every((entry) => !entry.created)).toBe(true);
    const revisions = await app.call('GET', cardPath(entryId('acme.example', 'agent', 'two-quotes'), '/revisions'));
    expect(revisions.body.revisions).toHaveLength(1);

    const dry = await publish(acme, finalCatalog('acme.example', 'dry'), '?dryRun=true');
    expect(dry.status).toBe(200);
    expect(dry.body).toMatchObject({ dryRun: true, created: false });
    expect(await status(entryId('acme.example', 'agent', 'dry-quotes'))).toBe(404);
    expect((await app.call('GET', `/v1/namespaces/acme.example/catalogs/${encodeURIComponent(dry.body.catalogId as string)}`)).status).toBe(404);
  });

  it('refuses a changed entry for a published (identifier, version) with 409 naming it, and stores none of the catalog', async () => {
    expect((await publish(acme, finalCatalog('acme.example', 'three'))).status).toBe(201);
    const changed = finalCatalog('acme.example', 'three', { quotesDescription: 'Now does something else' });
    (changed['entries'] as unknown[]).push({ identifier: entryId('acme.example', 'agent', 'three-new'), type: A2A_TYPE, data: a2aAgent('acme.example', 'three-new') });
    const refused = await publish(acme, changed);
    expect(refused.status).toBe(409);
    expect(refused.body).toMatchObject({ code: 'REVISION_CONFLICT', issues: [{ path: '/entries/0', code: 'REVISION_CONFLICT' }] });
    expect(refused.body.detail).toContain(entryId('acme.example', 'agent', 'three-quotes'));
    expect(await status(entryId('acme.example', 'agent', 'three-new'))).toBe(404);
  });

  it('refuses entries outside the caller\'s namespaces with 403 naming each, and stores nothing', async () => {
    const catalog = finalCatalog('acme.example', 'four');
    (catalog['entries'] as unknown[]).push({ identifier: entryId('globex.example', 'agent', 'borrowed'), type: A2A_TYPE, data: a2aAgent('globex.example', 'borrowed') });
    const refused = await publish(acme, catalog);
    expect(refused.status).toBe(403);
    expect(refused.body).toMatchObject({ code: 'NAMESPACE_NOT_GRANTED', issues: [{ path: '/entries/4/identifier', code: 'NAMESPACE_NOT_GRANTED' }] });
    expect(refused.body.issues).toHaveLength(1);
    expect(await status(entryId('acme.example', 'agent', 'four-quotes'))).toBe(404);
    expect(await status(entryId('globex.example', 'agent', 'borrowed'))).toBe(404);
    expect((await publish(globex, finalCatalog('acme.example', 'five'))).body.issues).toHaveLength(6);
  });

  it('under require: accepts a catalog signed by the namespace\'s did:web, refuses it tampered (422) and unsigned (422), storing nothing', async () => {
    expect((await app.call('PUT', '/v1/namespaces/signed.example/signature-policy', { token: acme, json: { policy: 'require' } })).status).toBe(200);
    const key = await world.publishKey('signed.example', 'catalog-key');
    const signed = await signCatalog(finalCatalog('signed.example', 'six') as never, key, { issuedAt: new Date(Date.now() - 60_000).toISOString() });
    const accepted = await publish(acme, signed);
    expect(accepted.status).toBe(201);
    expect(accepted.body.signature).toMatchObject({ verified: true, signer: 'did:web:signed.example', kid: key.kid, alg: 'ES256' });
    const record = await app.call('GET', `/v1/namespaces/signed.example/catalogs/${encodeURIComponent(accepted.body.catalogId as string)}`);
    expect(record.body.signature).toMatchObject({ verified: true, signer: 'did:web:signed.example' });

    const tampered = await signCatalog(finalCatalog('signed.example', 'seven') as never, key, { issuedAt: new Date(Date.now() - 60_000).toISOString() });
    (tampered['host'] as Record<string, unknown>)['displayName'] = 'Changed after signing';
    const refused = await publish(acme, tampered);
    expect(refused.status).toBe(422);
    expect(refused.body).toMatchObject({ code: 'SIGNATURE_INVALID', signatureCode: 'SIGNATURE_INVALID' });
    const unsigned = await publish(acme, finalCatalog('signed.example', 'eight'));
    expect(unsigned.status).toBe(422);
    expect(unsigned.body).toMatchObject({ code: 'SIGNATURE_REQUIRED', signatureCode: 'SIGNATURE_ABSENT' });
    expect(await status(entryId('signed.example', 'agent', 'seven-quotes'))).toBe(404);
    expect(await status(entryId('signed.example', 'agent', 'eight-quotes'))).toBe(404);
  });

  it('verifies a signed trust manifest against its inline entry and records it; refuses a manifest changed after signing (422), storing nothing', async () => {
    const key = await world.publishKey('acme.example', 'manifest-key');
    const catalogWith = async (name: string, tamper: boolean) => {
      const data = a2aAgent('acme.example', name);
      const identifier = entryId('acme.example', 'agent', name);
      const digest = sha256(canonicalJson(data));
      const signed = await signTrustManifest(
        { contributor: 'did:web:acme.example', subject: { identifier, type: A2A_TYPE, digest }, attestations: [{ type: 'SOC2-Type2', uri: 'https://acme.example/soc2.pdf' }] },
        key,
        { issuedAt: new Date(Date.now() - 60_000).toISOString() },
      );
      const manifest = tamper ? { ...signed, attestations: [{ type: 'ISO27001', uri: 'https://acme.example/iso.pdf' }] } : signed;
      return { specVersion: '1.0', entries: [{ identifier, type: A2A_TYPE, digest, data, trustManifests: [manifest] }] };
    };
    const accepted = await publish(acme, await catalogWith('attested', false));
    expect(accepted.status).toBe(201);
    expect(accepted.body.entries[0].manifests).toEqual([{ pointer: '/entries/0/trustManifests/0', contributor: 'did:web:acme.example', verified: true, publisherAuthority: true }]);
    const refused = await publish(acme, await catalogWith('forged', true));
    expect(refused.status).toBe(422);
    expect(refused.body).toMatchObject({ code: 'SIGNATURE_INVALID', issues: [{ path: expect.stringMatching(/^\/entries\/0\/trustManifests\/0/), severity: 'error' }] });
    expect(await status(entryId('acme.example', 'agent', 'forged'))).toBe(404);
  });

  it('spends the daily publish quota one unit per stored revision, and refuses a catalog once it is spent (429), storing nothing', async () => {
    const many = (tag: string, count: number) => ({ specVersion: '1.0', entries: Array.from({ length: count }, (_, index) => ({ identifier: entryId('globex.example', 'agent', `${tag}-${index}`), type: A2A_TYPE, data: a2aAgent('globex.example', `${tag}-${index}`) })) });
    expect((await publish(globex, many('quota', QUOTA_PER_DAY))).status).toBe(201);
    const refused = await publish(globex, many('over', 1));
    expect(refused.status).toBe(429);
    expect(refused.body.code).toBe('PUBLISH_QUOTA_EXCEEDED');
    expect(Number(refused.headers.get('retry-after'))).toBeGreaterThan(0);
    expect(await status(entryId('globex.example', 'agent', 'over-0'))).toBe(404);
  });

  it('records a seed catalog\'s entries as references; the cards themselves are published on their own', async () => {
    const seed = await publish(acme, seedCatalog('acme.example', ['alpha', 'beta']), '', 'application/json');
    expect(seed.status).toBe(201);
    expect(seed.body).toMatchObject({ form: 'seed', entries: [{ pointer: '/aiCards/0', identifier: 'https://acme.example/agents/alpha', reference: true, url: 'https://acme.example/cards/alpha.json', updatedAt: '2026-05-01T12:00:00Z' }, { identifier: 'https://acme.example/agents/beta', reference: true }] });
    expect(await status('https://acme.example/agents/alpha')).toBe(404);
    // The card of a seed entry keeps its own kind under the same identifier.
    expect((await app.call('POST', '/v1/cards', { token: acme, raw: bytesOf(aiCard('acme.example', { id: 'https://acme.example/agents/alpha' })) })).status).toBe(201);
  });

  it('refuses a catalog nested deeper than 4 levels with the validator\'s code, and bad input with stable codes', async () => {
    expect((await publish(acme, nestedChain('acme.example', 4))).status).toBe(201);
    const deep = await publish(acme, nestedChain('acme.example', 5));
    expect(deep.status).toBe(422);
    expect(deep.body.code).toBe('DOCUMENT_INVALID');
    expect(deep.body.issues).toEqual(expect.arrayContaining([expect.objectContaining({ code: 'NESTED_CATALOG_TOO_DEEP', severity: 'error' })]));
    expect(await status(entryId('acme.example', 'bundle', 'level-1'))).toBe(200);

    const badDigest = { specVersion: '1.0', entries: [{ identifier: entryId('acme.example', 'agent', 'digest'), type: A2A_TYPE, digest: `sha256:${'0'.repeat(64)}`, data: a2aAgent('acme.example', 'digest') }] };
    expect((await publish(acme, badDigest)).body).toMatchObject({ status: 422, code: 'CATALOG_NOT_PUBLISHABLE', issues: [{ path: '/entries/0/digest', code: 'ENTRY_DIGEST_MISMATCH' }] });
    const badCard = { specVersion: '1.0', entries: [{ identifier: entryId('acme.example', 'agent', 'broken'), type: A2A_TYPE, data: { name: 'Broken' } }] };
    const broken = await publish(acme, badCard);
    expect(broken.status).toBe(422);
    expect((broken.body.issues as Array<{ path: string }>).every((found) => found.path.startsWith('/entries/0/data'))).toBe(true);
    const noDomain = { specVersion: '1.0', entries: [{ identifier: 'opaque-name', type: A2A_TYPE, data: a2aAgent('acme.example', 'opaque') }] };
    expect((await publish(acme, noDomain)).body).toMatchObject({ status: 422, issues: expect.arrayContaining([expect.objectContaining({ path: '/entries/0/identifier', code: 'IDENTIFIER_NAMESPACE_UNKNOWN' })]) });

    const signedEntries = Array.from({ length: 65 }, (_, index) => ({ identifier: entryId('acme.example', 'agent', `many-${index}`), type: A2A_TYPE, data: { ...a2aAgent('acme.example', `many-${index}`), signatures: [{ protected: 'e30', signature: 'AA' }] } }));
    expect((await publish(acme, { specVersion: '1.0', entries: signedEntries })).body).toMatchObject({ status: 422, code: 'CATALOG_TOO_MANY_SIGNATURES' });
    expect(await status(entryId('acme.example', 'agent', 'many-0'))).toBe(404);
    expect((await publish(acme, '{"specVersion":"1.0","entries":[],"entries":[]}')).body).toMatchObject({ status: 422, code: 'DOCUMENT_INVALID' });
    expect((await publish(acme, { specVersion: '1.0', entries: [] })).body).toMatchObject({ status: 422, code: 'CATALOG_EMPTY' });
    expect((await publish(acme, aiCard('acme.example'))).body).toMatchObject({ status: 422, code: 'DOCUMENT_INVALID' });
    expect((await publish(acme, finalCatalog('acme.example', 'q'), '?kind=a2a')).body).toMatchObject({ status: 400, code: 'PARAMETER_UNKNOWN' });
    expect((await publish(null, finalCatalog('acme.example', 'q'))).status).toBe(401);
    expect((await publish(OPERATOR_TOKEN, finalCatalog('acme.example', 'q'))).body).toMatchObject({ status: 403, code: 'PUBLISHER_CREDENTIAL_REQUIRED' });
    expect((await publish(acme, finalCatalog('acme.example', 'q'), '', 'text/plain')).status).toBe(415);
    expect((await publish(acme, `{"specVersion":"1.0","entries":[],"pad":"${'x'.repeat(MAX_CARD_BYTES)}"}`)).status).toBe(413);
    expect((await app.call('GET', '/v1/namespaces/acme.example/catalogs/not-a-digest')).body).toMatchObject({ status: 400, code: 'CATALOG_ID_INVALID' });
    expect((await app.call('GET', `/v1/namespaces/acme.example/catalogs/${encodeURIComponent(sha256('nothing'))}`)).body).toMatchObject({ status: 404, code: 'CATALOG_NOT_FOUND' });
    expect(await status(entryId('acme.example', 'agent', 'q-quotes'))).toBe(404);
  });
});
