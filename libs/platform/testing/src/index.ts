/**
 * @trustmesh/platform-testing: what integration tests share: librdkafka's mock cluster (started and
 * stopped through kcat), a Jest fixture that provides a Kafka cluster per spec file, a broker outage
 * for a client under test, services run as child processes, a topic reader for raw messages, a gRPC
 * health and reflection client, the deployment files under docker/ as kubectl and docker-compose render
 * them, an in-process OTLP/HTTP collector for traces, and small helpers for unique names and polling.
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
export { grpcHealthClient, type GrpcHealthClient, type HealthStatus, type HealthWatch } from './grpc-health.client';
export { uniqueName } from './unique-name';
export { freeLoopbackPort } from './free-port';
export {
  renderKustomization,
  renderCompose,
  manifestObject,
  containerEnvironment,
  composeEnvironment,
  composeTargetPorts,
  DOCKER_DIR,
  KUBERNETES_OVERLAYS,
  type ManifestObject,
  type ComposeService,
} from './deployment-manifests';
export { describeServerAppDeployment, COMPOSE_TEST_VARIABLES, PLACEHOLDER_DIGEST, type ServerAppDeployment, type ServerAppConfigShape } from './deployment-specs';
export { startOtlpTestCollector, OTLP_SPAN_KIND, type OtlpTestCollector, type CollectedSpan } from './otlp-collector';
