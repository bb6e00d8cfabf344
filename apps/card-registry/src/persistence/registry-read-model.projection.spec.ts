/**
 * The registry read model written set-based (a run's card publications in one lot, `applyRun`) holds exactly
 * the rows that applying the same events one by one writes, on both databases: cards, revisions with their
 * bytes, signatures, latest revisions, `updated_at` and the search columns, through yanks, deletions, renames,
 * a re-checked signature and the cases a lot must settle as one-by-one application does (a revision published
 * twice: the first stays; a signature recorded twice: the last stands).
 */
import { applyMigrations, type Database, type SqlExecutor } from '@trustmesh/platform-database';
import { createTestDatabase, TEST_DATABASE_KINDS, type TestDatabase } from '@trustmesh/platform-database/testing';
import type { BusRecord } from '@trustmesh/platform-bus';
import { createEnvelope, type EventEnvelope } from '@trustmesh/platform-events';

import type { SignatureRecord } from '../domain/namespace-trust';
import type { CardSummary, NamespaceEvent } from '../domain/registry-namespace.aggregate';
import { CARD_REGISTRY_MIGRATIONS } from './card-registry.migrations';
import { namespaceStreamId, toStored } from './registry.stream';
import { registryReadModelProjection } from './registry-read-model.projection';

const NAMESPACE = 'acme.example';
const PUBLISHER = 'acme';

function published(identifier: string, revision: string, at: string, text: { name: string; kind?: string; tags?: string[]; protocols?: string[]; signature?: SignatureRecord; bytes?: string }): NamespaceEvent {
  const kind = text.kind ?? 'ai-card';
  const summary: CardSummary = {
    kind,
    identifier,
    ...(kind === 'ai-card' ? { updatedAt: revision } : { version: revision }),
    name: text.name,
    description: `${text.name}, reconciles invoices`,
    tags: text.tags ?? ['Finance'],
    skills: ['reconcile'],
    tools: [],
    protocols: text.protocols ?? ['a2a'],
  };
  const content = Buffer.from(text.bytes ?? JSON.stringify({ identifier, revision })).toString('base64');
  return {
    type: 'CardRevisionPublished',
    data: {
      namespace: NAMESPACE,
      identifier,
      kind,
      revision,
      digest: `sha256:${'0'.repeat(64)}`,
      contentType: 'application/json',
      content,
      size: Buffer.from(content, 'base64').length,
      summary,
      status: 'active',
      publisherId: PUBLISHER,
      publishedAt: at,
      ...(text.signature ? { signature: text.signature } : {}),
    },
  };
}

const signature = (verified: boolean, checkedAt: string): SignatureRecord => ({ verified, signer: `did:web:${NAMESPACE}`, kid: 'k1', alg: 'ES256', checkedAt, ...(verified ? {} : { code: 'SIGNATURE_INVALID' }) });

const A = 'https://acme.example/agents/a';
const B = 'example.acme/server';
const C = 'https://acme.example/agents/c';

/** A namespace's life: lots of publications cut by status changes, a rename and a re-checked signature. */
const EVENTS: NamespaceEvent[] = [
  { type: 'NamespaceGranted', data: { namespace: NAMESPACE, publisherId: PUBLISHER, grantedAt: '2026-01-01T00:00:00.000Z' } },
  published(A, '2026-01-01T10:00:00Z', '2026-01-02T00:00:00.000Z', { name: 'Agent A' }),
  published(B, '1.0.0', '2026-01-02T00:00:00.000Z', { name: 'Server B', kind: 'mcp-server', protocols: ['MCP-Server'] }),
  published(A, '2026-01-03T10:00:00Z', '2026-01-02T00:00:00.000Z', { name: 'Agent A, second', tags: ['Finance', 'Audit', 'finance'], signature: signature(false, '2026-01-02T00:00:00.000Z') }),
  published(B, '1.2.0', '2026-01-02T00:00:01.000Z', { name: 'Server B 1.2', kind: 'mcp-server', protocols: ['MCP-Server'] }),
  published(B, '1.1.0', '2026-01-02T00:00:02.000Z', { name: 'Server B 1.1', kind: 'mcp-server', protocols: ['mcp'] }),
  // The same revision again with other bytes and another signature outcome (a replayed log may hold anything).
  published(A, '2026-01-03T10:00:00Z', '2026-01-02T00:00:03.000Z', { name: 'Agent A, impostor', bytes: '{"other":true}', signature: signature(true, '2026-01-02T00:00:03.000Z') }),
  published(C, '2026-01-01T10:00:00Z', '2026-01-02T00:00:03.000Z', { name: 'Agent C' }),
  { type: 'CardStatusChanged', data: { namespace: NAMESPACE, identifier: A, revision: '2026-01-03T10:00:00Z', status: 'yanked', publisherId: PUBLISHER, changedAt: '2026-01-03T00:00:00.000Z' } },
  { type: 'CardSignatureRechecked', data: { namespace: NAMESPACE, identifier: A, revision: '2026-01-03T10:00:00Z', signature: signature(false, '2026-01-03T00:00:01.000Z') } },
  published(C, '2026-01-05T10:00:00Z', '2026-01-04T00:00:00.000Z', { name: 'Agent C, second' }),
  { type: 'CardStatusChanged', data: { namespace: NAMESPACE, identifier: C, revision: null, status: 'deleted', message: 'Retired', publisherId: PUBLISHER, changedAt: '2026-01-04T00:00:01.000Z' } },
  { type: 'CardRenamed', data: { namespace: NAMESPACE, from: B, to: 'example.acme/server-two', publisherId: PUBLISHER, renamedAt: '2026-01-04T00:00:02.000Z' } },
  published('https://acme.example/agents/d', '2026-01-06T10:00:00Z', '2026-01-05T00:00:00.000Z', { name: 'Agent D', signature: signature(true, '2026-01-05T00:00:00.000Z') }),
  published(A, '2026-01-07T10:00:00Z', '2026-01-05T00:00:00.000Z', { name: 'Agent A, third' }),
];

const envelopes: EventEnvelope[] = EVENTS.map((event, index) => createEnvelope<unknown>(toStored(event), { streamId: namespaceStreamId(NAMESPACE), streamVersion: index + 1, producer: 'card-registry@test' }));

/** Every row of the read model's card tables, in a stable order, as text. */
async function readModel(database: Database): Promise<Record<string, unknown[]>> {
  const tables: Record<string, string> = {
    cards: `SELECT identifier, namespace, kind, status, status_message, renamed_to, latest_revision, updated_at::text, search_revision, search_status, content_type, name, description, tags, protocols, search_document::text FROM registry_cards ORDER BY identifier`,
    revisions: `SELECT identifier, revision, kind, digest, content_type, encode(content, 'hex') AS content, summary::text, status, status_message, published_at::text, updated_at::text FROM registry_card_revisions ORDER BY identifier, revision`,
    signatures: `SELECT identifier, revision, namespace, verified, signer, kid, alg, code, checked_at::text FROM registry_revision_signatures ORDER BY identifier, revision`,
    namespaces: `SELECT namespace, publisher_id, granted_at::text, updated_at::text FROM registry_namespaces ORDER BY namespace`,
  };
  const model: Record<string, unknown[]> = {};
  for (const [name, sql] of Object.entries(tables)) model[name] = await database.withConnection((connection) => connection.query(sql));
  return model;
}

const inTransaction = (database: Database, work: (tx: SqlExecutor) => Promise<void>) => database.withConnection((connection) => connection.transaction(work));

describe.each(TEST_DATABASE_KINDS)('registry read model on %s', (kind) => {
  const projection = registryReadModelProjection();
  const opened: TestDatabase[] = [];

  async function freshDatabase(label: string): Promise<Database> {
    const test = await createTestDatabase(kind, label);
    opened.push(test);
    const database = await test.open();
    await applyMigrations(database, [CARD_REGISTRY_MIGRATIONS]);
    return database;
  }

  afterAll(async () => {
    for (const test of opened) await test.dispose();
  });

  it('writes the same rows from a run in lots as from its events one by one', async () => {
    const oneByOne = await freshDatabase('registry-read-model-single');
    for (const envelope of envelopes) await inTransaction(oneByOne, (tx) => projection.apply(envelope, { tx, record: {} as BusRecord }));
    const expected = await readModel(oneByOne);

    // What the one-by-one model says, so that equal models cannot both be wrong the same way unnoticed.
    const cards = expected['cards'] as Array<Record<string, unknown>>;
    const card = (identifier: string) => cards.find((row) => row['identifier'] === identifier);
    expect(card(A)).toMatchObject({ latest_revision: '2026-01-07T10:00:00Z', search_revision: '2026-01-07T10:00:00Z', search_status: 'active', name: 'Agent A, third' });
    expect(card(B)).toMatchObject({ latest_revision: '1.2.0', name: 'Server B 1.2', protocols: ['mcp'], renamed_to: 'example.acme/server-two' });
    expect(card(C)).toMatchObject({ status: 'deleted', search_status: 'deleted', latest_revision: null, status_message: 'Retired' });
    const revisions = expected['revisions'] as Array<Record<string, unknown>>;
    expect(revisions.find((row) => row['identifier'] === A && row['revision'] === '2026-01-03T10:00:00Z')).toMatchObject({ status: 'yanked', content: Buffer.from(JSON.stringify({ identifier: A, revision: '2026-01-03T10:00:00Z' })).toString('hex') });
    expect((expected['signatures'] as Array<Record<string, unknown>>).map((row) => [row['identifier'], row['verified']])).toEqual([
      [A, false],
      ['https://acme.example/agents/d', true],
    ]);

    const oneRun = await freshDatabase('registry-read-model-run');
    await inTransaction(oneRun, (tx) => projection.applyRun?.(envelopes, { tx, records: [] }) ?? Promise.reject(new Error('no applyRun')));
    expect(await readModel(oneRun)).toEqual(expected);

    // Runs of every length cut the lots elsewhere: the rows stay the same.
    for (const length of [2, 3, 5]) {
      const inRuns = await freshDatabase(`registry-read-model-runs-${length}`);
      for (let start = 0; start < envelopes.length; start += length) {
        const run = envelopes.slice(start, start + length);
        await inTransaction(inRuns, (tx) => projection.applyRun?.(run, { tx, records: [] }) ?? Promise.reject(new Error('no applyRun')));
      }
      expect(await readModel(inRuns)).toEqual(expected);
    }
  }, 120_000);
});
