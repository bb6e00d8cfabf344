// The embedded database's own thread: one PGlite instance, driven by `PgliteThread` (pglite-thread.ts) on
// the main thread. Every request is answered with its id. Requests run as they arrive and PGlite orders them
// as it does on one thread: a transaction holds its lock from BEGIN to COMMIT or ROLLBACK, and statements of
// other callers wait for it. Plain JavaScript, so that Node starts it as it is under tsx, Jest or a build.
import { existsSync, readlinkSync } from 'node:fs';
import { setPriority } from 'node:os';
import { join } from 'node:path';
import { parentPort } from 'node:worker_threads';

import { PGlite, messages } from '@electric-sql/pglite';

import { preparedStatements } from './prepared-statements.mjs';

/** Fields a Postgres error carries besides its message (PGlite's `DatabaseError`). */
const ERROR_FIELDS = [
  'severity',
  'code',
  'detail',
  'hint',
  'position',
  'internalPosition',
  'internalQuery',
  'where',
  'schema',
  'table',
  'column',
  'dataType',
  'constraint',
  'file',
  'line',
  'routine',
];

const identity = (value) => value;

/** @type {PGlite | undefined} */
let db;
/** `query` requests run as named prepared statements (prepared-statements.mjs): parsed and planned once. */
let prepared;
/** Distinct SQL texts kept prepared; the least recently used beyond it is closed. */
const PREPARED_CAPACITY = 256;
/** Open transactions by the main thread's id: PGlite's transaction object, and how to end its callback. */
const transactions = new Map();

function resultOf(result) {
  return { rows: result.rows, fields: result.fields, affectedRows: result.affectedRows };
}

function errorOf(error) {
  if (error instanceof messages.DatabaseError) {
    const fields = {};
    for (const name of ERROR_FIELDS) if (error[name] !== undefined) fields[name] = error[name];
    return { kind: 'postgres', message: error.message, name: error.name, fields };
  }
  return { kind: 'other', message: error instanceof Error ? error.message : String(error), name: error instanceof Error ? error.name : 'Error' };
}

/** Transactions whose BEGIN is under way, by id: their statements wait for it. */
const opening = new Map();

/**
 * Runs `request.sql` on the transaction it names, or on the database. The first statement of a transaction
 * opens it (`begin: true`): no round trip of its own for BEGIN.
 */
async function target(request) {
  if (request.tx === undefined) return db;
  if (request.begin) {
    const begun = begin(request.tx);
    opening.set(request.tx, begun);
    try {
      await begun;
    } finally {
      opening.delete(request.tx);
    }
  } else {
    await opening.get(request.tx)?.catch(() => undefined);
  }
  const open = transactions.get(request.tx);
  if (!open) throw new Error('Transaction is closed');
  return open.tx;
}

/** Opens a transaction whose callback stays pending until `end`; resolves once BEGIN ran. */
function begin(txId) {
  return new Promise((opened, failed) => {
    let entered = false;
    const done = db.transaction(
      (tx) =>
        new Promise((commit, rollback) => {
          entered = true;
          transactions.set(txId, { tx, commit, rollback, done });
          opened(null);
        }),
    );
    done.catch((error) => {
      if (!entered) failed(error);
    });
  });
}

/** Ends a transaction: COMMIT (PGlite reports a COMMIT that rolled back), or ROLLBACK unless already done. */
async function end(txId, outcome) {
  const open = transactions.get(txId);
  if (!open) throw new Error('Transaction is closed');
  transactions.delete(txId);
  if (outcome === 'commit') {
    open.commit(null);
    await open.done;
    return null;
  }
  open.rollback(new Error('rolled back'));
  await open.done.catch(() => undefined);
  return null;
}

/**
 * Lowers this thread's scheduling priority (Linux gives each thread its own nice value): when the cores are
 * busy, the event loop serving the process's sockets runs first and the database's work waits a little.
 * Best effort: elsewhere, or without /proc, the thread keeps the default priority.
 */
function yieldToEventLoop(niceness) {
  try {
    const tid = Number(readlinkSync('/proc/thread-self').split('/').pop());
    if (Number.isSafeInteger(tid) && tid > 0) setPriority(tid, niceness);
  } catch {
    // Not Linux, or not permitted.
  }
}

async function run(request) {
  if (request.op === 'open') {
    if (request.niceness > 0) yieldToEventLoop(request.niceness);
    const { settings = {}, ...options } = request.options;
    // A directory on disk without a cluster (PG_VERSION) and no tarball to unpack: PGlite runs initdb now.
    const initdb = options.dataDir !== undefined && options.loadDataDir === undefined && !existsSync(join(options.dataDir, 'PG_VERSION'));
    const startParams = [...PGlite.defaultStartParams, ...Object.entries(settings).flatMap(([name, value]) => ['-c', `${name}=${value}`])];
    db = await PGlite.create({ ...options, startParams });
    prepared = preparedStatements(db, { capacity: PREPARED_CAPACITY });
    return { initdb };
  }
  if (!db) throw new Error('The embedded database is not open.');
  switch (request.op) {
    case 'query': {
      // Columns of the types the caller parses itself come back as Postgres' text; it applies its parsers.
      const parsers = {};
      for (const typeId of request.rawTypes) parsers[typeId] = identity;
      const on = await target(request);
      return resultOf(await prepared.query(request.sql, request.params, { rowMode: request.rowMode, parsers }, on === db ? undefined : on));
    }
    case 'exec':
      return (await (await target(request)).exec(request.sql)).map(resultOf);
    case 'rollback':
      // The caller's own ROLLBACK inside the transaction (PGlite's `tx.rollback()`); `end` follows.
      await (await target(request)).rollback();
      return null;
    case 'end':
      return end(request.tx, request.outcome);
    case 'close':
      await db.close();
      db = undefined;
      prepared = undefined;
      return null;
    default:
      throw new Error(`Unknown request ${String(request.op)}.`);
  }
}

parentPort.on('message', (request) => {
  run(request).then(
    (result) => parentPort.postMessage({ id: request.id, result }),
    (error) => parentPort.postMessage({ id: request.id, error: errorOf(error) }),
  );
});
