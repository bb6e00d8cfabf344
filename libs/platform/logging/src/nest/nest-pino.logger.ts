/**
 * NestJS's logger through nestjs-pino, over the app's own pino logger (`createPinoLogger(...).pino`), so
 * framework lines (start, errors) and HTTP request lines come out with the same fields as everything else.
 *
 * - `nestLogger(logger)` is the app's `LoggerService` (`NestFactory.create(..., { logger })`). nestjs-pino
 *   keeps one process-wide logger for lines outside a request, and several apps share a process (`npm
 *   start`, tests): each app's Nest lines go to its own pino logger instead, and inside a request to
 *   pino-http's child of it. Nest's start-up inventory (`InstanceLoader`, `RoutesResolver`,
 *   `RouterExplorer`: a line per module, controller and route, once per replica) goes out at debug: it says
 *   nothing an operator acts on, and at info it buries the lines that do. `verbose` is debug. An error is
 *   logged as its class name: its message and stack can carry peer text.
 * - `httpLogModule(logger)` is nestjs-pino's module for the app's root module: one line per HTTP request
 *   (`request completed`/`request errored`) with the method, the path (never the query string, which can
 *   carry a ticket), the status and the time taken, and never a header (credentials travel in them).
 *   Successful requests log at debug (probes and scrapes would flood info), 4xx at info, 5xx at warn (the
 *   handler that failed logs its own error). An app whose paths carry what a log must not (a person's
 *   counterparty reference, say) passes `loggedPath` to write its route template instead.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';

import type { DynamicModule, LoggerService } from '@nestjs/common';
import { Logger, LoggerModule, PinoLogger } from 'nestjs-pino';
import { storage } from 'nestjs-pino/storage';
import type pino from 'pino';

import { loggableField, type PinoPortLogger } from '../pino.logger';

/** Nest's contexts whose info lines are the start-up inventory (modules, controllers, routes). */
const INVENTORY_CONTEXTS: ReadonlySet<string> = new Set(['InstanceLoader', 'RoutesResolver', 'RouterExplorer']);

/** nestjs-pino's logger bound to one app's pino logger outside a request, pino-http's child inside one. */
class AppPinoLogger extends PinoLogger {
  constructor(private readonly own: pino.Logger) {
    super({ pinoHttp: { logger: own } });
  }

  override get logger(): pino.Logger {
    return requestLogger() ?? this.own;
  }
}

/** The request-scoped logger nestjs-pino's middleware put in the async context, if any. */
function requestLogger(): pino.Logger | undefined {
  return storage.getStore()?.logger;
}

type NestLevel = 'debug' | 'info' | 'warn' | 'error' | 'fatal';

const plainObject = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null && !Array.isArray(value) && !(value instanceof Error);

class AppNestLogger extends Logger {
  override log(message: unknown, ...params: unknown[]): void {
    const context = params[params.length - 1];
    const level = typeof context === 'string' && INVENTORY_CONTEXTS.has(context) ? 'debug' : 'info';
    if (!this.withFields(level, message, params)) super[level === 'debug' ? 'debug' : 'log'](message, ...params);
  }

  override verbose(message: unknown, ...params: unknown[]): void {
    this.debug(message, ...params);
  }

  override debug(message: unknown, ...params: unknown[]): void {
    if (!this.withFields('debug', message, params)) super.debug(message, ...params);
  }

  override warn(message: unknown, ...params: unknown[]): void {
    if (!this.withFields('warn', message, params)) super.warn(message, ...params);
  }

  /**
   * An error as its class name, message and stack left out (they can carry peer text): Nest 11 passes the
   * Error; older callers pass its message and its stack, whose first word names the class.
   */
  override error(message: unknown, ...params: unknown[]): void {
    const stack = params.find((param): param is string => typeof param === 'string' && /\n\s*at /.test(param));
    const rest = params.filter((param) => param !== stack);
    if (message instanceof Error) super.error(message.name, ...rest);
    else if (stack !== undefined) super.error(/^[\w$.]+/.exec(stack)?.[0] ?? 'Error', ...rest);
    else if (!this.withFields('error', message, rest)) super.error(message, ...rest);
  }

  /**
   * `log('text', { field })` (the gateway's call style, and Nest's optional object argument): the object's
   * fields on the line (secret-named ones dropped), a string argument as the context. nestjs-pino alone would
   * take the object for the context.
   */
  private withFields(level: NestLevel, message: unknown, params: readonly unknown[]): boolean {
    const fields = params.find(plainObject);
    if (fields === undefined || typeof message !== 'string') return false;
    const line: Record<string, unknown> = {};
    for (const [name, value] of Object.entries(fields)) if (loggableField(name, value)) line[name] = value;
    const context = params.find((param) => typeof param === 'string');
    if (context !== undefined) line['context'] = context;
    this.logger[level](line, message);
    return true;
  }
}

/** The app's Nest logger; `bindings` (e.g. `{ component: 'nest' }`) go on each of its lines outside a request. */
export function nestLogger(logger: PinoPortLogger, bindings: pino.Bindings = {}): LoggerService {
  return new AppNestLogger(new AppPinoLogger(logger.pino.child(bindings)), {});
}

/** A request line's level by its status: successes at debug (probes and scrapes would flood info). */
const levelOfStatus = (status: number): pino.Level => (status >= 500 ? 'warn' : status >= 400 ? 'info' : 'debug');

export interface HttpLogOptions {
  /** The path as logged (default: as requested, without the query string). */
  loggedPath?: (path: string) => string;
}

/** The request as logged: its method and path only. */
function requestFields(request: IncomingMessage, loggedPath: (path: string) => string): { method: string | undefined; path: string } {
  const url = (request as IncomingMessage & { originalUrl?: string }).originalUrl ?? request.url ?? '';
  return { method: request.method, path: loggedPath(url.split('?')[0] ?? '') };
}

export function httpLogModule(logger: PinoPortLogger, options: HttpLogOptions = {}): DynamicModule {
  const loggedPath = options.loggedPath ?? ((path: string) => path);
  return LoggerModule.forRoot({
    pinoHttp: {
      logger: logger.pino,
      quietReqLogger: true,
      customLogLevel: (_request: IncomingMessage, response: ServerResponse, error?: Error) => (error ? 'warn' : levelOfStatus(response.statusCode)),
      serializers: {
        req: (request: IncomingMessage) => requestFields(request, loggedPath),
        res: (response: ServerResponse) => ({ statusCode: response.statusCode }),
      },
    },
  });
}
