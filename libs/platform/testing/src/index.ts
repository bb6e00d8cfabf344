/**
 * @trustmesh/platform-testing: what integration tests share: librdkafka's mock cluster (started and
 * stopped through kcat), a Jest fixture that provides a Kafka cluster per spec file, a broker outage
 * for a client under test, services run as child processes, a topic reader for raw messages, and small
 * helpers for unique names and polling, and an in-process OTLP/HTTP collector for traces.
 */
export { startKafkaMock, KafkaMockError, type KafkaMock, type KafkaMockOptions, type KafkaMockErrorCode } from './kafka-mock';
export {
  useKafkaCluster,
  provideKafkaCluster,
  MOCK_CLUSTER_SESSION,
  type KafkaCluster,
  type KafkaClusterHandle,
  type KafkaClusterOptions,
} from './kafka-cluster.fixture';
export { createBrokerGate, type BrokerGate, type BrokerGateStats } from './broker-outage';
export { readTopic, type TopicMessage, type ReadTopicOptions } from './kafka-topic.reader';
export {
  startServiceChild,
  announceReady,
  serveBrokerGateOverIpc,
  type ServiceChild,
  type ServiceChildOptions,
  type RemoteBrokerGate,
} from './service-child';
export { waitUntil, type WaitOptions } from './wait-until';
export { uniqueName } from './unique-name';
export { startOtlpTestCollector, OTLP_SPAN_KIND, type OtlpTestCollector, type CollectedSpan } from './otlp-collector';
