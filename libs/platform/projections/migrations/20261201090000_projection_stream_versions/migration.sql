-- The highest stream version each projection version applied, per stream of each topic. The checkpoint
-- (by offset) skips a message delivered again; this skips an event the log holds twice at two offsets:
-- the outbox publishes at least once, so a batch published again after a failure that had partly
-- reached the broker is in the log again after the first copy. An event at or below the version already
-- applied for its stream is skipped, in the same transaction as the read model and the checkpoint.
CREATE TABLE projection_stream_versions (
  projection     TEXT    NOT NULL,
  version        INTEGER NOT NULL CHECK (version >= 1),
  topic          TEXT    NOT NULL,
  stream_id      TEXT    NOT NULL,
  stream_version BIGINT  NOT NULL CHECK (stream_version >= 1),
  PRIMARY KEY (projection, version, topic, stream_id)
);
