/**
 * The event backbone's lags, as gauges of the app's prom-client registry read on each scrape:
 *
 * - `bus_consumer_lag_messages{topic,partition}`: messages published to a partition that this process's
 *   consumers have not consumed yet (for the local bus, the backlog behind each subscription). When several
 *   of its consumers read one partition, the one furthest behind. Consumer groups are not a label: some
 *   name a process instance, and a label must not grow with restarts.
 * - `outbox_backlog_rows`: events appended but not yet published by the outbox publisher.
 * - `projection_lag_events{projection}`: events of the log its projection has not applied yet.
 *
 * A reading that fails (the broker or the database away) leaves its family out of that scrape rather than
 * reporting 0 (see `@trustmesh/platform-metrics`).
 */
import type { EventBus } from '@trustmesh/platform-bus';
import { collectedGauge, type Registry, type Sample } from '@trustmesh/platform-metrics';

export interface BackboneMetricsSources {
  readonly bus: Pick<EventBus, 'subscriptions'>;
  /** The app's event store, when it has an outbox. */
  readonly store?: { outboxBacklog(): Promise<number> };
  /** The app's projection runners. */
  readonly projections?: readonly { status(): Promise<{ projection: string; totalLag: number }> }[];
}

async function consumerLag(bus: Pick<EventBus, 'subscriptions'>): Promise<Sample[]> {
  const furthest = new Map<string, { topic: string; partition: number; lag: number }>();
  const readings = await Promise.allSettled(bus.subscriptions().map((subscription) => subscription.lag()));
  for (const entry of readings.flatMap((reading) => (reading.status === 'fulfilled' ? reading.value : []))) {
    const key = `${entry.topic}\u0000${entry.partition}`;
    const known = furthest.get(key);
    if (!known || entry.lag > known.lag) furthest.set(key, { topic: entry.topic, partition: entry.partition, lag: entry.lag });
  }
  return [...furthest.values()].map(({ topic, partition, lag }) => ({ labels: { topic, partition }, value: lag }));
}

export function registerBackboneMetrics(registry: Registry, sources: BackboneMetricsSources): void {
  collectedGauge(registry, {
    name: 'bus_consumer_lag_messages',
    help: "Messages of a partition not yet consumed by this process's consumers (the furthest behind), by topic and partition.",
    labelNames: ['topic', 'partition'],
    collect: () => consumerLag(sources.bus),
  });
  const { store, projections } = sources;
  if (store) {
    collectedGauge(registry, {
      name: 'outbox_backlog_rows',
      help: 'Appended events the outbox publisher has not published yet.',
      collect: async () => [{ value: await store.outboxBacklog() }],
    });
  }
  if (projections && projections.length > 0) {
    collectedGauge(registry, {
      name: 'projection_lag_events',
      help: 'Events of the log a projection has not applied yet, by projection.',
      labelNames: ['projection'],
      collect: async () => {
        // One projection whose database or broker is away leaves out its own series only.
        const statuses = await Promise.allSettled(projections.map((runner) => runner.status()));
        return statuses.flatMap((status) => (status.status === 'fulfilled' ? [{ labels: { projection: status.value.projection }, value: status.value.totalLag }] : []));
      },
    });
  }
}
