/**
 * PGlite on a thread of its own. PGlite is Postgres compiled to WASM: a statement runs synchronously from
 * start to end, so on the main thread every query blocks the event loop for as long as Postgres works on it
 * (a relay writing its frames log spent about a third of its event loop there, and frames waited behind
 * each transaction). Here the instance lives in a worker (`pglite.worker.mjs`) and this class is the part of
 * PGlite's interface the platform uses (`query`, `exec`, `transaction`, `close`), so
 * `pglite-prisma-adapter` and the platform's SQL run on it unchanged.
 *
 * - Ordering and transactions are PGlite's own, in the worker: a transaction holds the connection from BEGIN
 *   to its end, and statements of other callers wait for it, exactly as on one thread.
 * - Values cross the thread boundary by structured clone. Parsers (functions) cannot: the worker returns the
 *   text of the columns a caller has parsers for, and they are applied here.
 * - Postgres errors arrive as PGlite's `DatabaseError`, with their SQLSTATE and fields, so callers (the
 *   Prisma adapter included) see what they saw before.
 * - The worker keeps the process alive only while a request is pending; a worker that dies fails every
 *   pending and later request with `DATABASE_CLOSED`.
 */
import { join } from 'node:path';
import { Worker } from 'node:worker_threads';

import { messages } from '@electric-sql/pglite';

import { DatabaseError } from '../database.errors';

type Parser = (text: string, typeId: number) => unknown;

export interface ThreadQueryOptions {
  rowMode?: 'object' | 'array';
  parsers?: Readonly<Record<number, Parser>>;
}

export interface ThreadResults<Row = Record<string, unknown>> {
  rows: Row[];
  fields: Array<{ name: string; dataTypeID: number }>;
  affectedRows?: number;
}

export interface ThreadTransaction {
  query<Row = Record<string, unknown>>(sql: string, params?: readonly unknown[], options?: ThreadQueryOptions): Promise<ThreadResults<Row>>;
  exec(sql: string): Promise<ThreadResults[]>;
  rollback(): Promise<void>;
  readonly closed: boolean;
}

export interface ThreadOpenOptions {
  dataDir?: string;
  loadDataDir?: Blob;
  /** Postgres settings for this server's start (`-c name=value`, over PGlite's own start parameters). */
  settings?: Readonly<Record<string, string>>;
}

type Request =
  | { op: 'open'; options: ThreadOpenOptions; niceness: number }
  | { op: 'query'; sql: string; params: unknown[]; rowMode: 'object' | 'array'; rawTypes: number[]; tx?: number; begin?: true }
  | { op: 'exec'; sql: string; tx?: number; begin?: true }
  | { op: 'rollback'; tx: number }
  | { op: 'end'; tx: number; outcome: 'commit' | 'rollback' }
  | { op: 'close' };

type SerializedError =
  | { kind: 'postgres'; message: string; name: string; fields: Record<string, unknown> }
  | { kind: 'other'; message: string; name: string };

interface Reply {
  id: number;
  result?: unknown;
  error?: SerializedError;
}

const WORKER_FILE = join(__dirname, 'pglite.worker.mjs');
/**
 * The database thread's nice value (Linux): above the event loop's, so that on busy cores socket traffic is
 * served first and bookkeeping (logs, audit, projections) waits a little; 5 still gives it a fair share.
 */
const THREAD_NICENESS = 5;

export class PgliteThread {
  private readonly pending = new Map<number, { resolve: (value: unknown) => void; reject: (error: Error) => void }>();
  private nextId = 1;
  private nextTx = 1;
  private failure: Error | undefined;

  private constructor(
    private readonly worker: Worker,
    private readonly location: string,
  ) {
    worker.unref();
    worker.on('message', (reply: Reply) => this.settle(reply));
    worker.on('error', (error) => this.fail(`failed: ${error.message}`));
    worker.on('exit', (code) => this.fail(`stopped (exit code ${code})`));
  }

  /**
   * Starts the worker and opens PGlite in it (`dataDir` absent: in memory). A cluster this open created on
   * disk with initdb is opened again on a fresh worker: PGlite's initdb (a second WASM instance) leaves about
   * 400 MiB resident in the worker that ran it, which opening an existing cluster never needs. (An in-memory
   * database cannot be reopened; a cluster unpacked from a tarball costs no initdb.)
   */
  static async start(options: ThreadOpenOptions, location: string): Promise<PgliteThread> {
    const { thread, initdb } = await PgliteThread.open(options, location);
    if (!initdb) return thread;
    await thread.close();
    return (await PgliteThread.open(options, location)).thread;
  }

  private static async open(options: ThreadOpenOptions, location: string): Promise<{ thread: PgliteThread; initdb: boolean }> {
    // No flags of this process (loaders, preloads, profilers): the worker is plain JavaScript and PGlite.
    const thread = new PgliteThread(new Worker(WORKER_FILE, { execArgv: [] }), location);
    try {
      const { initdb } = (await thread.request({ op: 'open', options, niceness: THREAD_NICENESS })) as { initdb: boolean };
      return { thread, initdb };
    } catch (error) {
      await thread.worker.terminate();
      throw error;
    }
  }

  query<Row = Record<string, unknown>>(sql: string, params: readonly unknown[] = [], options: ThreadQueryOptions = {}): Promise<ThreadResults<Row>> {
    return this.runQuery<Row>(sql, params, options, undefined);
  }

  exec(sql: string): Promise<ThreadResults[]> {
    return this.request({ op: 'exec', sql }) as Promise<ThreadResults[]>;
  }

  /**
   * Runs `work` in a transaction: committed if it resolves, rolled back if it throws (PGlite's rules). The
   * transaction opens with its first statement, which carries the BEGIN (one round trip to the thread
   * fewer per transaction); until then it holds nothing, and one without statements sends nothing.
   */
  async transaction<T>(work: (tx: ThreadTransaction) => Promise<T>): Promise<T> {
    const txId = this.nextTx++;
    let begun = false;
    let rolledBack = false;
    let closed = false;
    /** The fields of the transaction's next request: the first one opens it. */
    const inTx = (): { tx: number; begin?: true } => {
      if (rolledBack || closed) throw new Error('Transaction is closed');
      if (begun) return { tx: txId };
      begun = true;
      return { tx: txId, begin: true };
    };
    const tx: ThreadTransaction = {
      query: async (sql, params = [], options = {}) => this.runQuery(sql, params, options, inTx()),
      exec: async (sql) => (await this.request({ op: 'exec', sql, ...inTx() })) as ThreadResults[],
      rollback: async () => {
        if (!begun) {
          rolledBack = true;
          return;
        }
        await this.request({ op: 'rollback', tx: txId });
      },
      get closed() {
        return closed || rolledBack;
      },
    };
    // PGlite calls `work` only after its BEGIN, never synchronously, and callers rely on that
    // (pglite-prisma-adapter reads the returned promise from inside `work`).
    await Promise.resolve();
    let result: T;
    try {
      result = await work(tx);
    } catch (error) {
      closed = true;
      if (begun) await this.request({ op: 'end', tx: txId, outcome: 'rollback' }).catch(() => undefined);
      throw error;
    }
    closed = true;
    if (begun) await this.request({ op: 'end', tx: txId, outcome: 'commit' });
    return result;
  }

  /** Closes PGlite (flushing it to disk) and ends the thread. */
  async close(): Promise<void> {
    if (this.failure) return;
    try {
      await this.request({ op: 'close' });
    } finally {
      this.failure = new DatabaseError('DATABASE_CLOSED', `The embedded database at ${this.location} was closed.`);
      await this.worker.terminate();
    }
  }

  private async runQuery<Row>(sql: string, params: readonly unknown[], options: ThreadQueryOptions, tx: { tx: number; begin?: true } | undefined): Promise<ThreadResults<Row>> {
    const parsers = options.parsers ?? {};
    const rawTypes = Object.keys(parsers).map(Number);
    const rowMode = options.rowMode ?? 'object';
    const request: Request = { op: 'query', sql, params: [...params], rowMode, rawTypes, ...tx };
    const result = (await this.request(request)) as ThreadResults<Row>;
    if (rawTypes.length > 0) applyParsers(result as ThreadResults<unknown>, parsers, rowMode);
    return result;
  }

  private request(request: Request): Promise<unknown> {
    if (this.failure) return Promise.reject(this.failure);
    const id = this.nextId++;
    return new Promise((resolve, reject) => {
      if (this.pending.size === 0) this.worker.ref();
      this.pending.set(id, { resolve, reject });
      this.worker.postMessage({ ...request, id });
    });
  }

  private settle(reply: Reply): void {
    const waiting = this.pending.get(reply.id);
    if (!waiting) return;
    this.pending.delete(reply.id);
    if (this.pending.size === 0) this.worker.unref();
    if (reply.error) waiting.reject(rebuildError(reply.error));
    else waiting.resolve(reply.result);
  }

  private fail(how: string): void {
    this.failure ??= new DatabaseError('DATABASE_CLOSED', `The embedded database thread for ${this.location} ${how}.`);
    for (const waiting of this.pending.values()) waiting.reject(this.failure);
    this.pending.clear();
  }
}

function applyParsers(result: ThreadResults<unknown>, parsers: Readonly<Record<number, Parser>>, rowMode: 'object' | 'array'): void {
  result.fields.forEach((field, index) => {
    const parse = parsers[field.dataTypeID];
    if (!parse) return;
    for (const row of result.rows) {
      if (rowMode === 'array') {
        const values = row as unknown[];
        if (values[index] !== null) values[index] = parse(values[index] as string, field.dataTypeID);
      } else {
        const values = row as Record<string, unknown>;
        if (values[field.name] !== null) values[field.name] = parse(values[field.name] as string, field.dataTypeID);
      }
    }
  });
}

function rebuildError(error: SerializedError): Error {
  if (error.kind === 'postgres') {
    const rebuilt = new messages.DatabaseError(error.message, 0, error.name as ConstructorParameters<typeof messages.DatabaseError>[2]);
    return Object.assign(rebuilt, error.fields);
  }
  const rebuilt = new Error(error.message);
  rebuilt.name = error.name;
  return rebuilt;
}
