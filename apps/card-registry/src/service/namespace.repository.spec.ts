// The namespace cache against a real event store (embedded PGlite in memory): two repositories on one store
// stand for two replicas, each with its own cache. What must hold: a load folds only the events after the
// cached version, a lost race catches up from there (never from the first event) and re-decides, a cached
// state always equals the stream folded from scratch, refusals leave it untouched, and the cache stays
// within its bound, least recently used out first.
import { createTestDatabase, type TestDatabase } from '@trustmesh/platform-database/testing';
import { openEventStore, type EventStore } from '@trustmesh/platform-event-store';

import { emptyNamespace, evolve, type CardSummary, type NamespaceCommand, type NamespaceState } from '../domain/registry-namespace.aggregate';
import { fromStored, namespaceStreamId, toStored } from '../persistence/registry.stream';
import { NamespaceRepository } from './namespace.repository';

const NOW = '2026-03-01T00:00:00.000Z';
const summary = (version: string): CardSummary => ({ kind: 'mcp-server', version, name: 'n', description: 'd', tags: [], skills: [], tools: [], protocols: [] });

const publish = (namespace: string, name: string, revision: string, digest: string): NamespaceCommand => ({
  type: 'PublishRevision',
  publisherId: 'acme',
  identifier: `${namespace.split('.').reverse().join('.')}/${name}`,
  kind: 'mcp-server',
  revision,
  digest,
  contentType: 'application/json',
  content: 'e30=',
  size: 2,
  summary: summary(revision),
  status: 'active',
  now: NOW,
});

/** A namespace's cards as plain data (digests and statuses per revision), to compare states. */
const cardsOf = (state: NamespaceState) => Object.fromEntries([...state.cards].map(([id, card]) => [id, card.revisions.map((revision) => `${revision.revision}:${revision.digest}:${revision.status}`)]));

describe('NamespaceRepository (the folded-namespace cache)', () => {
  let database: TestDatabase;
  let store: EventStore;
  let namespaces = 0;
  const newNamespace = () => `ns-${(namespaces += 1)}.example`;

  beforeAll(async () => {
    database = await createTestDatabase('pglite-memory', 'namespace-cache');
    store = await openEventStore(await database.open(), { producer: 'namespace-cache-spec@0.0.0', defaultTopic: 'registry.cards.v1' });
  });
  afterAll(async () => {
    await store.close();
    await database.dispose();
  });

  async function granted(repository: NamespaceRepository, namespace: string): Promise<void> {
    const outcome = await repository.execute(namespace, () => ({ type: 'GrantNamespace', publisherId: 'acme', now: NOW }));
    expect(outcome.decision?.ok).toBe(true);
  }

  /** Another replica's publish appended at `version` straight to the store (queued before anything asked later). */
  function foreignPublish(namespace: string, version: number, name: string, revision: string, digest: string): Promise<unknown> {
    const command = publish(namespace, name, revision, digest) as Extract<NamespaceCommand, { type: 'PublishRevision' }>;
    const { type: _type, updatedAtMs: _updatedAtMs, signature: _signature, now, ...fields } = command;
    return store.append(namespaceStreamId(namespace), version, [toStored({ type: 'CardRevisionPublished', data: { namespace, ...fields, publishedAt: now } })]);
  }

  async function foldedFromScratch(namespace: string): Promise<NamespaceState> {
    const state = emptyNamespace(namespace);
    for (const { envelope } of await store.readStream(namespaceStreamId(namespace))) evolve(state, fromStored(envelope.eventType, envelope.data), envelope.streamVersion);
    return state;
  }

  it('catches up with another replica by folding only the events after its cached version', async () => {
    const namespace = newNamespace();
    const [a, b] = [new NamespaceRepository(store), new NamespaceRepository(store)];
    await granted(a, namespace);
    for (let index = 0; index < 5; index += 1) await a.execute(namespace, () => publish(namespace, `card-${index}`, '1.0.0', `sha256:${index}`));
    expect((await b.load(namespace)).version).toBe(6);
    expect(b.counters).toMatchObject({ misses: 1, eventsFolded: 6 });

    await a.execute(namespace, () => publish(namespace, 'card-5', '1.0.0', 'sha256:5'));
    await a.execute(namespace, () => publish(namespace, 'card-0', '2.0.0', 'sha256:0b'));
    const caughtUp = await b.load(namespace);
    expect(caughtUp.version).toBe(8);
    // Two events more, not eight: the cached state was kept and extended.
    expect(b.counters).toMatchObject({ misses: 1, hits: 1, eventsFolded: 8 });
    expect(cardsOf(caughtUp.state)).toEqual(cardsOf(await foldedFromScratch(namespace)));
    expect(cardsOf((await a.load(namespace)).state)).toEqual(cardsOf(caughtUp.state));
  });

  it('re-decides a lost race on the caught-up state: the other bytes of a taken revision are REVISION_CONFLICT', async () => {
    const namespace = newNamespace();
    const [a, b] = [new NamespaceRepository(store), new NamespaceRepository(store)];
    await granted(a, namespace);
    await a.execute(namespace, () => publish(namespace, 'ledger', '1.0.0', 'sha256:first'));
    await b.load(namespace);
    const foldedBefore = b.counters.eventsFolded;

    let raced: Promise<unknown> | undefined;
    const outcome = await b.execute(namespace, () => {
      // Replica A takes 2.0.0 between B's decision and B's append (queued first on the one connection).
      raced ??= foreignPublish(namespace, 2, 'ledger', '2.0.0', 'sha256:from-a');
      return publish(namespace, 'ledger', '2.0.0', 'sha256:from-b');
    });
    await raced;
    expect(b.counters.conflicts).toBe(1);
    expect(outcome.decision?.ok === false && outcome.decision.refusal.code).toBe('REVISION_CONFLICT');
    // The catch-up read A's one event; nothing was folded twice or from the start.
    expect(b.counters.misses).toBe(1);
    expect(b.counters.eventsFolded - foldedBefore).toBe(1);
    expect(cardsOf((await b.load(namespace)).state)).toEqual(cardsOf(await foldedFromScratch(namespace)));

    // The same bytes as the winner after a lost race: idempotent, nothing appended.
    let racedAgain: Promise<unknown> | undefined;
    const same = await b.execute(namespace, () => {
      racedAgain ??= foreignPublish(namespace, 3, 'ledger', '3.0.0', 'sha256:three');
      return publish(namespace, 'ledger', '3.0.0', 'sha256:three');
    });
    await racedAgain;
    expect(b.counters.conflicts).toBe(2);
    expect(same).toMatchObject({ decision: { ok: true, events: [] }, changed: false });
    expect(await store.streamVersion(namespaceStreamId(namespace))).toBe(4);
  });

  it('runs the commands of one namespace in this process one at a time: a burst never races itself', async () => {
    const namespace = newNamespace();
    const repository = new NamespaceRepository(store);
    await granted(repository, namespace);
    const outcomes = await Promise.all(Array.from({ length: 20 }, (_, index) => repository.execute(namespace, () => publish(namespace, `card-${index}`, '1.0.0', `sha256:${index}`))));
    expect(outcomes.map((outcome) => outcome.decision !== null && outcome.decision.ok && outcome.changed)).toEqual(outcomes.map(() => true));
    expect(repository.counters.conflicts).toBe(0);
    expect(await store.streamVersion(namespaceStreamId(namespace))).toBe(21);
  });

  it('leaves the cached state untouched when a command is refused', async () => {
    const namespace = newNamespace();
    const repository = new NamespaceRepository(store);
    await granted(repository, namespace);
    await repository.execute(namespace, () => publish(namespace, 'ledger', '1.0.0', 'sha256:a'));
    const before = structuredClone((await repository.load(namespace)).state);
    for (const command of [
      publish(namespace, 'ledger', '1.0.0', 'sha256:b'),
      { ...publish(namespace, 'ledger', '1.1.0', 'sha256:c'), publisherId: 'globex' },
      { type: 'ChangeStatus', publisherId: 'acme', identifier: 'nothing', revision: null, status: 'yanked', now: NOW } as const,
      { type: 'RenameCard', publisherId: 'acme', from: `${namespace.split('.').reverse().join('.')}/ledger`, to: `${namespace.split('.').reverse().join('.')}/ledger`, now: NOW } as const,
    ]) {
      const outcome = await repository.execute(namespace, () => command);
      expect(outcome.decision?.ok).toBe(false);
    }
    expect((await repository.load(namespace)).state).toEqual(before);
  });

  it('keeps at most its capacity of namespaces, dropping the least recently used, and folds an evicted one afresh', async () => {
    const repository = new NamespaceRepository(store, { capacity: 2 });
    const [first, second, third] = [newNamespace(), newNamespace(), newNamespace()];
    for (const namespace of [first, second, third]) await store.append(namespaceStreamId(namespace), 'no-stream', [toStored({ type: 'NamespaceGranted', data: { namespace, publisherId: 'acme', grantedAt: NOW } })]);
    await repository.load(first);
    await repository.load(second);
    await repository.load(first); // first is now the most recently used
    await repository.load(third); // evicts second
    expect(repository.size).toBe(2);
    expect(repository.counters).toMatchObject({ misses: 3, hits: 1, evictions: 1 });
    await repository.load(first);
    expect(repository.counters.hits).toBe(2);
    const again = await repository.load(second);
    expect(repository.counters).toMatchObject({ misses: 4, evictions: 2 });
    expect(again.state.publisherId).toBe('acme');
    expect(repository.size).toBe(2);
  });
});
