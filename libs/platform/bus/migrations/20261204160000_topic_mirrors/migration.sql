-- Topic mirrors (src/local/local-log.mirror.ts): a topic of this database's log that is copied from another
-- process's local bus (its EventFeed), and how far the copy got. Each row is advanced in the transaction that
-- appends the records it counts, so a restart (or a kill between two writes) resumes exactly after the last
-- record copied: nothing lost, nothing copied twice.
CREATE TABLE bus_topic_mirrors (
  -- The topic as stored here (with the deployment's prefix), the one the records are appended to.
  topic        TEXT        NOT NULL,
  -- The remote log's identity (`log_identity` of the feed): records of another log start again from 0.
  remote_log   TEXT        NOT NULL,
  -- The remote partition and the remote offset the next record to copy has.
  partition    INTEGER     NOT NULL CHECK (partition >= 0),
  next_offset  BIGINT      NOT NULL CHECK (next_offset >= 0),
  updated_at   TIMESTAMPTZ NOT NULL DEFAULT now(),
  PRIMARY KEY (topic, partition)
);
