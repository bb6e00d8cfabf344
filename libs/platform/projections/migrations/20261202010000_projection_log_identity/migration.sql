-- Checkpoints know which log their offsets count in (BusRecord.log: the adapter, the cluster or the
-- topic's creation, the topic as stored). Offsets of another log (a recreated topic, a restarted mock
-- cluster, another prefix, the other adapter) start again at 0 and say nothing about what was applied:
-- the runner trusts a checkpoint only within its own log. Rows from before this migration have no known
-- log (''), so the first event after the upgrade takes them over.
ALTER TABLE projection_checkpoints ADD COLUMN log TEXT NOT NULL DEFAULT '';

-- The id of each event a projection version applied, per stream version, so that an event at or below
-- the stream's applied version is skipped only when it is that same event (a copy), and refused when it
-- is another one with an old version. Rows older than the retention the runner is given are deleted
-- (`purgeAppliedEvents`); an old copy whose row is gone is still skipped, unverified, and counted.
CREATE TABLE projection_applied_events (
  projection     TEXT        NOT NULL,
  version        INTEGER     NOT NULL CHECK (version >= 1),
  topic          TEXT        NOT NULL,
  stream_id      TEXT        NOT NULL,
  stream_version BIGINT      NOT NULL CHECK (stream_version >= 1),
  event_id       TEXT        NOT NULL,
  applied_at     TIMESTAMPTZ NOT NULL DEFAULT now(),
  PRIMARY KEY (projection, version, topic, stream_id, stream_version)
);
CREATE INDEX projection_applied_events_applied_at ON projection_applied_events (applied_at);
