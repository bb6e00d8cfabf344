/**
 * @trustmesh/platform-bus: the event bus port and its adapters (`kafka`, `local`).
 */
export {
  EVENT_BUS,
  DLQ_HEADERS,
  deadLetterTopic,
  type EventBus,
  type BusRecord,
  type BusHealth,
  type RecordHandler,
  type SubscribeOptions,
  type Subscription,
  type PartitionLag,
} from './event-bus.port';
