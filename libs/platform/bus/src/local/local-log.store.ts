/**
 * The local bus's log in SQL: topics and their partition counts, appending messages with offsets taken
 * atomically per partition, and reading a partition from an offset. Functions take the executor to run
 * on, so the caller decides the transaction (a publish, or a dead letter together with its commit).
 *
 * Offsets: a publish updates its partitions' counter rows (`bus_partitions.next_offset`) and inserts the
 * messages in the same statement and transaction. The row lock queues concurrent publishers per partition,
 * in every process sharing the database, until the holder commits or rolls back, so offsets are unique and
 * gap-free, and offset n+1 never becomes visible before offset n. Partitions are locked in ascending order,
 * so publishers writing to several partitions never deadlock.
 *
 * Offsets travel as decimal strings (they are BIGINT; PGlite returns int8 as a lossy JS number).
 */
import type { SqlConnection, SqlExecutor } from '@trustmesh/platform-database';

import { partitionForKey } from '../partitioner';

export interface LogMessage {
  key: string;
  /** The envelope's JSON text, as published. */
  value: string;
  headers: Readonly<Record<string, string>>;
}

export interface StoredMessage extends LogMessage {
  partition: number;
  offset: string;
}

/**
 * Creates the topic with `partitions` partitions unless it exists, and returns its partition count: the
 * count it was created with, by whichever process was first. A concurrent creator waits on the primary
 * key and then reads the winner's count.
 */
export function ensureTopic(sql: SqlConnection, topic: string, partitions: number): Promise<number> {
  return sql.transaction(async (tx) => {
    await tx.query('INSERT INTO bus_topics (topic, partitions) VALUES ($1, $2::integer) ON CONFLICT (topic) DO NOTHING', [topic, partitions]);
    const [row] = await tx.query<{ partitions: number }>('SELECT partitions FROM bus_topics WHERE topic = $1', [topic]);
    const count = Number(row?.partitions);
    await tx.query(
      `INSERT INTO bus_partitions (topic, partition)
       SELECT $1, partition FROM generate_series(0, $2::integer - 1) AS partition
       ON CONFLICT (topic, partition) DO NOTHING`,
      [topic, count],
    );
    return count;
  });
}

/** Messages one append statement carries at most (three parameters each; Postgres takes at most 65,535). */
const MAX_MESSAGES_PER_STATEMENT = 1_024;

/**
 * The statement that appends up to `slots` messages to one partition. Each message's key, value and headers
 * are parameters of their own (`$4`, `$5`, `$6` for the first, and so on), never nested in a document: a
 * value is an envelope's JSON text, and nesting it in a JSON document (or an array literal) escaped all of it
 * a second time on the caller's thread and made the database parse it back, which for a relay's frames log
 * was most of the cost of a publish. A text parameter is taken as it is, on either side.
 *
 * The slots are a power of two and the ones beyond the messages are bound to NULL and skipped (a key is never
 * NULL), so appends of any size share eleven statement texts: the embedded database keeps each text it sees
 * prepared, and one text per message count would crowd out every other statement.
 */
const appendStatement = (slots: number): string => {
  const rows: string[] = [];
  for (let index = 0; index < slots; index += 1) {
    const first = 4 + index * 3;
    rows.push(`(${index}, $${first}::text, $${first + 1}::text, $${first + 2}::jsonb)`);
  }
  return `
WITH claimed AS (
  UPDATE bus_partitions SET next_offset = next_offset + $3::bigint
  WHERE topic = $1 AND partition = $2::integer
  RETURNING next_offset - $3::bigint AS first
)
INSERT INTO bus_messages (topic, partition, "offset", key, value, headers)
SELECT $1, $2::integer, claimed.first + m.position, m.key, m.value, m.headers
FROM claimed, (VALUES ${rows.join(', ')}) AS m(position, key, value, headers)
WHERE m.key IS NOT NULL
RETURNING "offset"::text AS "offset"`;
};

/** The append statements by their slot count (1, 2, 4, … 1,024), built when first needed. */
const appendStatements = new Map<number, string>();

function appendStatementFor(count: number): { sql: string; slots: number } {
  let slots = 1;
  while (slots < count) slots *= 2;
  let sql = appendStatements.get(slots);
  if (sql === undefined) {
    sql = appendStatement(slots);
    appendStatements.set(slots, sql);
  }
  return { sql, slots };
}

/**
 * `messages` (all of one partition, at most `MAX_MESSAGES_PER_STATEMENT`) as common table expressions to
 * join to a caller's own data-modifying statement, so that its rows and these messages are one statement
 * (atomic, no transaction of its own): they are appended only when `condition`, an SQL boolean over the
 * caller's expressions, holds. Parameters are numbered from `$firstParam`; the same text per slot count,
 * as `appendStatement`. Undefined when the messages span partitions or are too many for one statement.
 */
export function appendMessagesPart(
  topic: string,
  partitions: number,
  messages: readonly LogMessage[],
  firstParam: number,
  condition: string,
): { ctes: string; params: unknown[] } | undefined {
  const [first] = messages;
  if (!first || messages.length > MAX_MESSAGES_PER_STATEMENT) return undefined;
  const partition = partitionForKey(first.key, partitions);
  if (messages.some((message) => partitionForKey(message.key, partitions) !== partition)) return undefined;
  let slots = 1;
  while (slots < messages.length) slots *= 2;
  const $ = (index: number) => `$${firstParam + index}`;
  const rows: string[] = [];
  for (let index = 0; index < slots; index += 1) rows.push(`(${index}, ${$(3 + index * 3)}::text, ${$(4 + index * 3)}::text, ${$(5 + index * 3)}::jsonb)`);
  const params: unknown[] = [topic, partition, messages.length];
  for (const message of messages) params.push(message.key, message.value, JSON.stringify(message.headers));
  for (let unused = messages.length; unused < slots; unused += 1) params.push(null, null, null);
  const ctes = `bus_claimed AS (
  UPDATE bus_partitions SET next_offset = next_offset + ${$(2)}::bigint
  WHERE topic = ${$(0)} AND partition = ${$(1)}::integer AND (${condition})
  RETURNING next_offset - ${$(2)}::bigint AS first
), bus_appended AS (
  INSERT INTO bus_messages (topic, partition, "offset", key, value, headers)
  SELECT ${$(0)}, ${$(1)}::integer, bus_claimed.first + m.position, m.key, m.value, m.headers
  FROM bus_claimed, (VALUES ${rows.join(', ')}) AS m(position, key, value, headers)
  WHERE m.key IS NOT NULL
  RETURNING 1
)`;
  return { ctes, params };
}

/**
 * Appends `messages` to `topic` (of `partitions` partitions), each on its key's partition, in the given
 * order per partition; returns where each landed, in input order. Run it inside a transaction.
 */
export async function appendMessages(
  tx: SqlExecutor,
  topic: string,
  partitions: number,
  messages: readonly LogMessage[],
): Promise<Array<{ partition: number; offset: string }>> {
  const byPartition = new Map<number, Array<{ index: number; message: LogMessage }>>();
  messages.forEach((message, index) => {
    const partition = partitionForKey(message.key, partitions);
    const batch = byPartition.get(partition);
    if (batch) batch.push({ index, message });
    else byPartition.set(partition, [{ index, message }]);
  });
  const placed: Array<{ partition: number; offset: string }> = new Array(messages.length);
  // Sent all at once, in ascending partition order (and each partition's statements in offset order): the
  // connection runs them in that order (the lock order), and the transaction waits for one round trip instead
  // of one per statement.
  const statements: Array<{ partition: number; chunk: Array<{ index: number; message: LogMessage }> }> = [];
  for (const [partition, batch] of [...byPartition.entries()].sort(([a], [b]) => a - b)) {
    for (let start = 0; start < batch.length; start += MAX_MESSAGES_PER_STATEMENT) {
      statements.push({ partition, chunk: batch.slice(start, start + MAX_MESSAGES_PER_STATEMENT) });
    }
  }
  const appended = await Promise.all(
    statements.map(({ partition, chunk }) => {
      const { sql, slots } = appendStatementFor(chunk.length);
      const params: unknown[] = [topic, partition, chunk.length];
      for (const { message } of chunk) params.push(message.key, message.value, JSON.stringify(message.headers));
      for (let unused = chunk.length; unused < slots; unused += 1) params.push(null, null, null);
      return tx.query<{ offset: string }>(sql, params);
    }),
  );
  statements.forEach(({ partition, chunk }, i) => {
    const rows = appended[i] ?? [];
    if (rows.length !== chunk.length) {
      throw new Error(`The local bus has no partition ${partition} of topic ${topic}; was the topic created?`);
    }
    const first = rows.map(({ offset }) => BigInt(offset)).reduce((low, offset) => (offset < low ? offset : low));
    chunk.forEach(({ index }, position) => {
      placed[index] = { partition, offset: (first + BigInt(position)).toString() };
    });
  });
  return placed;
}

/**
 * Appends `messages` as one atomic change, with `inTransaction` (the wake-up announcement, if it writes)
 * committed with them. Messages that all land on one partition, and few enough for one statement, need no
 * transaction of their own when nothing else must commit with them: the append is one statement, atomic by
 * itself, which saves the BEGIN and COMMIT round trips of every single-stream publish (an outbox batch of
 * one case's events).
 */
export async function appendAtomically(
  connection: SqlConnection,
  topic: string,
  partitions: number,
  messages: readonly LogMessage[],
  inTransaction: ((tx: SqlExecutor) => Promise<void>) | undefined,
): Promise<void> {
  const [first] = messages;
  const onePartition = first !== undefined && messages.every((message) => partitionForKey(message.key, partitions) === partitionForKey(first.key, partitions));
  if (onePartition && messages.length <= MAX_MESSAGES_PER_STATEMENT && !inTransaction) {
    await appendMessages(connection, topic, partitions, messages);
    return;
  }
  await connection.transaction(async (tx) => {
    await appendMessages(tx, topic, partitions, messages);
    await inTransaction?.(tx);
  });
}

/** Up to `limit` messages of one partition from `fromOffset` on, in offset order. */
export async function readPartition(sql: SqlExecutor, topic: string, partition: number, fromOffset: string, limit: number): Promise<StoredMessage[]> {
  const rows = await sql.query<{ offset: string; key: string; value: string; headers: string }>(
    // Qualified: a bare "offset" in ORDER BY would name the text output column and sort as text.
    `SELECT m."offset"::text AS "offset", m.key, m.value, m.headers::text AS headers
     FROM bus_messages m
     WHERE m.topic = $1 AND m.partition = $2::integer AND m."offset" >= $3::bigint
     ORDER BY m."offset"
     LIMIT $4::integer`,
    [topic, partition, fromOffset, limit],
  );
  return rows.map((row) => ({ partition, offset: row.offset, key: row.key, value: row.value, headers: JSON.parse(row.headers) as Record<string, string> }));
}

/** The offset the next message of each partition of `topic` gets. */
export async function endOffsets(sql: SqlExecutor, topic: string): Promise<Map<number, string>> {
  const rows = await sql.query<{ partition: number; next_offset: string }>(
    'SELECT partition, next_offset::text AS next_offset FROM bus_partitions WHERE topic = $1 ORDER BY partition',
    [topic],
  );
  return new Map(rows.map((row) => [Number(row.partition), row.next_offset]));
}

/**
 * The identity of a topic's log (`BusRecord.log`): its name as stored and when it was created, so a topic
 * created again (a new database, a wiped one) is told from the old one although its offsets start again.
 */
export async function localLogIdentity(sql: SqlExecutor, topic: string): Promise<string> {
  const [row] = await sql.query<{ created: string }>(
    `SELECT (extract(epoch FROM created_at) * 1000000)::bigint::text AS created FROM bus_topics WHERE topic = $1`,
    [topic],
  );
  if (!row) throw new Error(`The local bus has no topic ${topic}; was the topic created?`);
  return `local:${topic}@${row.created}`;
}
