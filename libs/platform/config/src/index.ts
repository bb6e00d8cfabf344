/** @trustmesh/platform-config: platform configuration, validated once at startup. */
export { collectPlatformConfig, loadPlatformConfig, topicName, ConfigError, type PlatformConfig, type ConfigProblem, type BusAdapter } from './platform-config';
export { envReader, isHost, type EnvReader, type Env } from './env-reader';
export { variablesRead } from './variables-read';
export {
  grpcClientVariables,
  isLoopbackHost,
  readGrpcClientTarget,
  SecretText,
  type GrpcClientTarget,
  type GrpcClientTargetOptions,
  type GrpcClientVariables,
  type GrpcTargetCode,
} from './grpc-client-target';
