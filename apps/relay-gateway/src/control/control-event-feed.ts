/**
 * Every control event, on every replica: a bus subscription of this replica's own consumer group on
 * `relay.control.v1` (so each replica gets every message, unlike the projection's shared group), from the
 * end of the log, plus immediate local delivery of what this replica appended itself. Revocations and
 * presence changes reach sockets and status watchers on all replicas this way.
 *
 * Delivery is at least once (a local event arrives again from the bus): listeners are idempotent.
 */
import type { EventBus, Subscription } from '@trustmesh/platform-bus';
import type { EventEnvelope } from '@trustmesh/platform-events';

import type { JsonLogger } from '../logging/json-logger';
import { RELAY_CONTROL_TOPIC } from './control.events';

export type ControlEventListener = (envelope: EventEnvelope) => void;

export class ControlEventFeed {
  private readonly listeners = new Set<ControlEventListener>();
  private subscription: Subscription | undefined;

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
      handler: async (record) => this.deliver([record.envelope]),
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

  /** Delivers envelopes to this replica's listeners (used for what this replica appended, and by the bus). */
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
