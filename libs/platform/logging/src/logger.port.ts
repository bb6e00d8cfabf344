/**
 * The one logging port of every Trustmesh app and library: `log(level, message, fields)`. Libraries take a
 * `Logger` from their app (the bus, the gateway's modules, the simulator), so each process writes one line
 * shape whoever logs; `pino.logger.ts` is the adapter that writes it.
 *
 * Fields are identifiers, counters, codes and error class names: never a secret, never payload content. The
 * JSON adapter drops fields whose names suggest a secret as a second line of defence, not as a licence.
 */
export type LogLevel = 'debug' | 'info' | 'warn' | 'error';

export type LogFields = Readonly<Record<string, string | number | boolean | null | undefined>>;

export interface Logger {
  log(level: LogLevel, message: string, fields?: LogFields): void;
}

export const LOG_LEVELS: readonly LogLevel[] = ['debug', 'info', 'warn', 'error'];

const RANK: Record<LogLevel, number> = { debug: 10, info: 20, warn: 30, error: 40 };

/** Whether a line at `level` passes a `threshold`. */
export function logs(level: LogLevel, threshold: LogLevel): boolean {
  return RANK[level] >= RANK[threshold];
}

/** A logger that adds `context` (e.g. `{ component: 'platform-bus.kafka' }`) to every line; the line's own fields win. */
export function withContext(logger: Logger, context: LogFields): Logger {
  return { log: (level, message, fields) => logger.log(level, message, { ...context, ...fields }) };
}

/** A logger that writes nothing (for tests and tools that must stay quiet). */
export const SILENT_LOGGER: Logger = { log: () => undefined };
