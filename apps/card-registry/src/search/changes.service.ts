/**
 * `GET /v1/changes` (CARDS.md §5 "Incremental sync"): every card whose state changed, ordered by
 * (updatedAt, identifier) ascending behind opaque keyset cursors, for mirrors polling about hourly. One
 * entry per card with its current state and the revisions that changed in the window (all of them without
 * `updatedSince`); a deleted card is a tombstone, a deleted revision a tombstone inside its card, and a
 * yank or any other status change moves the card's `updatedAt`, so it is seen again.
 *
 * `updatedSince` is inclusive (a mirror may pass the last `updatedAt` it saw and meet that change again,
 * never miss one written in the same millisecond) and implies `includeDeleted`. A card is listed by its
 * latest change only: iterate to the end (`nextCursor` null), then poll again from the newest `updatedAt`.
 */
import type { Database } from '@trustmesh/platform-database';

import { CARD_VERIFIED_SQL } from '../persistence/registry-search.projection';
import type { ServiceResult } from '../service/registry-service.result';
import { fail, succeed } from '../service/registry-service.result';
import { decodeCursor, encodeCursor } from './search.cursor';
import type { ChangesQuery } from './search.parameters';
import { isInstant, isoOf } from './search.service';
import { cardUrl, revisionUrl } from './registry-urls';

/** Revisions listed per card in one entry, newest changes first kept; the entry says when there were more. */
export const MAX_REVISIONS_PER_CHANGE = 100;

export interface RevisionChange {
  revision: string;
  status: string;
  updatedAt: string;
  digest?: string;
  type?: string;
  statusMessage?: string;
  publishedAt?: string;
  url?: string;
  deleted?: true;
}

export interface CardChange {
  identifier: string;
  namespace: string;
  kind: string;
  status: string;
  updatedAt: string;
  deleted?: true;
  statusMessage?: string;
  latestRevision?: string | null;
  renamedTo?: string;
  verified?: boolean;
  url?: string;
  revisions?: RevisionChange[];
  revisionsTruncated?: true;
}

export interface ChangesPage {
  changes: CardChange[];
  nextCursor: string | null;
}

interface CardRow {
  identifier: string;
  namespace: string;
  kind: string;
  search_status: string;
  status_message: string | null;
  renamed_to: string | null;
  latest_revision: string | null;
  verified: boolean;
  updated_at: Date | string;
}

interface RevisionRow {
  identifier: string;
  revision: string;
  digest: string;
  content_type: string;
  status: string;
  status_message: string | null;
  published_at: Date | string;
  updated_at: Date | string;
  total: number | string;
}

const ORDER = 'changes';

export const changesBinding = (query: ChangesQuery) => JSON.stringify(['changes', query.updatedSince, query.includeDeleted]);

export class ChangesService {
  constructor(private readonly deps: { database: Database; baseUrl: () => string }) {}

  async changes(query: ChangesQuery): Promise<ServiceResult<ChangesPage>> {
    const binding = changesBinding(query);
    const after = query.cursor !== null ? decodeCursor(query.cursor, ORDER, binding) : null;
    if (query.cursor !== null && !(after?.length === 2 && typeof after[0] === 'string' && isInstant(after[0]) && typeof after[1] === 'string')) {
      return fail('invalid', 'CURSOR_INVALID', 'The cursor is damaged or belongs to another query; start again without it', '/cursor');
    }
    const since = query.updatedSince !== null ? new Date(query.updatedSince).toISOString() : null;
    const params: unknown[] = [];
    const where = ['c.search_status IS NOT NULL'];
    if (!query.includeDeleted) where.push(`c.search_status <> 'deleted'`);
    if (since !== null) {
      params.push(since);
      where.push(`c.updated_at >= $${params.length}::timestamptz`);
    }
    if (after) {
      params.push(after[0], after[1]);
      where.push(`(c.updated_at, c.identifier) > ($${params.length - 1}::timestamptz, $${params.length}::text)`);
    }
    params.push(query.limit + 1);
    const cards = await this.deps.database.withConnection((sql) =>
      sql.query<CardRow>(
        `SELECT c.identifier, c.namespace, c.kind, c.search_status, c.status_message, c.renamed_to, c.latest_revision, ${CARD_VERIFIED_SQL} AS verified, c.updated_at
         FROM registry_cards c WHERE ${where.join(' AND ')} ORDER BY c.updated_at, c.identifier LIMIT $${params.length}`,
        params,
      ),
    );
    const more = cards.length > query.limit;
    const shown = more ? cards.slice(0, query.limit) : cards;
    const live = shown.filter((card) => card.search_status !== 'deleted').map((card) => card.identifier);
    const revisions = live.length === 0 ? [] : await this.revisions(live, since);
    const byCard = new Map<string, RevisionRow[]>();
    for (const row of revisions) byCard.set(row.identifier, [...(byCard.get(row.identifier) ?? []), row]);

    const base = this.deps.baseUrl();
    const changes = shown.map((card): CardChange => {
      const common = { identifier: card.identifier, namespace: card.namespace, kind: card.kind, status: card.search_status, updatedAt: isoOf(card.updated_at) };
      if (card.search_status === 'deleted') return { ...common, deleted: true, ...(card.status_message !== null ? { statusMessage: card.status_message } : {}) };
      const rows = byCard.get(card.identifier) ?? [];
      return {
        ...common,
        latestRevision: card.latest_revision,
        ...(card.renamed_to !== null ? { renamedTo: card.renamed_to } : {}),
        verified: card.verified,
        url: cardUrl(base, card.identifier),
        revisions: rows.map((row) => revisionChange(row, base)),
        ...(rows.some((row) => Number(row.total) > MAX_REVISIONS_PER_CHANGE) ? { revisionsTruncated: true as const } : {}),
      };
    });
    const last = shown.at(-1);
    return succeed({ changes, nextCursor: more && last ? encodeCursor(ORDER, [isoOf(last.updated_at), last.identifier], binding) : null });
  }

  private revisions(identifiers: string[], since: string | null): Promise<RevisionRow[]> {
    const params: unknown[] = [JSON.stringify(identifiers)];
    if (since !== null) params.push(since);
    return this.deps.database.withConnection((sql) =>
      sql.query<RevisionRow>(
        `SELECT identifier, revision, digest, content_type, status, status_message, published_at, updated_at, total FROM (
           SELECT r.*, row_number() OVER (PARTITION BY r.identifier ORDER BY r.updated_at DESC, r.revision DESC) AS position, count(*) OVER (PARTITION BY r.identifier) AS total
           FROM registry_card_revisions r
           WHERE r.identifier = ANY(ARRAY(SELECT jsonb_array_elements_text($1::jsonb)))${since !== null ? ' AND r.updated_at >= $2::timestamptz' : ''}
         ) w WHERE position <= ${MAX_REVISIONS_PER_CHANGE} ORDER BY identifier, published_at, revision`,
        params,
      ),
    );
  }
}

function revisionChange(row: RevisionRow, base: string): RevisionChange {
  if (row.status === 'deleted') return { revision: row.revision, status: 'deleted', deleted: true, updatedAt: isoOf(row.updated_at), ...(row.status_message !== null ? { statusMessage: row.status_message } : {}) };
  return {
    revision: row.revision,
    status: row.status,
    updatedAt: isoOf(row.updated_at),
    digest: row.digest,
    type: row.content_type,
    ...(row.status_message !== null ? { statusMessage: row.status_message } : {}),
    publishedAt: isoOf(row.published_at),
    url: revisionUrl(base, row.identifier, row.revision),
  };
}
