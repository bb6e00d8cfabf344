/**
 * @trustmesh/platform-logging: the one logger port every app and library logs through, its JSON-lines
 * adapter (one line shape in every process) and NestJS's LoggerService over it. See README.md.
 */
export { LOG_LEVELS, SILENT_LOGGER, logs, withContext, type LogFields, type LogLevel, type Logger } from './logger.port';
export { createJsonLineLogger, type JsonLineLoggerOptions } from './json-line.logger';
export { nestLine, nestLoggerAdapter, type NestLoggerLike } from './nest-logger.adapter';
