/**
 * How consumers of the local bus hear that something changed, instead of polling hard: new messages on a
 * topic, or a group whose membership or leases changed (a member joined, left, or released a partition).
 *
 * A change announces itself in the transaction that makes it visible, and listeners are woken once it
 * committed. Where the wake-ups come from depends on the database:
 * - Postgres server: `pg_notify` in the transaction, and LISTEN on one dedicated connection per bus (not a
 *   pool connection: those are shared and recycled). Several processes on one server hear each other.
 * - a `Database` that offers `listen` (PGlite's `listen`, once the database library exposes it): the same
 *   `pg_notify`, heard through that.
 * - embedded PGlite otherwise: an in-process signal per database location. PGlite is one process (the data
 *   directory is locked to it), so every publisher and consumer of that database is in this process.
 * None of them is trusted alone: consumers also poll at a bounded interval, and a LISTEN connection that
 * drops is reopened, with a `resync` wake-up for whatever was missed in between.
 *
 * Cost: a transaction that notified takes Postgres' notification-queue lock at commit, so publishing
 * commits are serialised database-wide for that instant; one machine's traffic never notices, which is
 * the scale this adapter serves (Kafka is the answer beyond it).
 */
import { Client } from 'pg';

import type { Database, SqlExecutor } from '@trustmesh/platform-database';

import { describeError, type BusLogger } from '../bus-log';

/** The one notification channel of the local bus (per database, as Postgres notifications are). */
export const WAKE_UP_CHANNEL = 'trustmesh_bus';

export type WakeUp = { kind: 'messages'; topic: string } | { kind: 'group'; groupId: string } | { kind: 'resync' };

export function encodeWakeUp(wakeUp: WakeUp): string {
  switch (wakeUp.kind) {
    case 'messages':
      return `m:${wakeUp.topic}`;
    case 'group':
      return `g:${wakeUp.groupId}`;
    case 'resync':
      return 'r:';
  }
}

export function decodeWakeUp(payload: string): WakeUp | undefined {
  const name = payload.slice(2);
  if (payload.startsWith('m:')) return { kind: 'messages', topic: name };
  if (payload.startsWith('g:')) return { kind: 'group', groupId: name };
  if (payload.startsWith('r:')) return { kind: 'resync' };
  return undefined;
}

export type WakeUpListener = (wakeUp: WakeUp) => void;

export interface WakeUpSource {
  readonly kind: 'postgres-listen' | 'database-listen' | 'in-process';
  /** Whether `announce` writes in the transaction (a notification); if not, a change needs no transaction for it. */
  readonly announcesInTransaction: boolean;
  /** Starts delivering wake-ups to `listener`; resolves once later announcements will be heard (or polling has to do). */
  start(listener: WakeUpListener): Promise<void>;
  /** Called inside the transaction that makes the change visible (or alone, for a change already visible). */
  announce(sql: SqlExecutor, wakeUps: readonly WakeUp[]): Promise<void>;
  /** Called once that transaction committed. */
  committed(wakeUps: readonly WakeUp[]): void;
  close(): Promise<void>;
}

async function notify(sql: SqlExecutor, wakeUps: readonly WakeUp[]): Promise<void> {
  for (const payload of new Set(wakeUps.map(encodeWakeUp))) await sql.query('SELECT pg_notify($1, $2)', [WAKE_UP_CHANNEL, payload]);
}

const inProcessListeners = new Map<string, Set<WakeUpListener>>();

/** Wake-ups between the buses of this process that share the database at `location`. */
export function inProcessWakeUps(location: string): WakeUpSource {
  let registered: WakeUpListener | undefined;
  return {
    kind: 'in-process',
    announcesInTransaction: false,
    start: async (listener) => {
      registered = listener;
      const listeners = inProcessListeners.get(location) ?? new Set<WakeUpListener>();
      listeners.add(listener);
      inProcessListeners.set(location, listeners);
    },
    announce: async () => undefined,
    committed: (wakeUps) => {
      for (const listener of [...(inProcessListeners.get(location) ?? [])]) for (const wakeUp of wakeUps) listener(wakeUp);
    },
    close: async () => {
      const listeners = inProcessListeners.get(location);
      if (registered) listeners?.delete(registered);
      if (listeners?.size === 0) inProcessListeners.delete(location);
    },
  };
}

/** A `Database` that can deliver notifications itself (what the local bus asks of the database library). */
export interface ListeningDatabase extends Database {
  /** Listens on `channel`; resolves once listening, with the function that stops it. */
  listen(channel: string, onNotification: (payload: string) => void): Promise<() => Promise<void>>;
}

export function canListen(database: Database): database is ListeningDatabase {
  return typeof (database as Partial<ListeningDatabase>).listen === 'function';
}

/** Wake-ups through the database's own `listen`. */
export function databaseWakeUps(database: ListeningDatabase): WakeUpSource {
  let unlisten: (() => Promise<void>) | undefined;
  return {
    kind: 'database-listen',
    announcesInTransaction: true,
    start: async (listener) => {
      unlisten = await database.listen(WAKE_UP_CHANNEL, (payload) => {
        const wakeUp = decodeWakeUp(payload);
        if (wakeUp) listener(wakeUp);
      });
    },
    announce: notify,
    committed: () => undefined,
    close: async () => {
      await unlisten?.();
      unlisten = undefined;
    },
  };
}

export interface PostgresWakeUpsOptions {
  /** The server's URL (from `DATABASE_URL`); the listener opens one connection of its own with it. */
  url: string;
  logger: BusLogger;
  /** First delay before reopening a lost LISTEN connection; it doubles up to 5 s. */
  reconnectDelayMs?: number;
}

/** Wake-ups through LISTEN on a dedicated connection to the Postgres server, reopened when it drops. */
export function postgresWakeUps({ url, logger, reconnectDelayMs = 250 }: PostgresWakeUpsOptions): WakeUpSource {
  let listener: WakeUpListener | undefined;
  let client: Client | undefined;
  let closed = false;
  let delayMs = reconnectDelayMs;
  let retry: NodeJS.Timeout | undefined;
  let missed = false;

  const scheduleReconnect = () => {
    if (closed || retry) return;
    retry = setTimeout(() => {
      retry = undefined;
      void connect();
    }, delayMs);
    delayMs = Math.min(delayMs * 2, 5_000);
  };

  const lost = (which: Client, error?: unknown) => {
    if (client !== which) return;
    client = undefined;
    missed = true;
    which.end().catch(() => undefined);
    if (closed) return;
    logger.log('warn', 'local bus: the LISTEN connection dropped; polling until it is back', { error: error === undefined ? null : describeError(error) });
    scheduleReconnect();
  };

  const connect = async (): Promise<void> => {
    if (closed) return;
    const candidate = new Client({ connectionString: url, connectionTimeoutMillis: 10_000 });
    candidate.on('notification', ({ channel, payload }) => {
      const wakeUp = channel === WAKE_UP_CHANNEL && payload ? decodeWakeUp(payload) : undefined;
      if (wakeUp) listener?.(wakeUp);
    });
    candidate.on('error', (error) => lost(candidate, error));
    candidate.on('end', () => lost(candidate));
    try {
      await candidate.connect();
      await candidate.query(`LISTEN ${WAKE_UP_CHANNEL}`);
    } catch (error) {
      candidate.end().catch(() => undefined);
      logger.log('warn', 'local bus: cannot LISTEN for wake-ups; polling until it can', { error: describeError(error) });
      missed = true;
      scheduleReconnect();
      return;
    }
    if (closed) {
      await candidate.end().catch(() => undefined);
      return;
    }
    client = candidate;
    delayMs = reconnectDelayMs;
    if (missed) {
      missed = false;
      logger.log('info', 'local bus: listening for wake-ups again');
      listener?.({ kind: 'resync' });
    }
  };

  return {
    kind: 'postgres-listen',
    announcesInTransaction: true,
    start: async (deliver) => {
      listener = deliver;
      await connect();
    },
    announce: notify,
    committed: () => undefined,
    close: async () => {
      closed = true;
      clearTimeout(retry);
      const open = client;
      client = undefined;
      await open?.end().catch(() => undefined);
    },
  };
}
