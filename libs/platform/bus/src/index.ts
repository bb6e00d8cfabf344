/**
 * @trustmesh/platform-bus: the event bus port and its adapters (`kafka`, `local`).
 */
export {
  EVENT_BUS,
  DLQ_HEADERS,
  deadLetterTopic,
  isDeadLetterTopic,
  TransientHandlerError,
  isTransientFailure,
  type EventBus,
  type BusRecord,
  type BusHealth,
  type RecordHandler,
  type BatchHandler,
  type SubscribeOptions,
  type Subscription,
  type PartitionLag,
  type RetryingPartition,
} from './event-bus.port';
export { BusError, type BusErrorCode } from './bus.error';
export { KafkaEventBus, DEFAULT_CONSUMER_TUNING, type KafkaEventBusOptions } from './kafka/kafka-event-bus';
export { createKafkaEventBus } from './kafka/kafka-event-bus.factory';
export { KafkaSubscription, type ConsumerTuning } from './kafka/kafka-subscription';
export type { ProducerMode } from './kafka/kafka-producer';
export { jsonLineBusLogger, type BusLogger, type BusLogLevel, type BusLogFields } from './bus-log';
export { installGracefulShutdown, type GracefulShutdownOptions } from './graceful-shutdown';
export {
  LocalEventBus,
  DEFAULT_LOCAL_CONSUMER_TUNING,
  DEFAULT_MAX_MESSAGE_BYTES,
  type LocalEventBusOptions,
  type InTransactionPublish,
  type InTransactionPublisher,
} from './local/local-event-bus';
export { createLocalEventBus, type LocalEventBusFactoryOptions } from './local/local-event-bus.factory';
export { LocalSubscription, type LocalConsumerTuning } from './local/local-subscription';
export { LOCAL_BUS_MIGRATIONS } from './local/local-bus.migrations';
export type { FeedPage, FeedPosition, FeedReadLimits, FeedReadProblem, MirroredPage, MirrorPosition } from './local/local-log.mirror';
export {
  applyLocalLogRetention,
  DEFAULT_LOCAL_LOG_RETENTION_MS,
  DEFAULT_LOCAL_LOG_MAX_AGE_MS,
  type LocalLogRetention,
  type LocalLogRetentionResult,
} from './local/local-log.retention';
export {
  inProcessWakeUps,
  postgresWakeUps,
  databaseWakeUps,
  WAKE_UP_CHANNEL,
  type WakeUpSource,
  type WakeUp,
  type ListeningDatabase,
  type PostgresWakeUpsOptions,
} from './local/wake-ups';
export { partitionForKey, murmur2 } from './partitioner';
export { DEAD_LETTER_CODES, deadLetterHeaders, failureCode, type DeadLetterOrigin } from './dead-letter';
export { isLegalTopicName } from './topic-name';
export { tracedEventBus } from './traced-event-bus';
