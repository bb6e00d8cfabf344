/**
 * A topic of the local log shared with another process, both ways, in SQL: reading a page of a topic for a
 * follower (the producer side of an EventFeed), and copying a remote page into this database's log with the
 * position it reached, in one transaction (the follower side, table `bus_topic_mirrors`).
 *
 * Why the position sits in the bus's own database: the copy and the position commit together or not at all,
 * so a follower killed between two pages resumes exactly after the last record it copied (nothing lost,
 * nothing twice). The position row is also the fence between two followers on one database (replicas on one
 * Postgres server): a page is written only if the row still says where the page starts.
 *
 * Records keep their key, value text and headers; they land on the partition their key maps to here, so a
 * follower whose topic has another partition count still keeps every stream's order (a stream is one key, on
 * one remote partition, copied in offset order).
 */
import type { SqlExecutor } from '@trustmesh/platform-database';

import { appendMessages, endOffsets, localLogIdentity, readPartition, type LogMessage, type StoredMessage } from './local-log.store';

/** Where a follower wants to read one partition from (offsets as decimal strings, as everywhere in the log). */
export interface FeedPosition {
  partition: number;
  fromOffset: string;
}

/** One answer to a follower. */
export interface FeedPage {
  logIdentity: string;
  partitions: number;
  /** Per partition, the offset the next record will get. */
  endOffsets: ReadonlyMap<number, string>;
  /** In offset order per partition, partitions in the order asked. */
  records: StoredMessage[];
}

/** Why a page cannot be read: the follower's request does not fit the log (its own mistake, or an old position). */
export type FeedReadProblem = { code: 'FEED_PARTITION_UNKNOWN'; partition: number; partitions: number } | { code: 'FEED_OFFSET_AHEAD'; partition: number; endOffset: string };

export interface FeedReadLimits {
  maxRecords: number;
  /** Stop adding records once this many bytes (key, value, headers) are in the page; the first is always in. */
  maxBytes: number;
}

const recordBytes = (record: LogMessage): number =>
  Buffer.byteLength(record.key, 'utf8') + Buffer.byteLength(record.value, 'utf8') + Buffer.byteLength(JSON.stringify(record.headers), 'utf8');

/**
 * A page of `topic` (as stored) from `positions`, within `limits`, or the problem of the request. The identity,
 * the end offsets and the records are read in one snapshot (run it in a transaction), so a record past an end
 * offset in the same page never appears.
 */
export async function readFeedPage(
  sql: SqlExecutor,
  topic: string,
  partitions: number,
  positions: readonly FeedPosition[],
  limits: FeedReadLimits,
): Promise<{ page: FeedPage } | { problem: FeedReadProblem }> {
  const ends = await endOffsets(sql, topic);
  for (const { partition, fromOffset } of positions) {
    const end = ends.get(partition);
    if (end === undefined) return { problem: { code: 'FEED_PARTITION_UNKNOWN', partition, partitions } };
    if (BigInt(fromOffset) > BigInt(end)) return { problem: { code: 'FEED_OFFSET_AHEAD', partition, endOffset: end } };
  }
  const logIdentity = await localLogIdentity(sql, topic);
  const records: StoredMessage[] = [];
  let bytes = 0;
  for (const { partition, fromOffset } of positions) {
    const room = limits.maxRecords - records.length;
    if (room <= 0 || (records.length > 0 && bytes >= limits.maxBytes)) break;
    if (BigInt(fromOffset) >= BigInt(ends.get(partition) ?? '0')) continue;
    for (const record of await readPartition(sql, topic, partition, fromOffset, room)) {
      const size = recordBytes(record);
      if (records.length > 0 && bytes + size > limits.maxBytes) return { page: { logIdentity, partitions, endOffsets: ends, records } };
      records.push(record);
      bytes += size;
    }
  }
  return { page: { logIdentity, partitions, endOffsets: ends, records } };
}

/** How far a mirror got: the remote log it copies and, per remote partition, the next remote offset to copy. */
export interface MirrorPosition {
  remoteLog: string | null;
  next: ReadonlyMap<number, string>;
}

/** The mirror's position for `topic` (as stored here); no remote log yet when nothing was ever copied. */
export async function readMirrorPosition(sql: SqlExecutor, topic: string): Promise<MirrorPosition> {
  const rows = await sql.query<{ remote_log: string; partition: number; next_offset: string }>(
    'SELECT remote_log, partition, next_offset::text AS next_offset FROM bus_topic_mirrors WHERE topic = $1 ORDER BY partition',
    [topic],
  );
  const [first] = rows;
  return { remoteLog: first?.remote_log ?? null, next: new Map(rows.map((row) => [Number(row.partition), row.next_offset])) };
}

/** Remote records of one remote partition, in offset order, to copy after `fromOffset`. */
export interface MirroredPage {
  remoteLog: string;
  partition: number;
  /** Where the page starts: the position the mirror read from (the fence). */
  fromOffset: string;
  records: ReadonlyArray<{ offset: string; key: string; value: string; headers: Readonly<Record<string, string>> }>;
}

/**
 * Appends the page's records to `topic` (of `partitions` partitions here) and moves the mirror's position past
 * the last of them, in the caller's transaction; 'moved' (nothing written) when the position is no longer where
 * the page starts: another follower on this database copied it first. A page of another remote log than the
 * one recorded starts that log afresh: every partition's position of the old log is dropped with it.
 */
export async function appendMirroredPage(tx: SqlExecutor, topic: string, partitions: number, page: MirroredPage): Promise<'appended' | 'moved'> {
  const last = page.records[page.records.length - 1];
  if (!last) return 'appended';
  await tx.query('DELETE FROM bus_topic_mirrors WHERE topic = $1 AND remote_log <> $2', [topic, page.remoteLog]);
  // The partition's row exists before it is locked: two followers copying a partition's FIRST page would
  // otherwise both find no row to lock and both append. The second one's insert waits on the first's and,
  // once that commits, its locked read sees the position moved.
  await tx.query('INSERT INTO bus_topic_mirrors (topic, remote_log, partition, next_offset) VALUES ($1, $2, $3::integer, 0) ON CONFLICT (topic, partition) DO NOTHING', [
    topic,
    page.remoteLog,
    page.partition,
  ]);
  const [current] = await tx.query<{ next_offset: string }>('SELECT next_offset::text AS next_offset FROM bus_topic_mirrors WHERE topic = $1 AND partition = $2::integer FOR UPDATE', [
    topic,
    page.partition,
  ]);
  if ((current?.next_offset ?? '0') !== page.fromOffset) return 'moved';
  await appendMessages(
    tx,
    topic,
    partitions,
    page.records.map(({ key, value, headers }) => ({ key, value, headers })),
  );
  await tx.query(
    `INSERT INTO bus_topic_mirrors (topic, remote_log, partition, next_offset) VALUES ($1, $2, $3::integer, $4::bigint)
     ON CONFLICT (topic, partition) DO UPDATE SET remote_log = EXCLUDED.remote_log, next_offset = EXCLUDED.next_offset, updated_at = now()`,
    [topic, page.remoteLog, page.partition, (BigInt(last.offset) + 1n).toString()],
  );
  return 'appended';
}
