// PGlite on its own thread, as the embedded database runs it: Postgres' work no longer holds the event loop,
// and callers (the platform's SQL, pglite-prisma-adapter) see PGlite's behaviour: transactions that hold
// the connection, rollback on a throw, SQLSTATEs on errors, their own parsers applied, and a clear error
// once the thread is gone.
import { messages } from '@electric-sql/pglite';

import { DatabaseError } from '../database.errors';
import { PgliteThread } from './pglite-thread';

describe('PgliteThread', () => {
  let thread: PgliteThread;
  beforeAll(async () => {
    thread = await PgliteThread.start({}, 'memory://pglite-thread-spec');
    await thread.exec('CREATE TABLE notes (id integer PRIMARY KEY, body text NOT NULL, at timestamptz NOT NULL DEFAULT now())');
  });
  afterAll(async () => {
    await thread.close();
  });

  it('keeps the event loop free while Postgres works', async () => {
    let turns = 0;
    let working = true;
    const spin = (): void => {
      if (!working) return;
      turns += 1;
      setImmediate(spin);
    };
    setImmediate(spin);
    const [row] = (await thread.query<{ n: string }>('SELECT count(*)::text AS n FROM generate_series(1, 2000000) AS s(i) WHERE i % 7 = 0')).rows;
    working = false;
    expect(row?.n).toBe('285714');
    // On the main thread the whole statement is one synchronous call: no turn of the loop until it ends.
    expect(turns).toBeGreaterThan(20);
  });

  it('returns rows as objects or arrays, with the field types', async () => {
    await thread.query('INSERT INTO notes (id, body) VALUES ($1, $2), ($3, $4)', [1, 'one', 2, 'two']);
    const objects = await thread.query<{ id: number; body: string }>('SELECT id, body FROM notes ORDER BY id');
    expect(objects.rows).toEqual([
      { id: 1, body: 'one' },
      { id: 2, body: 'two' },
    ]);
    expect(objects.fields).toEqual([
      { name: 'id', dataTypeID: 23 },
      { name: 'body', dataTypeID: 25 },
    ]);
    const arrays = await thread.query<unknown[]>('SELECT id, body FROM notes ORDER BY id', [], { rowMode: 'array' });
    expect(arrays.rows).toEqual([
      [1, 'one'],
      [2, 'two'],
    ]);
  });

  it('binds parameters as they were given: multi-byte text, kilobytes of JSON, bytes, numbers, booleans and NULL', async () => {
    const text = 'héllo ✓ 😀 \u00a0end';
    const doc = { items: Array.from({ length: 200 }, (_, index) => ({ index, note: `ünïcode ${index} ✓` })) };
    const bytes = new Uint8Array([0, 1, 254, 255]);
    const [row] = (
      await thread.query<{ text: string; length: number; doc: unknown; bytes: Uint8Array; number: number; flag: boolean; nothing: null }>(
        'SELECT $1::text AS text, octet_length($1::text) AS length, $2::jsonb AS doc, $3::bytea AS bytes, $4::integer AS number, $5::boolean AS flag, $6::text AS nothing',
        [text, JSON.stringify(doc), bytes, 42, true, null],
      )
    ).rows;
    expect(row?.text).toBe(text);
    expect(row?.length).toBe(Buffer.byteLength(text));
    expect(row?.doc).toEqual(doc);
    expect([...(row?.bytes ?? [])]).toEqual([0, 1, 254, 255]);
    expect(row?.number).toBe(42);
    expect(row?.flag).toBe(true);
    expect(row?.nothing).toBeNull();
  });

  it('applies the caller\'s parsers to the text of their types, and PGlite\'s to the rest', async () => {
    const result = await thread.query<unknown[]>("SELECT id, at, '{\"a\":1}'::jsonb AS doc, NULL::jsonb AS nothing FROM notes WHERE id = 1", [], {
      rowMode: 'array',
      parsers: { 1184: (text: string) => `at:${text.slice(0, 4)}`, 3802: (text: string, typeId: number) => `${typeId}:${text}` },
    });
    const [id, at, doc, nothing] = result.rows[0] ?? [];
    expect(id).toBe(1);
    expect(at).toBe(`at:${new Date().getUTCFullYear()}`);
    expect(doc).toBe('3802:{"a": 1}');
    expect(nothing).toBeNull();
    const defaults = await thread.query<{ at: unknown; doc: unknown }>('SELECT at, \'{"a":1}\'::jsonb AS doc FROM notes WHERE id = 1');
    // A Date, made by the structured clone in Node's own realm (not Jest's sandbox, so no instanceof here).
    expect(Object.prototype.toString.call(defaults.rows[0]?.at)).toBe('[object Date]');
    expect(defaults.rows[0]?.doc).toEqual({ a: 1 });
  });

  it('reports Postgres errors as PGlite\'s DatabaseError, SQLSTATE and fields included', async () => {
    const error = await thread.query('INSERT INTO notes (id, body) VALUES (1, $1)', ['again']).catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(messages.DatabaseError);
    expect(error).toMatchObject({ code: '23505', table: 'notes', constraint: 'notes_pkey', severity: 'ERROR' });
    expect((error as Error).message).toContain('duplicate key');
  });

  // Statements run prepared (prepared-statements.mjs): parsed once, then only bound and executed.
  it('runs a statement again after it failed, with other parameters', async () => {
    const sql = 'INSERT INTO notes (id, body) VALUES ($1, $2) RETURNING id';
    await expect(thread.query(sql, [40, 'first'])).resolves.toMatchObject({ rows: [{ id: 40 }] });
    await expect(thread.query(sql, [40, 'again'])).rejects.toMatchObject({ code: '23505' });
    await expect(thread.query(sql, [41, 'next'])).resolves.toMatchObject({ rows: [{ id: 41 }] });
    await expect(thread.query('SELECT nonsense FROM notes')).rejects.toMatchObject({ code: '42703' });
    await expect(thread.query('SELECT nonsense FROM notes')).rejects.toMatchObject({ code: '42703' });
  });

  it('keeps answering correctly over more distinct statements than it keeps prepared', async () => {
    const texts = Array.from({ length: 600 }, (_, k) => `SELECT $1::integer + ${k} AS n`);
    for (const [k, sql] of texts.entries()) expect((await thread.query<{ n: number }>(sql, [1000])).rows[0]?.n).toBe(1000 + k);
    // The first ones were closed to make room; they are prepared again.
    for (const [k, sql] of texts.slice(0, 5).entries()) expect((await thread.query<{ n: number }>(sql, [2000])).rows[0]?.n).toBe(2000 + k);
  });

  it('follows a table whose columns changed under a prepared statement', async () => {
    await thread.exec('CREATE TABLE shapes (id integer PRIMARY KEY)');
    await thread.query('INSERT INTO shapes (id) VALUES ($1)', [1]);
    expect((await thread.query('SELECT * FROM shapes WHERE id = $1', [1])).rows).toEqual([{ id: 1 }]);
    await thread.exec("ALTER TABLE shapes ADD COLUMN label text NOT NULL DEFAULT 'new'");
    expect((await thread.query('SELECT * FROM shapes WHERE id = $1', [1])).rows).toEqual([{ id: 1, label: 'new' }]);
    await thread.exec('DROP TABLE shapes');
    await expect(thread.query('SELECT * FROM shapes WHERE id = $1', [1])).rejects.toMatchObject({ code: '42P01' });
  });

  it('prepares a statement again when the session dropped it', async () => {
    const sql = 'SELECT body FROM notes WHERE id = $1';
    expect((await thread.query(sql, [1])).rows).toEqual([{ body: 'one' }]);
    await thread.exec('DEALLOCATE ALL');
    expect((await thread.query(sql, [2])).rows).toEqual([{ body: 'two' }]);
  });

  it('commits a transaction whose work resolves, and holds the connection until it ends', async () => {
    const order: string[] = [];
    let release!: () => void;
    const released = new Promise<void>((resolve) => (release = resolve));
    const transaction = thread.transaction(async (tx) => {
      await tx.query('INSERT INTO notes (id, body) VALUES (10, $1)', ['in a transaction']);
      order.push('inserted');
      await released;
      order.push('committing');
    });
    await new Promise((resolve) => setTimeout(resolve, 50));
    // A statement of another caller waits for the transaction, and then sees its row.
    const outside = thread.query<{ n: number }>('SELECT count(*)::int AS n FROM notes WHERE id = 10').then((result) => {
      order.push('outside');
      return result.rows[0]?.n;
    });
    await new Promise((resolve) => setTimeout(resolve, 50));
    release();
    await transaction;
    await expect(outside).resolves.toBe(1);
    expect(order).toEqual(['inserted', 'committing', 'outside']);
  });

  it('rolls back a transaction whose work throws, and one its work rolls back', async () => {
    await expect(
      thread.transaction(async (tx) => {
        await tx.query('INSERT INTO notes (id, body) VALUES (20, $1)', ['doomed']);
        throw new Error('changed my mind');
      }),
    ).rejects.toThrow('changed my mind');
    await thread.transaction(async (tx) => {
      await tx.query('INSERT INTO notes (id, body) VALUES (21, $1)', ['also doomed']);
      await tx.rollback();
      await expect(tx.query('SELECT 1')).rejects.toThrow('Transaction is closed');
    });
    const left = await thread.query<{ n: number }>('SELECT count(*)::int AS n FROM notes WHERE id IN (20, 21)');
    expect(left.rows[0]?.n).toBe(0);
  });

  it('opens a transaction with its first statement: statements sent at once, none at all, or a rollback first', async () => {
    // The first statement carries the BEGIN; one sent right behind it waits for it, inside the transaction.
    await thread.transaction(async (tx) => {
      await Promise.all([tx.query('INSERT INTO notes (id, body) VALUES (30, $1)', ['first']), tx.query('INSERT INTO notes (id, body) VALUES (31, $1)', ['second'])]);
    });
    await expect(thread.transaction(async () => 'nothing to do')).resolves.toBe('nothing to do');
    await thread.transaction(async (tx) => {
      await tx.rollback();
      await expect(tx.query('INSERT INTO notes (id, body) VALUES (32, $1)', ['too late'])).rejects.toThrow('Transaction is closed');
    });
    const kept = await thread.query<{ id: number }>('SELECT id FROM notes WHERE id IN (30, 31, 32) ORDER BY id');
    expect(kept.rows.map((row) => row.id)).toEqual([30, 31]);
  });

  it('refuses work with DATABASE_CLOSED once the thread is closed', async () => {
    const other = await PgliteThread.start({}, 'memory://closed-thread');
    await other.close();
    const error = await other.query('SELECT 1').catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(DatabaseError);
    expect(error).toMatchObject({ code: 'DATABASE_CLOSED' });
    await expect(other.close()).resolves.toBeUndefined();
  });
});
