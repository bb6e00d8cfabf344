-- Checkpoints of the projection runner: for each projection version and each partition it consumes,
-- the next offset to apply. A projection writes its rows and this checkpoint in one transaction, so an
-- event is applied exactly once to a read model even though the bus delivers at least once.
CREATE TABLE projection_checkpoints (
  projection  TEXT        NOT NULL,
  version     INTEGER     NOT NULL CHECK (version >= 1),
  topic       TEXT        NOT NULL,
  partition   INTEGER     NOT NULL CHECK (partition >= 0),
  next_offset BIGINT      NOT NULL CHECK (next_offset >= 0),
  updated_at  TIMESTAMPTZ NOT NULL DEFAULT now(),
  PRIMARY KEY (projection, version, topic, partition)
);

-- Which version of each projection serves reads. A rebuild fills version n+1 while version n serves,
-- then activates n+1 in one update.
CREATE TABLE projection_versions (
  projection     TEXT        PRIMARY KEY,
  active_version INTEGER     NOT NULL CHECK (active_version >= 1),
  activated_at   TIMESTAMPTZ NOT NULL DEFAULT now()
);
