/**
 * The AI Catalog of one namespace as the registry serves it (CARDS.md §2.1 seed, §2.3 final), built from
 * the read model: one entry per card with a latest visible revision (active or deprecated; yanked, deleted
 * and renamed cards are not listed), ordered by identifier, each pointing at the registry's route of that
 * revision's exact bytes.
 *
 * - final (default): `application/ai-catalog+json`, `{specVersion "1.0", host, entries}`; an entry has
 *   `identifier` (kept unchanged, §2.3), `type` (the content type its `url` serves), `url`, `version` (the
 *   registry's revision key), `updatedAt` and `publisher` (the document's own, else the namespace's domain
 *   with the holder's display name).
 * - seed (`?form=seed`): `{$schema, host: {name}, aiCards}` as the v1 CDDL has it; only AI Card documents
 *   are listed there (the seed catalog's entries are AI Cards: `id` must match the card's `id`).
 *
 * The bytes are built once per request and their SHA-256 is the strong ETag.
 */
import { createHash } from 'node:crypto';

import type { Database } from '@trustmesh/platform-database';

import { canonicalNamespace } from '../domain/card-identifier';
import type { ServiceResult } from '../service/registry-service.result';
import { fail, succeed } from '../service/registry-service.result';
import { isoOf } from './search.service';
import { revisionUrl } from './registry-urls';

export const FINAL_CATALOG_MEDIA_TYPE = 'application/ai-catalog+json';
export const SEED_CATALOG_SCHEMA = 'https://trustmesh.dev/schemas/ai-catalog/v1.json';
export type CatalogForm = 'final' | 'seed';

export interface ServedCatalog {
  contentType: string;
  bytes: Buffer;
  /** `"sha256:<hex>"` of the bytes. */
  etag: string;
}

interface NamespaceRow {
  namespace: string;
  display_name: string | null;
}

interface EntryRow {
  identifier: string;
  kind: string;
  content_type: string;
  name: string | null;
  description: string | null;
  tags: string[] | null;
  search_revision: string;
  updated_at: Date | string;
  published_at: Date | string;
  publisher: { identifier?: unknown; name?: unknown } | null;
  document_updated_at: string | null;
}

const RFC3339 = /^\d{4}-\d{2}-\d{2}[Tt]\d{2}:\d{2}:\d{2}(\.\d+)?([Zz]|[+-]\d{2}:\d{2})$/;

export class CatalogService {
  constructor(private readonly deps: { database: Database; baseUrl: () => string }) {}

  async catalog(namespaceParam: string, form: CatalogForm): Promise<ServiceResult<ServedCatalog>> {
    const namespace = namespaceParam.length <= 253 ? canonicalNamespace(namespaceParam) : null;
    if (namespace === null) return fail('invalid', 'NAMESPACE_INVALID', 'A namespace is a domain name such as acme.example', '/namespace');
    const [holder] = await this.deps.database.withConnection((sql) =>
      sql.query<NamespaceRow>('SELECT n.namespace, p.display_name FROM registry_namespaces n LEFT JOIN registry_publishers p ON p.publisher_id = n.publisher_id WHERE n.namespace = $1', [namespace]),
    );
    if (!holder) return fail('not_found', 'NAMESPACE_NOT_FOUND', 'No publisher holds this namespace in the registry', '/namespace');
    const rows = await this.deps.database.withConnection((sql) =>
      sql.query<EntryRow>(
        `SELECT c.identifier, c.kind, c.content_type, c.name, c.description, c.tags, c.search_revision, c.updated_at, r.published_at,
                r.summary->'publisher' AS publisher, r.summary->>'updatedAt' AS document_updated_at
         FROM registry_cards c JOIN registry_card_revisions r ON r.identifier = c.identifier AND r.revision = c.search_revision
         WHERE c.namespace = $1 AND c.renamed_to IS NULL AND c.search_status IN ('active', 'deprecated')
         ORDER BY c.identifier`,
        [namespace],
      ),
    );
    const base = this.deps.baseUrl();
    const hostName = holder.display_name ?? namespace;
    const updatedAt = (row: EntryRow) => (row.document_updated_at !== null && RFC3339.test(row.document_updated_at) ? row.document_updated_at : isoOf(row.published_at));
    const document =
      form === 'final'
        ? {
            specVersion: '1.0',
            host: { displayName: hostName, identifier: namespace },
            entries: rows.map((row) => ({
              identifier: row.identifier,
              type: row.content_type,
              url: revisionUrl(base, row.identifier, row.search_revision),
              version: row.search_revision,
              updatedAt: updatedAt(row),
              ...(row.tags && row.tags.length > 0 ? { tags: row.tags } : {}),
              publisher: publisherOf(row, namespace, hostName),
            })),
          }
        : {
            $schema: SEED_CATALOG_SCHEMA,
            host: { name: hostName },
            aiCards: rows
              .filter((row) => row.kind === 'ai-card')
              .map((row) => ({
                id: row.identifier,
                name: row.name ?? '',
                description: row.description ?? '',
                ...(row.tags && row.tags.length > 0 ? { tags: row.tags } : {}),
                cardUrl: revisionUrl(base, row.identifier, row.search_revision),
                updatedAt: updatedAt(row),
              })),
          };
    const bytes = Buffer.from(JSON.stringify(document), 'utf8');
    return succeed({
      contentType: form === 'final' ? FINAL_CATALOG_MEDIA_TYPE : 'application/json',
      bytes,
      etag: `"sha256:${createHash('sha256').update(bytes).digest('hex')}"`,
    });
  }
}

function publisherOf(row: EntryRow, namespace: string, hostName: string): { identifier: string; displayName: string; identityType?: string } {
  const own = row.publisher;
  if (own && typeof own.identifier === 'string' && own.identifier !== '' && typeof own.name === 'string' && own.name !== '') return { identifier: own.identifier, displayName: own.name };
  return { identifier: namespace, displayName: hostName, identityType: 'dns' };
}
