/**
 * The registry's gRPC API through a real grpc-js client against one registry on embedded PGlite: the
 * operator's flows (publishers, credentials, namespaces), publishing (created, unchanged, conflict,
 * stale, invalid with every issue in the `registry-issues-bin` trailer, dry run, size), reads (exact bytes,
 * renames, tombstones, pages), status and rename, search and sync, and authentication. What gRPC stores, REST serves:
 * one application service behind both.
 */
import * as grpc from '@grpc/grpc-js';
import { cardRegistryV1GrpcJs as v1, decodeRegistryRefusal, REGISTRY_ISSUES_METADATA } from '@trustmesh/contracts';
import { waitUntil } from '@trustmesh/platform-testing';

import { OPERATOR_TOKEN, startRegistryApp, type RegistryApp } from './support/registry-app.fixture';
import { aiCard, bytesOf, cardPath } from './support/registry-clients';
import { registryGrpcClient, type RegistryGrpc } from './support/registry-grpc.client';

const MAX_CARD_BYTES = 8192;
const REQUEST_ID = '6f1c2d3e-4a5b-4c6d-8e7f-0a1b2c3d4e5f';
const doc = (domain: string, overrides: Record<string, unknown> = {}) => Buffer.from(bytesOf(aiCard(domain, overrides)));

describe('card registry: gRPC', () => {
  let app: RegistryApp;
  let rpc: RegistryGrpc;
  let acme: string;
  let acmeId: string;

  beforeAll(async () => {
    app = await startRegistryApp({ REGISTRY_MAX_CARD_BYTES: String(MAX_CARD_BYTES) });
    rpc = registryGrpcClient(app.handle.grpcAddress);
    const created = await rpc.operator.createPublisher({ displayName: 'Acme Ltd', requestId: REQUEST_ID }, OPERATOR_TOKEN);
    acmeId = created.response?.publisher?.publisherId ?? '';
    await rpc.operator.grantNamespace({ publisherId: acmeId, namespace: 'acme.example' }, OPERATOR_TOKEN);
    acme = (await rpc.operator.issueCredential({ publisherId: acmeId, name: 'ci', expiresInDays: 0 }, OPERATOR_TOKEN)).response?.credential ?? '';
  });
  afterAll(async () => {
    rpc?.close();
    await app?.close();
  });

  it('runs the operator flows: a retried CreatePublisher returns the first publisher, grants and transfers name the holders', async () => {
    expect(acmeId).toBe(REQUEST_ID);
    expect(acme).toMatch(/^tmrp_/);
    const retried = await rpc.operator.createPublisher({ displayName: 'Acme Ltd', requestId: REQUEST_ID }, OPERATOR_TOKEN);
    expect(retried.response?.publisher).toMatchObject({ publisherId: REQUEST_ID, displayName: 'Acme Ltd' });
    const reused = await rpc.operator.createPublisher({ displayName: 'Someone else', requestId: REQUEST_ID }, OPERATOR_TOKEN);
    expect(reused.error?.code).toBe(grpc.status.ALREADY_EXISTS);
    expect(reused.refusal?.code).toBe('PUBLISHER_EXISTS');

    const globex = (await rpc.operator.createPublisher({ displayName: 'Globex', requestId: '' }, OPERATOR_TOKEN)).response?.publisher?.publisherId ?? '';
    expect(globex).toMatch(/^[0-9a-f-]{36}$/);
    expect((await rpc.operator.grantNamespace({ publisherId: globex, namespace: 'globex.example' }, OPERATOR_TOKEN)).response?.namespace).toMatchObject({ namespace: 'globex.example', publisherId: globex });
    const taken = await rpc.operator.grantNamespace({ publisherId: globex, namespace: 'acme.example' }, OPERATOR_TOKEN);
    expect(taken.error?.code).toBe(grpc.status.FAILED_PRECONDITION);

    const moved = await rpc.operator.transferNamespace({ namespace: 'globex.example', toPublisherId: acmeId }, OPERATOR_TOKEN);
    expect(moved.response).toMatchObject({ namespace: { namespace: 'globex.example', publisherId: acmeId }, fromPublisherId: globex });
    const unknown = await rpc.operator.issueCredential({ publisherId: 'no-such-publisher', name: '', expiresInDays: 0 }, OPERATOR_TOKEN);
    expect(unknown.error?.code).toBe(grpc.status.NOT_FOUND);
    expect(unknown.refusal).toMatchObject({ code: 'PUBLISHER_NOT_FOUND', issues: [{ path: '/publisherId', severity: 'error' }] });
    expect((await rpc.operator.issueCredential({ publisherId: acmeId, name: '', expiresInDays: 400 }, OPERATOR_TOKEN)).refusal?.code).toBe('EXPIRES_IN_DAYS_INVALID');
  });

  it('refuses callers without a valid credential, publishers on operator RPCs, and a revoked credential at once', async () => {
    const anonymous = await rpc.cards.publishCard({ document: doc('acme.example'), kind: 0, identifier: '', dryRun: false });
    expect(anonymous.error?.code).toBe(grpc.status.UNAUTHENTICATED);
    expect(anonymous.refusal?.code).toBe('UNAUTHENTICATED');
    expect((await rpc.cards.publishCard({ document: doc('acme.example'), kind: 0, identifier: '', dryRun: false }, 'tmrp_0123.nonsense')).error?.code).toBe(grpc.status.UNAUTHENTICATED);
    const asPublisher = await rpc.operator.createPublisher({ displayName: 'Sneaky', requestId: '' }, acme);
    expect(asPublisher.error?.code).toBe(grpc.status.PERMISSION_DENIED);
    expect(asPublisher.refusal?.code).toBe('OPERATOR_ONLY');

    const spare = (await rpc.operator.issueCredential({ publisherId: acmeId, name: 'spare', expiresInDays: 0 }, OPERATOR_TOKEN)).response;
    const revoked = await rpc.operator.revokeCredential({ publisherId: acmeId, credentialId: spare?.credentialId ?? '' }, OPERATOR_TOKEN);
    expect(revoked.response?.credentialId).toBe(spare?.credentialId);
    const after = await rpc.cards.publishCard({ document: doc('acme.example'), kind: 0, identifier: '', dryRun: true }, spare?.credential);
    expect(after.error?.code).toBe(grpc.status.UNAUTHENTICATED);
  });

  it('publishes: created, the same bytes unchanged, other bytes ALREADY_EXISTS, older FAILED_PRECONDITION; REST serves the exact bytes', async () => {
    const identifier = 'https://acme.example/agents/grpc-invoices';
    const bytes = doc('acme.example', { id: identifier });
    const created = await rpc.cards.publishCard({ document: bytes, kind: v1.CardKind.AI_CARD, identifier: '', dryRun: false }, acme);
    expect(created.response).toMatchObject({ identifier, revision: '2026-02-01T10:00:00Z', kind: v1.CardKind.AI_CARD, status: v1.CardStatus.ACTIVE, outcome: v1.PublishOutcome.CREATED });
    const again = await rpc.cards.publishCard({ document: bytes, kind: 0, identifier: '', dryRun: false }, acme);
    expect(again.response?.outcome).toBe(v1.PublishOutcome.UNCHANGED);

    const conflict = await rpc.cards.publishCard({ document: doc('acme.example', { id: identifier, description: 'Other words' }), kind: 0, identifier: '', dryRun: false }, acme);
    expect(conflict.error?.code).toBe(grpc.status.ALREADY_EXISTS);
    expect(conflict.error?.details).toBe(conflict.refusal?.error);
    expect(conflict.refusal).toMatchObject({ code: 'REVISION_CONFLICT', issues: [{ code: 'REVISION_CONFLICT', path: '/revision', severity: 'error' }] });
    const stale = await rpc.cards.publishCard({ document: doc('acme.example', { id: identifier, updatedAt: '2026-01-20T00:00:00Z' }), kind: 0, identifier: '', dryRun: false }, acme);
    expect(stale.error?.code).toBe(grpc.status.FAILED_PRECONDITION);
    expect(stale.refusal?.code).toBe('REVISION_STALE');

    const served = await app.call('GET', cardPath(identifier, `/revisions/${encodeURIComponent('2026-02-01T10:00:00Z')}`));
    expect(served.bytes.equals(bytes)).toBe(true);
    const read = await rpc.cards.getCard({ identifier, revision: '' });
    expect(read.response?.card).toMatchObject({ identifier, revision: '2026-02-01T10:00:00Z', digest: created.response?.digest, status: v1.CardStatus.ACTIVE, contentType: 'application/json', publisher: { publisherId: acmeId } });
    expect(Buffer.from(read.response?.card?.document ?? []).equals(bytes)).toBe(true);
  });

  it('refuses an invalid document with every issue in the trailer, a foreign namespace, an oversized document, and stores nothing; a dry run stores nothing either', async () => {
    const identifier = 'https://acme.example/agents/broken';
    const invalid = await rpc.cards.publishCard({ document: doc('acme.example', { id: identifier, name: '', services: {} }), kind: 0, identifier: '', dryRun: false }, acme);
    expect(invalid.error?.code).toBe(grpc.status.INVALID_ARGUMENT);
    expect(invalid.refusal?.code).toBe('DOCUMENT_INVALID');
    expect(invalid.refusal?.issues).toContainEqual(expect.objectContaining({ code: 'SERVICES_EMPTY', path: '/services', severity: 'error' }));
    const raw = invalid.error?.metadata.get(REGISTRY_ISSUES_METADATA)[0];
    expect(decodeRegistryRefusal(raw as Buffer)).toEqual(invalid.refusal);

    const foreign = await rpc.cards.publishCard({ document: doc('initech.example'), kind: 0, identifier: '', dryRun: false }, acme);
    expect(foreign.error?.code).toBe(grpc.status.PERMISSION_DENIED);
    const large = await rpc.cards.publishCard({ document: doc('acme.example', { id: identifier, description: 'x'.repeat(MAX_CARD_BYTES) }), kind: 0, identifier: '', dryRun: false }, acme);
    expect(large.error?.code).toBe(grpc.status.RESOURCE_EXHAUSTED);
    expect(large.refusal?.code).toBe('DOCUMENT_TOO_LARGE');

    const dry = await rpc.cards.publishCard({ document: doc('acme.example', { id: identifier }), kind: 0, identifier: '', dryRun: true }, acme);
    expect(dry.response?.outcome).toBe(v1.PublishOutcome.VALIDATED);
    expect((await rpc.cards.getCard({ identifier, revision: '' })).error?.code).toBe(grpc.status.NOT_FOUND);
    expect((await app.call('GET', cardPath(identifier))).status).toBe(404);
  });

  it('changes statuses, renames and deletes: reads follow the rename and answer a tombstone; revisions page newest first', async () => {
    const identifier = 'https://acme.example/agents/lifecycle';
    for (const updatedAt of ['2026-02-01T00:00:00Z', '2026-02-02T00:00:00Z', '2026-02-03T00:00:00Z']) {
      expect((await rpc.cards.publishCard({ document: doc('acme.example', { id: identifier, updatedAt }), kind: 0, identifier: '', dryRun: false }, acme)).response?.outcome).toBe(v1.PublishOutcome.CREATED);
    }
    const yanked = await rpc.cards.setStatus({ identifier, status: v1.CardStatus.YANKED, message: 'Broken tool', revision: '2026-02-03T00:00:00Z' }, acme);
    expect(yanked.response?.revisions).toEqual([expect.objectContaining({ revision: '2026-02-03T00:00:00Z', status: v1.CardStatus.YANKED, statusMessage: 'Broken tool', latest: false })]);
    expect((await rpc.cards.getCard({ identifier, revision: '' })).response?.card?.revision).toBe('2026-02-02T00:00:00Z');
    expect((await rpc.cards.getCard({ identifier, revision: '2026-02-03T00:00:00Z' })).response?.card?.status).toBe(v1.CardStatus.YANKED);
    expect((await rpc.cards.setStatus({ identifier, status: v1.CardStatus.UNSPECIFIED, message: '', revision: '' }, acme)).refusal?.code).toBe('STATUS_INVALID');

    const first = await rpc.cards.listRevisions({ identifier, limit: 2, cursor: '' });
    expect(first.response?.revisions.map((revision) => [revision.revision, revision.latest])).toEqual([
      ['2026-02-03T00:00:00Z', false],
      ['2026-02-02T00:00:00Z', true],
    ]);
    const second = await rpc.cards.listRevisions({ identifier, limit: 2, cursor: first.response?.nextCursor ?? '' });
    expect(second.response).toMatchObject({ revisions: [{ revision: '2026-02-01T00:00:00Z' }], nextCursor: '' });
    expect((await rpc.cards.listRevisions({ identifier, limit: 2, cursor: 'made-up' })).refusal?.code).toBe('CURSOR_INVALID');

    const to = 'https://acme.example/agents/lifecycle-v2';
    expect((await rpc.cards.renameCard({ identifier, to }, acme)).response).toEqual({ identifier: to, renamedFrom: identifier });
    // The old identifier redirects; its publisher publishes the card under the new one.
    expect((await rpc.cards.publishCard({ document: doc('acme.example', { id: to, updatedAt: '2026-02-04T00:00:00Z' }), kind: 0, identifier: '', dryRun: false }, acme)).response?.outcome).toBe(v1.PublishOutcome.CREATED);
    const followed = await rpc.cards.getCard({ identifier, revision: '' });
    expect(followed.response).toMatchObject({ renamedFrom: identifier, card: { identifier: to, revision: '2026-02-04T00:00:00Z' } });
    const published = await rpc.cards.getCard({ identifier, revision: '2026-02-02T00:00:00Z' });
    expect(published.response).toMatchObject({ renamedFrom: '', card: { identifier, revision: '2026-02-02T00:00:00Z', status: v1.CardStatus.ACTIVE } });

    expect((await rpc.cards.setStatus({ identifier: to, status: v1.CardStatus.DELETED, message: 'Retired', revision: '' }, acme)).response?.revisions).toHaveLength(1);
    const tombstone = await rpc.cards.getCard({ identifier: to, revision: '' });
    expect(tombstone.response?.card).toMatchObject({ identifier: to, status: v1.CardStatus.DELETED, statusMessage: 'Retired', digest: '' });
    expect(tombstone.response?.card?.document).toHaveLength(0);
    const again = await rpc.cards.setStatus({ identifier: to, status: v1.CardStatus.ACTIVE, message: '', revision: '' }, acme);
    expect(again.error?.code).toBe(grpc.status.FAILED_PRECONDITION);
  });

  it('searches and syncs through the same services as REST: hits, facets, changes with tombstones, the same refusals', async () => {
    const identifier = 'https://acme.example/agents/searchable';
    await rpc.cards.publishCard({ document: doc('acme.example', { id: identifier, name: 'Quarterly ledger reconciler', tags: ['ledger'] }), kind: 0, identifier: '', dryRun: false }, acme);
    // Search reads the projected read model: it trails a publish by the projection's lag.
    let hits: v1.SearchHit[] = [];
    await waitUntil(async () => {
      hits = (await rpc.cards.searchCards({ query: 'reconciler', limit: 0, cursor: '' })).response?.hits ?? [];
      return hits.length > 0;
    }, { timeoutMs: 30_000, what: 'the card to be searchable' });
    expect(hits[0]).toMatchObject({ identifier, kind: v1.CardKind.AI_CARD, status: v1.CardStatus.ACTIVE, name: 'Quarterly ledger reconciler', publisherDomain: 'acme.example' });
    const filtered = await rpc.cards.searchCards({ query: '', filters: { kinds: [v1.CardKind.AI_CARD], protocols: [], tags: ['ledger'], publisherDomains: ['acme.example'], statuses: [], verified: 0 }, limit: 5, cursor: '' });
    expect(filtered.response?.hits.map((hit) => hit.identifier)).toContain(identifier);
    expect(filtered.response?.facets.map((facet) => facet.field)).toEqual(expect.arrayContaining(['kind', 'tag', 'publisher_domain']));
    const yanked = await rpc.cards.searchCards({ query: '', filters: { kinds: [], protocols: [], tags: [], publisherDomains: [], statuses: [v1.CardStatus.YANKED], verified: 0 }, limit: 0, cursor: '' });
    expect(yanked.error?.code).toBe(grpc.status.INVALID_ARGUMENT);
    expect(yanked.refusal).toMatchObject({ code: 'PARAMETER_INVALID', issues: [{ path: '/filters/statuses' }] });
    expect((await rpc.cards.searchCards({ query: '', limit: 0, cursor: 'not-a-cursor' })).refusal?.code).toBe('CURSOR_INVALID');

    const synced = await rpc.cards.syncChanges({ includeDeleted: true, limit: 0, cursor: '' });
    expect(synced.response?.changes).toContainEqual(expect.objectContaining({ identifier, revision: '2026-02-01T10:00:00Z', status: v1.CardStatus.ACTIVE, tombstone: false }));
    expect(synced.response?.changes.some((change) => change.tombstone)).toBe(true);
  });

  it('answers unknown cards NOT_FOUND and bytes that are no request INVALID_ARGUMENT', async () => {
    expect((await rpc.cards.getCard({ identifier: 'https://acme.example/agents/none', revision: '' })).refusal?.code).toBe('CARD_NOT_FOUND');

    const client = new grpc.Client(app.handle.grpcAddress, grpc.credentials.createInsecure());
    const garbage = await new Promise<grpc.ServiceError | null>((resolve) =>
      client.makeUnaryRequest('/trustmesh.registry.v1.CardRegistry/GetCard', (value: Buffer) => value, (value: Buffer) => value, Buffer.from([0x0a, 0xff, 0xff, 0xff]), new grpc.Metadata(), (error) => resolve(error)),
    );
    client.close();
    expect(garbage?.code).toBe(grpc.status.INVALID_ARGUMENT);
  });
});
