/**
 * Loads namespace aggregates from their streams and appends their decisions (the consistency boundary of
 * CARDS.md §5 "Immutable versions"). A load reads only the events after the version this process last
 * folded, so it sees what other replicas appended; an append expects that version, and a concurrent
 * append (another request, another replica) is answered by reloading and deciding again, so the loser of
 * a race meets the winner's revision rather than overwriting it.
 */
import { ConcurrencyError, type EventStore, type OutboxPublisher } from '@trustmesh/platform-event-store';

import { decide, emptyNamespace, evolve, type CardState, type Decision, type NamespaceCommand, type NamespaceEvent, type NamespaceState } from '../domain/registry-namespace.aggregate';
import { cloneTrust } from '../domain/namespace-trust';
import { fromStored, namespaceStreamId, toStored } from '../persistence/registry.stream';

interface Folded {
  state: NamespaceState;
  version: number;
}

/** Namespaces kept folded in memory, least recently used dropped first. */
const CACHED_NAMESPACES = 512;
/** A command meeting a concurrent change this many times in a row is refused as changed (retry later). */
const DECIDE_ATTEMPTS = 8;

export type AppendOutcome = { decision: Decision; state: NamespaceState; changed: boolean } | { decision: null };

export class NamespaceRepository {
  private readonly folded = new Map<string, Folded>();

  constructor(
    private readonly store: EventStore,
    private readonly publisher: OutboxPublisher,
  ) {}

  async load(namespace: string): Promise<Folded> {
    const known = this.folded.get(namespace);
    const from = known?.version ?? 0;
    const recorded = await this.store.readStream(namespaceStreamId(namespace), { fromVersion: from + 1 });
    if (known && recorded.length === 0) return known;
    // Fold on a copy: a cached state is shared by concurrent calls.
    const state = known ? cloneState(known.state) : emptyNamespace(namespace);
    for (const { envelope } of recorded) evolve(state, fromStored(envelope.eventType, envelope.data), envelope.streamVersion);
    const folded = { state, version: from + recorded.length };
    this.remember(namespace, folded);
    return folded;
  }

  /**
   * Decides `command(state)` on the namespace and appends the events, re-deciding after a concurrent
   * change; `{ decision: null }` when it kept meeting changes.
   */
  async execute(namespace: string, command: (state: NamespaceState) => NamespaceCommand | Decision): Promise<AppendOutcome> {
    for (let attempt = 1; attempt <= DECIDE_ATTEMPTS; attempt += 1) {
      const { state, version } = await this.load(namespace);
      const built = command(state);
      const decision = 'ok' in built ? built : decide(built, state);
      if (!decision.ok || decision.events.length === 0) return { decision, state, changed: false };
      try {
        await this.store.append(namespaceStreamId(namespace), version === 0 ? 'no-stream' : version, decision.events.map(toStored));
      } catch (error) {
        if (error instanceof ConcurrencyError) {
          this.folded.delete(namespace);
          continue;
        }
        throw error;
      }
      this.publisher.kick();
      const next = cloneState(state);
      decision.events.forEach((event: NamespaceEvent, index) => evolve(next, event, version + index + 1));
      this.remember(namespace, { state: next, version: version + decision.events.length });
      return { decision, state: next, changed: true };
    }
    return { decision: null };
  }

  private remember(namespace: string, folded: Folded): void {
    this.folded.delete(namespace);
    this.folded.set(namespace, folded);
    if (this.folded.size > CACHED_NAMESPACES) {
      const oldest = this.folded.keys().next().value;
      if (oldest !== undefined) this.folded.delete(oldest);
    }
  }
}

function cloneCard(card: CardState): CardState {
  return { ...card, revisions: card.revisions.map((revision) => ({ ...revision, ...(revision.signature ? { signature: { ...revision.signature } } : {}) })), ...(card.deleted ? { deleted: { ...card.deleted } } : {}) };
}

function cloneState(state: NamespaceState): NamespaceState {
  return {
    namespace: state.namespace,
    publisherId: state.publisherId,
    ...(state.verifiedBy ? { verifiedBy: { ...state.verifiedBy } } : {}),
    cards: new Map([...state.cards].map(([id, card]) => [id, cloneCard(card)])),
    trust: cloneTrust(state.trust),
  };
}
