/**
 * Retention of the local bus's log (`bus_messages`), run by a periodic job (`platform-maintenance`).
 * Kafka deletes a topic's messages by age whoever has read them; the local bus keeps that rule and adds
 * one: it never deletes what a live consumer group has not committed, unless it is past a hard maximum age.
 *
 * Per partition, two passes, each deleting only a prefix of the log (the oldest offsets), so what is kept
 * is always one run of offsets from the partition's low-water mark to its end:
 * 1. consumed: messages older than `retainMs` that every live group consuming the topic committed past.
 *    A group is live while it has a member whose session has not expired (`bus_group_members`); a live
 *    member without a commit on the partition protects all of it (it reads from the start). Groups with
 *    no live member (stopped, a retired projection version, a replica that is gone) protect nothing, as
 *    in Kafka: when one comes back below the low-water mark it resumes at the oldest kept message, with a
 *    `BUS_LOG_TRUNCATED` warning (`partition-worker.ts`). Dead-letter topics (`.dlq`) skip this pass: a
 *    dead letter is a message nobody handled, and operators replay from it, so it stays to the hard bound.
 * 2. past the hard bound: messages older than `maxAgeMs`, whatever any group committed, so one stuck
 *    consumer cannot grow the database without end. What this pass deletes is counted as `unconsumed`
 *    (the caller logs it): a live group lagged that far behind, or a dead letter expired.
 *
 * A new group that starts from `earliest` starts at the oldest kept message, as on Kafka. So does a
 * projection rebuilt from the bus: it sees only what is kept, and a stream whose first versions were
 * deleted is a gap it refuses loudly (`PROJECTION_STREAM_GAP`), never applies over.
 *
 * Bounded work: each statement deletes at most `batchSize` rows found through the primary key from the
 * low end, and computes the live groups' bound afresh, so no statement holds many row locks or a stale
 * bound for long. Publishing goes on meanwhile: it appends above every committed offset, and a message is
 * older than the bounds only long after its publish committed. Idempotent: replicas running it at once
 * delete each row once (the second waits on the first's row locks, then finds the rows gone).
 *
 * Ages are on the database's clock (`now()`), as the consumer groups' sessions are.
 */
import type { Database, SqlExecutor } from '@trustmesh/platform-database';

import { isDeadLetterTopic } from '../event-bus.port';

export interface LocalLogRetention {
  /** Messages every live group committed past are deleted once older than this. */
  retainMs: number;
  /** Messages older than this are deleted whether or not a live group committed past them (≥ `retainMs`). */
  maxAgeMs: number;
  /** Most rows one delete statement removes (default 1,000). */
  batchSize?: number;
  /** Stops between statements (a shutdown); what was deleted stays deleted. */
  signal?: AbortSignal;
}

export interface LocalLogRetentionResult {
  /** Messages deleted in all. */
  deleted: number;
  /** Of those, the ones past `maxAgeMs` that a live group had not committed past, or dead letters. */
  unconsumed: number;
}

const DAY_MS = 24 * 60 * 60_000;
/** Kafka's default `retention.ms`. */
export const DEFAULT_LOCAL_LOG_RETENTION_MS = 7 * DAY_MS;
export const DEFAULT_LOCAL_LOG_MAX_AGE_MS = 30 * DAY_MS;
const DEFAULT_BATCH_SIZE = 1_000;

/**
 * One batch: deletes up to `$3` of the partition's oldest messages below the bound (the live groups' lowest
 * commit, or the end of the log when `$5` ignores groups), stopping before the first message younger than
 * `$4` ms, so the kept log stays one run of offsets.
 */
const DELETE_BATCH = `
WITH bound AS (
  SELECT CASE WHEN $5::boolean THEN p.next_offset
    ELSE coalesce((
      SELECT min(coalesce(o.next_offset, 0))
      FROM (SELECT DISTINCT g.group_id FROM bus_group_members g
            WHERE g.expires_at > now() AND g.topics @> jsonb_build_array(p.topic)) live
      LEFT JOIN bus_group_offsets o ON o.group_id = live.group_id AND o.topic = p.topic AND o.partition = p.partition
    ), p.next_offset) END AS below
  FROM bus_partitions p
  WHERE p.topic = $1 AND p.partition = $2::integer
), head AS (
  SELECT m."offset", m.published_at
  FROM bus_messages m, bound
  WHERE m.topic = $1 AND m.partition = $2::integer AND m."offset" < bound.below
  ORDER BY m."offset"
  LIMIT $3::integer
), doomed AS (
  SELECT head."offset" FROM head
  WHERE head."offset" < coalesce(
    (SELECT min(young."offset") FROM head young WHERE young.published_at >= now() - $4::double precision * interval '1 millisecond'),
    9223372036854775807)
)
DELETE FROM bus_messages m USING doomed
WHERE m.topic = $1 AND m.partition = $2::integer AND m."offset" = doomed."offset"
RETURNING 1 AS deleted`;

/** Applies the retention to every partition of every topic in the database; returns what went. */
export async function applyLocalLogRetention(database: Database, retention: LocalLogRetention): Promise<LocalLogRetentionResult> {
  const { retainMs, maxAgeMs, batchSize = DEFAULT_BATCH_SIZE, signal } = retention;
  checkRetention(retainMs, maxAgeMs, batchSize);
  const partitions = await database.withConnection((sql) =>
    sql.query<{ topic: string; partition: number }>('SELECT topic, partition FROM bus_partitions ORDER BY topic, partition'),
  );
  const result: LocalLogRetentionResult = { deleted: 0, unconsumed: 0 };
  for (const { topic, partition } of partitions) {
    const where = { topic, partition: Number(partition), batchSize, signal };
    const consumed = isDeadLetterTopic(topic) ? 0 : await deletePrefix(database, { ...where, olderThanMs: retainMs, ignoreGroups: false });
    const unconsumed = await deletePrefix(database, { ...where, olderThanMs: maxAgeMs, ignoreGroups: true });
    result.deleted += consumed + unconsumed;
    result.unconsumed += unconsumed;
  }
  return result;
}

interface PrefixDeletion {
  topic: string;
  partition: number;
  olderThanMs: number;
  ignoreGroups: boolean;
  batchSize: number;
  signal: AbortSignal | undefined;
}

async function deletePrefix(database: Database, deletion: PrefixDeletion): Promise<number> {
  const { topic, partition, olderThanMs, ignoreGroups, batchSize, signal } = deletion;
  let deleted = 0;
  while (!signal?.aborted) {
    const rows = await database.withConnection((sql: SqlExecutor) => sql.query(DELETE_BATCH, [topic, partition, batchSize, olderThanMs, ignoreGroups]));
    deleted += rows.length;
    if (rows.length < batchSize) break;
  }
  return deleted;
}

function checkRetention(retainMs: number, maxAgeMs: number, batchSize: number): void {
  const whole = (value: number) => Number.isSafeInteger(value) && value >= 0;
  if (!whole(retainMs) || !whole(maxAgeMs) || maxAgeMs < retainMs) {
    throw new RangeError('local bus retention: retainMs and maxAgeMs must be whole milliseconds ≥ 0, and maxAgeMs ≥ retainMs');
  }
  if (!Number.isSafeInteger(batchSize) || batchSize < 1 || batchSize > 100_000) throw new RangeError('local bus retention: batchSize must be a whole number from 1 to 100000');
}
