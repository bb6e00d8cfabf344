/**
 * Structured log lines of the data plane: one JSON object per line on stderr. Fields are ids, codes,
 * counts and frame types only: never credentials, tickets, frame payloads or peer-supplied text.
 */
export type DataPlaneLogLevel = 'debug' | 'info' | 'warn' | 'error';
export type LogFields = Readonly<Record<string, string | number | boolean | null | undefined>>;

export interface DataPlaneLogger {
  log(level: DataPlaneLogLevel, event: string, fields?: LogFields): void;
}

const RANK: Record<DataPlaneLogLevel, number> = { debug: 10, info: 20, warn: 30, error: 40 };

export function jsonLineLogger(minimum: DataPlaneLogLevel = 'info', write: (line: string) => void = (line) => process.stderr.write(line)): DataPlaneLogger {
  return {
    log(level, event, fields = {}) {
      if (RANK[level] < RANK[minimum]) return;
      write(`${JSON.stringify({ time: new Date().toISOString(), level, component: 'relay-gateway.data-plane', event, ...fields })}\n`);
    },
  };
}

export const silentLogger: DataPlaneLogger = { log: () => undefined };
