/**
 * Fills the search document of cards projected before the search columns existed (migration
 * `20261203075014_search_sync_catalogs` added them empty to every row already there; the read-model projection
 * fills them only for the cards it projects from then on). Run at every start, after the migrations: a card with
 * revisions and no `search_revision` gets its document from its projected rows (`refreshSearchDocuments`, the
 * projection's own statement), so an upgraded database is searchable without a replay.
 *
 * Why from the read model and not by replaying the event stream: the read model already holds everything the
 * search document is computed from (revisions, summaries, statuses, the latest revision); a replay needs the bus
 * to still hold every event (it keeps them for its retention only), and would show half-rebuilt rows meanwhile.
 *
 * Batches of `batchSize` cards, each in its own transaction: a process stopped mid-way keeps what it committed
 * and the next start goes on with the cards still empty; once done, a start costs two queries that find nothing.
 * The same SQL on PGlite and Postgres. Rows are taken `FOR UPDATE SKIP LOCKED`, so a replica's backfill never
 * waits for (or deadlocks with) a projection of another replica writing the same card; a card skipped that way is
 * taken by the next pass.
 */
import type { Database } from '@trustmesh/platform-database';
import type { Logger } from '@trustmesh/platform-logging';

import { refreshSearchDocuments } from './registry-search.projection';

/** Cards projected, with revisions, whose search document was never computed. */
const PENDING = `FROM registry_cards c WHERE c.search_revision IS NULL AND EXISTS (SELECT 1 FROM registry_card_revisions r WHERE r.identifier = c.identifier)`;

export interface SearchBackfillOptions {
  logger: Logger;
  /** Cards per transaction; default 500. */
  batchSize?: number;
  /** Passes over cards locked by another writer before leaving them to the next start; default 20. */
  maxPasses?: number;
  /** Called after each committed batch with the cards it filled (tests stop a backfill mid-way here). */
  afterBatch?: (identifiers: readonly string[]) => Promise<void> | void;
}

/** Fills every pending card's search document; resolves with how many card refreshes it ran. */
export async function backfillSearchDocuments(database: Database, options: SearchBackfillOptions): Promise<number> {
  const batchSize = options.batchSize ?? 500;
  const maxPasses = options.maxPasses ?? 20;
  let filled = 0;
  let remaining = 0;
  for (let pass = 0; pass < maxPasses; pass += 1) {
    // Each pass walks the pending cards once, in identifier order: a card its refresh could not fill (a row the
    // projection left inconsistent) is met again only by the next pass, never in a loop of its own.
    let after = '';
    for (;;) {
      const identifiers = await database.withConnection((connection) =>
        connection.transaction(async (tx) => {
          const rows = await tx.query<{ identifier: string }>(`SELECT c.identifier ${PENDING} AND c.identifier > $2 ORDER BY c.identifier LIMIT $1 FOR UPDATE OF c SKIP LOCKED`, [batchSize, after]);
          const batch = rows.map((row) => row.identifier);
          await refreshSearchDocuments(tx, batch);
          return batch;
        }),
      );
      const last = identifiers.at(-1);
      if (last === undefined) break;
      after = last;
      filled += identifiers.length;
      await options.afterBatch?.(identifiers);
    }
    const [left] = await database.withConnection((connection) => connection.query<{ n: number }>(`SELECT count(*)::int AS n ${PENDING}`));
    remaining = left?.n ?? 0;
    if (remaining === 0) {
      if (filled > 0) options.logger.log('info', 'search documents backfilled', { cards: filled });
      return filled;
    }
    // What is left is locked by another replica's projection for the length of one transaction (or, never
    // expected, a card whose rows give no search document: it is left for the next start, with a warning).
    await new Promise((resolve) => setTimeout(resolve, 50 * (pass + 1)));
  }
  options.logger.log('warn', 'search backfill left cards for the next start', { cards: filled, left: remaining, code: 'SEARCH_BACKFILL_INCOMPLETE' });
  return filled;
}
