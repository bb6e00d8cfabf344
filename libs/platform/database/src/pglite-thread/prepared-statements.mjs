// Named prepared statements for the embedded database's thread (pglite.worker.mjs).
//
// PGlite's `query` sends every statement as the unnamed one: Postgres parses, analyses and plans it again on
// each call. In WASM that is most of a short statement's cost: over a shield consult round, Parse and Bind
// (where an unnamed statement is planned) took 55% of the thread's time, Execute 25%. Here each distinct SQL
// text is parsed once as a named statement and later calls only bind and execute it; after five executions
// Postgres keeps a generic plan when it is as good as a custom one (`plan_cache_mode = auto`), so planning
// stops too. Measured on one PGlite: a primary-key SELECT went from 0.43 ms to 0.10 ms.
//
// - What callers see is PGlite's `query`: the same parameter serializers (by the types Postgres inferred at
//   Parse), the same result parsing (`parseResults`, with the caller's parsers and row mode), the same
//   `DatabaseError`s. Bind, Describe, Execute and Sync go as one message buffer: after an error Postgres
//   skips to the Sync, so the session is ready for the next statement whatever happened.
// - The cache is bounded (`capacity` texts, least recently used closed first): SQL texts that vary per call
//   (generated IN lists) cannot grow the backend's memory.
// - A statement whose plan no longer fits its tables (`cached plan must not change result type` after a
//   schema change), or that the session dropped (`DEALLOCATE ALL`), is closed and parsed again once.
// - Exclusivity is PGlite's own: a statement inside a transaction takes the query lock the transaction's
//   statements share; one outside also waits for open transactions, as `PGlite.query` does.
import { parse, protocol } from '@electric-sql/pglite';

const { serialize } = protocol;

/** SQLSTATE 0A000 with this message: the statement's result columns changed under it. */
const PLAN_CHANGED = 'cached plan must not change result type';
/** SQLSTATE of a statement name the session does not know (a `DEALLOCATE ALL` or `DISCARD ALL` dropped it). */
const UNKNOWN_STATEMENT = '26000';

/** Whether `error` says the kept statement is no longer usable as it is, so parsing it again is the cure. */
function staleStatement(error) {
  if (error?.code === UNKNOWN_STATEMENT) return true;
  return error?.code === '0A000' && String(error.message).includes(PLAN_CHANGED);
}

/** Describe (the unnamed portal), Execute (all rows) and Sync: what follows every Bind of `execute`. */
const RUN_PORTAL = Buffer.from([68, 0, 0, 0, 6, 80, 0, 69, 0, 0, 0, 9, 0, 0, 0, 0, 0, 83, 0, 0, 0, 4]);

/**
 * The Bind message of `values` (text, bytes, or null) to the named statement, followed by `RUN_PORTAL`, in
 * one buffer. PGlite's own `serialize.bind` builds the same bytes, but counts each string's UTF-8 length in a
 * JavaScript loop and grows its buffer as it writes: for the kilobytes of JSON an append or a read-model
 * write binds, that was about a tenth of the database thread's time. Here lengths and encoding are Node's.
 * Parameters in text format, bytes in binary (PGlite's choice); results all in text.
 */
function bindAndRun(statement, values) {
  const name = Buffer.byteLength(statement);
  let size = 1 + 4 + 1 + name + 1 + 2 + 2 * values.length + 2 + 2;
  const bytes = values.map((value) => {
    if (value === null || typeof value === 'string') return value;
    if (ArrayBuffer.isView(value)) return Buffer.from(value.buffer, value.byteOffset, value.byteLength);
    return value instanceof ArrayBuffer ? Buffer.from(value) : String(value);
  });
  for (const value of bytes) size += 4 + (value === null ? 0 : typeof value === 'string' ? Buffer.byteLength(value) : value.length);
  const out = Buffer.allocUnsafeSlow(size + RUN_PORTAL.length);
  let at = out.writeUInt8(66, 0);
  at = out.writeInt32BE(size - 1, at);
  at = out.writeUInt8(0, at);
  at += out.write(statement, at);
  at = out.writeUInt8(0, at);
  at = out.writeInt16BE(bytes.length, at);
  for (const value of bytes) at = out.writeInt16BE(value !== null && typeof value !== 'string' ? 1 : 0, at);
  at = out.writeInt16BE(bytes.length, at);
  for (const value of bytes) {
    if (value === null) {
      at = out.writeInt32BE(-1, at);
    } else if (typeof value === 'string') {
      const length = out.write(value, at + 4);
      out.writeInt32BE(length, at);
      at += 4 + length;
    } else {
      at = out.writeInt32BE(value.length, at);
      at += value.copy(out, at);
    }
  }
  at = out.writeInt16BE(0, at);
  RUN_PORTAL.copy(out, at);
  return out;
}

function concat(parts) {
  const out = new Uint8Array(parts.reduce((length, part) => length + part.length, 0));
  let offset = 0;
  for (const part of parts) {
    out.set(part, offset);
    offset += part.length;
  }
  return out;
}

/**
 * @param {import('@electric-sql/pglite').PGlite} db
 * @param {{ capacity: number }} options
 */
export function preparedStatements(db, { capacity }) {
  /** SQL text -> { name, types }: its statement name and the parameter types Postgres inferred. */
  const statements = new Map();
  let nextName = 1;

  const exchange = (parts) => db.execProtocolStream(parts.length === 1 ? parts[0] : concat(parts), { syncToFs: false });

  async function prepare(sql) {
    if (statements.size >= capacity) {
      const [oldest, { name: evicted }] = statements.entries().next().value;
      statements.delete(oldest);
      await exchange([serialize.close({ type: 'S', name: evicted }), serialize.sync()]);
    }
    const name = `tm_${nextName++}`;
    const replies = await exchange([serialize.parse({ name, text: sql }), serialize.describe({ type: 'S', name }), serialize.sync()]);
    const types = replies.find((reply) => reply.name === 'parameterDescription')?.dataTypeIDs ?? [];
    const statement = { name, types };
    statements.set(sql, statement);
    return statement;
  }

  async function forget(sql) {
    const statement = statements.get(sql);
    if (!statement) return;
    statements.delete(sql);
    await exchange([serialize.close({ type: 'S', name: statement.name }), serialize.sync()]);
  }

  async function execute(sql, params, options) {
    let statement = statements.get(sql);
    if (statement) {
      // Most recently used last: eviction takes the first.
      statements.delete(sql);
      statements.set(sql, statement);
    } else {
      statement = await prepare(sql);
    }
    const values = params.map((value, index) => {
      if (value === null || value === undefined) return null;
      const serializer = db.serializers[statement.types[index]];
      return serializer ? serializer(value) : value.toString();
    });
    const replies = await exchange([bindAndRun(statement.name, values)]);
    return parse.parseResults(replies, db.parsers, options)[0];
  }

  async function run(sql, params, options) {
    try {
      return await execute(sql, params, options);
    } catch (error) {
      if (!staleStatement(error)) throw error;
      await forget(sql);
      return execute(sql, params, options);
    }
  }

  return {
    /**
     * Runs `sql` with `params` as PGlite's `query` would. `transaction`: PGlite's transaction object the
     * statement belongs to (its lock is held already), or undefined for a statement of its own.
     */
    async query(sql, params, options, transaction) {
      if (transaction) {
        if (transaction.closed) throw new Error('Transaction is closed');
        return db.runExclusive(() => run(sql, params, options));
      }
      return db._runExclusiveTransaction(async () => {
        const result = await db.runExclusive(() => run(sql, params, options));
        await db.syncToFs();
        return result;
      });
    },
  };
}
