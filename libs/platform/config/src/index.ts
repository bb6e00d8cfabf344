/** @trustmesh/platform-config: platform configuration, validated once at startup. */
export { loadPlatformConfig, topicName, ConfigError, type PlatformConfig, type ConfigProblem, type BusAdapter } from './platform-config';
export { envReader, type EnvReader, type Env } from './env-reader';
