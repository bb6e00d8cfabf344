/**
 * The projection runner (ARCHITECTURE.md "Events"): consumes a projection's topics from the bus and
 * applies each event and the projection's checkpoint in ONE transaction, so a read model sees every
 * event exactly once although the bus delivers at least once. Two kinds of repeat are skipped:
 * - a message delivered again (after a crash, a rebalance, a commit lost with the broker): its offset is
 *   below the partition's checkpoint;
 * - an event the log holds twice, at two offsets (the outbox publishes at least once: a batch that
 *   partly reached the broker before a failure is published again whole): its stream version is at or
 *   below the one the projection applied for its stream (`projection_stream_versions`). A stream is one
 *   partition's, in order, so a later version is never seen before an earlier one.
 *
 * Failures: an error of the projection's own `apply` (its logic, a constraint its writes break) is an
 * ordinary handler failure: the bus gives the message its tries, then dead-letters it. A database that
 * cannot be reached or was lost (`isDatabaseUnavailable`: the transaction cannot open, the connection dies
 * under the checkpoint statements, the commit or `apply`'s own statements) is no fault of the message: the
 * runner throws it on as a `TransientHandlerError` (`PROJECTION_DATABASE_UNAVAILABLE`), so the bus keeps
 * the partition waiting on that message for as long as the outage lasts instead of dead-lettering it and
 * leaving a hole in the read model. `status().retrying` shows such a partition; its lag grows meanwhile.
 *
 * Each version of a projection has its own checkpoints and its own consumer group, so a rebuild fills
 * version n+1 from the beginning of the log while version n keeps serving; `activate` then switches
 * readers over in one update.
 */
import { TransientHandlerError, type BusRecord, type EventBus, type PartitionLag, type RetryingPartition, type Subscription } from '@trustmesh/platform-bus';
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
   * Topics whose events number each stream's events in increasing `streamVersion`s, as the event store
   * does: an event at or below the version already applied for its stream is taken for a copy and skipped.
   * A topic where several writers number their own contributions to one stream does not qualify.
   */
  topics: readonly string[];
  apply(envelope: EventEnvelope, context: ProjectionContext<Tx>): Promise<void>;
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

const groupOf = (definition: { name: string; version: number }) => `projection.${definition.name}.v${definition.version}`;

export interface ProjectionRunnerOptions {
  /**
   * The consumer group; defaults to `projection.<name>.v<version>`. A second group on the same version
   * (a replacement process, an operator's catch-up run) is safe: the checkpoint still admits each event
   * once.
   */
  consumerGroup?: string;
}

export class ProjectionRunner<Tx> {
  private subscription: Subscription | undefined;
  private applied = 0;
  private skipped = 0;
  readonly groupId: string;

  constructor(
    private readonly definition: ProjectionDefinition<Tx>,
    private readonly transactions: ProjectionTransactions<Tx>,
    private readonly bus: EventBus,
    options: ProjectionRunnerOptions = {},
  ) {
    if (!Number.isSafeInteger(definition.version) || definition.version < 1) throw new Error('projection version must be an integer ≥ 1');
    this.groupId = options.consumerGroup ?? groupOf(definition);
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
    });
  }

  async stop(): Promise<void> {
    const subscription = this.subscription;
    this.subscription = undefined;
    await subscription?.stop();
  }

  private async handle(record: BusRecord): Promise<void> {
    let applied: boolean;
    try {
      applied = await this.applyOnce(record);
    } catch (error) {
      if (!isDatabaseUnavailable(error)) throw error;
      throw new TransientHandlerError(`Projection ${this.groupId} cannot reach its database.`, { code: PROJECTION_DATABASE_UNAVAILABLE, cause: error });
    }
    if (applied) this.applied += 1;
    else this.skipped += 1;
  }

  /** Applies the event and moves the checkpoint in one transaction; false when it was a repeat, skipped. */
  private applyOnce(record: BusRecord): Promise<boolean> {
    const { name, version } = this.definition;
    const offset = BigInt(record.offset);
    return this.transactions.run(async (tx, sql) => {
      // Lock the checkpoint row for the transaction, so two runners of one version never both apply.
      const [row] = await sql.query<{ next_offset: string }>(
        `SELECT next_offset::text AS next_offset FROM projection_checkpoints
          WHERE projection = $1 AND version = $2 AND topic = $3 AND partition = $4 FOR UPDATE`,
        [name, version, record.topic, record.partition],
      );
      if (row && offset < BigInt(row.next_offset)) return false;
      // The stream's row is locked too; it moves only forward, so a copy of an applied event changes nothing.
      const advanced = await sql.query(
        `INSERT INTO projection_stream_versions (projection, version, topic, stream_id, stream_version)
         VALUES ($1, $2, $3, $4, $5)
         ON CONFLICT (projection, version, topic, stream_id)
         DO UPDATE SET stream_version = EXCLUDED.stream_version WHERE projection_stream_versions.stream_version < EXCLUDED.stream_version
         RETURNING stream_version`,
        [name, version, record.topic, record.envelope.streamId, record.envelope.streamVersion],
      );
      const fresh = advanced.length > 0;
      if (fresh) await this.definition.apply(record.envelope, { tx, record });
      // A skipped copy still moves the checkpoint past its offset.
      await sql.query(
        `INSERT INTO projection_checkpoints (projection, version, topic, partition, next_offset, updated_at)
         VALUES ($1, $2, $3, $4, $5, now())
         ON CONFLICT (projection, version, topic, partition)
         DO UPDATE SET next_offset = EXCLUDED.next_offset, updated_at = now()`,
        [name, version, record.topic, record.partition, (offset + 1n).toString()],
      );
      return fresh;
    });
  }

  /** Where the projection stands, and how far behind the log it is. */
  async status(): Promise<ProjectionStatus> {
    const { name, version } = this.definition;
    const positions = await this.transactions.read((sql) => readPositions(sql, name, version));
    const lag = this.subscription ? await this.subscription.lag() : [];
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
   * Resolves once the projection has applied the log up to its end, or rejects after `timeoutMs`. The
   * projection's own checkpoints decide, not only the consumer group's committed offsets.
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

function isCaughtUp(status: ProjectionStatus): boolean {
  if (status.lag.length === 0 || status.totalLag !== 0) return false;
  const applied = new Map(status.positions.map((position) => [`${position.topic}/${position.partition}`, BigInt(position.nextOffset)]));
  return status.lag.every((entry) => {
    const next = applied.get(`${entry.topic}/${entry.partition}`);
    // No checkpoint: only right for a partition the group found empty.
    return next === undefined ? entry.endOffset === entry.committedOffset : next >= BigInt(entry.endOffset);
  });
}

async function readPositions(sql: SqlExecutor, name: string, version: number): Promise<ProjectionPosition[]> {
  const rows = await sql.query<{ topic: string; partition: number; next_offset: string }>(
    `SELECT topic, partition, next_offset::text AS next_offset FROM projection_checkpoints
      WHERE projection = $1 AND version = $2 ORDER BY topic, partition`,
    [name, version],
  );
  return rows.map((row) => ({ topic: row.topic, partition: Number(row.partition), nextOffset: row.next_offset }));
}

/** The version of a projection that serves reads, or `null` if none was activated yet. */
export async function activeVersion(transactions: Pick<ProjectionTransactions<unknown>, 'read'>, projection: string): Promise<number | null> {
  const rows = await transactions.read((sql) =>
    sql.query<{ active_version: number }>('SELECT active_version FROM projection_versions WHERE projection = $1', [projection]),
  );
  return rows[0] ? Number(rows[0].active_version) : null;
}

/** Makes `version` the one that serves reads (after a rebuild caught up). */
export async function activate(transactions: Pick<ProjectionTransactions<unknown>, 'read'>, projection: string, version: number): Promise<void> {
  await transactions.read((sql) =>
    sql.query(
      `INSERT INTO projection_versions (projection, active_version, activated_at) VALUES ($1, $2, now())
       ON CONFLICT (projection) DO UPDATE SET active_version = EXCLUDED.active_version, activated_at = now()`,
      [projection, version],
    ),
  );
}
