/**
 * The event store (ARCHITECTURE.md, "Events"): append-only streams with optimistic concurrency, a global
 * order, and a transactional outbox, on the platform database (embedded PGlite or a Postgres server)
 * through Prisma and the database's driver adapter.
 *
 * Appends. One transaction: take the append lock, then in one statement check the stream's version and
 * insert the events and one outbox row per event if it is the expected one (else `ConcurrencyError`,
 * nothing written; only `'any'` reads the version first, to number the events after it). The lock is a
 * transaction-scoped advisory lock held until commit, so appends commit one at a time and global positions
 * become visible in increasing order: a reader paging `readAll` by position never passes a position that
 * a slower transaction fills in later. The price is one append transaction at a time per database (a few
 * milliseconds each); batch events into one append where you can. Within a process the store commits
 * concurrent appends together (group commit): while one append transaction runs, the appends that arrive
 * queue, and the next transaction takes them all under one lock, each checked and answered as if alone,
 * none acknowledged before the commit. Under load that shares the BEGIN, lock and COMMIT round trips.
 * `UNIQUE (stream_id, stream_version)` backs the version check up. On the embedded database (PGlite, one
 * connection, so statements commit one at a time in position order anyway) each append is that one
 * statement alone, without a transaction or lock that would hold the connection between round trips, and
 * appends are sent as they arrive without waiting for the answers to earlier ones: the connection runs
 * them in arrival order, each acknowledged once its own statement committed.
 *
 * Publishing in the append (embedded, `publishInTransaction`): when the bus's log lives in the same embedded
 * database (the local bus), an append with a topic writes its bus messages with its events instead of outbox
 * rows: the events and their messages commit together or not at all, which is what the outbox guarantees,
 * without the claim, publish and mark that move each row later. Usually that is still one statement per
 * append (the bus's write joined to the insert: one stream's events land on one partition); otherwise the
 * insert and the write share a transaction. Rows already in the outbox are still published by the outbox
 * publisher.
 *
 * Outbox. One publisher at a time holds a lease (`outbox_leases`, renewed by each claim and, while a batch
 * is being published, by a heartbeat every third of `outboxLeaseMs`; lost when it is not renewed in time),
 * claims unpublished rows in id order (which is commit order), and marks them published after the bus
 * accepted them. Each time the lease changes hands (or is taken again after it ran out or was given back)
 * it gets a new token; marking rows published is fenced by holder, token and expiry in the same statement,
 * and its row count is checked, so a publisher that lost the lease mid-batch marks nothing
 * (`OUTBOX_LEASE_LOST`) and two publishers never interleave their marks. A crash anywhere leaves rows
 * unpublished, and the next lease holder publishes them again: at least once, in order per stream.
 *
 * Raw SQL, where Prisma cannot say it or says it too slowly: the advisory lock (`pg_advisory_xact_lock`);
 * the append's insert, one `unnest` statement for the events and their outbox rows (Prisma's
 * `createManyAndReturn` plus `createMany` made an append of 100 events about ten times slower, see `bench:event-log`);
 * and the lease upsert, whose conditional `ON CONFLICT … WHERE` must compare with the database's clock
 * (`now()`), not each replica's. Values always travel as bind parameters.
 *
 * The hot reads and the outbox's own statements (reading a stream or the log, claiming, marking published,
 * renewing and releasing the lease) skip Prisma altogether and go through the database's SQL port
 * (`Database.withConnection`, the same pool or PGlite instance): each runs once or more per append, and
 * Prisma's query engine cost more CPU than the statement itself (`bench:shield`). A claim is one statement
 * (the lease upsert and the rows it entitles to). On a server, appends stay in a Prisma transaction, for its
 * bounded wait and run time (`STORE_BUSY`); embedded, an append is one statement on the SQL port.
 */
import { randomUUID } from 'node:crypto';

import type { InTransactionPublish, InTransactionPublisher } from '@trustmesh/platform-bus';
import { prepareSchema, type Database, type MigrateOptions, type SqlExecutor } from '@trustmesh/platform-database';
import { uuidv7, type EventEnvelope, type NewEvent } from '@trustmesh/platform-events';

import { checkStreamId, placeAt, prepareAppend, type AppendOptions, type ExpectedVersion, type PreparedAppend } from './append-request';
import { ConcurrencyError, EventStoreError } from './event-store.errors';
import { EVENT_STORE_MIGRATIONS } from './event-store.migrations';
import { Prisma, PrismaClient } from './generated/prisma/client';

export interface EventStoreOptions {
  /** Producer of new events when an append does not name one (`<service>@<version>`). */
  producer?: string;
  /** Outbox topic when an append does not name one; `null` = no outbox rows by default. */
  defaultTopic?: string | null;
  /** Largest `data` accepted, in UTF-8 bytes of JSON (default 1 MiB). */
  maxEventDataBytes?: number;
  /** Most events in one append (default 1000). */
  maxEventsPerAppend?: number;
  /** How long an append may wait and run before `STORE_BUSY` (default 15 s). */
  transactionTimeoutMs?: number;
  /** Identity of this store as an outbox publisher (default: a fresh UUIDv7 per store). */
  publisherId?: string;
  /** How long a claim keeps the outbox for this publisher (default 30 s); must exceed one batch's publish time. */
  outboxLeaseMs?: number;
  /** Clock for new events' `occurredAt` (tests, replays). */
  now?: () => Date;
  /**
   * A bus whose log is in this store's embedded database (the local bus on it): appends with a topic
   * publish to it with their events (in the same statement or transaction) instead of writing outbox rows.
   * Refused (RangeError) on a server database or another database: there the outbox carries the events.
   */
  publishInTransaction?: InTransactionPublisher;
}

/** An event with its place in the global order. */
export interface RecordedEvent {
  /** Global position: increasing in commit order across all streams (not gap-free). */
  position: number;
  envelope: EventEnvelope;
}

export interface AppendResult {
  streamId: string;
  /** The stream's version after the append: pass it as the next expected version. */
  streamVersion: number;
  events: RecordedEvent[];
}

export interface OutboxMessage extends RecordedEvent {
  /** Outbox row id: pass to `markPublished`. */
  id: number;
  topic: string;
}

export interface ReadStreamOptions {
  /** First stream version to read (default 1). */
  fromVersion?: number;
  /** At most this many events (default: all). */
  limit?: number;
}

export interface ReadAllOptions {
  /** First global position to read (default 1); pass the last position read + 1 to continue. */
  fromPosition?: number;
  /** At most this many events (default 1000, at most 10 000). */
  limit?: number;
}

export interface PublishPendingOptions {
  /** Rows per claim and per `publish` call (default 100). */
  batchSize?: number;
  /** Stop after this many batches (default: until nothing is pending). */
  maxBatches?: number;
}

/** What `publishPending` hands `publish` besides the batch. */
export interface PublishContext {
  /** Aborted when the lease is lost while the batch is being published: publish no more of it. */
  signal: AbortSignal;
}

export const DEFAULT_MAX_EVENT_DATA_BYTES = 1024 * 1024;
/** Most appends committed together (each within `maxEventsPerAppend`), so one group's transaction stays short. */
const MAX_APPENDS_PER_GROUP = 16;
/** How often an embedded `'any'` append numbers its events again when its stream moved under it. */
const ANY_APPEND_ATTEMPTS = 5;

interface WaitingAppend {
  prepared: PreparedAppend;
  resolve: (result: AppendResult) => void;
  reject: (error: unknown) => void;
}
const MAX_READ_LIMIT = 10_000;
const OUTBOX_LEASE = 'outbox';
/** Key of the append lock: "tm-appnd" in ASCII (the migration runner's is "tm-migr"). A literal, not a parameter. */
const APPEND_LOCK_KEY = Prisma.raw('8389411577382596196');

function toNumber(value: bigint | string | undefined): number {
  const number = Number(value);
  if (!Number.isSafeInteger(number)) throw new EventStoreError('STORE_FAILED', 'A position is beyond the safe integer range.');
  return number;
}

/**
 * An event row as `EVENT_COLUMNS` reads it through the SQL port: the position as text (PGlite reads int8 as
 * a lossy number) and `occurred_at` already in `toISOString` form (UTC, milliseconds), so neither driver's
 * date parsing is involved.
 */
interface EventRow {
  position: string;
  event_id: string;
  stream_id: string;
  stream_version: number;
  event_type: string;
  schema_version: number;
  occurred_at: string;
  correlation_id: string;
  causation_id: string | null;
  traceparent: string | null;
  producer: string;
  data: unknown;
}

/** The columns of `EventRow`, of the `events` table aliased `e`. */
const EVENT_COLUMNS = `e.position::text AS position, e.event_id::text AS event_id, e.stream_id, e.stream_version, e.event_type, e.schema_version,
  to_char(e.occurred_at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"') AS occurred_at,
  e.correlation_id, e.causation_id, e.traceparent, e.producer, e.data`;

function toRecorded(row: EventRow): RecordedEvent {
  return {
    position: toNumber(row.position),
    envelope: {
      eventId: row.event_id,
      eventType: row.event_type,
      schemaVersion: Number(row.schema_version),
      streamId: row.stream_id,
      streamVersion: Number(row.stream_version),
      occurredAt: row.occurred_at,
      correlationId: row.correlation_id,
      causationId: row.causation_id,
      traceparent: row.traceparent,
      producer: row.producer,
      data: row.data,
    },
  };
}

/**
 * Inserts the events and their outbox rows in one statement, if the stream is at `expectedVersion`, and
 * returns the stream's version as the statement found it: the version check costs no round trip of its own.
 * (It runs after the append lock was taken, so its snapshot sees every append committed before.) Each
 * column travels as one array parameter and `unnest` turns the arrays back into rows, so an append costs
 * one round trip and one plan however many events it holds. The sequence numbers rows in the order
 * `unnest` yields them (the envelopes' order), and outbox rows are inserted in position order, so outbox
 * ids rise with positions. Positions come back as text, in the envelopes' order (PGlite reads int8 as a
 * lossy number); none when the version did not match.
 */
async function insertEvents(
  query: RawQuery,
  streamId: string,
  expectedVersion: number,
  envelopes: readonly EventEnvelope[],
  topic: string | null,
  part?: StatementPart,
): Promise<{ version: number; positions: string[] }> {
  const column = <T>(pick: (envelope: EventEnvelope) => T): T[] => envelopes.map(pick);
  const rows = await query<{ version: number; position: string | null }>(part ? `${INSERT_EVENTS_CTES}, ${part.ctes} ${INSERT_EVENTS_RESULT}` : INSERT_EVENTS, [
    streamId,
    column((e) => e.eventId),
    column((e) => e.streamId),
    column((e) => e.streamVersion),
    column((e) => e.eventType),
    column((e) => e.schemaVersion),
    column((e) => e.occurredAt),
    column((e) => e.correlationId),
    column((e) => e.causationId),
    column((e) => e.traceparent),
    column((e) => e.producer),
    column((e) => JSON.stringify(e.data)),
    expectedVersion,
    topic,
    ...(part?.params ?? []),
  ]);
  return {
    version: Number(rows[0]?.version ?? 0),
    positions: rows.flatMap((row) => (row.position === null ? [] : [row.position])),
  };
}

/** More expressions for `insertEvents`' statement, with parameters from `$15` (`INSERT_EVENTS_PARAMS + 1`) on. */
interface StatementPart {
  ctes: string;
  params: unknown[];
}

/** How many parameters `insertEvents`' own statement takes. */
const INSERT_EVENTS_PARAMS = 14;

/** The expressions of `insertEvents`; its parameters, in order, are the stream, the columns, the expected version and the topic. */
const INSERT_EVENTS_CTES = `
    WITH current AS (
      SELECT COALESCE(MAX(stream_version), 0)::integer AS version FROM events WHERE stream_id = $1
    ), inserted AS (
      INSERT INTO events (event_id, stream_id, stream_version, event_type, schema_version, occurred_at,
                          correlation_id, causation_id, traceparent, producer, data)
      SELECT * FROM unnest(
        $2::uuid[], $3::varchar[], $4::integer[], $5::varchar[], $6::integer[], $7::timestamptz[],
        $8::varchar[], $9::varchar[], $10::varchar[], $11::varchar[], $12::jsonb[])
      WHERE (SELECT version FROM current) = $13::integer
      RETURNING position, stream_version
    ), outboxed AS (
      INSERT INTO outbox (topic, event_position)
      SELECT $14::varchar, position FROM inserted WHERE $14::varchar IS NOT NULL ORDER BY position
    )`;
const INSERT_EVENTS_RESULT = `
    SELECT current.version, inserted.position::text AS position
      FROM current LEFT JOIN inserted ON true
     ORDER BY inserted.stream_version`;
const INSERT_EVENTS = `${INSERT_EVENTS_CTES} ${INSERT_EVENTS_RESULT}`;

/** One statement with `$n` parameters, on a Prisma transaction or the database's SQL port. */
type RawQuery = <Row>(sql: string, params: readonly unknown[]) => Promise<Row[]>;

const onTransaction =
  (tx: Prisma.TransactionClient): RawQuery =>
  <Row>(sql: string, params: readonly unknown[]) =>
    tx.$queryRawUnsafe<Row[]>(sql, ...params);

const onExecutor =
  (executor: SqlExecutor): RawQuery =>
  <Row>(sql: string, params: readonly unknown[]) =>
    executor.query<Row>(sql, params);

/** The stream's version: 0 when it has no events. */
async function versionOf(query: RawQuery, streamId: string): Promise<number> {
  const [row] = await query<{ version: number }>(STREAM_VERSION, [streamId]);
  return Number(row?.version ?? 0);
}

const STREAM_VERSION = 'SELECT COALESCE(MAX(stream_version), 0)::integer AS version FROM events WHERE stream_id = $1';

function wholeNumber(value: unknown, min: number, max: number): boolean {
  return typeof value === 'number' && Number.isSafeInteger(value) && value >= min && value <= max;
}

type DriverCause = { code?: unknown; originalCode?: unknown; kind?: unknown } | undefined;

/**
 * A unique-constraint violation, as Prisma reports it through either driver adapter (P2002 from model
 * queries; from raw queries P2010 with the driver's error in `meta`, which `pg` reports by SQLSTATE and
 * the PGlite adapter by kind), or as the SQL port does: the driver's error, SQLSTATE 23505.
 */
function isUniqueViolation(error: unknown): boolean {
  if ((error as DriverCause)?.code === '23505') return true;
  if (!(error instanceof Prisma.PrismaClientKnownRequestError)) return false;
  if (error.code === 'P2002') return true;
  const cause = (error.meta as { driverAdapterError?: { cause?: DriverCause } } | undefined)?.driverAdapterError?.cause;
  return cause?.code === '23505' || cause?.originalCode === '23505' || cause?.kind === 'UniqueConstraintViolation';
}

export class EventStore {
  private readonly prisma: PrismaClient;
  private readonly database: Database;
  private readonly settings: {
    maxEventDataBytes: number;
    maxEventsPerAppend: number;
    producer: string | undefined;
    defaultTopic: string | null | undefined;
    now: () => Date;
  };
  private readonly transactionTimeoutMs: number;
  private readonly leaseMs: number;
  /** This store's identity as an outbox publisher. */
  readonly publisherId: string;
  /** Appends waiting for the group commit under way; they go together in the next one. */
  private readonly waitingAppends: WaitingAppend[] = [];
  private committingGroup = false;
  /** Embedded: appends not sent to the database yet, in arrival order (`sendEmbeddedAppends`). */
  private readonly embeddedAppends: WaitingAppend[] = [];
  private sendingAppends = false;
  /** Embedded: one-statement appends sent and not answered yet. */
  private readonly unansweredAppends = new Set<Promise<void>>();
  private readonly inTransactionPublisher: InTransactionPublisher | undefined;
  /** The in-transaction publish of each topic appended to, prepared once (it may create the topic). */
  private readonly topicPublishes = new Map<string, Promise<InTransactionPublish>>();
  /** The token of the outbox lease this store holds (from its last claim); '' when it holds none. */
  private leaseToken = '';
  private closed = false;

  /** Use `openEventStore`, which also prepares the schema. */
  constructor(database: Database, options: EventStoreOptions = {}) {
    const maxEventDataBytes = options.maxEventDataBytes ?? DEFAULT_MAX_EVENT_DATA_BYTES;
    const maxEventsPerAppend = options.maxEventsPerAppend ?? 1000;
    this.transactionTimeoutMs = options.transactionTimeoutMs ?? 15_000;
    this.leaseMs = options.outboxLeaseMs ?? 30_000;
    if (!wholeNumber(maxEventDataBytes, 1, 256 * 1024 * 1024) || !wholeNumber(maxEventsPerAppend, 1, 100_000)) {
      throw new RangeError('maxEventDataBytes is 1 B–256 MiB and maxEventsPerAppend is 1–100 000.');
    }
    if (!wholeNumber(this.transactionTimeoutMs, 100, 600_000) || !wholeNumber(this.leaseMs, 100, 3_600_000)) {
      throw new RangeError('transactionTimeoutMs is 100 ms–10 min and outboxLeaseMs is 100 ms–1 h.');
    }
    this.settings = { maxEventDataBytes, maxEventsPerAppend, producer: options.producer, defaultTopic: options.defaultTopic, now: options.now ?? (() => new Date()) };
    this.publisherId = options.publisherId ?? uuidv7();
    this.database = database;
    const publisher = options.publishInTransaction;
    if (publisher && (database.mode !== 'embedded' || publisher.database.location !== database.location)) {
      throw new RangeError('publishInTransaction needs a bus on this store\'s own embedded database.');
    }
    this.inTransactionPublisher = publisher;
    this.prisma = new PrismaClient({ adapter: database.prismaAdapter(), errorFormat: 'minimal' });
  }

  /** Whether appends publish to the bus themselves (`publishInTransaction`): the outbox then gets no new rows. */
  get publishesInTransaction(): boolean {
    return this.inTransactionPublisher !== undefined;
  }

  /**
   * Appends events to a stream if it is at `expectedVersion`, with one outbox row per event for the topic,
   * all in one transaction. Refuses with `ConcurrencyError` (`STREAM_VERSION_CONFLICT`) when another writer
   * got there first; with `'any'` and new events it never conflicts.
   */
  async append(
    streamId: string,
    expectedVersion: ExpectedVersion,
    events: readonly NewEvent[] | readonly EventEnvelope[],
    options: AppendOptions = {},
  ): Promise<AppendResult> {
    this.assertOpen();
    const prepared = prepareAppend(streamId, expectedVersion, events, options, this.settings);
    return new Promise<AppendResult>((resolve, reject) => {
      if (this.database.mode === 'embedded') {
        this.embeddedAppends.push({ prepared, resolve, reject });
        void this.sendEmbeddedAppends();
        return;
      }
      this.waitingAppends.push({ prepared, resolve, reject });
      this.commitNextGroup();
    });
  }

  /**
   * Embedded: sends the waiting appends to the database in arrival order, each without waiting for the
   * answers to those sent before it (see the header). PGlite is one connection that runs statements one
   * after another in the order they arrive, so a one-statement append needs nothing more to commit in
   * order; waiting for each answer before sending the next made the store's appends a queue one round trip
   * per append long (this thread's turn to read the answer included), which capped a process's appends
   * however many callers were waiting. An append that takes more than one statement (`'any'`, which reads
   * its stream's version first; a publish that needs a transaction) waits until those sent before it are
   * answered, and the ones after it wait for it: it runs as it would alone.
   */
  private async sendEmbeddedAppends(): Promise<void> {
    if (this.sendingAppends) return;
    this.sendingAppends = true;
    try {
      for (let next = this.embeddedAppends.shift(); next; next = this.embeddedAppends.shift()) {
        const { prepared, resolve, reject } = next;
        const answer = (promise: Promise<AppendResult>) => promise.then(resolve, async (error: unknown) => reject(await this.appendFailure(prepared, error)));
        let statement: (() => Promise<AppendResult>) | undefined;
        try {
          statement = await this.oneStatementAppend(prepared);
        } catch (error) {
          await answer(Promise.reject(error));
          continue;
        }
        if (statement) {
          const answered = answer(statement());
          this.unansweredAppends.add(answered);
          void answered.finally(() => this.unansweredAppends.delete(answered));
          continue;
        }
        await Promise.all(this.unansweredAppends);
        await answer(this.inTransactionPublisher ? this.appendAndPublish(prepared) : this.appendInOneStatement(prepared));
      }
    } finally {
      this.sendingAppends = false;
    }
  }

  /**
   * The embedded append as one statement that can be sent at once (the insert, with the bus's write when
   * publishing in the append), or undefined when it takes more (`'any'`, or a publish that needs a
   * transaction). The statement refuses a stream that moved (`ConcurrencyError`).
   */
  private async oneStatementAppend(prepared: PreparedAppend): Promise<(() => Promise<AppendResult>) | undefined> {
    const publish = this.inTransactionPublisher && prepared.topic !== null ? await this.topicPublish(prepared.topic) : undefined;
    const expected = prepared.expected;
    if (expected === 'any') return undefined;
    const settled = (placed: AppendResult | ConcurrencyError): AppendResult => {
      if (placed instanceof ConcurrencyError) throw placed;
      publish?.committed();
      return placed;
    };
    if (!this.inTransactionPublisher) {
      return async () => settled(await this.database.withConnection((sql) => this.placeAndInsert(onExecutor(sql), prepared)));
    }
    const envelopes = placeAt(prepared, expected);
    const part = publish?.statementPart(envelopes, INSERT_EVENTS_PARAMS + 1, 'EXISTS (SELECT 1 FROM inserted)');
    if (publish && !part) return undefined;
    return async () => settled(await this.database.withConnection((sql) => this.insertPlaced(onExecutor(sql), prepared, expected, envelopes, part)));
  }

  /** Starts the next group commit, unless one is under way (its end starts the next). */
  private commitNextGroup(): void {
    if (this.committingGroup || this.waitingAppends.length === 0) return;
    this.committingGroup = true;
    const group = this.waitingAppends.splice(0, MAX_APPENDS_PER_GROUP);
    void this.commitGroup(group).finally(() => {
      this.committingGroup = false;
      this.commitNextGroup();
    });
  }

  /**
   * Commits a group of appends in one transaction, each as if alone: in order, each checked against the
   * versions before it (an earlier append of the group to the same stream included), one refused with
   * `ConcurrencyError` without its events while the others commit. Nothing is acknowledged before the
   * commit. A unique violation (an event id already stored, say) aborts the transaction for all: then each
   * append is tried again alone, so it gets its own answer. Any other failure is every member's.
   */
  private async commitGroup(group: readonly WaitingAppend[]): Promise<void> {
    if (group.length === 1) {
      const [only] = group as [WaitingAppend];
      await this.appendAlone(only.prepared).then(only.resolve, only.reject);
      return;
    }
    let outcomes: Array<AppendResult | ConcurrencyError>;
    try {
      outcomes = await this.inTransaction(async (tx) => {
        await tx.$executeRaw`SELECT pg_advisory_xact_lock(${APPEND_LOCK_KEY})`;
        const placed: Array<AppendResult | ConcurrencyError> = [];
        for (const { prepared } of group) placed.push(await this.placeAndInsert(onTransaction(tx), prepared));
        return placed;
      });
    } catch (error) {
      if (error instanceof EventStoreError || !isUniqueViolation(error)) {
        const failure = error instanceof EventStoreError ? error : this.failure('append', error);
        for (const member of group) member.reject(failure);
        return;
      }
      for (const member of group) await this.appendAlone(member.prepared).then(member.resolve, member.reject);
      return;
    }
    group.forEach((member, index) => {
      const outcome = outcomes[index];
      if (outcome instanceof ConcurrencyError || outcome === undefined) member.reject(outcome ?? this.failure('append', undefined));
      else member.resolve(outcome);
    });
  }

  private async appendAlone(prepared: PreparedAppend): Promise<AppendResult> {
    try {
      return await this.inTransaction(async (tx) => {
        await tx.$executeRaw`SELECT pg_advisory_xact_lock(${APPEND_LOCK_KEY})`;
        const placed = await this.placeAndInsert(onTransaction(tx), prepared);
        if (placed instanceof ConcurrencyError) throw placed;
        return placed;
      });
    } catch (error) {
      throw await this.appendFailure(prepared, error);
    }
  }

  /**
   * An append on the embedded database: its one statement, without a transaction of its own or the append
   * lock. PGlite is one connection, so statements run one at a time and commit in position order anyway;
   * an explicit transaction would only hold that connection across the round trips between this thread
   * and PGlite's, and every other statement of the process would wait for them (the shield's consults
   * spent most of their time so). An `'any'` append whose stream moved between its read and its insert
   * (another store on the same database) numbers its events again.
   */
  private async appendInOneStatement(prepared: PreparedAppend): Promise<AppendResult> {
    try {
      for (let attempt = 1; ; attempt += 1) {
        const placed = await this.database.withConnection((sql) => this.placeAndInsert(onExecutor(sql), prepared));
        if (!(placed instanceof ConcurrencyError)) return placed;
        if (prepared.expected !== 'any' || attempt >= ANY_APPEND_ATTEMPTS) throw placed;
      }
    } catch (error) {
      throw await this.appendFailure(prepared, error);
    }
  }

  /**
   * One append with its bus messages, on the embedded database: one statement when the bus can join its
   * write to the append's insert (the usual case: one stream's events land on one partition), else the
   * insert and the write in one transaction. Either way the messages are written only if the events were.
   * The consumers are woken once it committed. An `'any'` append whose stream moved between its read and
   * its insert (another store on the same database) numbers its events again, as `appendInOneStatement`.
   */
  private async appendAndPublish(prepared: PreparedAppend): Promise<AppendResult> {
    const publish = prepared.topic === null ? undefined : await this.topicPublish(prepared.topic);
    for (let attempt = 1; ; attempt += 1) {
      const placed = await this.database.withConnection(async (connection) => {
        const current = prepared.expected === 'any' ? await versionOf(onExecutor(connection), prepared.streamId) : prepared.expected;
        const envelopes = placeAt(prepared, current);
        const part = publish?.statementPart(envelopes, INSERT_EVENTS_PARAMS + 1, 'EXISTS (SELECT 1 FROM inserted)');
        if (!publish || part) return this.insertPlaced(onExecutor(connection), prepared, current, envelopes, part);
        return connection.transaction(async (tx) => {
          const outcome = await this.insertPlaced(onExecutor(tx), prepared, current, envelopes);
          if (!(outcome instanceof ConcurrencyError)) await publish.write(tx, envelopes);
          return outcome;
        });
      });
      if (!(placed instanceof ConcurrencyError)) {
        publish?.committed();
        return placed;
      }
      if (prepared.expected !== 'any' || attempt >= ANY_APPEND_ATTEMPTS) throw placed;
    }
  }

  /** The append's events at `current` (no outbox rows: the bus gets them from the caller), with `part` in the same statement. */
  private async insertPlaced(query: RawQuery, prepared: PreparedAppend, current: number, envelopes: EventEnvelope[], part?: StatementPart): Promise<AppendResult | ConcurrencyError> {
    const { version, positions } = await insertEvents(query, prepared.streamId, current, envelopes, null, part);
    if (version !== current) return new ConcurrencyError(prepared.streamId, current, version);
    return {
      streamId: prepared.streamId,
      streamVersion: current + envelopes.length,
      events: envelopes.map((envelope, index) => ({ position: toNumber(positions[index]), envelope })),
    };
  }

  /** The topic's in-transaction publish, prepared outside any transaction (creating the topic takes one of its own). */
  private topicPublish(topic: string): Promise<InTransactionPublish> {
    let known = this.topicPublishes.get(topic);
    if (!known) {
      known = (this.inTransactionPublisher as InTransactionPublisher).prepareInTransaction(topic);
      this.topicPublishes.set(topic, known);
      known.catch(() => this.topicPublishes.delete(topic));
    }
    return known;
  }

  private async appendFailure(prepared: PreparedAppend, error: unknown): Promise<EventStoreError> {
    if (error instanceof EventStoreError) return error;
    if (isUniqueViolation(error)) return this.explainUniqueViolation(prepared, error);
    return this.failure('append', error);
  }

  private inTransaction<T>(work: (tx: Prisma.TransactionClient) => Promise<T>): Promise<T> {
    return this.prisma.$transaction(work, { maxWait: this.transactionTimeoutMs, timeout: this.transactionTimeoutMs });
  }

  /**
   * One append inside the append lock's transaction: its events and outbox rows inserted if the stream is at
   * the expected version, else the `ConcurrencyError` (nothing inserted).
   */
  private async placeAndInsert(query: RawQuery, prepared: PreparedAppend): Promise<AppendResult | ConcurrencyError> {
    // An expected version numbers the events before the insert, which checks it; only 'any' reads first.
    const current = prepared.expected === 'any' ? await versionOf(query, prepared.streamId) : prepared.expected;
    const envelopes = placeAt(prepared, current);
    const { version, positions } = await insertEvents(query, prepared.streamId, current, envelopes, prepared.topic);
    if (version !== current) return new ConcurrencyError(prepared.streamId, current, version);
    return {
      streamId: prepared.streamId,
      streamVersion: current + envelopes.length,
      events: envelopes.map((envelope, index) => ({ position: toNumber(positions[index]), envelope })),
    };
  }

  /** After a unique violation rolled the append back: was it an event id, or a version taken under us? */
  private async explainUniqueViolation(prepared: PreparedAppend, cause: unknown): Promise<EventStoreError> {
    try {
      const ids = prepared.envelopes.map((envelope) => envelope.eventId);
      const existing = await this.prisma.event.findFirst({ where: { eventId: { in: ids } }, select: { eventId: true } });
      if (existing) return new EventStoreError('DUPLICATE_EVENT_ID', `Event ${existing.eventId} is already in the store.`);
      const actual = await this.database.withConnection((sql) => versionOf(onExecutor(sql), prepared.streamId));
      return new ConcurrencyError(prepared.streamId, prepared.expected === 'any' ? actual - 1 : prepared.expected, actual);
    } catch (error) {
      return this.failure('append', error ?? cause);
    }
  }

  /** The stream's current version: 0 when it has no events. */
  async streamVersion(streamId: string): Promise<number> {
    this.assertOpen();
    checkStreamId(streamId);
    return this.sql('read', (sql) => versionOf(onExecutor(sql), streamId));
  }

  /** A stream's events in version order. */
  async readStream(streamId: string, options: ReadStreamOptions = {}): Promise<RecordedEvent[]> {
    this.assertOpen();
    checkStreamId(streamId);
    const fromVersion = options.fromVersion ?? 1;
    if (!wholeNumber(fromVersion, 1, 2 ** 31 - 1) || (options.limit !== undefined && !wholeNumber(options.limit, 1, Number.MAX_SAFE_INTEGER))) {
      throw new EventStoreError('READ_OPTIONS_INVALID', 'fromVersion is a whole number ≥ 1 and limit a whole number ≥ 1.');
    }
    const rows = await this.sql('read', (sql) =>
      sql.query<EventRow>(
        `SELECT ${EVENT_COLUMNS} FROM events e WHERE e.stream_id = $1 AND e.stream_version >= $2::integer ORDER BY e.stream_version
          ${options.limit === undefined ? '' : 'LIMIT $3::bigint'}`,
        options.limit === undefined ? [streamId, fromVersion] : [streamId, fromVersion, String(options.limit)],
      ),
    );
    return rows.map(toRecorded);
  }

  /** Every stream's events in global order, a page at a time. */
  async readAll(options: ReadAllOptions = {}): Promise<RecordedEvent[]> {
    this.assertOpen();
    const fromPosition = options.fromPosition ?? 1;
    const limit = options.limit ?? 1000;
    if (!wholeNumber(fromPosition, 1, Number.MAX_SAFE_INTEGER) || !wholeNumber(limit, 1, MAX_READ_LIMIT)) {
      throw new EventStoreError('READ_OPTIONS_INVALID', `fromPosition is a whole number ≥ 1 and limit 1–${MAX_READ_LIMIT}.`);
    }
    const rows = await this.sql('read', (sql) =>
      sql.query<EventRow>(`SELECT ${EVENT_COLUMNS} FROM events e WHERE e.position >= $1::bigint ORDER BY e.position LIMIT $2::integer`, [String(fromPosition), limit]),
    );
    return rows.map(toRecorded);
  }

  /**
   * Takes (or renews) the outbox lease for this publisher and returns the oldest unpublished rows, oldest
   * first. Returns nothing while another publisher holds the lease. Rows stay unpublished until
   * `markPublished`: claiming them again (after a crash, or a failed publish) returns them again.
   */
  async claimOutbox(limit = 100): Promise<OutboxMessage[]> {
    this.assertOpen();
    if (!wholeNumber(limit, 1, MAX_READ_LIMIT)) throw new EventStoreError('OUTBOX_OPTIONS_INVALID', `A claim takes 1–${MAX_READ_LIMIT} rows.`);
    // One statement: the lease, and the rows it entitles to (a row with no outbox columns when none is
    // pending; no row at all when another publisher holds the lease). Renewing keeps the token; taking the
    // lease from another, or again after it ran out or was given back, gets a new one, which fences whatever
    // the previous holding still had in hand.
    const rows = await this.sql('claim the outbox', (sql) =>
      sql.query<{ token: string; id: string | null; topic: string | null } & Partial<EventRow>>(
        `WITH lease AS (
           INSERT INTO outbox_leases (name, holder, expires_at, token)
           VALUES ($1, $2, now() + $3::integer * interval '1 millisecond', $4)
           ON CONFLICT (name) DO UPDATE SET holder = EXCLUDED.holder, expires_at = EXCLUDED.expires_at,
             token = CASE WHEN outbox_leases.holder = EXCLUDED.holder AND outbox_leases.expires_at > now() AND outbox_leases.token <> ''
                          THEN outbox_leases.token ELSE EXCLUDED.token END
           WHERE outbox_leases.holder = EXCLUDED.holder OR outbox_leases.expires_at <= now()
           RETURNING token
         )
         SELECT lease.token, pending.* FROM lease LEFT JOIN LATERAL (
           SELECT o.id::text AS id, o.topic, ${EVENT_COLUMNS}
             FROM outbox o JOIN events e ON e.position = o.event_position
            WHERE o.published_at IS NULL ORDER BY o.id LIMIT $5::integer
         ) pending ON true
         ORDER BY pending.id::bigint`,
        [OUTBOX_LEASE, this.publisherId, this.leaseMs, randomUUID(), limit],
      ),
    );
    const [held] = rows;
    this.leaseToken = held?.token ?? '';
    return rows.flatMap((row) => (row.id === null || row.topic === null ? [] : [{ id: toNumber(row.id), topic: row.topic, ...toRecorded(row as EventRow) }]));
  }

  /**
   * Marks claimed rows published (after the bus accepted them); returns how many were still unpublished.
   * Only while this store holds the lease it claimed them under: else `OUTBOX_LEASE_LOST` and nothing is
   * marked (holder, token and expiry are checked in the same statement as the update).
   */
  async markPublished(ids: readonly number[]): Promise<number> {
    this.assertOpen();
    if (!Array.isArray(ids) || !ids.every((id) => wholeNumber(id, 1, Number.MAX_SAFE_INTEGER))) {
      throw new EventStoreError('OUTBOX_OPTIONS_INVALID', 'Outbox ids are whole numbers ≥ 1.');
    }
    if (ids.length === 0) return 0;
    // `= ANY (ARRAY(...))` keeps the update an index scan of the ids; as `IN (SELECT ...)` the planner may
    // hash-join the whole outbox, published rows and all.
    const rows = await this.sql('mark outbox rows published', (sql) =>
      sql.query<{ held: boolean; marked: number }>(
        `WITH lease AS (
           SELECT 1 FROM outbox_leases
            WHERE name = $1 AND holder = $2 AND token = $3 AND token <> '' AND expires_at > now()
            FOR SHARE
         ), marked AS (
           UPDATE outbox SET published_at = now()
            WHERE id = ANY (ARRAY(SELECT jsonb_array_elements_text($4::jsonb)::bigint)) AND published_at IS NULL AND EXISTS (SELECT 1 FROM lease)
           RETURNING 1
         )
         SELECT EXISTS (SELECT 1 FROM lease) AS held, (SELECT count(*) FROM marked)::int AS marked`,
        [OUTBOX_LEASE, this.publisherId, this.leaseToken, JSON.stringify(ids.map(String))],
      ),
    );
    const [result] = rows;
    if (!result?.held) throw this.leaseLost();
    return Number(result.marked);
  }

  /** Extends the lease this store holds; false when it no longer holds it (then it is lost for good). */
  async renewOutboxLease(): Promise<boolean> {
    this.assertOpen();
    if (!this.leaseToken) return false;
    const renewed = await this.sql('renew the outbox lease', (sql) =>
      sql.query(
        `UPDATE outbox_leases SET expires_at = now() + $4::integer * interval '1 millisecond'
          WHERE name = $1 AND holder = $2 AND token = $3 AND expires_at > now() RETURNING 1`,
        [OUTBOX_LEASE, this.publisherId, this.leaseToken, this.leaseMs],
      ),
    );
    if (renewed.length === 0) this.leaseToken = '';
    return renewed.length > 0;
  }

  private leaseLost(): EventStoreError {
    this.leaseToken = '';
    return new EventStoreError(
      'OUTBOX_LEASE_LOST',
      'This publisher no longer holds the outbox lease (it ran out, or was given back); nothing was marked published. Claim again.',
    );
  }

  /**
   * The publisher's loop in one call: claim a batch, hand it to `publish` and wait for it, mark it
   * published, repeat until nothing is pending (or `maxBatches`). While `publish` runs, the lease is renewed
   * every third of `outboxLeaseMs`; if it is lost meanwhile, `context.signal` is aborted, nothing is marked
   * and `OUTBOX_LEASE_LOST` is thrown once `publish` returns. If `publish` throws, the batch stays
   * unpublished (and is the first claimed next time) and the error propagates. Returns how many rows were
   * published.
   */
  async publishPending(publish: (batch: readonly OutboxMessage[], context: PublishContext) => Promise<void>, options: PublishPendingOptions = {}): Promise<number> {
    const batchSize = options.batchSize ?? 100;
    const maxBatches = options.maxBatches ?? Number.POSITIVE_INFINITY;
    let published = 0;
    for (let batches = 0; batches < maxBatches; batches += 1) {
      const batch = await this.claimOutbox(batchSize);
      if (batch.length === 0) break;
      await this.whileHoldingLease((signal) => publish(batch, { signal }));
      const marked = await this.markPublished(batch.map((message) => message.id));
      // Every claimed row was unpublished under our lease: fewer marked means someone else marked them.
      if (marked !== batch.length) throw this.leaseLost();
      published += marked;
      if (batch.length < batchSize) break;
    }
    return published;
  }

  /** Runs `work` with a heartbeat on the outbox lease; throws `OUTBOX_LEASE_LOST` after it if the lease was lost. */
  private async whileHoldingLease(work: (signal: AbortSignal) => Promise<void>): Promise<void> {
    const lost = new AbortController();
    let renewing: Promise<void> = Promise.resolve();
    const heartbeat = setInterval(
      () => {
        renewing = renewing.then(async () => {
          if (lost.signal.aborted) return;
          // A renewal that fails (the database is away) is not a loss yet: the expiry decides.
          const held = await this.renewOutboxLease().catch(() => true);
          if (!held) lost.abort();
        });
      },
      Math.max(50, Math.floor(this.leaseMs / 3)),
    );
    try {
      await work(lost.signal);
    } finally {
      clearInterval(heartbeat);
      await renewing;
    }
    if (lost.signal.aborted) throw this.leaseLost();
  }

  /** Rows not yet published (the publisher's lag). */
  async outboxBacklog(): Promise<number> {
    this.assertOpen();
    return this.guard('count the outbox', () => this.prisma.outboxMessage.count({ where: { publishedAt: null } }));
  }

  /** Deletes rows published before `before`; returns how many. The events themselves stay. */
  async purgePublishedOutbox(before: Date): Promise<number> {
    this.assertOpen();
    const { count } = await this.guard('purge the outbox', () => this.prisma.outboxMessage.deleteMany({ where: { publishedAt: { lt: before } } }));
    return count;
  }

  /**
   * Gives the outbox lease up, so another publisher can take over without waiting for it to expire. The
   * row stays, expired, so that taking it again always gets a new token: a lease given back is never used.
   */
  async releaseOutbox(): Promise<void> {
    this.assertOpen();
    this.leaseToken = '';
    await this.sql('release the outbox', (sql) =>
      sql.query('UPDATE outbox_leases SET expires_at = now() WHERE name = $1 AND holder = $2 AND expires_at > now()', [OUTBOX_LEASE, this.publisherId]),
    );
  }

  /** Releases the outbox lease if held and disconnects; the `Database` stays open (its owner closes it). */
  async close(): Promise<void> {
    if (this.closed) return;
    await this.releaseOutbox().catch(() => undefined);
    this.closed = true;
    await this.prisma.$disconnect();
  }

  private assertOpen(): void {
    if (this.closed) throw new EventStoreError('STORE_CLOSED', 'The event store was closed.');
  }

  /** `work` on the database's SQL port, its failures reported as `guard` reports them. */
  private sql<T>(operation: string, work: (sql: SqlExecutor) => Promise<T>): Promise<T> {
    return this.guard(operation, () => this.database.withConnection(work));
  }

  private async guard<T>(operation: string, work: () => Promise<T>): Promise<T> {
    try {
      return await work();
    } catch (error) {
      if (error instanceof EventStoreError) throw error;
      throw this.failure(operation, error);
    }
  }

  private failure(operation: string, cause: unknown): EventStoreError {
    if (cause instanceof Prisma.PrismaClientKnownRequestError && cause.code === 'P2028') {
      return new EventStoreError('STORE_BUSY', `The event store is too busy to ${operation} now; retry later.`, { cause });
    }
    return new EventStoreError('STORE_FAILED', `The event store could not ${operation}.`, { cause });
  }
}

/**
 * Opens the event store on a database: embedded, its migrations are applied first; on a server they must
 * already be deployed (else `MigrationError` `MIGRATIONS_PENDING`). Close the store before the database.
 */
export async function openEventStore(database: Database, options: EventStoreOptions & { migrate?: MigrateOptions } = {}): Promise<EventStore> {
  await prepareSchema(database, [EVENT_STORE_MIGRATIONS], options.migrate);
  return new EventStore(database, options);
}
