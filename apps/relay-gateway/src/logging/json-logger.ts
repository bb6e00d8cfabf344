/**
 * The gateway's logger: the platform's one line shape (`@trustmesh/platform-logging` on pino: `level`,
 * `time`, `service`, `replica`, `traceId` when a trace is active, fields, `msg`; one JSON object per line on
 * stdout), with the gateway's call style (`info(message, fields)`) and Nest's `LoggerService` (nestjs-pino),
 * so framework messages share the format. `port` is the same logger as the platform's port: the bus and other
 * libraries log through it (with a `component`), so every line of the process has the same fields. Callers
 * pass fields, never secrets or payload content; the platform logger drops fields named like secrets as a
 * second line of defence.
 */
import type { LoggerService } from '@nestjs/common';
import { createPinoLogger, type LogFields, type LogLevel, type PinoPortLogger } from '@trustmesh/platform-logging';
import { nestLogger } from '@trustmesh/platform-logging/nest';

export type { LogFields };

/** DI token of the process's `JsonLogger`. */
export const RELAY_LOGGER = Symbol.for('trustmesh.relay-gateway.Logger');

export class JsonLogger implements LoggerService {
  /** The platform logger port behind this one (same service, replica, level and sink). */
  readonly port: PinoPortLogger;
  private readonly nest: LoggerService;

  constructor(options: { level: LogLevel; service: string; replica: string; write?: (line: string) => void }) {
    this.port = createPinoLogger({ service: options.service, replica: options.replica, level: options.level, ...(options.write ? { write: options.write } : {}) });
    this.nest = nestLogger(this.port);
  }

  debug(message: unknown, ...rest: unknown[]): void {
    this.nest.debug?.(message, ...rest);
  }
  verbose(message: unknown, ...rest: unknown[]): void {
    this.nest.verbose?.(message, ...rest);
  }
  log(message: unknown, ...rest: unknown[]): void {
    this.nest.log(message, ...rest);
  }
  info(message: string, fields?: LogFields): void {
    this.port.log('info', message, fields);
  }
  warn(message: unknown, ...rest: unknown[]): void {
    this.nest.warn(message, ...rest);
  }
  error(message: unknown, ...rest: unknown[]): void {
    this.nest.error(message, ...rest);
  }
  fatal(message: unknown, ...rest: unknown[]): void {
    this.nest.fatal?.(message, ...rest);
  }
}
