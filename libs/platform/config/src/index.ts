/** @trustmesh/platform-config: platform configuration, validated once at startup. */
export { loadPlatformConfig, topicName, ConfigError, type PlatformConfig, type ConfigProblem, type BusAdapter } from './platform-config';
