/**
 * The bulk path of the search suites and the bench: many card revisions published through the app's own
 * pieces in one go, instead of one HTTP request each. Each document is validated and summarised by the
 * registry's document port, decided by the namespace aggregate on the folded state (so a refusal fails
 * the seed), and the events are appended to the namespace stream in batches with the expected version,
 * exactly what a publish appends; the outbox and the projection then carry them to the read model as
 * they carry every publish. `waitForProjection` waits until the read model holds them.
 */
import { createHash } from 'node:crypto';

import type { SqlExecutor } from '@trustmesh/platform-database';
import type { EventStore } from '@trustmesh/platform-event-store';

import { cardsDocuments } from '../../src/documents/cards-documents.adapter';
import { PUBLISHABLE_KINDS } from '../../src/documents/card-documents.port';
import { decide, emptyNamespace, evolve, type NamespaceEvent } from '../../src/domain/registry-namespace.aggregate';
import { fromStored, namespaceStreamId, toStored } from '../../src/persistence/registry.stream';

const BATCH = 500;

export interface SeedTarget {
  store: EventStore;
  kick(): void;
}

/**
 * Publishes `documents` (raw JSON text) under `namespace` as `publisherId`, which must hold it. Every
 * `BATCH` documents share one publication time, so equal `updatedAt` values (and the identifier tiebreak)
 * are the rule, not the exception. Returns the identifiers published.
 */
export async function seedDocuments(target: SeedTarget, namespace: string, publisherId: string, documents: readonly string[], startAt = Date.now()): Promise<string[]> {
  const port = cardsDocuments(512 * 1024);
  const streamId = namespaceStreamId(namespace);
  const state = emptyNamespace(namespace);
  const recorded = await target.store.readStream(streamId);
  for (const { envelope } of recorded) evolve(state, fromStored(envelope.eventType, envelope.data), envelope.streamVersion);
  let version = recorded.length;
  const identifiers: string[] = [];
  for (let offset = 0; offset < documents.length; offset += BATCH) {
    const now = new Date(startAt + offset).toISOString();
    const events: NamespaceEvent[] = [];
    for (const text of documents.slice(offset, offset + BATCH)) {
      const content = Buffer.from(text, 'utf8');
      const validation = port.validate(content, {});
      if (!validation.valid) throw new Error(`seed document invalid: ${JSON.stringify(validation.errors.slice(0, 3))}`);
      const summary = port.summarize(validation);
      const identifier = summary.identifier;
      const revision = validation.kind === 'ai-card' ? summary.updatedAt : summary.version;
      if (identifier === undefined || revision === undefined) throw new Error('seed document names no identifier or revision');
      const decision = decide(
        {
          type: 'PublishRevision',
          publisherId,
          identifier,
          kind: validation.kind,
          revision,
          ...(validation.kind === 'ai-card' ? { updatedAtMs: Date.parse(revision) } : {}),
          digest: `sha256:${createHash('sha256').update(content).digest('hex')}`,
          contentType: PUBLISHABLE_KINDS[validation.kind] ?? 'application/json',
          content: content.toString('base64'),
          size: content.length,
          summary: { ...summary, identifier },
          status: summary.maturity === 'deprecated' ? 'deprecated' : 'active',
          now,
        },
        state,
      );
      if (!decision.ok) throw new Error(`seed refused: ${decision.refusal.code}`);
      for (const event of decision.events) {
        evolve(state, event, version + events.length + 1);
        events.push(event);
      }
      identifiers.push(identifier);
    }
    if (events.length > 0) {
      await target.store.append(streamId, version === 0 ? 'no-stream' : version, events.map(toStored));
      version += events.length;
      target.kick();
    }
  }
  return identifiers;
}

/** Waits until `sql` finds `count` cards with a search document under `namespace` (or throws after `timeoutMs`). */
export async function waitForProjection(query: (sql: string, params: unknown[]) => Promise<Array<{ count: number | string }>>, namespace: string, count: number, timeoutMs = 120_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  let seen = 0;
  while (Date.now() < deadline) {
    const [row] = await query('SELECT count(*)::int AS count FROM registry_cards WHERE namespace = $1 AND search_status IS NOT NULL', [namespace]);
    seen = Number(row?.count ?? 0);
    if (seen >= count) return;
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
  throw new Error(`the read model holds ${seen} of ${count} cards of ${namespace}`);
}

export const executorQuery = (run: <T>(work: (sql: SqlExecutor) => Promise<T>) => Promise<T>) => (sql: string, params: unknown[]) => run((executor) => executor.query<{ count: number | string }>(sql, params));
