/**
 * Trace context over the event bus, where it travels in each event envelope's `traceparent` (set when the
 * event was appended, so it names the operation that caused it: a gRPC call, a WebSocket frame):
 * - a publish is a PRODUCER span under the active span, or, published later by the outbox, under its
 *   events' operation when they all share one, linked to each of them otherwise;
 * - handling an event is a CONSUMER span, a child of the operation that produced the event, so one request
 *   reads as one trace from the edge through the bus to every projection and consumer that handled it.
 */
import { context, trace } from '@opentelemetry/api';

import { inSpan, startSpan, failSpan, type TraceSpanOptions } from './spans';

/** What a messaging span needs to know of the bus and of one event. */
export interface MessagingTarget {
  /** `kafka`, or `trustmesh_local` for the database-backed bus. */
  system: string;
  topic: string;
}

export interface TracedEvent {
  eventId: string;
  eventType: string;
  traceparent: string | null;
}

/** A PRODUCER span around publishing `events` to a topic. */
export function tracePublish<T>(target: MessagingTarget, events: readonly TracedEvent[], publish: () => Promise<T>): Promise<T> {
  const traceparents = [...new Set(events.map((event) => event.traceparent).filter((value): value is string => value !== null))];
  const underActive = trace.getSpan(context.active()) !== undefined;
  const placement: Pick<TraceSpanOptions, 'parent' | 'links'> = underActive
    ? { links: traceparents }
    : traceparents.length === 1
      ? { parent: traceparents[0] }
      : { parent: null, links: traceparents };
  return inSpan(
    `send ${target.topic}`,
    { kind: 'producer', ...placement, attributes: { ...messagingAttributes(target, 'send'), 'messaging.batch.message_count': events.length } },
    () => publish(),
  );
}

/** A CONSUMER span around handling one event, a child of the operation that produced it. */
export function traceConsume<T>(target: MessagingTarget & { group: string }, event: TracedEvent, handle: () => Promise<T>): Promise<T> {
  return inSpan(`process ${target.topic}`, consumeOptions(target, event), () => handle());
}

/**
 * Handling a run of events at once (one transaction): each event still gets its CONSUMER span in its own
 * trace, all ended when the run settles, and failed together if it fails.
 */
export async function traceConsumeBatch<T>(target: MessagingTarget & { group: string }, events: readonly TracedEvent[], handle: () => Promise<T>): Promise<T> {
  const spans = events.map((event) => startSpan(`process ${target.topic}`, consumeOptions(target, event)));
  try {
    return await handle();
  } catch (error) {
    for (const span of spans) failSpan(span, error);
    throw error;
  } finally {
    for (const span of spans) span.end();
  }
}

function consumeOptions(target: MessagingTarget & { group: string }, event: TracedEvent): TraceSpanOptions {
  return {
    kind: 'consumer',
    parent: event.traceparent,
    attributes: {
      ...messagingAttributes(target, 'process'),
      'messaging.consumer.group.name': target.group,
      'messaging.message.id': event.eventId,
      'trustmesh.event.type': event.eventType,
    },
  };
}

function messagingAttributes(target: MessagingTarget, operation: 'send' | 'process'): Record<string, string> {
  return { 'messaging.system': target.system, 'messaging.destination.name': target.topic, 'messaging.operation.type': operation };
}
