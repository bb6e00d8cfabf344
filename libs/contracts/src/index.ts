// Public surface of the gRPC contracts generated from <repo>/proto (see generated/README.md).
//
// One namespace per proto package and generator:
//   - `relayControlV1`, `serviceInfoV1`, `simulatorControlV1`, `shieldAnalyzerV1`, `cardRegistryV1`, `eventFeedV1`: NestJS flavour. Message interfaces, `*Controller`/`*Client`
//     interfaces, `*ControllerMethods()` decorators, and the `*_PACKAGE_NAME` / `*_SERVICE_NAME` constants to
//     use instead of string literals. On the wire NestJS uses proto-loader: configure it with
//     `protoFilePath(x.protobufFileName)` and `PROTO_LOADER_OPTIONS`.
//   - `relayControlV1GrpcJs`, `serviceInfoV1GrpcJs`, `simulatorControlV1GrpcJs`, `shieldAnalyzerV1GrpcJs`, `cardRegistryV1GrpcJs`, `eventFeedV1GrpcJs`: plain @grpc/grpc-js flavour for e2e tests and tools.
//     `*Service` definitions for `server.addService`, `*Server` handler interfaces, `*Client` classes, and
//     message codecs (encode/decode/fromJSON/toJSON). They need no .proto file at run time.
// Both flavours are generated from the same protos with the same type flags, so their message types agree.
export * as relayControlV1 from './generated/nestjs/trustmesh/relay/v1/relay_control';
export * as serviceInfoV1 from './generated/nestjs/trustmesh/platform/v1/service_info';
export * as simulatorControlV1 from './generated/nestjs/trustmesh/relay/v1/simulator_control';
export * as shieldAnalyzerV1 from './generated/nestjs/trustmesh/shield/v1/shield_analyzer';
export * as cardRegistryV1 from './generated/nestjs/trustmesh/registry/v1/card_registry';
export * as eventFeedV1 from './generated/nestjs/trustmesh/platform/v1/event_feed';
export * as relayControlV1GrpcJs from './generated/grpc-js/trustmesh/relay/v1/relay_control';
export * as serviceInfoV1GrpcJs from './generated/grpc-js/trustmesh/platform/v1/service_info';
export * as simulatorControlV1GrpcJs from './generated/grpc-js/trustmesh/relay/v1/simulator_control';
export * as shieldAnalyzerV1GrpcJs from './generated/grpc-js/trustmesh/shield/v1/shield_analyzer';
export * as cardRegistryV1GrpcJs from './generated/grpc-js/trustmesh/registry/v1/card_registry';
export * as eventFeedV1GrpcJs from './generated/grpc-js/trustmesh/platform/v1/event_feed';
export type { Timestamp } from './generated/nestjs/google/protobuf/timestamp';

export { PROTO_LOADER_OPTIONS, PROTO_ROOT, protoFilePath, protoRootCandidates, resolveProtoRoot } from './proto-files';
export { dateFromTimestamp, timestampFromDate } from './timestamps';
export { callUnary, type UnaryInvoker } from './unary-call';
export { bindPlaintext, shutdownGracefully } from './grpc-server.lifecycle';
export { addReflection, GrpcHealth, HEALTH_REFRESH_MS, HEALTH_SERVICE_NAME, serveHealthAndReflection, serviceNameOf, type GrpcIntrospectionOptions } from './grpc-health';
export {
  bearerCredentialOf,
  GRPC_STATUS_OF_REFUSAL,
  isUndecodable,
  serveUnary,
  tolerantDecoding,
  type RefusalKind,
  type UnaryAnswer,
  type UnaryEdge,
  type UnaryRefusal,
} from './unary-edge';
export { decodeRegistryRefusal, encodeRegistryRefusal, REGISTRY_CATALOG_RESULT_METADATA, REGISTRY_ISSUES_METADATA, type RegistryRefusal, type RegistryRefusalIssue } from './registry-refusal';
export { bearerMetadataOf, channelCredentialsOf, type ClientChannelTarget } from './client-channel';
