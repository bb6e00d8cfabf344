// The daily publish quota on the registry's own table, on both databases the registry runs on (embedded
// PGlite and a Postgres server, with a pool, so racing reservations really run at once there): exact at the
// last unit, given back by release, fresh each UTC day with the past swept.
import { applyMigrations } from '@trustmesh/platform-database';
import { createTestDatabase, TEST_DATABASE_KINDS, type TestDatabase } from '@trustmesh/platform-database/testing';

import { CARD_REGISTRY_MIGRATIONS } from '../persistence/card-registry.migrations';
import { DailyPublishQuota, type QuotaSql } from './publish-quota';

describe.each(TEST_DATABASE_KINDS)('DailyPublishQuota on %s', (kind) => {
  let database: TestDatabase;
  let sql: QuotaSql;
  const clock = { ms: Date.parse('2026-12-03T23:59:00Z') };
  const quota = (perDay: number) => new DailyPublishQuota(perDay, sql, undefined, () => clock.ms);

  beforeAll(async () => {
    database = await createTestDatabase(kind, 'publish-quota');
    const opened = await database.open({ poolSize: 8 });
    await applyMigrations(opened, [CARD_REGISTRY_MIGRATIONS]);
    sql = <Row>(text: string, params: unknown[]) => opened.withConnection((connection) => connection.query<Row>(text, params));
  });
  afterAll(() => database.dispose());

  it('refuses once the day is spent, says how long until UTC midnight, gives a released unit back, and starts afresh the next day', async () => {
    const subject = quota(2);
    const first = await subject.reserve('acme');
    expect(first.reserved).toBe(true);
    expect((await subject.reserve('acme')).reserved).toBe(true);
    expect(await subject.reserve('acme')).toEqual({ reserved: false, retryAfterSeconds: 60 });
    expect(await subject.exhausted('acme')).toEqual({ retryAfterSeconds: 60 });
    expect((await subject.reserve('globex')).reserved).toBe(true);

    if (first.reserved) await first.release();
    if (first.reserved) await first.release(); // twice is once
    expect(await subject.exhausted('acme')).toBeNull();
    expect((await subject.reserve('acme')).reserved).toBe(true);
    expect((await subject.reserve('acme')).reserved).toBe(false);

    clock.ms = Date.parse('2026-12-04T00:00:00Z');
    expect(await subject.exhausted('acme')).toBeNull();
    expect((await subject.reserve('acme')).reserved).toBe(true);
    // The first reservation of the day swept yesterday's rows (asynchronously: wait for it).
    const yesterday = Math.floor(Date.parse('2026-12-03T12:00:00Z') / 86_400_000);
    for (let tries = 0; tries < 50 && (await sql('SELECT 1 FROM registry_publish_quota WHERE day = $1', [yesterday])).length > 0; tries += 1) await new Promise((resolve) => setTimeout(resolve, 20));
    expect(await sql('SELECT publisher_id FROM registry_publish_quota WHERE day = $1', [yesterday])).toEqual([]);
  });

  it('lets exactly perDay of many racing reservations through, across quota instances (replicas)', async () => {
    clock.ms = Date.parse('2026-12-05T08:00:00Z');
    const replicas = [quota(5), quota(5)];
    const outcomes = await Promise.all(Array.from({ length: 40 }, (_, index) => (replicas[index % 2] as DailyPublishQuota).reserve('racer')));
    expect(outcomes.filter((outcome) => outcome.reserved)).toHaveLength(5);
    expect(await sql<{ count: number }>('SELECT count FROM registry_publish_quota WHERE publisher_id = $1', ['racer'])).toEqual([{ count: 5 }]);
  });

  it('lets catalogs add what they stored past the quota, and then refuses', async () => {
    clock.ms = Date.parse('2026-12-06T08:00:00Z');
    const subject = quota(3);
    expect(await subject.exhausted('cataloguer')).toBeNull();
    await subject.spend('cataloguer', 5);
    expect(await subject.exhausted('cataloguer')).not.toBeNull();
    expect((await subject.reserve('cataloguer')).reserved).toBe(false);
  });
});
