/**
 * The JSON-lines adapter of the `Logger` port: one object per line,
 *
 *   {"time","level","service","replica","msg", ...context, ...fields}
 *
 * the same shape in every process (the relay gateway, the companion simulator, the platform libraries they
 * run), so one query reads them all: `service` names the app, `replica` the process instance (the gateway's
 * RELAY_REPLICA_ID; else the host name), `component` (a context field) the library or module that logged.
 *
 * Second line of defence: a field whose name suggests a secret (credential, token, ticket, password, key, …)
 * is dropped, except the code fields (`code`, `errorCode`, `statusCode`, `closeCode`).
 */
import { hostname } from 'node:os';

import { logs, type LogFields, type Logger, type LogLevel } from './logger.port';

const SECRET_FIELD = /credential|token|ticket|secret|password|code$|authorization|cookie|key$/i;
const SAFE_FIELDS = new Set(['errorCode', 'statusCode', 'closeCode', 'code']);
/** The line's own keys: a field of the same name cannot overwrite them. */
const RESERVED = new Set(['time', 'level', 'service', 'replica', 'msg']);

export interface JsonLineLoggerOptions {
  /** The app (`relay-gateway`, `companion-simulator`); a library's default logger names the library. */
  service: string;
  /** The process instance; default the host name. */
  replica?: string;
  /** Lines below it are dropped (default `info`). */
  level?: LogLevel;
  /** Where each line goes, newline included (default stdout). */
  write?: (line: string) => void;
  /** Fields on every line, e.g. `{ component: 'platform-bus.kafka' }`. */
  context?: LogFields;
}

export function createJsonLineLogger(options: JsonLineLoggerOptions): Logger {
  const threshold = options.level ?? 'info';
  const replica = options.replica ?? hostname();
  const write = options.write ?? ((line: string) => void process.stdout.write(line));
  const context = options.context ?? {};
  return {
    log(level, message, fields) {
      if (!logs(level, threshold)) return;
      const line: Record<string, unknown> = { time: new Date().toISOString(), level, service: options.service, replica, msg: message };
      for (const source of [context, fields ?? {}]) {
        for (const [name, value] of Object.entries(source)) {
          if (value === undefined || RESERVED.has(name)) continue;
          if (SECRET_FIELD.test(name) && !SAFE_FIELDS.has(name)) continue;
          line[name] = value;
        }
      }
      write(`${JSON.stringify(line)}\n`);
    },
  };
}
