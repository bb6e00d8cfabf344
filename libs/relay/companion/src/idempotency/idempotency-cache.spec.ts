import { IdempotencyCache } from './idempotency-cache';

const WS = '6d1f3c2a-8b4e-4f7a-9c1d-2e3f4a5b6c7d';
const id = (n: number) => `00000000-0000-4000-8000-${String(n).padStart(12, '0')}`;
const identity = (requestId: string, params: unknown = { requestId: id(99), threadId: id(1), title: 'A' }, method = 'thread.rename') => ({
  workspaceId: WS,
  requestId,
  method,
  params,
});

async function run(cache: IdempotencyCache<string>, request: ReturnType<typeof identity>, value: string, generation = 1, dies = false) {
  const lookup = cache.lookup(request);
  if (lookup.disposition !== 'new') return lookup;
  const outcome = Promise.resolve(value);
  cache.begin(request, outcome, generation, dies);
  cache.settle(request, outcome, await outcome);
  return lookup;
}

describe('the idempotency cache (§5)', () => {
  it('classifies new, replay (key order ignored) and conflict', async () => {
    const cache = new IdempotencyCache<string>();
    expect((await run(cache, identity(id(1)), 'first')).disposition).toBe('new');
    const replay = cache.lookup(identity(id(1), { title: 'A', threadId: id(1), requestId: id(99) }));
    expect(replay.disposition).toBe('replay');
    expect(replay.disposition === 'replay' && (await replay.outcome)).toBe('first');
    expect(cache.lookup(identity(id(1), { requestId: id(99), threadId: id(1), title: 'B' })).disposition).toBe('conflict');
    expect(cache.lookup(identity(id(1), undefined, 'thread.delete')).disposition).toBe('conflict');
    expect(cache.lookup(identity(id(2))).disposition).toBe('new');
  });

  it('shares an in-flight outcome with a replay', async () => {
    const cache = new IdempotencyCache<string>();
    let finish!: (value: string) => void;
    const outcome = new Promise<string>((resolve) => (finish = resolve));
    cache.begin(identity(id(1)), outcome, 1, false);
    const joined = cache.lookup(identity(id(1)));
    expect(joined.disposition).toBe('replay');
    finish('shared');
    expect(joined.disposition === 'replay' && (await joined.outcome)).toBe('shared');
    expect(cache.inFlightCount).toBe(1);
    cache.settle(identity(id(1)), outcome, 'shared');
    expect([cache.inFlightCount, cache.settledCount]).toEqual([0, 1]);
  });

  it('evicts the least recently used settled entry, a hit refreshing recency', async () => {
    const cache = new IdempotencyCache<string>(2);
    await run(cache, identity(id(1)), 'one');
    await run(cache, identity(id(2)), 'two');
    expect(cache.lookup(identity(id(1))).disposition).toBe('replay');
    await run(cache, identity(id(3)), 'three');
    expect(cache.settledCount).toBe(2);
    expect(cache.lookup(identity(id(2))).disposition).toBe('new');
    expect(cache.lookup(identity(id(1))).disposition).toBe('replay');
    expect(cache.lookup(identity(id(3))).disposition).toBe('replay');
  });

  it('forgets in-flight entries that die with their generation, and keeps the others', () => {
    const cache = new IdempotencyCache<string>();
    const candidate = identity(id(1), { interactionId: id(5) }, 'interaction.candidate');
    const pending = new Promise<string>(() => undefined);
    cache.begin(candidate, pending, 1, true);
    cache.begin(identity(id(2)), pending, 1, false);
    cache.begin(identity(id(3), undefined, 'interaction.candidate'), pending, 2, true);
    cache.endGeneration(1);
    expect(cache.lookup(candidate).disposition).toBe('new');
    expect(cache.lookup(identity(id(2))).disposition).toBe('replay');
    expect(cache.lookup(identity(id(3), undefined, 'interaction.candidate')).disposition).toBe('replay');
    // The dead attempt settling later does not come back.
    cache.settle(candidate, pending, 'late');
    expect(cache.lookup(candidate).disposition).toBe('new');
  });

  it('forget drops an in-flight entry without caching it', () => {
    const cache = new IdempotencyCache<string>();
    const outcome = Promise.resolve('retryable');
    cache.begin(identity(id(1)), outcome, 1, false);
    cache.forget(identity(id(1)), outcome);
    expect(cache.lookup(identity(id(1))).disposition).toBe('new');
  });
});
