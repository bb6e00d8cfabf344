import { randomUUID } from 'node:crypto';

import { applyMigrations, type Database } from '@trustmesh/platform-database';
import { createTestDatabase, type TestDatabase } from '@trustmesh/platform-database/testing';

import { SHIELD_ANALYZER_MIGRATIONS } from './shield-analyzer.migrations';
import { CounterpartyOutcomes } from './shield-counterparty.queries';

describe('CounterpartyOutcomes on embedded PGlite', () => {
  let db: TestDatabase;
  let database: Database;

  beforeAll(async () => {
    db = await createTestDatabase('pglite', 'shield-counterparty');
    database = await db.open();
    await applyMigrations(database, [SHIELD_ANALYZER_MIGRATIONS]);
  }, 60_000);
  afterAll(() => db?.dispose());

  /** Writes a closed case's outcome row as the read model's projection does; returns its case id. */
  const close = async (accountId: string, reference: string, closedAt: string, result = 'fraud_confirmed'): Promise<string> => {
    const caseId = randomUUID();
    await database.withConnection((sql) =>
      sql.query(
        `INSERT INTO shield_counterparty_outcomes (case_id, account_id, reference, result, accepted_advice, latest_disposition, risk_tier, closed_at)
         VALUES ($1::uuid, $2, $3, $4, true, 'block', 'high', $5::timestamptz)`,
        [caseId, accountId, reference, result, closedAt],
      ),
    );
    return caseId;
  };

  it('answers newest first, at most the limit, without the case asking, and only for its own account', async () => {
    const outcomes = new CounterpartyOutcomes(database, 2, false);
    const older = await close('acct-a', 'vendor:a', '2026-01-01T00:00:00.000Z');
    const newer = await close('acct-a', 'vendor:a', '2026-02-01T00:00:00.000Z');
    const newest = await close('acct-a', 'vendor:a', '2026-03-01T00:00:00.000Z');
    await close('acct-b', 'vendor:a', '2026-04-01T00:00:00.000Z');

    expect((await outcomes.of('acct-a', 'vendor:a', randomUUID())).map((outcome) => outcome.caseId)).toEqual([newest, newer]);
    expect((await outcomes.of('acct-a', 'vendor:a', newest)).map((outcome) => outcome.caseId)).toEqual([newer, older]);
    const [first] = await outcomes.of('acct-a', 'vendor:a', randomUUID());
    expect(first).toEqual({ caseId: newest, result: 'fraud_confirmed', acceptedAdvice: true, latestDisposition: 'block', riskTier: 'high', closedAt: '2026-03-01T00:00:00.000Z' });
    expect(await outcomes.of('acct-c', 'vendor:a', randomUUID())).toEqual([]);
  });

  it('reads every time when nothing may be kept (a Postgres server, where other replicas project)', async () => {
    const outcomes = new CounterpartyOutcomes(database, 5, false);
    expect(await outcomes.of('acct-d', 'vendor:d', randomUUID())).toEqual([]);
    const caseId = await close('acct-d', 'vendor:d', '2026-01-01T00:00:00.000Z');
    expect((await outcomes.of('acct-d', 'vendor:d', randomUUID())).map((outcome) => outcome.caseId)).toEqual([caseId]);
  });

  it('keeps an answer until the projection says the reference gained an outcome', async () => {
    const outcomes = new CounterpartyOutcomes(database, 5, true);
    expect(await outcomes.of('acct-e', 'vendor:e', randomUUID())).toEqual([]);
    // Written behind its back: the kept (empty) answer stands, which is what the cache is for.
    const caseId = await close('acct-e', 'vendor:e', '2026-01-01T00:00:00.000Z');
    expect(await outcomes.of('acct-e', 'vendor:e', randomUUID())).toEqual([]);
    outcomes.changed('acct-e', 'vendor:other');
    expect(await outcomes.of('acct-e', 'vendor:e', randomUUID())).toEqual([]);

    outcomes.changed('acct-e', 'vendor:e');
    expect((await outcomes.of('acct-e', 'vendor:e', randomUUID())).map((outcome) => outcome.caseId)).toEqual([caseId]);
  });

  it('does not keep an answer read while an outcome was being written', async () => {
    const outcomes = new CounterpartyOutcomes(database, 5, true);
    const reading = outcomes.of('acct-f', 'vendor:f', randomUUID());
    // The projection reports a new outcome while the read is in flight; its row lands after the read.
    outcomes.changed('acct-f', 'vendor:f');
    expect(await reading).toEqual([]);
    const caseId = await close('acct-f', 'vendor:f', '2026-01-01T00:00:00.000Z');
    expect((await outcomes.of('acct-f', 'vendor:f', randomUUID())).map((outcome) => outcome.caseId)).toEqual([caseId]);
  });
});
