/**
 * Publish latency against namespace history size: `POST /v1/cards` into a namespace holding 10,000 cards
 * versus into a namespace holding one, through the registry running in-process on embedded PGlite (the
 * single-machine tier), with a real HTTP client. The large namespace is seeded through the app's own
 * decide/append path (test/support/registry-seed.ts), then:
 *
 * - cold: the first publish after the seed (this process has never folded the namespace: a whole fold);
 * - warm: publishes one after another (the folded state is cached; each reads only what followed it);
 * - after a foreign write: each publish preceded by an event appended by "another replica" (straight to
 *   the store), so every publish catches up one event before deciding;
 * - the same three into the small namespace, interleaved, as the baseline;
 * - the namespace repository alone (no HTTP, no projection on the connection): a publish decided and
 *   appended, and one that loses a race (another writer appends between its decision and its append, so it
 *   catches up and decides again), large versus small.
 * The seed's projection into the read model is awaited before anything is timed.
 *
 * Prints p50 per case in ms and `ratio large/small` (goal: close to 1, i.e. cost independent of history),
 * and the heap the folded 10,000-card state holds (with --expose-gc; else skipped).
 *
 *   npx tsx --tsconfig tsconfig.base.json apps/card-registry/test/bench/namespace-publish.bench.ts
 *   (node --expose-gc --import tsx … for the memory figure; BENCH_NAMESPACE_CARDS=10000, BENCH_PUBLISHES=30)
 */
import { performance } from 'node:perf_hooks';

import { emptyNamespace, evolve } from '../../src/domain/registry-namespace.aggregate';
import { fromStored, namespaceStreamId } from '../../src/persistence/registry.stream';
import { NamespaceRepository } from '../../src/service/namespace.repository';
import { onboard, startRegistryApp } from '../support/registry-app.fixture';
import { aiCard, bytesOf } from '../support/registry-clients';
import { executorQuery, seedDocuments, waitForProjection } from '../support/registry-seed';

const CARDS = Number(process.env['BENCH_NAMESPACE_CARDS'] ?? 10_000);
const PUBLISHES = Number(process.env['BENCH_PUBLISHES'] ?? 30);
const LARGE = 'large.example';
const SMALL = 'small.example';

const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)] ?? 0;
const ms = (value: number) => value.toFixed(1);

function card(domain: string, index: number): string {
  return bytesOf(aiCard(domain, { id: `https://${domain}/agents/agent-${index}`, name: `Agent ${index}`, description: `Answers questions about invoices for account group ${index % 97}`, tags: ['finance', `group-${index % 97}`] }));
}

async function main(): Promise<void> {
  const app = await startRegistryApp();
  try {
    const token = await onboard(app.call, 'bench', [LARGE, SMALL]);
    const { store, publisher } = app.handle.infrastructure;
    const seedStart = performance.now();
    await seedDocuments({ store, kick: () => publisher.kick() }, LARGE, 'bench', Array.from({ length: CARDS }, (_, index) => card(LARGE, index)));
    await seedDocuments({ store, kick: () => publisher.kick() }, SMALL, 'bench', [card(SMALL, 0)]);
    // The read model projects the seed on the same embedded database: let it finish, or it is what gets measured.
    await waitForProjection(executorQuery((work) => app.handle.infrastructure.database.withConnection(work)), LARGE, CARDS, 600_000);
    console.log(`seeded ${CARDS} cards into ${LARGE} (and projected) in ${ms(performance.now() - seedStart)} ms`);

    let next = CARDS;
    const publish = async (domain: string): Promise<number> => {
      next += 1;
      const raw = card(domain, next);
      const start = performance.now();
      const reply = await app.call('POST', '/v1/cards', { token, raw });
      const took = performance.now() - start;
      if (reply.status !== 201) throw new Error(`publish into ${domain}: ${reply.status} ${reply.bytes.toString()}`);
      return took;
    };
    /** Another writer's event (a status change of card 0), appended at the stream's version as a replica would. */
    const foreignWrite = async (domain: string) => {
      const streamId = namespaceStreamId(domain);
      const version = await store.streamVersion(streamId);
      await store.append(streamId, version, [{ eventType: 'CardStatusChanged', data: { namespace: domain, identifier: `https://${domain}/agents/agent-0`, revision: null, status: 'active', message: `touched ${next}`, publisherId: 'bench', changedAt: new Date().toISOString() } }]);
    };

    const coldLarge = await publish(LARGE);
    const coldSmall = await publish(SMALL);
    const warm = { large: [] as number[], small: [] as number[] };
    const foreign = { large: [] as number[], small: [] as number[] };
    for (let round = 0; round < PUBLISHES; round += 1) {
      warm.large.push(await publish(LARGE));
      warm.small.push(await publish(SMALL));
      await foreignWrite(LARGE);
      foreign.large.push(await publish(LARGE));
      await foreignWrite(SMALL);
      foreign.small.push(await publish(SMALL));
    }
    console.log(`cold (first publish, whole fold): large ${ms(coldLarge)} ms, small ${ms(coldSmall)} ms`);
    console.log(`warm p50: large ${ms(median(warm.large))} ms, small ${ms(median(warm.small))} ms, ratio large/small ${(median(warm.large) / median(warm.small)).toFixed(2)}`);
    console.log(`after a foreign write p50: large ${ms(median(foreign.large))} ms, small ${ms(median(foreign.small))} ms, ratio large/small ${(median(foreign.large) / median(foreign.small)).toFixed(2)}`);

    // The repository alone (no HTTP, no projection sharing the connection): one publish decided and
    // appended, warm, and after losing a race (another writer appends between the decision and the append).
    const repository = new NamespaceRepository(store);
    const decideAndAppend = async (domain: string, race: boolean): Promise<number> => {
      next += 1;
      const { version } = await repository.load(domain);
      const identifier = `https://${domain}/agents/direct-${next}`;
      const command = { type: 'PublishRevision' as const, publisherId: 'bench', identifier, kind: 'ai-card', revision: '2026-02-01T10:00:00Z', updatedAtMs: Date.parse('2026-02-01T10:00:00Z'), digest: `sha256:${next}`, contentType: 'application/json', content: 'e30=', size: 2, summary: { kind: 'ai-card', name: 'n', description: 'd', tags: [], skills: [], tools: [], protocols: [] }, status: 'active' as const, now: new Date().toISOString() };
      let raced: Promise<unknown> | undefined;
      const start = performance.now();
      const outcome = await repository.execute(domain, () => {
        if (race) raced ??= store.append(namespaceStreamId(domain), version, [{ eventType: 'CardStatusChanged', data: { namespace: domain, identifier: `https://${domain}/agents/agent-0`, revision: null, status: 'active', message: `raced ${next}`, publisherId: 'bench', changedAt: new Date().toISOString() } }]);
        return command;
      });
      const took = performance.now() - start;
      await raced;
      if (!outcome.decision?.ok || !outcome.changed) throw new Error(`direct publish into ${domain} refused`);
      return took;
    };
    const direct = { large: [] as number[], small: [] as number[], racedLarge: [] as number[], racedSmall: [] as number[] };
    for (let round = 0; round < PUBLISHES; round += 1) {
      direct.large.push(await decideAndAppend(LARGE, false));
      direct.small.push(await decideAndAppend(SMALL, false));
      direct.racedLarge.push(await decideAndAppend(LARGE, true));
      direct.racedSmall.push(await decideAndAppend(SMALL, true));
    }
    console.log(`repository p50: large ${ms(median(direct.large))} ms, small ${ms(median(direct.small))} ms, ratio large/small ${(median(direct.large) / median(direct.small)).toFixed(2)}`);
    console.log(`repository after a lost race p50: large ${ms(median(direct.racedLarge))} ms, small ${ms(median(direct.racedSmall))} ms, ratio large/small ${(median(direct.racedLarge) / median(direct.racedSmall)).toFixed(2)} (conflicts ${repository.counters.conflicts})`);

    const gc = (globalThis as { gc?: () => void }).gc;
    if (gc) {
      // The heap grown by folding the namespace (the events read are garbage by then): what a cache entry holds.
      const fold = async () => {
        const state = emptyNamespace(LARGE);
        for (const { envelope } of await store.readStream(namespaceStreamId(LARGE))) evolve(state, fromStored(envelope.eventType, envelope.data), envelope.streamVersion);
        return state;
      };
      gc();
      const before = process.memoryUsage().heapUsed;
      const state = await fold();
      gc();
      const held = process.memoryUsage().heapUsed - before;
      const cards = state.cards.size;
      console.log(`folded state of ${cards} cards holds ${(held / 1024 / 1024).toFixed(1)} MiB of heap (${Math.round(held / cards)} bytes a card)`);
    } else {
      console.log('memory: run with node --expose-gc to measure the folded state');
    }
  } finally {
    await app.close();
  }
}

main().catch((error: unknown) => {
  console.error(error);
  process.exitCode = 1;
});
