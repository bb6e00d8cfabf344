/**
 * The data plane's logging port: the platform's one `Logger` port (`@trustmesh/platform-logging`), bound by
 * the module to the gateway's logger (`JsonLogger.port`). Fields are ids, codes, counts and frame types only:
 * never credentials, tickets, frame payloads or peer-supplied text.
 */
import type { LogFields, Logger, LogLevel } from '@trustmesh/platform-logging';

export type DataPlaneLogLevel = LogLevel;
export type { LogFields };
export type DataPlaneLogger = Logger;

/** What failed, for logs: the error's class name, never its message (which may quote peer data). */
export function errorName(error: unknown): string {
  return error instanceof Error ? error.name : typeof error;
}
