/**
 * The read model the outage suites project into: every apply of every event is counted, with the order in
 * which each event was first applied, so a suite can tell an event applied twice or out of stream order.
 */
import type { SqlExecutor } from '@trustmesh/platform-database';

import type { ProjectionDefinition } from '../projection-runner';

export const APPLIES_READ_MODEL = `
  CREATE SEQUENCE applies_order;
  CREATE TABLE applies (
    stream_id      TEXT    NOT NULL,
    stream_version INTEGER NOT NULL,
    event_id       TEXT    NOT NULL,
    applies        INTEGER NOT NULL,
    first_apply    BIGINT  NOT NULL,
    PRIMARY KEY (stream_id, stream_version)
  );`;

export interface AppliesProjectionOptions {
  name: string;
  topic: string;
  /** Events `apply` rejects, as a projection rejects an event it cannot apply (a poison message). */
  rejects?: (envelope: { streamId: string; streamVersion: number }) => boolean;
}

export function appliesProjection({ name, topic, rejects }: AppliesProjectionOptions): ProjectionDefinition<SqlExecutor> {
  return {
    name,
    version: 1,
    topics: [topic],
    async apply(envelope, { tx }) {
      if (rejects?.(envelope)) throw new Error('this event cannot be applied');
      await tx.query(
        `INSERT INTO applies (stream_id, stream_version, event_id, applies, first_apply)
         VALUES ($1, $2, $3, 1, nextval('applies_order'))
         ON CONFLICT (stream_id, stream_version) DO UPDATE SET applies = applies.applies + 1`,
        [envelope.streamId, envelope.streamVersion, envelope.eventId],
      );
    },
  };
}
