/**
 * The data plane's logging port. The module binds it to the gateway's JSON logger (`RELAY_LOGGER`). Fields
 * are ids, codes, counts and frame types only: never credentials, tickets, frame payloads or peer-supplied
 * text.
 */
export type DataPlaneLogLevel = 'debug' | 'info' | 'warn' | 'error';
export type LogFields = Readonly<Record<string, string | number | boolean | null | undefined>>;

export interface DataPlaneLogger {
  log(level: DataPlaneLogLevel, event: string, fields?: LogFields): void;
}

/** What failed, for logs: the error's class name, never its message (which may quote peer data). */
export function errorName(error: unknown): string {
  return error instanceof Error ? error.name : typeof error;
}
