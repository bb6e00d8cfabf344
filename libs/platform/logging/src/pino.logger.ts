/**
 * The `Logger` port on pino: one JSON object per line, the same fields in every process,
 *
 *   {"level","time","service","replica","traceId"?, ...context, ...fields, "msg"}
 *
 * so one query reads them all: `service` names the app, `replica` the process instance (the app's replica
 * id; else the host name), `component` (a context field) the library or module that logged, `traceId` the
 * trace active when the line was written (OpenTelemetry's active span; absent when none is recording, so
 * the field appears as soon as the process runs a tracer). `level` is the level's name, `time` ISO 8601.
 *
 * Second line of defence: a field whose name suggests a secret (credential, token, ticket, password, key, …)
 * is dropped, except the code fields (`code`, `errorCode`, `statusCode`, `closeCode`); an error object
 * under `err` (Nest's error lines) is written as its class name only, because its message and stack can
 * carry peer text. A field cannot overwrite the line's own keys.
 */
import { hostname } from 'node:os';

import { isSpanContextValid, trace } from '@opentelemetry/api';
import pino, { type DestinationStream } from 'pino';

import type { LogFields, Logger, LogLevel } from './logger.port';

const SECRET_FIELD = /credential|token|ticket|secret|password|code$|authorization|cookie|key$/i;
const SAFE_FIELDS: ReadonlySet<string> = new Set(['errorCode', 'statusCode', 'closeCode', 'code']);
/** The line's own keys: a field of the same name cannot overwrite them. */
const RESERVED: ReadonlySet<string> = new Set(['time', 'level', 'service', 'replica', 'msg', 'traceId']);

export interface PinoLoggerOptions {
  /** The app (`relay-gateway`, `shield-analyzer`); a library's default logger names the library. */
  service: string;
  /** The process instance; default the host name. */
  replica?: string;
  /** Lines below it are dropped (default `info`). */
  level?: LogLevel;
  /** Where each line goes, newline included (default stdout, written synchronously so no line is lost at exit). */
  write?: (line: string) => void;
  /** Fields on every line, e.g. `{ component: 'platform-bus.kafka' }`. */
  context?: LogFields;
}

/** The port, with the pino logger behind it for what takes one (nestjs-pino, pino-http). */
export interface PinoPortLogger extends Logger {
  readonly pino: pino.Logger;
}

/** Whether a field may reach a line: not one of its own keys, not named like a secret, not undefined. */
export function loggableField(name: string, value: unknown): boolean {
  if (value === undefined || RESERVED.has(name)) return false;
  return !SECRET_FIELD.test(name) || SAFE_FIELDS.has(name);
}

function loggableFields(fields: LogFields | undefined): Record<string, unknown> {
  const kept: Record<string, unknown> = {};
  for (const [name, value] of Object.entries(fields ?? {})) if (loggableField(name, value)) kept[name] = value;
  return kept;
}

/** The active trace's id, when a span is recording in this context. */
function activeTrace(): { traceId?: string } {
  const span = trace.getActiveSpan();
  if (!span) return {};
  const context = span.spanContext();
  return isSpanContextValid(context) ? { traceId: context.traceId } : {};
}

/** An error as its class name: its message and stack can carry peer text. */
function errorClass(error: unknown): { type: string } {
  return { type: error instanceof Error ? error.name : typeof error };
}

export function createPinoLogger(options: PinoLoggerOptions): PinoPortLogger {
  const destination: DestinationStream = options.write ? { write: options.write } : pino.destination({ dest: 1, sync: true });
  const root = pino(
    {
      level: options.level ?? 'info',
      base: { service: options.service, replica: options.replica ?? hostname() },
      timestamp: pino.stdTimeFunctions.isoTime,
      formatters: { level: (label) => ({ level: label }) },
      mixin: activeTrace,
      serializers: { err: errorClass },
    },
    destination,
  );
  const logger = options.context ? root.child(loggableFields(options.context)) : root;
  return {
    pino: logger,
    log(level, message, fields) {
      logger[level](loggableFields(fields), message);
    },
  };
}
