/**
 * The control plane's access to the event store: append (then wake the outbox publisher and tell this
 * replica's listeners at once) and read a stream. Appends carry the expected version that makes a command
 * single-use: two replicas appending at the same version get one success and one `ConcurrencyError`.
 */
import type { EventEnvelope } from '@trustmesh/platform-events';
import type { ExpectedVersion, EventStore, OutboxPublisher, RecordedEvent } from '@trustmesh/platform-event-store';

import type { ControlEventFeed } from './control-event-feed';
import type { ControlEvent } from './control.events';

export class ControlStore {
  constructor(
    private readonly store: EventStore,
    private readonly publisher: OutboxPublisher,
    private readonly feed: ControlEventFeed,
  ) {}

  async append(streamId: string, expectedVersion: ExpectedVersion, events: readonly ControlEvent[], correlationId?: string): Promise<EventEnvelope[]> {
    const result = await this.store.append(streamId, expectedVersion, [...events], correlationId ? { correlationId } : {});
    const envelopes = result.events.map((event) => event.envelope);
    this.publisher.kick();
    this.feed.deliverAppended(envelopes);
    return envelopes;
  }

  async read(streamId: string): Promise<EventEnvelope[]> {
    const events = await this.store.readStream(streamId);
    return events.map((event) => event.envelope);
  }

  /**
   * A stream's events with their global positions: the database's order of commits across all streams
   * (appends are serialised), which orders events of different streams without any replica's clock.
   */
  readRecorded(streamId: string): Promise<RecordedEvent[]> {
    return this.store.readStream(streamId);
  }
}
