/**
 * The mutation idempotency cache (BEHAVIOUR.md §5), keyed by `(workspaceId, requestId)` and compared on
 * the canonical identity `{method, params}` with the protocol's `classifyReplay`:
 *
 * - new: execute; replay: the original outcome, shared while it is still in flight; conflict:
 *   `RELAY_REQUEST_ID_CONFLICT`;
 * - only mutations enter it (the caller decides), never policy-denied requests;
 * - at most `maxSettled` settled entries, least recently used evicted first, a hit refreshes recency;
 * - in-flight `interaction.candidate` entries die with their connection generation, so a retry is
 *   re-processed; other in-flight entries survive reconnects and retries join them.
 */
import { classifyReplay, idempotencyKey, type RequestIdentity } from '@trustmesh/relay-protocol';

export const DEFAULT_IDEMPOTENCY_ENTRIES = 10_000;

interface InFlightEntry<T> {
  identity: RequestIdentity;
  outcome: Promise<T>;
  generation: number;
  diesWithGeneration: boolean;
}

interface SettledEntry<T> {
  identity: RequestIdentity;
  outcome: T;
}

export type CacheLookup<T> = { disposition: 'new' } | { disposition: 'replay'; outcome: Promise<T> } | { disposition: 'conflict' };

export class IdempotencyCache<T> {
  private readonly inFlight = new Map<string, InFlightEntry<T>>();
  private readonly settled = new Map<string, SettledEntry<T>>();

  constructor(private readonly maxSettled = DEFAULT_IDEMPOTENCY_ENTRIES) {
    if (!(maxSettled >= 1)) throw new RangeError('The idempotency cache needs room for at least one entry.');
  }

  get settledCount(): number {
    return this.settled.size;
  }

  get inFlightCount(): number {
    return this.inFlight.size;
  }

  lookup(identity: RequestIdentity): CacheLookup<T> {
    const key = idempotencyKey(identity);
    const running = this.inFlight.get(key);
    if (running) return this.classify(running.identity, identity, running.outcome);
    const done = this.settled.get(key);
    if (!done) return { disposition: 'new' };
    // A hit refreshes recency: re-insert at the young end of the Map's order.
    this.settled.delete(key);
    this.settled.set(key, done);
    return this.classify(done.identity, identity, Promise.resolve(done.outcome));
  }

  /** Records a new mutation as in flight; `settle` or `forget` ends it. */
  begin(identity: RequestIdentity, outcome: Promise<T>, generation: number, diesWithGeneration: boolean): void {
    this.inFlight.set(idempotencyKey(identity), { identity, outcome, generation, diesWithGeneration });
  }

  /**
   * Moves an in-flight entry to the settled LRU. Does nothing when the entry died with its generation
   * (or was replaced), so a dead attempt never answers a retry.
   */
  settle(identity: RequestIdentity, outcome: Promise<T>, value: T): void {
    const key = idempotencyKey(identity);
    if (this.inFlight.get(key)?.outcome !== outcome) return;
    this.inFlight.delete(key);
    this.settled.set(key, { identity, outcome: value });
    while (this.settled.size > this.maxSettled) {
      const oldest = this.settled.keys().next();
      if (oldest.done) break;
      this.settled.delete(oldest.value);
    }
  }

  /** Drops an in-flight entry without caching its outcome (the next retry executes again). */
  forget(identity: RequestIdentity, outcome: Promise<T>): void {
    const key = idempotencyKey(identity);
    if (this.inFlight.get(key)?.outcome === outcome) this.inFlight.delete(key);
  }

  /** The generation ended: its in-flight entries that die with it are forgotten. */
  endGeneration(generation: number): void {
    for (const [key, entry] of this.inFlight) {
      if (entry.diesWithGeneration && entry.generation === generation) this.inFlight.delete(key);
    }
  }

  private classify(existing: RequestIdentity, candidate: RequestIdentity, outcome: Promise<T>): CacheLookup<T> {
    const verdict = classifyReplay(existing, candidate);
    if (verdict.disposition === 'replay') return { disposition: 'replay', outcome };
    return verdict.disposition === 'conflict' ? { disposition: 'conflict' } : { disposition: 'new' };
  }
}
