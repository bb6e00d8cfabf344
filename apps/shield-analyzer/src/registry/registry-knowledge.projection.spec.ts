/**
 * The Shield's projection of `registry.cards.v1` and the consult's lookup on it, on both databases: a card
 * found by its identifier, by its endpoint and through its namespace, with its publisher, proof, signature,
 * lifecycle and look-alike flags as the registry's events left them; a reference that is only close to a
 * registered one matches nothing; the consult's one statement (`counterpartyKnowledge`) reads the same, with the
 * account's closed cases of the reference; and the log applied twice (a redelivery, a replay from the start)
 * leaves the same rows as applied once.
 */
import { registryReferenceKeys, type RegistryCardEvent, type SignatureRecord } from '@trustmesh/cards-registry-events';
import type { BusRecord } from '@trustmesh/platform-bus';
import { applyMigrations, type Database, type SqlExecutor } from '@trustmesh/platform-database';
import { createTestDatabase, TEST_DATABASE_KINDS, type TestDatabase } from '@trustmesh/platform-database/testing';
import { createEnvelope, type EventEnvelope } from '@trustmesh/platform-events';
import type { RegistryKnowledge } from '@trustmesh/shield-records';

import { SHIELD_ANALYZER_MIGRATIONS } from '../persistence/shield-analyzer.migrations';
import { counterpartyKnowledge } from '../persistence/shield-counterparty.queries';
import { knowledgeOfRow, registryKnowledgeCtes, type KnowledgeRow } from './registry-knowledge.queries';
import { shieldRegistryProjection } from './registry-knowledge.projection';

const ACME = 'acme.example';
const IMPOSTOR = 'acrne.example';
const CARD = 'https://acme.example/agents/billing';
const ENDPOINT = 'https://agents.acme.example/a2a/billing';
const FAKE_CARD = 'https://acrne.example/agents/billing';
const NOW = new Date('2026-06-01T00:00:00.000Z');

const signature = (namespace: string, verified: boolean): SignatureRecord => ({ verified, signer: `did:web:${namespace}`, checkedAt: '2026-01-02T00:00:00.000Z' });

function published(namespace: string, identifier: string, revision: string, signed?: SignatureRecord): RegistryCardEvent {
  const document = { name: 'Billing agent', url: namespace === ACME ? ENDPOINT : 'https://agents.acrne.example/a2a', version: revision };
  return {
    type: 'CardRevisionPublished',
    data: {
      namespace,
      identifier,
      kind: 'a2a-agent-card',
      revision,
      digest: `sha256:${'0'.repeat(64)}`,
      contentType: 'application/json',
      content: Buffer.from(JSON.stringify(document)).toString('base64'),
      size: 64,
      summary: { kind: 'a2a-agent-card', identifier, version: revision, name: 'Billing agent', description: 'Answers billing questions', tags: [], skills: [], tools: [], protocols: ['a2a'] },
      status: 'active',
      publisherId: namespace === ACME ? 'acme' : 'mallory',
      publishedAt: '2026-01-02T00:00:00.000Z',
      ...(signed ? { signature: signed } : {}),
    },
  };
}

const stream = (events: readonly { type: string; data: unknown }[], streamId: string): EventEnvelope[] =>
  events.map((event, index) => createEnvelope<unknown>({ eventType: event.type, data: event.data }, { streamId, streamVersion: index + 1, producer: 'card-registry@test' }));

const LOG: EventEnvelope[] = [
  ...stream(
    [
      { type: 'PublisherRegistered', data: { publisherId: 'acme', displayName: 'Acme Corp', registeredAt: '2026-01-01T00:00:00.000Z' } },
    ],
    'registry-publisher-acme',
  ),
  ...stream(
    [
      { type: 'NamespaceGranted', data: { namespace: ACME, publisherId: 'acme', grantedAt: '2026-01-01T00:00:00.000Z' } },
      { type: 'NamespaceVerified', data: { namespace: ACME, publisherId: 'acme', method: 'dns-txt', verifiedAt: '2026-01-01T00:00:00.000Z', expiresAt: '2027-01-01T00:00:00.000Z', token: 't' } },
      published(ACME, CARD, '1.0.0', signature(ACME, true)),
      published(ACME, CARD, '1.1.0', signature(ACME, true)),
      { type: 'CardStatusChanged', data: { namespace: ACME, identifier: CARD, revision: '1.1.0', status: 'deprecated', publisherId: 'acme', changedAt: '2026-01-03T00:00:00.000Z' } },
    ],
    `registry-namespace-${ACME}`,
  ),
  ...stream(
    [
      { type: 'NamespaceGranted', data: { namespace: IMPOSTOR, publisherId: 'mallory', grantedAt: '2026-01-01T00:00:00.000Z' } },
      published(IMPOSTOR, FAKE_CARD, '1.0.0'),
      { type: 'NamespaceLookalikeFlagged', data: { namespace: IMPOSTOR, lookalikeOf: [{ namespace: ACME, reason: 'confusable' }], flaggedAt: '2026-01-02T00:00:00.000Z' } },
    ],
    `registry-namespace-${IMPOSTOR}`,
  ),
  // Not a card consumer's event: skipped.
  ...stream([{ type: 'PublisherCredentialIssued', data: { credentialId: 'c1', publisherId: 'acme', secretSha256: '0'.repeat(64), issuedAt: '2026-01-01T00:00:00.000Z' } }], 'registry-credential-c1'),
];

const inTransaction = (database: Database, work: (tx: SqlExecutor) => Promise<void>) => database.withConnection((connection) => connection.transaction(work));

async function rows(database: Database): Promise<unknown[]> {
  return database.withConnection(async (sql) => [
    await sql.query('SELECT namespace, publisher_id, proof::text, lookalike_of::text FROM shield_registry_namespaces ORDER BY namespace'),
    await sql.query('SELECT identifier, namespace, facts::text, endpoints FROM shield_registry_cards ORDER BY identifier'),
    await sql.query('SELECT publisher_id, display_name FROM shield_registry_publishers ORDER BY publisher_id'),
  ]);
}


/**
 * What the registry knows of `reference` at `now`, read by the registry part of the consult's statement alone:
 * the projection's rows as the analysis sees them, and what `counterpartyKnowledge`'s one statement must agree with.
 */
async function registryKnowledge(database: Database, reference: string, now: Date): Promise<RegistryKnowledge | undefined> {
  const keys = registryReferenceKeys(reference);
  if (!keys) return undefined;
  const [row] = await database.withConnection((sql) => sql.query<KnowledgeRow>(`WITH ${registryKnowledgeCtes(1, 2)} SELECT * FROM knowledge`, [keys.exact, keys.namespace]));
  return row ? knowledgeOfRow(row, now) : undefined;
}

describe.each(TEST_DATABASE_KINDS)('the registry knowledge projection on %s', (kind) => {
  const projection = shieldRegistryProjection();
  const opened: TestDatabase[] = [];
  let database: Database;

  async function freshDatabase(label: string): Promise<Database> {
    const test = await createTestDatabase(kind, label);
    opened.push(test);
    const fresh = await test.open();
    await applyMigrations(fresh, [SHIELD_ANALYZER_MIGRATIONS]);
    return fresh;
  }

  const applyAll = async (target: Database, log: readonly EventEnvelope[]) => {
    for (const envelope of log) await inTransaction(target, (tx) => projection.apply(envelope, { tx, record: {} as BusRecord }));
  };

  beforeAll(async () => {
    database = await freshDatabase('shield-registry-knowledge');
    await applyAll(database, LOG);
  }, 120_000);

  afterAll(async () => {
    for (const test of opened) await test.dispose();
  });

  it('knows a card by its identifier: its verified publisher and its lifecycle', async () => {
    const known = await registryKnowledge(database, CARD, NOW);
    expect(known).toEqual({
      matchedBy: 'identifier',
      namespace: ACME,
      publisher: { publisherId: 'acme', displayName: 'Acme Corp' },
      ownershipProof: 'verified',
      lookalikeOf: [],
      card: { identifier: CARD, name: 'Billing agent', status: 'deprecated', latestRevision: '1.1.0', verified: true, endpoints: [ENDPOINT] },
    });
  });

  it('finds the same card by its endpoint, and the namespace by a bare domain or an unregistered identifier in it', async () => {
    expect(await registryKnowledge(database, ENDPOINT, NOW)).toMatchObject({ matchedBy: 'endpoint', card: { identifier: CARD } });
    expect(await registryKnowledge(database, ' ACME.example ', NOW)).toMatchObject({ matchedBy: 'namespace', namespace: ACME, ownershipProof: 'verified' });
    const namespaceOnly = await registryKnowledge(database, 'urn:air:acme.example:agent:unknown', NOW);
    expect(namespaceOnly).toMatchObject({ matchedBy: 'namespace', namespace: ACME });
    expect(namespaceOnly?.card).toBeUndefined();
  });

  it('reports the look-alike and the unverified card of an impostor, and never matches a near miss', async () => {
    expect(await registryKnowledge(database, FAKE_CARD, NOW)).toMatchObject({
      matchedBy: 'identifier',
      namespace: IMPOSTOR,
      ownershipProof: 'none',
      lookalikeOf: [{ namespace: ACME, reason: 'confusable' }],
      card: { identifier: FAKE_CARD, verified: false, status: 'active' },
    });
    expect(await registryKnowledge(database, `${CARD}/`, NOW)).toMatchObject({ matchedBy: 'namespace' });
    expect(await registryKnowledge(database, 'acme.example.org', NOW)).toBeUndefined();
    expect(await registryKnowledge(database, 'billing agent', NOW)).toBeUndefined();
  });

  it("reads the same knowledge in the consult's one statement, with the account's own closed cases of that reference", async () => {
    const caseOf = (n: number) => `00000000-0000-4000-8000-${String(n).padStart(12, '0')}`;
    const closed = (n: number, accountId: string, reference: string, day: number) =>
      database.withConnection((sql) =>
        sql.query(
          `INSERT INTO shield_counterparty_outcomes (case_id, account_id, reference, result, accepted_advice, latest_disposition, risk_tier, closed_at)
           VALUES ($1::uuid, $2, $3, 'prevented_harm', $4, $5, 'high', $6::timestamptz)`,
          [caseOf(n), accountId, reference, n % 2 === 0, n === 3 ? null : 'gather_evidence', `2026-03-0${day}T10:00:00.000Z`],
        ),
      );
    await closed(1, 'acme', CARD, 1);
    await closed(2, 'acme', CARD, 3);
    await closed(3, 'acme', CARD, 2);
    await closed(4, 'globex', CARD, 4);
    await closed(5, 'acme', ENDPOINT, 5);

    // Newest first, the case consulted and other accounts' cases left out, at most `limit`.
    const known = await counterpartyKnowledge(database, 'acme', CARD, caseOf(1), 20, NOW);
    expect(known).toEqual({
      reference: CARD,
      outcomes: [
        { caseId: caseOf(2), result: 'prevented_harm', acceptedAdvice: true, latestDisposition: 'gather_evidence', riskTier: 'high', closedAt: '2026-03-03T10:00:00.000Z' },
        { caseId: caseOf(3), result: 'prevented_harm', acceptedAdvice: false, riskTier: 'high', closedAt: '2026-03-02T10:00:00.000Z' },
      ],
      registry: await registryKnowledge(database, CARD, NOW),
    });
    expect((await counterpartyKnowledge(database, 'acme', CARD, caseOf(9), 1, NOW)).outcomes.map((outcome) => outcome.caseId)).toEqual([caseOf(2)]);
    for (const reference of [ENDPOINT, ' ACME.example ', 'urn:air:acme.example:agent:unknown', FAKE_CARD, `${CARD}/`]) {
      expect((await counterpartyKnowledge(database, 'acme', reference, caseOf(9), 20, NOW)).registry).toEqual(await registryKnowledge(database, reference, NOW));
    }
    // A reference the registry cannot name: outcomes only.
    expect(await counterpartyKnowledge(database, 'globex', 'billing agent', caseOf(9), 20, NOW)).toEqual({ reference: 'billing agent', outcomes: [] });
    expect(await counterpartyKnowledge(database, 'globex', CARD, caseOf(9), 20, NOW)).toMatchObject({ outcomes: [{ caseId: caseOf(4), acceptedAdvice: true }], registry: { matchedBy: 'identifier' } });
  });

  it('judges the proof at the consult time: after its expiry the card is no longer verified', async () => {
    expect(await registryKnowledge(database, CARD, new Date('2027-02-01T00:00:00.000Z'))).toMatchObject({ ownershipProof: 'expired', card: { verified: false } });
  });

  it('follows a yank, and leaves the same rows when the log is delivered twice or replayed from the start', async () => {
    const yank = stream(
      [{ type: 'CardStatusChanged', data: { namespace: ACME, identifier: CARD, revision: null, status: 'yanked', publisherId: 'acme', changedAt: '2026-01-04T00:00:00.000Z' } }],
      `registry-namespace-${ACME}`,
    ).map((envelope) => ({ ...envelope, streamVersion: 6 }));
    await applyAll(database, yank);
    expect(await registryKnowledge(database, CARD, NOW)).toMatchObject({ card: { status: 'yanked', verified: false, endpoints: [ENDPOINT] } });
    const once = await rows(database);

    await applyAll(database, [...LOG, ...yank]);
    expect(await rows(database)).toEqual(once);

    const redelivered = await freshDatabase('shield-registry-knowledge-twice');
    await applyAll(
      redelivered,
      [...LOG, ...yank].flatMap((envelope) => [envelope, envelope]),
    );
    expect(await rows(redelivered)).toEqual(once);
  });
});
