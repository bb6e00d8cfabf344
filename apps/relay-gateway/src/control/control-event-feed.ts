/**
 * Every control event, on every replica: a bus subscription of this replica's own consumer group on
 * `relay.control.v1` (so each replica gets every message, unlike the projection's shared group), from the
 * end of the log, plus immediate local delivery of what this replica appended itself. Revocations and
 * presence changes reach sockets and status watchers on all replicas this way.
 *
 * Delivery is at least once (listeners are idempotent), but the bus's copy of an event this replica already
 * delivered itself is skipped: every listener (presence reads the workspace's status back for each one) would
 * otherwise do its work twice for every control event this replica appends, which is most of them when many
 * sockets connect at once.
 */
import type { EventBus, Subscription } from '@trustmesh/platform-bus';
import type { EventEnvelope } from '@trustmesh/platform-events';

import type { JsonLogger } from '../logging/json-logger';
import { RELAY_CONTROL_TOPIC } from './control.events';

export type ControlEventListener = (envelope: EventEnvelope) => void;

/** How many ids of events delivered locally are remembered until their bus copy comes (oldest forgotten first). */
const MAX_REMEMBERED_LOCAL = 10_000;

export class ControlEventFeed {
  private readonly listeners = new Set<ControlEventListener>();
  private subscription: Subscription | undefined;
  /** Ids of events delivered by `deliverAppended` whose copy from the bus has not come yet. */
  private readonly deliveredLocally = new Set<string>();

  constructor(
    private readonly bus: EventBus,
    private readonly replicaId: string,
    private readonly logger: JsonLogger,
  ) {}

  async start(): Promise<void> {
    if (this.subscription) return;
    this.subscription = await this.bus.subscribe({
      groupId: `relay-gateway.feed.${this.replicaId}`,
      topics: [RELAY_CONTROL_TOPIC],
      start: 'latest',
      // A listener failure is logged, never retried: the feed carries notifications, the state is in the store.
      maxAttempts: 1,
      handler: async (record) => {
        if (this.deliveredLocally.delete(record.envelope.eventId)) return;
        this.deliver([record.envelope]);
      },
    });
  }

  async stop(): Promise<void> {
    const subscription = this.subscription;
    this.subscription = undefined;
    await subscription?.stop();
  }

  on(listener: ControlEventListener): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  /** Delivers what this replica just appended, at once; their copies from the bus are then not delivered again. */
  deliverAppended(envelopes: readonly EventEnvelope[]): void {
    for (const envelope of envelopes) {
      this.deliveredLocally.add(envelope.eventId);
      if (this.deliveredLocally.size > MAX_REMEMBERED_LOCAL) this.deliveredLocally.delete(this.deliveredLocally.values().next().value as string);
    }
    this.deliver(envelopes);
  }

  /** Delivers envelopes to this replica's listeners. */
  deliver(envelopes: readonly EventEnvelope[]): void {
    for (const envelope of envelopes) {
      for (const listener of [...this.listeners]) {
        try {
          listener(envelope);
        } catch (error) {
          this.logger.error('control event listener failed', { eventType: envelope.eventType, errorName: error instanceof Error ? error.name : 'unknown' });
        }
      }
    }
  }
}
