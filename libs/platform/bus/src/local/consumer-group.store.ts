/**
 * Consumer groups of the local bus in SQL: membership (heartbeats), partition leases, and committed
 * offsets. Every time is the database's clock (`now()`), so processes with skewed clocks agree on who
 * is live and which lease has expired.
 *
 * - A member is live while its `expires_at` (last heartbeat + session timeout) is in the future.
 * - A lease is free when released (`member_id` NULL) or expired; taking one bumps its `generation`.
 * - A commit names the member and the generation its lease was granted in, and is refused when the lease
 *   moved on (the member stalled past its session and the partition was taken over): a member that lost
 *   a partition can never move the group's offset, so nothing the new holder committed is undone.
 */
import type { SqlExecutor } from '@trustmesh/platform-database';

import type { GroupMember } from './partition-assignment';

export interface TopicPartition {
  topic: string;
  partition: number;
}

export interface Lease extends TopicPartition {
  /** Decimal string (BIGINT). */
  generation: string;
}

const MILLIS = "* interval '1 millisecond'";

/** Registers the member or renews its session; returns the live members of the group, by member id. */
export async function heartbeat(sql: SqlExecutor, groupId: string, memberId: string, topics: readonly string[], sessionTimeoutMs: number): Promise<GroupMember[]> {
  await sql.query(
    `INSERT INTO bus_group_members (group_id, member_id, topics, expires_at)
     VALUES ($1, $2, $3::jsonb, now() + $4::integer ${MILLIS})
     ON CONFLICT (group_id, member_id) DO UPDATE
       SET topics = EXCLUDED.topics, heartbeat_at = now(), expires_at = EXCLUDED.expires_at`,
    [groupId, memberId, JSON.stringify(topics), sessionTimeoutMs],
  );
  // Members that missed their session are gone; a member that comes back registers again.
  await sql.query('DELETE FROM bus_group_members WHERE group_id = $1 AND expires_at <= now()', [groupId]);
  const rows = await sql.query<{ member_id: string; topics: string }>(
    'SELECT member_id, topics::text AS topics FROM bus_group_members WHERE group_id = $1 ORDER BY member_id',
    [groupId],
  );
  return rows.map((row) => ({ memberId: row.member_id, topics: JSON.parse(row.topics) as string[] }));
}

/** Extends every lease the member holds; returns them (the member's authoritative holdings). */
export async function renewLeases(sql: SqlExecutor, groupId: string, memberId: string, ttlMs: number): Promise<Lease[]> {
  const rows = await sql.query<{ topic: string; partition: number; generation: string }>(
    `UPDATE bus_partition_leases SET expires_at = now() + $3::integer ${MILLIS}
     WHERE group_id = $1 AND member_id = $2
     RETURNING topic, partition, generation::text AS generation`,
    [groupId, memberId, ttlMs],
  );
  return rows.map((row) => ({ topic: row.topic, partition: Number(row.partition), generation: row.generation }));
}

/** Takes the leases of `wanted` that are free or expired; returns the ones granted, with their generation. */
export async function acquireLeases(sql: SqlExecutor, groupId: string, memberId: string, ttlMs: number, wanted: readonly TopicPartition[]): Promise<Lease[]> {
  if (wanted.length === 0) return [];
  const rows = await sql.query<{ topic: string; partition: number; generation: string }>(
    `INSERT INTO bus_partition_leases (group_id, topic, partition, member_id, generation, expires_at)
     SELECT $1, w.topic, w.partition, $2, 1, now() + $3::integer ${MILLIS}
     FROM jsonb_to_recordset($4::jsonb) AS w(topic text, partition integer)
     ON CONFLICT (group_id, topic, partition) DO UPDATE
       SET member_id = EXCLUDED.member_id, expires_at = EXCLUDED.expires_at, generation = bus_partition_leases.generation + 1
       WHERE bus_partition_leases.member_id IS NULL OR bus_partition_leases.expires_at <= now()
     RETURNING topic, partition, generation::text AS generation`,
    [groupId, memberId, ttlMs, JSON.stringify(wanted)],
  );
  return rows.map((row) => ({ topic: row.topic, partition: Number(row.partition), generation: row.generation }));
}

/** Gives one lease back (if the member still holds it in that generation), so another member takes it now. */
export async function releaseLease(sql: SqlExecutor, groupId: string, memberId: string, lease: Lease): Promise<void> {
  await sql.query(
    `UPDATE bus_partition_leases SET member_id = NULL, expires_at = now()
     WHERE group_id = $1 AND topic = $2 AND partition = $3::integer AND member_id = $4 AND generation = $5::bigint`,
    [groupId, lease.topic, lease.partition, memberId, lease.generation],
  );
}

/** Leaves the group: gives back every lease the member holds and removes its membership. */
export async function leaveGroup(sql: SqlExecutor, groupId: string, memberId: string): Promise<void> {
  await sql.query('UPDATE bus_partition_leases SET member_id = NULL, expires_at = now() WHERE group_id = $1 AND member_id = $2', [groupId, memberId]);
  await sql.query('DELETE FROM bus_group_members WHERE group_id = $1 AND member_id = $2', [groupId, memberId]);
}

/** The group's next offset for a partition, or undefined when it never committed one. */
export async function committedOffset(sql: SqlExecutor, groupId: string, { topic, partition }: TopicPartition): Promise<string | undefined> {
  const [row] = await sql.query<{ next_offset: string }>(
    'SELECT next_offset::text AS next_offset FROM bus_group_offsets WHERE group_id = $1 AND topic = $2 AND partition = $3::integer',
    [groupId, topic, partition],
  );
  return row?.next_offset;
}

/**
 * Commits `nextOffset` for the lease's partition, if the member still holds the lease in its generation.
 * Returns false when the lease moved on: the caller has lost the partition and must stop consuming it.
 */
export async function commitOffset(sql: SqlExecutor, groupId: string, memberId: string, lease: Lease, nextOffset: string): Promise<boolean> {
  const rows = await sql.query(
    `INSERT INTO bus_group_offsets (group_id, topic, partition, next_offset, committed_at)
     SELECT $1, $2, $3::integer, $4::bigint, now()
     WHERE EXISTS (
       SELECT 1 FROM bus_partition_leases
       WHERE group_id = $1 AND topic = $2 AND partition = $3::integer AND member_id = $5 AND generation = $6::bigint
     )
     ON CONFLICT (group_id, topic, partition) DO UPDATE SET next_offset = EXCLUDED.next_offset, committed_at = EXCLUDED.committed_at
     RETURNING 1 AS committed`,
    [groupId, lease.topic, lease.partition, nextOffset, memberId, lease.generation],
  );
  return rows.length === 1;
}

/**
 * `start: 'latest'` for a group without committed offsets: commits the current end of every partition
 * of `topics` where the group has none, so everything published after `subscribe` resolved is delivered,
 * whichever member ends up with the partition and whenever it gets it.
 */
export async function commitEndWhereUncommitted(sql: SqlExecutor, groupId: string, topics: readonly string[]): Promise<void> {
  await sql.query(
    `INSERT INTO bus_group_offsets (group_id, topic, partition, next_offset)
     SELECT $1, p.topic, p.partition, p.next_offset
     FROM bus_partitions p
     WHERE p.topic IN (SELECT jsonb_array_elements_text($2::jsonb))
     ON CONFLICT (group_id, topic, partition) DO NOTHING`,
    [groupId, JSON.stringify(topics)],
  );
}

export interface StoredLag extends TopicPartition {
  /** The oldest offset the log still holds (retention deletes below it); the end offset when it holds none. */
  startOffset: string;
  endOffset: string;
  /** Undefined when the group never committed on this partition. */
  committedOffset: string | undefined;
}

/** Log start and end offsets, and the group's committed offsets, for every partition of `topics`. */
export async function groupPositions(sql: SqlExecutor, groupId: string, topics: readonly string[]): Promise<StoredLag[]> {
  const rows = await sql.query<{ topic: string; partition: number; start_offset: string; end_offset: string; committed: string | null }>(
    `SELECT p.topic, p.partition, p.next_offset::text AS end_offset, o.next_offset::text AS committed,
            coalesce((SELECT min(m."offset") FROM bus_messages m WHERE m.topic = p.topic AND m.partition = p.partition), p.next_offset)::text AS start_offset
     FROM bus_partitions p
     LEFT JOIN bus_group_offsets o ON o.group_id = $1 AND o.topic = p.topic AND o.partition = p.partition
     WHERE p.topic IN (SELECT jsonb_array_elements_text($2::jsonb))
     ORDER BY p.topic, p.partition`,
    [groupId, JSON.stringify(topics)],
  );
  return rows.map((row) => ({
    topic: row.topic,
    partition: Number(row.partition),
    startOffset: row.start_offset,
    endOffset: row.end_offset,
    committedOffset: row.committed ?? undefined,
  }));
}
