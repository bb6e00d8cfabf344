-- The local event bus (TRUSTMESH_BUS=local): a partitioned log of topics in the platform database, and
-- consumer groups whose members lease partitions. Read and written by libs/platform/bus/src/local with
-- plain SQL (no Prisma client); README.md in this folder says why the SQL is written by hand.

-- A topic and its partition count, fixed by whichever process uses the topic first, so that every
-- publisher maps a key to the same partition.
CREATE TABLE bus_topics (
  topic      TEXT        PRIMARY KEY,
  partitions INTEGER     NOT NULL CHECK (partitions BETWEEN 1 AND 256),
  created_at TIMESTAMPTZ NOT NULL DEFAULT now()
);

-- Per partition, the offset the next message gets. A publisher takes its offsets by updating this row in
-- the transaction that inserts the messages: the row lock queues concurrent publishers per partition
-- (in every process), and a rolled-back publish gives its offsets back, so offsets are unique and gap-free
-- and a reader never sees offset n+1 before offset n.
CREATE TABLE bus_partitions (
  topic       TEXT    NOT NULL REFERENCES bus_topics (topic),
  partition   INTEGER NOT NULL CHECK (partition >= 0),
  next_offset BIGINT  NOT NULL DEFAULT 0 CHECK (next_offset >= 0),
  PRIMARY KEY (topic, partition)
);

-- The log. `value` is the envelope's JSON text exactly as published (it is what the size limit counts, and
-- what a dead letter carries on unchanged, valid or not); `headers` the message headers (EVENT_HEADERS,
-- DLQ_HEADERS). Event topics are never compacted; there is no retention yet.
CREATE TABLE bus_messages (
  topic        TEXT        NOT NULL,
  partition    INTEGER     NOT NULL,
  "offset"     BIGINT      NOT NULL CHECK ("offset" >= 0),
  key          TEXT        NOT NULL,
  value        TEXT        NOT NULL,
  headers      JSONB       NOT NULL DEFAULT '{}',
  published_at TIMESTAMPTZ NOT NULL DEFAULT now(),
  PRIMARY KEY (topic, partition, "offset"),
  FOREIGN KEY (topic, partition) REFERENCES bus_partitions (topic, partition)
);

-- Committed offsets: per group and partition, the next offset the group reads. Advanced only after the
-- handler succeeded (or the message was dead-lettered), and only by the member holding the partition's
-- lease in the generation it was granted (see bus_partition_leases).
CREATE TABLE bus_group_offsets (
  group_id     TEXT        NOT NULL,
  topic        TEXT        NOT NULL,
  partition    INTEGER     NOT NULL CHECK (partition >= 0),
  next_offset  BIGINT      NOT NULL CHECK (next_offset >= 0),
  committed_at TIMESTAMPTZ NOT NULL DEFAULT now(),
  PRIMARY KEY (group_id, topic, partition)
);

-- Group members: a member is live while `expires_at` (its last heartbeat plus the session timeout, on the
-- database's clock) is in the future. Live members and their topics decide who should hold which partition.
CREATE TABLE bus_group_members (
  group_id     TEXT        NOT NULL,
  member_id    TEXT        NOT NULL,
  topics       JSONB       NOT NULL,
  joined_at    TIMESTAMPTZ NOT NULL DEFAULT now(),
  heartbeat_at TIMESTAMPTZ NOT NULL DEFAULT now(),
  expires_at   TIMESTAMPTZ NOT NULL,
  PRIMARY KEY (group_id, member_id)
);

-- Partition leases: at most one member consumes a partition for a group. A lease is free when `member_id`
-- is NULL (released on leave or rebalance) or when `expires_at` passed (its holder stopped renewing it).
-- Each grant bumps `generation`, which fences a holder that lost its lease: its commits no longer match.
CREATE TABLE bus_partition_leases (
  group_id   TEXT        NOT NULL,
  topic      TEXT        NOT NULL,
  partition  INTEGER     NOT NULL CHECK (partition >= 0),
  member_id  TEXT,
  generation BIGINT      NOT NULL DEFAULT 1,
  expires_at TIMESTAMPTZ NOT NULL,
  PRIMARY KEY (group_id, topic, partition)
);
CREATE INDEX bus_partition_leases_member ON bus_partition_leases (group_id, member_id);
