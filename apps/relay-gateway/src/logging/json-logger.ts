/**
 * Structured logs: one JSON object per line on stdout (`time`, `level`, `service`, `replica`, `msg`, fields).
 * Callers pass fields, never secrets or payload content; `redact` is a second line of defence that drops any
 * field whose name suggests a secret. Also Nest's `LoggerService`, so framework messages share the format.
 */
import type { LoggerService } from '@nestjs/common';

import type { LogLevel } from '../config/relay-gateway.config';

export type LogFields = Record<string, string | number | boolean | null | undefined>;

const RANK: Record<LogLevel, number> = { debug: 10, info: 20, warn: 30, error: 40 };
const SECRET_FIELD = /credential|token|ticket|secret|password|code$|authorization|cookie|key$/i;
const SAFE_FIELDS = new Set(['errorCode', 'statusCode', 'closeCode', 'code']);

/** DI token of the process's `JsonLogger`. */
export const RELAY_LOGGER = Symbol.for('trustmesh.relay-gateway.Logger');

export class JsonLogger implements LoggerService {
  constructor(
    private readonly options: { level: LogLevel; service: string; replica: string; write?: (line: string) => void },
  ) {}

  debug(message: unknown, ...rest: unknown[]): void {
    this.emit('debug', message, rest);
  }
  verbose(message: unknown, ...rest: unknown[]): void {
    this.emit('debug', message, rest);
  }
  log(message: unknown, ...rest: unknown[]): void {
    this.emit('info', message, rest);
  }
  info(message: string, fields?: LogFields): void {
    this.emit('info', message, fields ? [fields] : []);
  }
  warn(message: unknown, ...rest: unknown[]): void {
    this.emit('warn', message, rest);
  }
  error(message: unknown, ...rest: unknown[]): void {
    this.emit('error', message, rest);
  }
  fatal(message: unknown, ...rest: unknown[]): void {
    this.emit('error', message, rest);
  }

  private emit(level: LogLevel, message: unknown, rest: unknown[]): void {
    if (RANK[level] < RANK[this.options.level]) return;
    const line: Record<string, unknown> = {
      time: new Date().toISOString(),
      level,
      service: this.options.service,
      replica: this.options.replica,
      msg: typeof message === 'string' ? message : message instanceof Error ? message.name : 'log',
    };
    for (const extra of rest) {
      if (extra && typeof extra === 'object' && !Array.isArray(extra) && !(extra instanceof Error)) {
        Object.assign(line, redact(extra as Record<string, unknown>));
      } else if (typeof extra === 'string') {
        // Nest passes its context (the class name) as the last string argument; stack traces stay out.
        if (!extra.includes('\n')) line['context'] = extra;
      }
    }
    (this.options.write ?? ((text: string) => process.stdout.write(text)))(`${JSON.stringify(line)}\n`);
  }
}

function redact(fields: Record<string, unknown>): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [name, value] of Object.entries(fields)) {
    if (value === undefined) continue;
    if (SECRET_FIELD.test(name) && !SAFE_FIELDS.has(name)) continue;
    out[name] = value;
  }
  return out;
}
