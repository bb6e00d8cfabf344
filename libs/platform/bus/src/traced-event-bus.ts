/**
 * An `EventBus` that traces what passes through it, whichever adapter runs behind it: a PRODUCER span per
 * publish, and a CONSUMER span per handled record, the child of the operation that produced its event (the
 * envelope's `traceparent`, which survives the event store's outbox and both adapters unchanged). The
 * handler runs under that span, so what it publishes or calls in turn stays in the same trace.
 *
 * With tracing off the spans are no-ops; the decorator adds a function call per publish and per record.
 */
import { traceConsume, traceConsumeBatch, tracePublish } from '@trustmesh/platform-tracing';

import type { BusRecord, EventBus } from './event-bus.port';

/** The messaging system each adapter names in spans (`messaging.system`). */
const MESSAGING_SYSTEM = { kafka: 'kafka', local: 'trustmesh_local' } as const;

export function tracedEventBus(bus: EventBus): EventBus {
  const system = MESSAGING_SYSTEM[bus.adapter];
  const eventOf = (record: BusRecord) => record.envelope;
  return {
    adapter: bus.adapter,
    publish: (topic, envelopes) => tracePublish({ system, topic }, envelopes, () => bus.publish(topic, envelopes)),
    subscribe: (options) => {
      const { batchHandler } = options;
      return bus.subscribe({
        ...options,
        handler: (record) => traceConsume({ system, topic: record.topic, group: options.groupId }, eventOf(record), () => options.handler(record)),
        ...(batchHandler
          ? {
              batchHandler: (records: readonly BusRecord[]) =>
                traceConsumeBatch({ system, topic: records[0]?.topic ?? '', group: options.groupId }, records.map(eventOf), () => batchHandler(records)),
            }
          : {}),
      });
    },
    subscriptions: () => bus.subscriptions(),
    health: () => bus.health(),
    close: () => bus.close(),
  };
}
