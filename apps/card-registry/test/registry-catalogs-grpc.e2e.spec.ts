/**
 * Catalog publishing over gRPC (`CardRegistry.PublishCatalog`) through a real grpc-js client, and catalogs
 * that span several namespaces through REST and gRPC, against one registry on embedded PGlite.
 *
 * gRPC: stored, the same bytes unchanged, a dry run, an invalid catalog (INVALID_ARGUMENT with every issue
 * in `registry-issues-bin`), no or the wrong credential, an entry outside the caller's namespaces, the size
 * bound; what gRPC stores, REST serves.
 *
 * Several namespaces (README.md "Catalogs spanning namespaces"): a refusal known before anything is stored
 * (an entry conflicting with a published revision) stores nothing in any namespace. A refusal that a
 * concurrent writer causes after an earlier namespace was stored is a race; it is made deterministic here
 * by letting a real second writer (a namespace transfer, a conflicting card, both through the registry's
 * own HTTP API) in at the exact moment the catalog reaches the second namespace. The answer names every
 * namespace's and entry's outcome, and the same bytes again, once the refusal is resolved, store only
 * what was missing.
 */
import { createHash } from 'node:crypto';

import * as grpc from '@grpc/grpc-js';
import { cardRegistryV1GrpcJs as v1, decodeRegistryRefusal, REGISTRY_CATALOG_RESULT_METADATA, REGISTRY_ISSUES_METADATA } from '@trustmesh/contracts';

import { NamespaceRepository } from '../src/service/namespace.repository';
import { OPERATOR_TOKEN, onboard, startRegistryApp, type RegistryApp } from './support/registry-app.fixture';
import { bytesOf, cardPath } from './support/registry-clients';
import { a2aAgent, A2A_TYPE, entryId, finalCatalog } from './support/catalog-documents';
import { registryGrpcClient, type RegistryGrpc } from './support/registry-grpc.client';

const MAX_CARD_BYTES = 32_768;
const sha256 = (text: string) => `sha256:${createHash('sha256').update(text).digest('hex')}`;
const SHOP = 'acme-shop.example';
const LABS = 'acme-labs.example';

/** A final catalog with one inline A2A card in each of `domains`, in that order (so namespaces are stored in that order). */
function spanning(tag: string, domains: readonly string[], overrides: Record<string, Record<string, unknown>> = {}): Record<string, unknown> {
  return {
    specVersion: '1.0',
    entries: domains.map((domain) => ({ identifier: entryId(domain, 'agent', tag), type: A2A_TYPE, data: a2aAgent(domain, tag, overrides[domain] ?? {}) })),
  };
}

describe('card registry: catalogs over gRPC and across namespaces', () => {
  let app: RegistryApp;
  let rpc: RegistryGrpc;
  let acme: string;
  let globex: string;

  beforeAll(async () => {
    app = await startRegistryApp({ REGISTRY_MAX_CARD_BYTES: String(MAX_CARD_BYTES) });
    rpc = registryGrpcClient(app.handle.grpcAddress);
    acme = await onboard(app.call, 'acme', ['acme.example', SHOP, LABS]);
    globex = await onboard(app.call, 'globex', ['globex.example']);
  }, 180_000);
  afterAll(async () => {
    jest.restoreAllMocks();
    rpc?.close();
    await app?.close();
  });

  const status = async (identifier: string) => (await app.call('GET', cardPath(identifier))).status;
  const publishRest = (token: string, document: unknown) => app.call('POST', '/v1/catalogs', { token, raw: bytesOf(document), contentType: 'application/ai-catalog+json' });
  const publishRpc = (token: string | null, document: unknown, dryRun = false) => rpc.cards.publishCatalog({ catalog: Buffer.from(typeof document === 'string' ? document : bytesOf(document)), dryRun }, token);

  /**
   * Lets `writer` in, once, right before the catalog publish appends to `namespace`: the moment a
   * concurrent writer would have to arrive for the race (the catalog was decided on the state before it).
   */
  function raceAt(namespace: string, writer: () => Promise<void>): void {
    const execute = NamespaceRepository.prototype.execute;
    let armed = true;
    jest.spyOn(NamespaceRepository.prototype, 'execute').mockImplementation(async function (this: NamespaceRepository, target, command) {
      if (armed && target === namespace) {
        armed = false;
        await writer();
      }
      return execute.call(this, target, command);
    });
  }

  describe('PublishCatalog', () => {
    it('stores a catalog: every entry with its outcome, references recorded; the same bytes again are UNCHANGED; REST serves what gRPC stored', async () => {
      const catalog = finalCatalog('acme.example', 'rpc');
      const raw = bytesOf(catalog);
      const created = await publishRpc(acme, catalog);
      expect(created.error).toBeUndefined();
      const catalogId = sha256(raw);
      expect(created.response).toMatchObject({ catalogId, form: 'final', dryRun: false, namespaces: [{ namespace: 'acme.example', outcome: v1.CatalogNamespaceOutcome.STORED, recordPath: `/v1/namespaces/acme.example/catalogs/${encodeURIComponent(catalogId)}` }] });
      const byId = Object.fromEntries((created.response?.entries ?? []).map((entry) => [entry.identifier, entry]));
      const quotes = entryId('acme.example', 'agent', 'rpc-quotes');
      const bundle = entryId('acme.example', 'bundle', 'rpc-support');
      expect(byId[quotes]).toMatchObject({ pointer: '/entries/0', namespace: 'acme.example', kind: v1.CardKind.A2A, revision: '1.0.0', reference: false, outcome: v1.CatalogEntryOutcome.CREATED, issues: [] });
      expect(byId[entryId('acme.example', 'mcp', 'rpc-ledger')]).toMatchObject({ kind: v1.CardKind.MCP_SERVER, revision: '2.1.0', outcome: v1.CatalogEntryOutcome.CREATED });
      expect(byId[entryId('acme.example', 'skills', 'rpc-pack')]).toMatchObject({ reference: true, url: 'https://acme.example/skills/rpc.zip', revision: '', outcome: v1.CatalogEntryOutcome.RECORDED });
      expect(byId[entryId('acme.example', 'agent', 'rpc-tickets')]).toMatchObject({ parent: bundle, kind: v1.CardKind.A2A, outcome: v1.CatalogEntryOutcome.CREATED });
      expect(byId[bundle]).toMatchObject({ kind: v1.CardKind.AI_CATALOG, outcome: v1.CatalogEntryOutcome.CREATED });

      const served = await app.call('GET', cardPath(quotes));
      expect(served.body).toMatchObject({ identifier: quotes, kind: 'a2a', latest: { revision: '1.0.0', digest: byId[quotes]?.digest, catalog: { id: catalogId, pointer: '/entries/0' } } });
      expect((await app.call('GET', `/v1/namespaces/acme.example/catalogs/${encodeURIComponent(catalogId)}`)).body).toMatchObject({ catalogId, publisherId: 'acme' });

      const again = await publishRpc(acme, catalog);
      expect(again.response?.namespaces).toEqual([expect.objectContaining({ outcome: v1.CatalogNamespaceOutcome.UNCHANGED })]);
      expect(new Set(again.response?.entries.map((entry) => entry.outcome))).toEqual(new Set([v1.CatalogEntryOutcome.UNCHANGED]));
      expect((await app.call('GET', cardPath(quotes, '/revisions'))).body.revisions).toHaveLength(1);
    });

    it('answers a dry run VALIDATED for every namespace and entry, and stores nothing', async () => {
      const dry = await publishRpc(acme, finalCatalog('acme.example', 'rpc-dry'), true);
      expect(dry.response).toMatchObject({ dryRun: true, namespaces: [{ namespace: 'acme.example', outcome: v1.CatalogNamespaceOutcome.VALIDATED }] });
      expect(new Set(dry.response?.entries.map((entry) => entry.outcome))).toEqual(new Set([v1.CatalogEntryOutcome.VALIDATED]));
      expect(await status(entryId('acme.example', 'agent', 'rpc-dry-quotes'))).toBe(404);
      expect((await app.call('GET', `/v1/namespaces/acme.example/catalogs/${encodeURIComponent(dry.response?.catalogId ?? '')}`)).status).toBe(404);
    });

    it('refuses an invalid catalog with INVALID_ARGUMENT and every issue in the trailer, storing nothing', async () => {
      const duplicate = await publishRpc(acme, '{"specVersion":"1.0","entries":[],"entries":[]}');
      expect(duplicate.error?.code).toBe(grpc.status.INVALID_ARGUMENT);
      expect(duplicate.refusal?.code).toBe('DOCUMENT_INVALID');
      expect(decodeRegistryRefusal(duplicate.error?.metadata.get(REGISTRY_ISSUES_METADATA)[0] as Buffer)).toEqual(duplicate.refusal);

      const wrong = {
        specVersion: '1.0',
        entries: [
          { identifier: entryId('acme.example', 'agent', 'rpc-digest'), type: A2A_TYPE, digest: `sha256:${'0'.repeat(64)}`, data: a2aAgent('acme.example', 'rpc-digest') },
          { identifier: entryId('acme.example', 'agent', 'rpc-broken'), type: A2A_TYPE, data: { name: 'Broken' } },
        ],
      };
      const refused = await publishRpc(acme, wrong);
      expect(refused.error?.code).toBe(grpc.status.INVALID_ARGUMENT);
      expect(refused.refusal?.code).toBe('CATALOG_NOT_PUBLISHABLE');
      expect(refused.refusal?.issues).toContainEqual(expect.objectContaining({ path: '/entries/0/digest', code: 'ENTRY_DIGEST_MISMATCH', severity: 'error' }));
      expect(refused.refusal?.issues.some((found) => found.path.startsWith('/entries/1/data'))).toBe(true);
      expect(refused.error?.metadata.get(REGISTRY_CATALOG_RESULT_METADATA)).toEqual([]);
      expect(await status(entryId('acme.example', 'agent', 'rpc-digest'))).toBe(404);
    });

    it('refuses a call without a credential (UNAUTHENTICATED) and an operator credential (PERMISSION_DENIED)', async () => {
      const anonymous = await publishRpc(null, finalCatalog('acme.example', 'rpc-anon'));
      expect(anonymous.error?.code).toBe(grpc.status.UNAUTHENTICATED);
      expect(anonymous.refusal?.code).toBe('UNAUTHENTICATED');
      expect((await publishRpc('tmrp_0123.nonsense', finalCatalog('acme.example', 'rpc-anon'))).error?.code).toBe(grpc.status.UNAUTHENTICATED);
      const operator = await publishRpc(OPERATOR_TOKEN, finalCatalog('acme.example', 'rpc-anon'));
      expect(operator.error?.code).toBe(grpc.status.PERMISSION_DENIED);
      expect(operator.refusal?.code).toBe('PUBLISHER_CREDENTIAL_REQUIRED');
      expect(await status(entryId('acme.example', 'agent', 'rpc-anon-quotes'))).toBe(404);
    });

    it('refuses entries in a namespace the caller does not hold with PERMISSION_DENIED naming each, storing nothing in the namespaces it holds', async () => {
      const catalog = finalCatalog('acme.example', 'rpc-foreign');
      (catalog['entries'] as unknown[]).push({ identifier: entryId('globex.example', 'agent', 'rpc-borrowed'), type: A2A_TYPE, data: a2aAgent('globex.example', 'rpc-borrowed') });
      const refused = await publishRpc(acme, catalog);
      expect(refused.error?.code).toBe(grpc.status.PERMISSION_DENIED);
      expect(refused.refusal).toMatchObject({ code: 'NAMESPACE_NOT_GRANTED', issues: [{ path: '/entries/4/identifier', code: 'NAMESPACE_NOT_GRANTED', severity: 'error' }] });
      expect(await status(entryId('acme.example', 'agent', 'rpc-foreign-quotes'))).toBe(404);
      expect(await status(entryId('globex.example', 'agent', 'rpc-borrowed'))).toBe(404);
      expect((await publishRpc(globex, spanning('rpc-theirs', ['acme.example']))).error?.code).toBe(grpc.status.PERMISSION_DENIED);
    });

    it('refuses a catalog over the size bound with RESOURCE_EXHAUSTED (DOCUMENT_TOO_LARGE)', async () => {
      const large = await publishRpc(acme, `{"specVersion":"1.0","entries":[],"pad":"${'x'.repeat(MAX_CARD_BYTES)}"}`);
      expect(large.error?.code).toBe(grpc.status.RESOURCE_EXHAUSTED);
      expect(large.refusal).toMatchObject({ code: 'DOCUMENT_TOO_LARGE', issues: [{ path: '/catalog' }] });
    });
  });

  describe('a catalog spanning namespaces', () => {
    afterEach(() => jest.restoreAllMocks());

    it('stores nothing in any namespace when one entry conflicts with a published revision, over REST (409) and gRPC (ALREADY_EXISTS)', async () => {
      expect((await publishRest(acme, spanning('clash', [SHOP]))).status).toBe(201);
      const clashing = spanning('clash', ['acme.example', SHOP, LABS], { [SHOP]: { description: 'Other bytes for the same version' } });
      const rest = await publishRest(acme, clashing);
      expect(rest.status).toBe(409);
      expect(rest.body).toMatchObject({ code: 'REVISION_CONFLICT', issues: [{ path: '/entries/1', code: 'REVISION_CONFLICT' }] });
      expect(rest.body.detail).toContain('nothing was stored');
      const viaRpc = await publishRpc(acme, clashing);
      expect(viaRpc.error?.code).toBe(grpc.status.ALREADY_EXISTS);
      expect(viaRpc.refusal).toMatchObject({ code: 'REVISION_CONFLICT', issues: [{ path: '/entries/1', code: 'REVISION_CONFLICT' }] });
      expect(await status(entryId('acme.example', 'agent', 'clash'))).toBe(404);
      expect(await status(entryId(LABS, 'agent', 'clash'))).toBe(404);
    });

    it('REST: a namespace transferred away mid-publish leaves the earlier namespace stored and says so (409 CATALOG_PARTIALLY_STORED); the same bytes again store the rest', async () => {
      const catalog = spanning('moved', ['acme.example', SHOP, LABS]);
      raceAt(SHOP, async () => {
        const moved = await app.call('POST', `/v1/operator/namespaces/${SHOP}/transfer`, { token: OPERATOR_TOKEN, json: { toPublisherId: 'globex' } });
        expect(moved.body).toMatchObject({ namespace: SHOP, publisherId: 'globex', changed: true });
      });
      const partial = await publishRest(acme, catalog);
      expect(partial.status).toBe(409);
      expect(partial.body).toMatchObject({ code: 'CATALOG_PARTIALLY_STORED', issues: [{ path: '/entries/1/identifier', code: 'NAMESPACE_NOT_GRANTED', severity: 'error' }] });
      expect(partial.body.records.map((record: { namespace: string; outcome: string }) => [record.namespace, record.outcome])).toEqual([
        ['acme.example', 'stored'],
        [SHOP, 'refused'],
        [LABS, 'not_stored'],
      ]);
      expect(partial.body.entries.map((entry: { outcome: string }) => entry.outcome)).toEqual(['created', 'refused', 'not_stored']);
      expect(partial.body.detail).toContain(`stored: acme.example; not stored: ${SHOP}, ${LABS}`);
      expect(await status(entryId('acme.example', 'agent', 'moved'))).toBe(200);
      expect(await status(entryId(SHOP, 'agent', 'moved'))).toBe(404);
      expect(await status(entryId(LABS, 'agent', 'moved'))).toBe(404);

      expect((await app.call('POST', `/v1/operator/namespaces/${SHOP}/transfer`, { token: OPERATOR_TOKEN, json: { toPublisherId: 'acme' } })).status).toBe(200);
      const retried = await publishRest(acme, catalog);
      expect(retried.status).toBe(201);
      expect(retried.body.records.map((record: { outcome: string }) => record.outcome)).toEqual(['unchanged', 'stored', 'stored']);
      expect(retried.body.entries.map((entry: { outcome: string }) => entry.outcome)).toEqual(['unchanged', 'created', 'created']);
      expect((await app.call('GET', cardPath(entryId('acme.example', 'agent', 'moved'), '/revisions'))).body.revisions).toHaveLength(1);
      expect(await status(entryId(SHOP, 'agent', 'moved'))).toBe(200);
    });

    it('gRPC: a revision published concurrently with other bytes stops the catalog at that namespace (ABORTED) with the whole result in registry-catalog-result-bin', async () => {
      const catalog = spanning('raced', ['acme.example', SHOP, LABS]);
      const racedId = entryId(SHOP, 'agent', 'raced');
      raceAt(SHOP, async () => {
        const card = bytesOf(a2aAgent(SHOP, 'raced', { description: 'Published by someone else first' }));
        const published = await app.call('POST', `/v1/cards?kind=a2a&identifier=${encodeURIComponent(racedId)}`, { token: acme, raw: card });
        expect(published.status).toBe(201);
      });
      const partial = await publishRpc(acme, catalog);
      expect(partial.error?.code).toBe(grpc.status.ABORTED);
      expect(partial.refusal).toMatchObject({ code: 'CATALOG_PARTIALLY_STORED', issues: [{ path: '/entries/1', code: 'REVISION_CONFLICT', severity: 'error' }] });
      const trailer = partial.error?.metadata.get(REGISTRY_CATALOG_RESULT_METADATA)[0] as Buffer;
      const result = v1.PublishCatalogResponse.decode(trailer);
      expect(result).toMatchObject({ catalogId: sha256(bytesOf(catalog)), dryRun: false });
      expect(result.namespaces.map((found) => [found.namespace, found.outcome])).toEqual([
        ['acme.example', v1.CatalogNamespaceOutcome.STORED],
        [SHOP, v1.CatalogNamespaceOutcome.REFUSED],
        [LABS, v1.CatalogNamespaceOutcome.NOT_STORED],
      ]);
      expect(result.entries.map((entry) => [entry.identifier, entry.outcome])).toEqual([
        [entryId('acme.example', 'agent', 'raced'), v1.CatalogEntryOutcome.CREATED],
        [racedId, v1.CatalogEntryOutcome.REFUSED],
        [entryId(LABS, 'agent', 'raced'), v1.CatalogEntryOutcome.NOT_STORED],
      ]);
      expect(result.entries[1]?.issues).toEqual([expect.objectContaining({ path: '/entries/1', code: 'REVISION_CONFLICT', severity: v1.IssueSeverity.ERROR })]);
      expect(await status(entryId('acme.example', 'agent', 'raced'))).toBe(200);
      expect(await status(entryId(LABS, 'agent', 'raced'))).toBe(404);

      // The stored revision is immutable: the publisher moves its entry on to a new version and publishes again.
      const moved = spanning('raced', ['acme.example', SHOP, LABS], { [SHOP]: { version: '1.0.1' } });
      const completed = await publishRpc(acme, moved);
      expect(completed.error).toBeUndefined();
      expect(completed.response?.namespaces.map((found) => found.outcome)).toEqual([v1.CatalogNamespaceOutcome.STORED, v1.CatalogNamespaceOutcome.STORED, v1.CatalogNamespaceOutcome.STORED]);
      expect(completed.response?.entries.map((entry) => [entry.revision, entry.outcome])).toEqual([
        ['1.0.0', v1.CatalogEntryOutcome.UNCHANGED],
        ['1.0.1', v1.CatalogEntryOutcome.CREATED],
        ['1.0.0', v1.CatalogEntryOutcome.CREATED],
      ]);
    });
  });
});
