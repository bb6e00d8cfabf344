/**
 * Loads namespace aggregates from their streams and appends their decisions (the consistency boundary of
 * CARDS.md §5 "Immutable versions"), keeping folded namespaces in memory so a command costs the events
 * that followed the last one this process saw, never the namespace's whole history.
 *
 * The cache (least recently used first out, `capacity` namespaces) holds one state per stream with the
 * stream version it reflects. A load reads only the events after that version and folds them into the
 * cached state, so it sees what other replicas appended; an append expects the version the decision was
 * made at, and that expectation is what guards against a stale cache: a concurrent append (another
 * request, another replica) fails it with a `ConcurrencyError`, and the command catches up from the
 * cached version and decides again, so the loser of a race meets the winner's revision rather than
 * overwriting it.
 *
 * The cached state is folded in place and never cloned (cloning cost the whole namespace on every
 * publish). That is safe because of what touches it: `decide` is pure (it reads a state, returns events
 * or a refusal, and a refused or failed command leaves nothing behind), and `evolve` is applied here only,
 * to events the store holds, each exactly once and in version order (an event at or below the cached
 * version is skipped, a gap makes the load read again), so the state is always exactly the stream at its
 * version. A state handed out is this cache's own: callers read it, never write it, and what they read
 * across an `await` may have moved on to a later version (never to a half-folded one: a fold is synchronous).
 */
import { ConcurrencyError, type EventStore } from '@trustmesh/platform-event-store';

import { decide, emptyNamespace, evolve, type Decision, type NamespaceCommand, type NamespaceEvent, type NamespaceState } from '../domain/registry-namespace.aggregate';
import { fromStored, namespaceStreamId, toStored } from '../persistence/registry.stream';

export interface Folded {
  state: NamespaceState;
  /** The stream version `state` reflected when it was handed out. */
  version: number;
}

/** Namespaces kept folded in memory unless configured (REGISTRY_NAMESPACE_CACHE_ENTRIES). */
export const DEFAULT_CACHED_NAMESPACES = 512;
/** A command meeting a concurrent change this many times in a row is refused as changed (retry later). */
const DECIDE_ATTEMPTS = 8;

export type AppendOutcome = { decision: Decision; state: NamespaceState; changed: boolean } | { decision: null };

export interface NamespaceRepositoryOptions {
  /** Folded namespaces kept (least recently used dropped first); at least 1. */
  capacity?: number;
  /** Called after every append (the app kicks its outbox publisher). */
  onAppended?: () => void;
}

/** What the cache did, for tests and metrics. */
export interface NamespaceCacheCounters {
  /** Loads that found the namespace folded. */
  hits: number;
  /** Loads that folded the namespace from its first event. */
  misses: number;
  /** Events folded into cached states (catch-up reads and own appends). */
  eventsFolded: number;
  /** Appends refused because the stream had moved on (caught up and decided again). */
  conflicts: number;
  evictions: number;
}

export class NamespaceRepository {
  private readonly folded = new Map<string, Folded>();
  /** The tail of each namespace's queue of commands in this process. */
  private readonly running = new Map<string, Promise<void>>();
  private readonly capacity: number;
  private readonly onAppended: () => void;
  readonly counters: NamespaceCacheCounters = { hits: 0, misses: 0, eventsFolded: 0, conflicts: 0, evictions: 0 };

  constructor(
    private readonly store: EventStore,
    options: NamespaceRepositoryOptions = {},
  ) {
    this.capacity = Math.max(1, options.capacity ?? DEFAULT_CACHED_NAMESPACES);
    this.onAppended = options.onAppended ?? (() => undefined);
  }

  /** Namespaces folded in memory right now. */
  get size(): number {
    return this.folded.size;
  }

  /** The namespace at the newest version the store holds. */
  async load(namespace: string): Promise<Folded> {
    let cached = this.folded.get(namespace);
    if (cached) this.counters.hits += 1;
    else this.counters.misses += 1;
    for (;;) {
      const from = cached?.version ?? 0;
      const recorded = await this.store.readStream(namespaceStreamId(namespace), { fromVersion: from + 1 });
      // Another call may have folded (or evicted) this namespace while the read was in flight.
      const entry = this.folded.get(namespace) ?? { state: emptyNamespace(namespace), version: 0 };
      if (this.foldInto(namespace, entry, recorded.map(({ envelope }) => ({ version: envelope.streamVersion, event: fromStored(envelope.eventType, envelope.data) })))) {
        this.remember(namespace, entry);
        return { state: entry.state, version: entry.version };
      }
      // A gap: the entry we fold into is behind what we read (it was evicted and folded afresh); read again.
      cached = entry;
    }
  }

  /**
   * Decides `command(state)` on the namespace and appends the events at the version decided on, catching
   * up and deciding again after a concurrent change; `{ decision: null }` when it kept meeting changes.
   */
  async execute(namespace: string, command: (state: NamespaceState) => NamespaceCommand | Decision): Promise<AppendOutcome> {
    return this.oneAtATime(namespace, () => this.decideAndAppend(namespace, command));
  }

  /**
   * Runs the commands of one namespace one after another in this process: racing each other on the
   * stream's version, a burst of publishes into one namespace would make most of them lose, catch up and
   * retry, and the unlucky ones run out of attempts (NAMESPACE_CHANGED). Other replicas still race us, and
   * the expected version settles that.
   */
  private async oneAtATime<T>(namespace: string, work: () => Promise<T>): Promise<T> {
    const before = this.running.get(namespace) ?? Promise.resolve();
    const mine = before.then(work, work);
    const tail = mine.then(
      () => undefined,
      () => undefined,
    );
    this.running.set(namespace, tail);
    try {
      return await mine;
    } finally {
      if (this.running.get(namespace) === tail) this.running.delete(namespace);
    }
  }

  private async decideAndAppend(namespace: string, command: (state: NamespaceState) => NamespaceCommand | Decision): Promise<AppendOutcome> {
    for (let attempt = 1; attempt <= DECIDE_ATTEMPTS; attempt += 1) {
      const { state, version } = await this.load(namespace);
      const built = command(state);
      const decision = 'ok' in built ? built : decide(built, state);
      if (!decision.ok || decision.events.length === 0) return { decision, state, changed: false };
      try {
        await this.store.append(namespaceStreamId(namespace), version === 0 ? 'no-stream' : version, decision.events.map(toStored));
      } catch (error) {
        if (error instanceof ConcurrencyError) {
          // The cached state stays: the next load reads from its version on, the winner's events included.
          this.counters.conflicts += 1;
          continue;
        }
        throw error;
      }
      this.onAppended();
      // Our events are at version + 1 …; a load racing with us may have folded them already (skipped then).
      const entry = this.folded.get(namespace);
      const folded = entry !== undefined && this.foldInto(namespace, entry, decision.events.map((event: NamespaceEvent, index) => ({ version: version + index + 1, event })));
      return { decision, state: folded ? entry.state : (await this.load(namespace)).state, changed: true };
    }
    return { decision: null };
  }

  /**
   * Folds `events` (consecutive stream versions) into `entry`: those at or below its version were folded
   * already and are skipped. False when they start beyond the next version (a gap: nothing folded).
   */
  private foldInto(namespace: string, entry: Folded, events: ReadonlyArray<{ version: number; event: NamespaceEvent }>): boolean {
    const fresh = events.filter(({ version }) => version > entry.version);
    if (fresh.length > 0 && fresh[0]?.version !== entry.version + 1) return false;
    for (const { version, event } of fresh) {
      try {
        evolve(entry.state, event, version);
      } catch (error) {
        // A half-folded state must never be served: forget it, the next load folds from the start.
        this.folded.delete(namespace);
        throw error;
      }
      entry.version = version;
      this.counters.eventsFolded += 1;
    }
    return true;
  }

  private remember(namespace: string, folded: Folded): void {
    this.folded.delete(namespace);
    this.folded.set(namespace, folded);
    while (this.folded.size > this.capacity) {
      const oldest = this.folded.keys().next().value;
      if (oldest === undefined) break;
      this.folded.delete(oldest);
      this.counters.evictions += 1;
    }
  }
}
