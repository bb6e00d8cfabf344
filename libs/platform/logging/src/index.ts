/**
 * @trustmesh/platform-logging: the one logger port every app and library logs through and its pino adapter
 * (one line shape in every process). NestJS's logger over it: `@trustmesh/platform-logging/nest`. See README.md.
 */
export { LOG_LEVELS, SILENT_LOGGER, logs, withContext, type LogFields, type LogLevel, type Logger } from './logger.port';
export { createPinoLogger, loggableField, type PinoLoggerOptions, type PinoPortLogger } from './pino.logger';
