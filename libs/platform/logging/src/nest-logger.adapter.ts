/**
 * NestJS's `LoggerService` over the `Logger` port, so framework lines (module init, routes, errors) come out
 * in the same shape as everything else. Structural: Nest is not imported, a library stays framework-free.
 *
 * Nest calls `log(message, ...optionalParams)` with its context (a class name) as the last string; that
 * becomes the `context` field. An Error message is logged as its class name and stack traces stay out: they
 * can carry peer text.
 *
 * Nest's start-up inventory (every module initialised, every controller and every route mapped: dozens of
 * lines per start, once per replica) goes out at debug: it says nothing an operator acts on, and at info it
 * buries the lines that do. Nest's own start and stop lines (`NestFactory`, `NestApplication`,
 * `NestMicroservice`), its warnings and its errors keep their level.
 */
import type { LogFields, Logger, LogLevel } from './logger.port';

export interface NestLoggerLike {
  log(message: unknown, ...optionalParams: unknown[]): void;
  error(message: unknown, ...optionalParams: unknown[]): void;
  warn(message: unknown, ...optionalParams: unknown[]): void;
  debug(message: unknown, ...optionalParams: unknown[]): void;
  verbose(message: unknown, ...optionalParams: unknown[]): void;
  fatal(message: unknown, ...optionalParams: unknown[]): void;
}

/** Nest's positional arguments as one line: the message, the object fields, and the context string. */
export function nestLine(message: unknown, rest: readonly unknown[]): { message: string; fields: LogFields } {
  const fields: Record<string, string | number | boolean | null | undefined> = {};
  for (const extra of rest) {
    if (extra && typeof extra === 'object' && !Array.isArray(extra) && !(extra instanceof Error)) {
      Object.assign(fields, extra);
    } else if (typeof extra === 'string' && !extra.includes('\n')) {
      fields['context'] = extra;
    }
  }
  const text = typeof message === 'string' ? message : message instanceof Error ? message.name : 'log';
  return { message: text, fields };
}

/** Nest's contexts whose info lines are the start-up inventory (modules, controllers, routes). */
const INVENTORY_CONTEXTS: ReadonlySet<string> = new Set(['InstanceLoader', 'RoutesResolver', 'RouterExplorer']);

export function nestLoggerAdapter(logger: Logger): NestLoggerLike {
  const at = (level: LogLevel) => (message: unknown, ...rest: unknown[]) => {
    const line = nestLine(message, rest);
    const context = line.fields['context'];
    const demoted = level === 'info' && typeof context === 'string' && INVENTORY_CONTEXTS.has(context);
    logger.log(demoted ? 'debug' : level, line.message, line.fields);
  };
  return { log: at('info'), error: at('error'), warn: at('warn'), debug: at('debug'), verbose: at('debug'), fatal: at('error') };
}
