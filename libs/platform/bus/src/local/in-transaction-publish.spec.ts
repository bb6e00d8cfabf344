/**
 * Publishing inside a writer's own transaction or statement (`LocalEventBus.prepareInTransaction`), on
 * PGlite and on the Postgres server: the messages become visible with the writer's change or never, with the
 * checks of `publish`.
 */
import { TEST_DATABASE_KINDS } from '@trustmesh/platform-database/testing';
import { uniqueName } from '@trustmesh/platform-testing';

import { BusError } from '../bus.error';
import { partitionForKey } from '../partitioner';
import { event } from '../test/bus-events';
import { busDatabase, storedMessages, TEST_PARTITIONS, testBus, type BusDatabase } from './test/local-bus.harness';

describe.each(TEST_DATABASE_KINDS)('publishing inside a writer\'s transaction, local bus on %s', (kind) => {
  let db: BusDatabase;

  beforeAll(async () => {
    db = await busDatabase(kind, 'in-transaction');
  }, 60_000);

  afterAll(async () => {
    await db?.testDb.dispose();
  }, 60_000);

  it('writes in the caller\'s transaction: visible once it commits, gone when it rolls back', async () => {
    const { bus } = await testBus(db, { maxMessageBytes: 2_048 });
    const topic = uniqueName('tx.counters.v1');
    try {
      const publish = await bus.prepareInTransaction(topic);
      await db.database.withConnection((connection) => connection.transaction((tx) => publish.write(tx, [event('s', 1), event('s', 2)])));
      publish.committed();
      await expect(
        db.database.withConnection((connection) =>
          connection.transaction(async (tx) => {
            await publish.write(tx, [event('s', 3)]);
            throw new Error('the writer changed its mind');
          }),
        ),
      ).rejects.toThrow('the writer changed its mind');
      const oversized = db.database.withConnection((connection) => connection.transaction((tx) => publish.write(tx, [event('s', 3, { blob: 'x'.repeat(4_096) })])));
      await expect(oversized).rejects.toMatchObject({ code: 'MESSAGE_TOO_LARGE' });

      const stored = await storedMessages(db.database, topic);
      expect(stored.map((message) => JSON.parse(message.value).streamVersion)).toEqual([1, 2]);
      expect(stored.map((message) => message.offset)).toEqual(['0', '1']);
    } finally {
      await bus.close();
    }
  }, 60_000);

  it('joins a caller\'s statement, appending only when the caller\'s condition holds (unless wake-ups need a transaction)', async () => {
    const { bus } = await testBus(db, { maxMessageBytes: 2_048 });
    const topic = uniqueName('statement.counters.v1');
    try {
      const publish = await bus.prepareInTransaction(topic);
      if (bus.wakeUpKind === 'postgres-listen') {
        // Its NOTIFY must be in the writer's transaction: the caller writes there instead.
        expect(publish.statementPart([event('s', 1)], 2, 'true')).toBeUndefined();
        return;
      }
      const run = async (go: boolean, versions: number[]) => {
        const part = publish.statementPart(
          versions.map((version) => event('s', version)),
          2,
          '(SELECT ok FROM caller)',
        );
        if (!part) throw new Error('expected one statement');
        await db.database.withConnection((sql) => sql.query(`WITH caller AS (SELECT $1::boolean AS ok), ${part.ctes} SELECT ok FROM caller`, [go, ...part.params]));
      };
      await run(true, [1, 2, 3]);
      await run(false, [4]);
      await run(true, [4]);

      const stored = await storedMessages(db.database, topic);
      expect(stored.map((message) => JSON.parse(message.value).streamVersion)).toEqual([1, 2, 3, 4]);
      expect(stored.map((message) => message.offset)).toEqual(['0', '1', '2', '3']);
      expect(new Set(stored.map((message) => message.partition))).toEqual(new Set([partitionForKey('s', TEST_PARTITIONS)]));

      // Streams on different partitions cannot share one statement; a message over the limit is refused.
      const elsewhere = 'abcdefghijklmnopqrstuvwxyz'.split('').find((stream) => partitionForKey(stream, TEST_PARTITIONS) !== partitionForKey('s', TEST_PARTITIONS)) ?? 'none';
      expect(publish.statementPart([event('s', 5), event(elsewhere, 1)], 2, 'true')).toBeUndefined();
      expect(() => publish.statementPart([event('s', 5, { blob: 'x'.repeat(4_096) })], 2, 'true')).toThrow(BusError);
    } finally {
      await bus.close();
    }
  }, 60_000);
});
