/**
 * The projection runner (ARCHITECTURE.md "Events"): consumes a projection's topics from the bus and
 * applies each event and the projection's checkpoint in ONE transaction, so a read model sees every
 * event exactly once and in stream order although the bus delivers at least once.
 *
 * What decides is each stream's applied version (`projection_stream_versions`), since the topics number
 * each stream's events 1, 2, 3, … (as the event store does). For an event at version v of a stream whose
 * applied version is `last`:
 * - v = last + 1: applied, and its event id kept (`projection_applied_events`);
 * - v ≤ last: a repeat (a redelivery after a crash or rebalance; or a copy the log holds twice, because the
 *   outbox publishes at least once). Skipped only when it IS the event applied at v (same event id);
 *   another event with an old version is refused, `PROJECTION_EVENT_CONFLICT` (tries, then the DLQ, and a
 *   log line). A copy whose id is no longer kept (older than the retention, see `purgeAppliedEvents`) is
 *   skipped unverified: it cannot be applied in any case, the stream is past it;
 * - v > last + 1: a gap. Never applied over. It is held for `gapHoldMs` (default 60 s) as a transient
 *   failure (`PROJECTION_STREAM_GAP`): the partition waits, no try is used up, in case the missing event is
 *   on its way through another partition (a stream moved by a partition change). If the hold runs out the
 *   runner logs an error and fails the event for good with the same code, so the bus dead-letters it; later
 *   events of that stream go to the DLQ at once until the missing version is applied (then re-send them
 *   from the DLQ, in order). Nothing is skipped silently.
 *
 * Offsets are positions, not proof: the checkpoint records the next offset to apply and the log it counts
 * in (`BusRecord.log`). A record from another log (a recreated topic, a restarted mock cluster, another
 * prefix, the other adapter) takes the checkpoint over, with a log line; the stream versions keep the
 * read model exactly-once across that change.
 *
 * Failures: an error of the projection's own `apply` (its logic, a constraint its writes break) is an
 * ordinary handler failure: the bus gives the message its tries, then dead-letters it. A database that
 * cannot be reached or was lost (`isDatabaseUnavailable`: the transaction cannot open, the connection dies
 * under the checkpoint statements, the commit or `apply`'s own statements) is no fault of the message: the
 * runner throws it on as a `TransientHandlerError` (`PROJECTION_DATABASE_UNAVAILABLE`), so the bus keeps
 * the partition waiting on that message for as long as the outage lasts instead of dead-lettering it and
 * leaving a hole in the read model. `status().retrying` shows such a partition; its lag grows meanwhile.
 *
 * Runs: where the bus hands over a partition's consecutive records at once (the local bus's `batchHandler`),
 * the runner applies them in one transaction with one checkpoint write (`handleRun`), deciding each event
 * as above; at anything but "next in its stream" or "a verified copy" the run rolls back and the bus
 * delivers its records one by one, so every outcome above stays exactly as described. A projection may
 * apply a run's events in one call (`applyRun`, set-based statements) instead of one `apply` each.
 *
 * Each version of a projection has its own checkpoints and its own consumer group, so a rebuild fills
 * version n+1 from the beginning of the log while version n keeps serving; `activate` then switches
 * readers over in one update.
 */
import { jsonLineBusLogger, TransientHandlerError, type BusLogger, type BusRecord, type EventBus, type PartitionLag, type RetryingPartition, type Subscription } from '@trustmesh/platform-bus';
import { isDatabaseUnavailable, type SqlExecutor } from '@trustmesh/platform-database';
import type { EventEnvelope } from '@trustmesh/platform-events';

export interface ProjectionContext<Tx> {
  /** The transaction the checkpoint will be written in: write the read model through it. */
  tx: Tx;
  record: BusRecord;
}

export interface ProjectionDefinition<Tx> {
  /** Stable name, e.g. `relay-audit`. */
  name: string;
  /** Version of the read model's shape; a new version is rebuilt from the log into its own tables. */
  version: number;
  /**
   * Topics whose events number each stream's events 1, 2, 3, … in `streamVersion`, as the event store
   * does: an event at or below the version already applied for its stream must be a copy of the one
   * applied, and one past the next version is a gap. A topic where several writers number their own
   * contributions to one stream, or whose streams skip versions, does not qualify.
   */
  topics: readonly string[];
  apply(envelope: EventEnvelope, context: ProjectionContext<Tx>): Promise<void>;
  /**
   * Optional: applies a run's events (see "Runs" above: each one next in its stream, in offset order) in one
   * go through `tx`, e.g. with set-based statements, leaving the read model exactly as `apply` on each of them
   * in turn would. Without it a run calls `apply` per event. It is only ever called inside a run's
   * transaction: if it throws or times out, the run rolls back and its events go one by one to `apply`.
   */
  applyRun?(envelopes: readonly EventEnvelope[], context: ProjectionRunContext<Tx>): Promise<void>;
}

export interface ProjectionRunContext<Tx> {
  /** The run's transaction, which its checkpoint will be written in. */
  tx: Tx;
  /** The records of the events to apply, in the same order as the envelopes. */
  records: readonly BusRecord[];
}

/**
 * How the runner opens the transaction a projection writes in, and reaches the checkpoint tables
 * inside it (see `sqlTransactions` and `prismaTransactions`).
 */
export interface ProjectionTransactions<Tx> {
  run<T>(work: (tx: Tx, sql: SqlExecutor) => Promise<T>): Promise<T>;
  /** Reads outside a projection's transaction (positions, the active version). */
  read<T>(work: (sql: SqlExecutor) => Promise<T>): Promise<T>;
}

export interface ProjectionPosition {
  topic: string;
  partition: number;
  /** The log the offset counts in (`BusRecord.log`). */
  log: string;
  /** The next offset the projection will apply. */
  nextOffset: string;
}

export interface ProjectionStatus {
  projection: string;
  version: number;
  positions: ProjectionPosition[];
  /** Per partition: how far the projection's group is behind the end of the log. */
  lag: PartitionLag[];
  totalLag: number;
  /** Partitions waiting on an event because the projection's database is unavailable (empty when none). */
  retrying: RetryingPartition[];
}

/** The stable code a projection's transient failures carry in the bus's logs and `retrying()`. */
export const PROJECTION_DATABASE_UNAVAILABLE = 'PROJECTION_DATABASE_UNAVAILABLE';
/** An event past its stream's next version: held, then dead-lettered with this code. */
export const PROJECTION_STREAM_GAP = 'PROJECTION_STREAM_GAP';
/** Another event with a version its stream already applied: dead-lettered with this code. */
export const PROJECTION_EVENT_CONFLICT = 'PROJECTION_EVENT_CONFLICT';
/** Two runners applied the next version of one new stream at once; the loser tries again and finds a copy. */
const PROJECTION_STREAM_CONTENDED = 'PROJECTION_STREAM_CONTENDED';

/** `activate` would move readers to an older version than the one serving. */
export const PROJECTION_VERSION_OLDER = 'PROJECTION_VERSION_OLDER';
/** `activate` of a version that has not caught up with the log (or never ran). */
export const PROJECTION_VERSION_UNFINISHED = 'PROJECTION_VERSION_UNFINISHED';

/** `apply` did not finish within `applyTimeoutMs` (e.g. it waited on a write outside its transaction). */
export const PROJECTION_APPLY_TIMEOUT = 'PROJECTION_APPLY_TIMEOUT';
/** How long one `apply` may take, by default. */
export const DEFAULT_APPLY_TIMEOUT_MS = 30_000;

/** How long a gap is held, by default, before its event is dead-lettered. */
export const DEFAULT_GAP_HOLD_MS = 60_000;

/** A refusal of the runner's own: `code` reaches the DLQ header (`dlq-error-code`) and the logs. */
export class ProjectionError extends Error {
  constructor(
    readonly code:
      | typeof PROJECTION_STREAM_GAP
      | typeof PROJECTION_EVENT_CONFLICT
      | typeof PROJECTION_VERSION_OLDER
      | typeof PROJECTION_VERSION_UNFINISHED
      | typeof PROJECTION_APPLY_TIMEOUT,
    message: string,
  ) {
    super(message);
    this.name = 'ProjectionError';
  }
}

const groupOf = (definition: { name: string; version: number }) => `projection.${definition.name}.v${definition.version}`;

export interface ProjectionRunnerOptions {
  /**
   * The consumer group; defaults to `projection.<name>.v<version>`. A second group on the same version
   * (a replacement process, an operator's catch-up run) is safe: the checkpoint still admits each event
   * once.
   */
  consumerGroup?: string;
  /**
   * How long an event after a gap in its stream is held (the partition waits) for the missing version
   * before it is dead-lettered with `PROJECTION_STREAM_GAP`. Default `DEFAULT_GAP_HOLD_MS`.
   */
  gapHoldMs?: number;
  /**
   * Longest one `apply` may run (default `DEFAULT_APPLY_TIMEOUT_MS`). Past it the transaction is rolled back
   * and the event fails with `PROJECTION_APPLY_TIMEOUT` (tries, then the DLQ). On PGlite the transaction
   * holds the only connection, so an `apply` that writes outside `tx` would otherwise wait for itself forever
   * and freeze the database for every caller.
   */
  applyTimeoutMs?: number;
  /** Where the runner's own lines go (gaps, conflicts, a checkpoint's log changing); JSON lines on stderr by default. */
  logger?: BusLogger;
}

type Outcome = 'applied' | 'copy' | 'unverified-copy';

interface Checkpoint {
  next_offset: string;
  log: string;
}

/** Why a run goes back to the bus to be handled one by one; never seen outside the runner and the bus's debug line. */
class RunDeclined extends Error {
  readonly code = 'PROJECTION_RUN_DECLINED';
}

interface RunResult {
  checkpoint: Checkpoint | undefined;
  applied: BusRecord[];
  /** Copies verified by their event id. */
  copies: number;
  unverifiedCopies: BusRecord[];
}

interface RunPlan {
  /** In order: the events that are next in their stream. */
  applied: BusRecord[];
  /** Per stream the run advances: from the locked version to its last in the run. */
  streams: Map<string, { from: number; to: number }>;
  /** Copies of events the run itself applies (same id), skipped. */
  copiesInRun: number;
  /** Copies of events applied before the run, to verify against the kept ids. */
  storedCopies: BusRecord[];
}

/**
 * What a run does with each of its events, given its streams' applied versions: the same decision as
 * `applyOnce`, with the run's own events counted as applied. A gap or a conflicting copy declines the run.
 */
function planRun(records: readonly BusRecord[], locked: ReadonlyMap<string, number>): RunPlan {
  const plan: RunPlan = { applied: [], streams: new Map(), copiesInRun: 0, storedCopies: [] };
  const idsInRun = new Map<string, string>();
  for (const record of records) {
    const { streamId, streamVersion, eventId } = record.envelope;
    const from = locked.get(streamId) ?? 0;
    const last = plan.streams.get(streamId)?.to ?? from;
    if (streamVersion === last + 1) {
      plan.applied.push(record);
      plan.streams.set(streamId, { from, to: streamVersion });
      idsInRun.set(versionKey(streamId, streamVersion), eventId);
    } else if (streamVersion > last + 1) {
      throw new RunDeclined('a gap');
    } else if (streamVersion > from) {
      if (idsInRun.get(versionKey(streamId, streamVersion)) !== eventId) throw new RunDeclined('a conflicting copy');
      plan.copiesInRun += 1;
    } else {
      plan.storedCopies.push(record);
    }
  }
  return plan;
}

/**
 * The partition's checkpoint as it was (`checkpoint`, the statement's snapshot) and moved past a record
 * (`moved`: the upsert, which locks the row). A checkpoint is a position: it moves forward within its log
 * (a redelivery leaves it where it is) and starts again in another log. Parameters: projection, version,
 * topic, partition, the next offset, the log.
 */
const CHECKPOINT_MOVE = `checkpoint AS (
   SELECT next_offset::text AS next_offset, log FROM projection_checkpoints
    WHERE projection = $1 AND version = $2 AND topic = $3 AND partition = $4
 ), moved AS (
   INSERT INTO projection_checkpoints (projection, version, topic, partition, next_offset, log, updated_at)
   VALUES ($1, $2, $3, $4, $5, $6, now())
   ON CONFLICT (projection, version, topic, partition)
   DO UPDATE SET next_offset = CASE WHEN projection_checkpoints.log = EXCLUDED.log
                                    THEN GREATEST(projection_checkpoints.next_offset, EXCLUDED.next_offset)
                                    ELSE EXCLUDED.next_offset END,
                 log = EXCLUDED.log, updated_at = now()
   RETURNING 1
 )`;

function versionKey(streamId: string, streamVersion: number): string {
  return `${streamId}\u0000${streamVersion}`;
}

export class ProjectionRunner<Tx> {
  private subscription: Subscription | undefined;
  private applied = 0;
  private skipped = 0;
  /** Per stream with a gap (`topic` NUL `streamId`): since when its next event has been held. */
  private readonly gaps = new Map<string, number>();
  private readonly gapHoldMs: number;
  private readonly applyTimeoutMs: number;
  private readonly logger: BusLogger;
  private unverifiedLogged = false;
  readonly groupId: string;

  constructor(
    private readonly definition: ProjectionDefinition<Tx>,
    private readonly transactions: ProjectionTransactions<Tx>,
    private readonly bus: EventBus,
    options: ProjectionRunnerOptions = {},
  ) {
    if (!Number.isSafeInteger(definition.version) || definition.version < 1) throw new Error('projection version must be an integer ≥ 1');
    this.groupId = options.consumerGroup ?? groupOf(definition);
    this.gapHoldMs = options.gapHoldMs ?? DEFAULT_GAP_HOLD_MS;
    if (!Number.isSafeInteger(this.gapHoldMs) || this.gapHoldMs < 0) throw new Error('gapHoldMs must be an integer ≥ 0');
    this.applyTimeoutMs = options.applyTimeoutMs ?? DEFAULT_APPLY_TIMEOUT_MS;
    if (!Number.isSafeInteger(this.applyTimeoutMs) || this.applyTimeoutMs < 1) throw new Error('applyTimeoutMs must be an integer ≥ 1');
    this.logger = options.logger ?? jsonLineBusLogger('info', undefined, 'platform-projections');
  }

  /** Events applied, and repeats (redeliveries and duplicates in the log) skipped, since start. */
  get counters(): { applied: number; skipped: number } {
    return { applied: this.applied, skipped: this.skipped };
  }

  async start(): Promise<void> {
    if (this.subscription) return;
    this.subscription = await this.bus.subscribe({
      groupId: this.groupId,
      topics: this.definition.topics,
      start: 'earliest',
      handler: (record) => this.handle(record),
      batchHandler: (records) => this.handleRun(records),
    });
  }

  async stop(): Promise<void> {
    const subscription = this.subscription;
    this.subscription = undefined;
    await subscription?.stop();
  }

  private async handle(record: BusRecord): Promise<void> {
    let outcome: Outcome;
    try {
      outcome = await this.applyOnce(record);
    } catch (error) {
      if (!isDatabaseUnavailable(error)) throw error;
      throw new TransientHandlerError(`Projection ${this.groupId} cannot reach its database.`, { code: PROJECTION_DATABASE_UNAVAILABLE, cause: error });
    }
    if (outcome === 'applied') this.applied += 1;
    else this.skipped += 1;
    if (outcome === 'unverified-copy') this.noteUnverifiedCopy(record);
  }

  private noteUnverifiedCopy(record: BusRecord): void {
    if (this.unverifiedLogged) return;
    this.unverifiedLogged = true;
    this.logger.log('warn', 'projection: skipped a copy of an applied event whose id is no longer kept; it is not verified (logged once per runner)', {
      ...this.where(record),
      code: 'PROJECTION_COPY_UNVERIFIED',
    });
  }

  private where(record: BusRecord) {
    return { groupId: this.groupId, topic: record.topic, partition: record.partition, offset: record.offset };
  }

  /** Applies the event and moves the checkpoint in one transaction, or tells why it was skipped (a copy). */
  private applyOnce(record: BusRecord): Promise<Outcome> {
    const { envelope } = record;
    return this.transactions.run(async (tx, sql) => {
      // Every event applied one by one pays for these round trips, so one statement does the bookkeeping:
      // the partition's checkpoint moved past the event (which locks it: checkpoint first, as a run locks),
      // and, when the event is next in its stream as of the statement's snapshot, the stream advanced to it
      // (moving only from the version before it, which locks that row) with its event id kept. It is all
      // the transaction's, so a failure of `apply` rolls it back with the rest.
      const [locked] = await sql.query<{ next_offset: string | null; log: string | null; stream_version: string | null; advanced: boolean }>(
        `WITH ${CHECKPOINT_MOVE}, stream AS (
           SELECT stream_version FROM projection_stream_versions
            WHERE projection = $1 AND version = $2 AND topic = $3 AND stream_id = $7
         ), advanced AS (
           INSERT INTO projection_stream_versions (projection, version, topic, stream_id, stream_version)
           SELECT $1, $2, $3, $7, $8::bigint
            WHERE (SELECT count(*) FROM moved) > 0 AND $8::bigint = COALESCE((SELECT stream_version FROM stream), 0) + 1
           ON CONFLICT (projection, version, topic, stream_id)
           DO UPDATE SET stream_version = EXCLUDED.stream_version WHERE projection_stream_versions.stream_version = EXCLUDED.stream_version - 1
           RETURNING stream_version
         ), recorded AS (
           INSERT INTO projection_applied_events (projection, version, topic, stream_id, stream_version, event_id, applied_at)
           SELECT $1, $2, $3, $7, stream_version, $9, now() FROM advanced
           ON CONFLICT (projection, version, topic, stream_id, stream_version) DO UPDATE SET event_id = EXCLUDED.event_id, applied_at = now()
         )
         SELECT (SELECT next_offset FROM checkpoint) AS next_offset, (SELECT log FROM checkpoint) AS log,
                (SELECT stream_version::text FROM stream) AS stream_version, EXISTS (SELECT 1 FROM advanced) AS advanced`,
        [...this.checkpointParams(record), envelope.streamId, envelope.streamVersion, envelope.eventId],
      );
      const checkpoint = locked?.next_offset != null && locked.log != null ? { next_offset: locked.next_offset, log: locked.log } : undefined;
      const last = locked?.stream_version != null ? Number(locked.stream_version) : 0;
      let outcome: Outcome;
      if (locked?.advanced) {
        await this.applyWithin(envelope, { tx, record });
        outcome = 'applied';
      } else if (envelope.streamVersion <= last) {
        outcome = await this.verifyCopy(sql, record);
      } else if (envelope.streamVersion > last + 1) {
        // `last` is the snapshot's: a runner that committed since can only have moved the stream on, so at
        // worst a gap is held (transient) once more and found to be a copy on the next try.
        throw this.gap(record, last);
      } else {
        // Next as of the snapshot, but the row moved first (or a racing runner created it): the runner
        // that got there applied it. Tried again, it is a copy.
        throw new TransientHandlerError(`Projection ${this.groupId}: another runner applied this stream's next version first.`, { code: PROJECTION_STREAM_CONTENDED });
      }
      this.logLogChange(checkpoint, record);
      return outcome;
    }).then((outcome) => {
      if (outcome === 'applied') this.gaps.delete(streamKey(record));
      return outcome;
    });
  }

  /**
   * Moves the partition's checkpoint past `record` (which locks its row for the transaction, so two runners
   * of one version never both apply) and returns the checkpoint as it was, in one statement.
   */
  private async moveCheckpoint(sql: SqlExecutor, record: BusRecord): Promise<Checkpoint | undefined> {
    const [row] = await sql.query<{ next_offset: string | null; log: string | null }>(
      `WITH ${CHECKPOINT_MOVE}
       SELECT (SELECT next_offset FROM checkpoint) AS next_offset, (SELECT log FROM checkpoint) AS log, (SELECT count(*) FROM moved) AS moved`,
      this.checkpointParams(record),
    );
    return row?.next_offset != null && row.log != null ? { next_offset: row.next_offset, log: row.log } : undefined;
  }

  /** The parameters of `CHECKPOINT_MOVE` for the checkpoint just past `record`. */
  private checkpointParams(record: BusRecord): unknown[] {
    const { name, version } = this.definition;
    return [name, version, record.topic, record.partition, (BigInt(record.offset) + 1n).toString(), record.log];
  }

  private logLogChange(checkpoint: Checkpoint | undefined, record: BusRecord): void {
    if (!checkpoint || checkpoint.log === record.log) return;
    this.logger.log('warn', "projection: the partition's log changed (recreated topic, another cluster, prefix or adapter); its checkpoint starts again in the new log", {
      ...this.where(record),
      code: 'PROJECTION_LOG_CHANGED',
      previousNextOffset: checkpoint.next_offset,
    });
  }

  /**
   * A run of one partition's consecutive records (the bus's `batchHandler`) in ONE transaction: the
   * checkpoint moved past the run (which locks it) and the run's streams locked, in one statement each, the
   * stream versions and event ids written in one statement, the events applied (`applyRun` once, else
   * `apply` per event). Only events that are simply next in their stream, or verified copies, pass this way: at anything
   * else (a gap, a conflicting copy, a failing or slow `apply` or `applyRun`, a contended new stream, the
   * database) the whole run rolls back and the bus hands its records one by one to `handle`, which decides
   * each of them exactly as if no run had been tried. So a run's events are committed once, together, or
   * not at all.
   */
  private async handleRun(records: readonly BusRecord[]): Promise<void> {
    const run = await this.applyRun(records);
    this.applied += run.applied.length;
    this.skipped += run.copies + run.unverifiedCopies.length;
    for (const record of run.applied) this.gaps.delete(streamKey(record));
    const [unverified] = run.unverifiedCopies;
    if (unverified) this.noteUnverifiedCopy(unverified);
    const [first] = records;
    if (first) this.logLogChange(run.checkpoint, first);
  }

  private applyRun(records: readonly BusRecord[]): Promise<RunResult> {
    const [first] = records;
    // The bus hands over one partition's records, of one log; anything else goes one by one.
    if (!first || records.some((record) => record.topic !== first.topic || record.partition !== first.partition || record.log !== first.log)) {
      return Promise.reject(new RunDeclined('not one partition of one log'));
    }
    const last = records[records.length - 1] ?? first;
    return this.transactions.run(async (tx, sql) => {
      // Sent together, checkpoint first (the lock order): one round trip while the transaction holds the connection.
      // The checkpoint moves past the run's last record now, in the run's transaction: no write of its own at the end.
      const [checkpoint, streams] = await Promise.all([this.moveCheckpoint(sql, last), this.lockStreams(sql, first.topic, records)]);
      const plan = planRun(records, streams);
      const unverifiedCopies = await this.verifyRunCopies(sql, first.topic, plan.storedCopies);
      await this.advanceStreams(sql, first.topic, plan.streams, plan.applied);
      await this.applyRunOf(tx, plan.applied);
      return { checkpoint, applied: plan.applied, copies: plan.copiesInRun + plan.storedCopies.length - unverifiedCopies.length, unverifiedCopies };
    });
  }

  /**
   * The applied versions of the run's streams, their rows locked (in one order, so two runs never deadlock).
   * `= ANY (ARRAY(...))` keeps it an index scan: as `IN (SELECT ...)` the planner hash-joins the whole table.
   */
  private async lockStreams(sql: SqlExecutor, topic: string, records: readonly BusRecord[]): Promise<Map<string, number>> {
    const { name, version } = this.definition;
    const streamIds = [...new Set(records.map((record) => record.envelope.streamId))];
    const rows = await sql.query<{ stream_id: string; stream_version: string }>(
      `SELECT stream_id, stream_version::text AS stream_version FROM projection_stream_versions
        WHERE projection = $1 AND version = $2 AND topic = $3 AND stream_id = ANY (ARRAY(SELECT json_array_elements_text($4::json)))
        ORDER BY stream_id FOR UPDATE`,
      [name, version, topic, JSON.stringify(streamIds)],
    );
    return new Map(rows.map((row) => [row.stream_id, Number(row.stream_version)]));
  }

  /** Which of the copies of stored events are unverified (no id kept); declines the run at a conflicting one. */
  private async verifyRunCopies(sql: SqlExecutor, topic: string, copies: readonly BusRecord[]): Promise<BusRecord[]> {
    if (copies.length === 0) return [];
    const { name, version } = this.definition;
    const rows = await sql.query<{ stream_id: string; stream_version: string; event_id: string }>(
      `SELECT a.stream_id, a.stream_version::text AS stream_version, a.event_id
         FROM projection_applied_events a
         JOIN json_to_recordset($4::json) AS c(stream_id text, stream_version bigint)
           ON a.stream_id = c.stream_id AND a.stream_version = c.stream_version
        WHERE a.projection = $1 AND a.version = $2 AND a.topic = $3`,
      [name, version, topic, JSON.stringify(copies.map(({ envelope }) => ({ stream_id: envelope.streamId, stream_version: envelope.streamVersion })))],
    );
    const applied = new Map(rows.map((row) => [versionKey(row.stream_id, Number(row.stream_version)), row.event_id]));
    const unverified: BusRecord[] = [];
    for (const record of copies) {
      const eventId = applied.get(versionKey(record.envelope.streamId, record.envelope.streamVersion));
      if (eventId === undefined) unverified.push(record);
      else if (eventId !== record.envelope.eventId) throw new RunDeclined('a conflicting copy');
    }
    return unverified;
  }

  /**
   * Moves each stream of the run from the version it was locked at to its last in the run, and keeps the
   * applied events' ids, in one statement; a stream a racing runner created meanwhile (no row to lock) is
   * left as it is, and the run declined (which rolls the ids back with it).
   */
  private async advanceStreams(sql: SqlExecutor, topic: string, streams: ReadonlyMap<string, { from: number; to: number }>, applied: readonly BusRecord[]): Promise<void> {
    if (streams.size === 0) return;
    const { name, version } = this.definition;
    const moves = [...streams].map(([streamId, { from, to }]) => ({ stream_id: streamId, from_version: from, to_version: to }));
    const events = applied.map(({ envelope }) => ({ stream_id: envelope.streamId, stream_version: envelope.streamVersion, event_id: envelope.eventId }));
    const advanced = await sql.query(
      `WITH moves AS (SELECT * FROM json_to_recordset($4::json) AS m(stream_id text, from_version bigint, to_version bigint)),
       advanced AS (
         INSERT INTO projection_stream_versions (projection, version, topic, stream_id, stream_version)
         SELECT $1, $2, $3, stream_id, to_version FROM moves
         ON CONFLICT (projection, version, topic, stream_id)
         DO UPDATE SET stream_version = EXCLUDED.stream_version
          WHERE projection_stream_versions.stream_version = (SELECT from_version FROM moves WHERE moves.stream_id = EXCLUDED.stream_id)
         RETURNING stream_id
       ), recorded AS (
         INSERT INTO projection_applied_events (projection, version, topic, stream_id, stream_version, event_id, applied_at)
         SELECT $1, $2, $3, stream_id, stream_version, event_id, now()
           FROM json_to_recordset($5::json) AS e(stream_id text, stream_version bigint, event_id text)
         ON CONFLICT (projection, version, topic, stream_id, stream_version) DO UPDATE SET event_id = EXCLUDED.event_id, applied_at = now()
       )
       SELECT stream_id FROM advanced`,
      [name, version, topic, JSON.stringify(moves), JSON.stringify(events)],
    );
    if (advanced.length !== moves.length) throw new RunDeclined('another runner applied a stream of the run first');
  }

  /**
   * A run's events: through the projection's `applyRun` when it has one (one call, given `applyTimeoutMs`
   * as one `apply` is), else `apply` per event.
   */
  private async applyRunOf(tx: Tx, records: readonly BusRecord[]): Promise<void> {
    const [first] = records;
    if (!first) return;
    const { applyRun } = this.definition;
    if (applyRun) {
      const envelopes = records.map((record) => record.envelope);
      await this.within(first, () => applyRun.call(this.definition, envelopes, { tx, records }));
      return;
    }
    for (const record of records) await this.applyWithin(record.envelope, { tx, record });
  }

  /** The projection's `apply`, given at most `applyTimeoutMs`. */
  private applyWithin(envelope: EventEnvelope, context: ProjectionContext<Tx>): Promise<void> {
    return this.within(context.record, () => this.definition.apply(envelope, context));
  }

  /** Runs `work` (the projection's own code), given at most `applyTimeoutMs`; `record` names where in the logs. */
  private async within(record: BusRecord, work: () => Promise<void>): Promise<void> {
    let timer: NodeJS.Timeout | undefined;
    const timedOut = new Promise<never>((_, reject) => {
      timer = setTimeout(() => {
        this.logger.log('error', 'projection: apply did not finish in time (does it write outside its transaction?); rolled back', {
          ...this.where(record),
          code: PROJECTION_APPLY_TIMEOUT,
          applyTimeoutMs: this.applyTimeoutMs,
        });
        reject(new ProjectionError(PROJECTION_APPLY_TIMEOUT, `Projection ${this.groupId}: apply took longer than ${this.applyTimeoutMs} ms.`));
      }, this.applyTimeoutMs);
    });
    try {
      await Promise.race([work(), timedOut]);
    } finally {
      clearTimeout(timer);
    }
  }

  /** An event at or below its stream's applied version: a copy when it is the applied event, else refused. */
  private async verifyCopy(sql: SqlExecutor, record: BusRecord): Promise<Outcome> {
    const { name, version } = this.definition;
    const { envelope } = record;
    const [applied] = await sql.query<{ event_id: string }>(
      `SELECT event_id FROM projection_applied_events
        WHERE projection = $1 AND version = $2 AND topic = $3 AND stream_id = $4 AND stream_version = $5`,
      [name, version, record.topic, envelope.streamId, envelope.streamVersion],
    );
    if (!applied) return 'unverified-copy';
    if (applied.event_id === envelope.eventId) return 'copy';
    if (record.attempt === 1) {
      this.logger.log('error', 'projection: another event with a version its stream already applied; refused (it goes to the DLQ)', {
        ...this.where(record),
        code: PROJECTION_EVENT_CONFLICT,
        streamVersion: envelope.streamVersion,
        eventId: envelope.eventId,
        appliedEventId: applied.event_id,
      });
    }
    return Promise.reject(
      new ProjectionError(
        PROJECTION_EVENT_CONFLICT,
        `Event ${envelope.eventId} has version ${envelope.streamVersion} of its stream, which the projection applied as event ${applied.event_id}.`,
      ),
    );
  }

  /** What an event past its stream's next version is failed with: held (transient) until the hold runs out. */
  private gap(record: BusRecord, last: number): Error {
    const key = streamKey(record);
    const now = Date.now();
    const since = this.gaps.get(key) ?? now;
    this.gaps.set(key, since);
    const { streamVersion } = record.envelope;
    const missing = `versions ${last + 1}..${streamVersion - 1}`;
    if (now - since < this.gapHoldMs) {
      return new TransientHandlerError(`Projection ${this.groupId}: event ${streamVersion} of its stream waits for ${missing}.`, { code: PROJECTION_STREAM_GAP });
    }
    if (record.attempt === 1) {
      this.logger.log('error', 'projection: an event follows a gap in its stream that was not filled in time; refused (it goes to the DLQ; re-send it after the missing versions)', {
        ...this.where(record),
        code: PROJECTION_STREAM_GAP,
        appliedVersion: last,
        streamVersion,
        heldMs: now - since,
      });
    }
    return new ProjectionError(PROJECTION_STREAM_GAP, `Projection ${this.groupId}: event ${streamVersion} of its stream follows a gap (${missing} not applied).`);
  }

  /**
   * Makes this runner's version serve reads once it has caught up with the log now (else
   * `PROJECTION_VERSION_UNFINISHED`); `activate` applies its own checks too.
   */
  async activate(options: ActivateOptions = {}): Promise<void> {
    const status = await this.status();
    if (!isCaughtUp(status)) {
      throw new ProjectionError(
        PROJECTION_VERSION_UNFINISHED,
        `Version ${this.definition.version} of projection ${this.definition.name} is ${status.totalLag} events behind the log (or not running); activate it once it caught up.`,
      );
    }
    await activate(this.transactions, this.definition.name, this.definition.version, options);
  }

  /** Where the projection stands, and how far behind the log it is. */
  async status(): Promise<ProjectionStatus> {
    const { name, version } = this.definition;
    // The group's offsets first, the checkpoints after: the group commits an event only once its transaction
    // (checkpoint included) has, so read in this order the checkpoints are never behind the offsets; read the
    // other way, an event applied between the two reads shows as consumed but not applied.
    const lag = this.subscription ? await this.subscription.lag() : [];
    const positions = await this.transactions.read((sql) => readPositions(sql, name, version));
    return { projection: name, version, positions, lag, totalLag: lag.reduce((sum, entry) => sum + entry.lag, 0), retrying: this.retrying() };
  }

  /**
   * The partitions waiting on an event because the projection's database is unavailable, without asking
   * that database (so a health check answers during the outage).
   */
  retrying(): RetryingPartition[] {
    return this.subscription?.retrying() ?? [];
  }

  /**
   * Resolves once the projection has handled the log up to its end (applied, skipped as a copy, or
   * refused to the DLQ), or rejects after `timeoutMs`.
   */
  async catchUp(timeoutMs = 60_000, pollMs = 100): Promise<ProjectionStatus> {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const status = await this.status();
      if (isCaughtUp(status)) return status;
      if (Date.now() > deadline) throw new Error(`projection ${this.groupId} did not catch up within ${timeoutMs} ms (lag ${status.totalLag})`);
      await new Promise((resolve) => setTimeout(resolve, pollMs));
    }
  }
}

function streamKey(record: BusRecord): string {
  return `${record.topic}\u0000${record.envelope.streamId}`;
}

/**
 * Caught up: the group has handled every partition to its end. The group commits an offset only once the
 * runner's transaction committed (or the bus dead-lettered the message the runner refused, which the
 * checkpoint never covers), so its offsets, not the checkpoints, say when nothing is left to do.
 */
function isCaughtUp(status: ProjectionStatus): boolean {
  return status.lag.length > 0 && status.lag.every((entry) => entry.lag === 0 && BigInt(entry.committedOffset) >= BigInt(entry.endOffset));
}

async function readPositions(sql: SqlExecutor, name: string, version: number): Promise<ProjectionPosition[]> {
  const rows = await sql.query<{ topic: string; partition: number; next_offset: string; log: string }>(
    `SELECT topic, partition, next_offset::text AS next_offset, log FROM projection_checkpoints
      WHERE projection = $1 AND version = $2 ORDER BY topic, partition`,
    [name, version],
  );
  return rows.map((row) => ({ topic: row.topic, partition: Number(row.partition), log: row.log, nextOffset: row.next_offset }));
}

/** The version of a projection that serves reads, or `null` if none was activated yet. */
export async function activeVersion(transactions: Pick<ProjectionTransactions<unknown>, 'read'>, projection: string): Promise<number | null> {
  const rows = await transactions.read((sql) =>
    sql.query<{ active_version: number }>('SELECT active_version FROM projection_versions WHERE projection = $1', [projection]),
  );
  return rows[0] ? Number(rows[0].active_version) : null;
}

export interface ActivateOptions {
  /** Let an older version serve again (a deliberate rollback); refused otherwise. */
  allowOlder?: boolean;
}

/**
 * Makes `version` the one that serves reads, in one statement that also checks it: refused with
 * `PROJECTION_VERSION_OLDER` when a newer version serves (unless `allowOlder`), and with
 * `PROJECTION_VERSION_UNFINISHED` when the version never applied anything (no checkpoint). To check that a
 * rebuild caught up with the log as well, activate through its runner (`ProjectionRunner.activate`).
 */
export async function activate(
  transactions: Pick<ProjectionTransactions<unknown>, 'read'>,
  projection: string,
  version: number,
  options: ActivateOptions = {},
): Promise<void> {
  const [result] = await transactions.read((sql) =>
    sql.query<{ started: boolean; active: number | null; activated: boolean }>(
      `WITH started AS (
         SELECT EXISTS (SELECT 1 FROM projection_checkpoints WHERE projection = $1 AND version = $2) AS started
       ), serving AS (
         SELECT (SELECT active_version FROM projection_versions WHERE projection = $1) AS active
       ), activated AS (
         INSERT INTO projection_versions (projection, active_version, activated_at)
         SELECT $1, $2, now() FROM started, serving
          WHERE started.started AND (serving.active IS NULL OR serving.active <= $2 OR $3::boolean)
         ON CONFLICT (projection) DO UPDATE SET active_version = EXCLUDED.active_version, activated_at = now()
         RETURNING 1
       )
       SELECT started.started, serving.active, EXISTS (SELECT 1 FROM activated) AS activated FROM started, serving`,
      [projection, version, options.allowOlder === true],
    ),
  );
  if (result?.activated) return;
  if (!result?.started) {
    throw new ProjectionError(PROJECTION_VERSION_UNFINISHED, `Version ${version} of projection ${projection} has applied nothing yet; run it until it caught up, then activate it.`);
  }
  throw new ProjectionError(
    PROJECTION_VERSION_OLDER,
    `Version ${result.active} of projection ${projection} serves reads; version ${version} is older (pass allowOlder to roll back on purpose).`,
  );
}

export interface ProjectionRetention {
  /** Delete the ids of events applied before this date (`projection_applied_events`). */
  appliedEventsBefore: Date;
}

/**
 * Bounded retention of the runner's own tables, for a periodic job (documented default: keep applied event
 * ids 30 days). Deletes the ids of events applied before `appliedEventsBefore` (a copy of such an event is
 * still skipped, unverified), and every row of the projection's versions older than the active one (their
 * checkpoints, stream versions and ids: a retired version is never read again; its read model tables are
 * its owner's to drop). Returns how many rows went.
 */
export async function purgeProjectionHistory(
  transactions: Pick<ProjectionTransactions<unknown>, 'read'>,
  projection: string,
  retention: ProjectionRetention,
): Promise<{ appliedEvents: number; retiredRows: number }> {
  return transactions.read(async (sql) => {
    const applied = await sql.query('DELETE FROM projection_applied_events WHERE projection = $1 AND applied_at < $2 RETURNING 1', [
      projection,
      retention.appliedEventsBefore.toISOString(),
    ]);
    let retiredRows = 0;
    for (const table of ['projection_applied_events', 'projection_stream_versions', 'projection_checkpoints']) {
      const rows = await sql.query(
        `DELETE FROM ${table} WHERE projection = $1
            AND version < (SELECT active_version FROM projection_versions WHERE projection = $1) RETURNING 1`,
        [projection],
      );
      retiredRows += rows.length;
    }
    return { appliedEvents: applied.length, retiredRows };
  });
}
