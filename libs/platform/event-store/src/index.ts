/**
 * @trustmesh/platform-event-store: append-only event streams with optimistic concurrency, a global order
 * and a transactional outbox, on the platform database (PGlite or Postgres) through Prisma.
 */
export {
  openEventStore,
  EventStore,
  DEFAULT_MAX_EVENT_DATA_BYTES,
  type EventStoreOptions,
  type AppendResult,
  type RecordedEvent,
  type OutboxMessage,
  type ReadStreamOptions,
  type ReadAllOptions,
  type PublishPendingOptions,
  type PublishContext,
} from './event-store';
export type { AppendOptions, ExpectedVersion } from './append-request';
export { EventStoreError, ConcurrencyError, EVENT_STORE_ERROR_CODES, type EventStoreErrorCode } from './event-store.errors';
export { EVENT_STORE_MIGRATIONS } from './event-store.migrations';
export { OutboxPublisher, publishInOrder, type OutboxPublisherOptions, type OutboxPublisherStats } from './outbox-publisher';
