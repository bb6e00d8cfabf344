/**
 * The lock that keeps an embedded data directory to one process, and the permissions that keep it to one
 * user. PGlite is Postgres in one process: two processes (or two instances in one) on one cluster corrupt
 * it, so `<dataDir>/pglite.lock` names its owner and nobody else opens the directory while that owner lives.
 *
 * The rules the lock keeps:
 * - **Atomic**: the lock file appears whole or not at all. Its content (pid, the process's start time,
 *   a random nonce) is written to a private temporary file first (`O_CREAT|O_EXCL|O_NOFOLLOW`, 0600), which
 *   is then hard-linked to `pglite.lock`; `link` fails if the lock exists. Nobody ever reads a lock half
 *   written (an empty file was judged stale by the reader and deleted under a live owner).
 * - **Stale locks** are taken over only when their owner is gone: its pid is not running, or is running
 *   but started at another time (the pid was reused). A lock that cannot be read as ours (an older
 *   version's, half-written) is judged by its pid alone, or, without one, counts as live for
 *   `UNREADABLE_LOCK_GRACE_MS` after it was last written. Breaking a stale lock is itself exclusive
 *   (`pglite.lock.break`, a directory made with `mkdir`), and the breaker deletes the lock only if it still
 *   holds the content it judged stale, so two processes breaking one stale lock never delete the winner's.
 * - **Only the owner deletes it**: `release` removes the lock only if it still holds this owner's nonce.
 * - **No symlinks**: a `pglite.lock` that is a symbolic link (or not a regular file) is refused
 *   (`DATABASE_OPEN_FAILED`), never followed or replaced. The data directory itself may be a symlink: the
 *   caller keys instances by its real path, so two paths to one directory share one instance.
 *
 * Permissions: the data directory is made 0700, and the lock 0600. `privatiseTree` makes what PGlite wrote
 * 0700 (directories) and 0600 (files): the directory's mode is what keeps other users out; the files' modes
 * keep a copied or moved cluster private too.
 */
import { randomBytes } from 'node:crypto';
import { constants, readFileSync } from 'node:fs';
import { chmod, link, lstat, mkdir, open, readdir, rmdir, unlink } from 'node:fs/promises';
import { join } from 'node:path';

import { DatabaseError, describeDriverError } from './database.errors';

export const LOCK_FILE = 'pglite.lock';
/** How long a lock file that names no owner (being written by an older version) counts as live. */
export const UNREADABLE_LOCK_GRACE_MS = 10_000;
/** How long a `pglite.lock.break` directory may stand before it counts as left by a crashed breaker. */
const BREAK_GRACE_MS = 10_000;
const ATTEMPTS = 20;

interface LockOwner {
  pid: number;
  /** The owner process's start time (Linux: clock ticks after boot), when the platform can tell. */
  started?: string;
  nonce?: string;
}

/** Locks held by this process, by nonce: a lock of our own pid that is not among them was left behind. */
const heldNonces = new Set<string>();

/** Takes `<dir>/pglite.lock` for this process; returns the function that gives it back (only if still ours). */
export async function lockDataDir(dir: string): Promise<() => Promise<void>> {
  const lockPath = join(dir, LOCK_FILE);
  const nonce = randomBytes(12).toString('hex');
  const content = `${process.pid}\n${processStartTime(process.pid) ?? ''}\n${nonce}\n`;
  for (let attempt = 0; attempt < ATTEMPTS; attempt += 1) {
    if (await tryLink(dir, lockPath, content, nonce)) {
      heldNonces.add(nonce);
      return async () => {
        heldNonces.delete(nonce);
        const current = await readLock(lockPath).catch(() => undefined);
        if (current?.raw === content) await unlink(lockPath).catch(() => undefined);
      };
    }
    const current = await readLock(lockPath);
    if (!current) continue; // gone meanwhile: try again
    if (isLive(current.owner, current.ageMs)) {
      if (current.owner) {
        throw new DatabaseError(
          'DATABASE_IN_USE',
          `The embedded database at ${dir} is open in another process (pid ${current.owner.pid}). Stop that process, or set ` +
            'DATABASE_URL to a Postgres server so several processes can share one database.',
        );
      }
      throw new DatabaseError('DATABASE_IN_USE', `The embedded database at ${dir} is being opened by another process; try again.`);
    }
    await breakStaleLock(lockPath, current.raw);
  }
  throw new DatabaseError('DATABASE_IN_USE', `The embedded database at ${dir} is being opened by another process; try again.`);
}

/** Writes the lock's content privately, then links it into place; false when a lock is already there. */
async function tryLink(dir: string, lockPath: string, content: string, nonce: string): Promise<boolean> {
  const temporary = join(dir, `${LOCK_FILE}.${process.pid}.${nonce}.tmp`);
  try {
    const file = await open(temporary, constants.O_CREAT | constants.O_EXCL | constants.O_WRONLY | constants.O_NOFOLLOW, 0o600);
    try {
      await file.writeFile(content);
    } finally {
      await file.close();
    }
    await link(temporary, lockPath);
    return true;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'EEXIST') return false;
    throw new DatabaseError('DATABASE_OPEN_FAILED', `Cannot lock the data directory ${dir}: ${describeDriverError(error)}`, { cause: error });
  } finally {
    await unlink(temporary).catch(() => undefined);
  }
}

/** The lock as it is now (undefined if there is none), refusing anything but a regular file. */
async function readLock(lockPath: string): Promise<{ raw: string; owner?: LockOwner; ageMs: number } | undefined> {
  let raw: string;
  let ageMs: number;
  try {
    const stats = await lstat(lockPath);
    if (!stats.isFile()) {
      throw new DatabaseError(
        'DATABASE_OPEN_FAILED',
        `${lockPath} is ${stats.isSymbolicLink() ? 'a symbolic link' : 'not a regular file'}; refusing to use it as the database lock. Remove it if no process uses the database.`,
      );
    }
    ageMs = Date.now() - stats.mtimeMs;
    const file = await open(lockPath, constants.O_RDONLY | constants.O_NOFOLLOW);
    try {
      raw = await file.readFile('utf8');
    } finally {
      await file.close();
    }
  } catch (error) {
    if (error instanceof DatabaseError) throw error;
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw new DatabaseError('DATABASE_OPEN_FAILED', `Cannot read the database lock ${lockPath}: ${describeDriverError(error)}`, { cause: error });
  }
  const [pidText = '', started = '', nonce = ''] = raw.split('\n');
  const pid = /^\d+$/.test(pidText.trim()) ? Number(pidText.trim()) : Number.NaN;
  if (!Number.isSafeInteger(pid) || pid <= 0) return { raw, ageMs };
  return { raw, ageMs, owner: { pid, ...(started.trim() ? { started: started.trim() } : {}), ...(nonce.trim() ? { nonce: nonce.trim() } : {}) } };
}

function isLive(owner: LockOwner | undefined, ageMs: number): boolean {
  if (!owner) return ageMs < UNREADABLE_LOCK_GRACE_MS;
  if (owner.pid === process.pid) {
    // Ours and held: a second instance in this process must not open the cluster (the caller shares by
    // real path, so this means a path it could not tell apart). Ours and not held: left behind, stale.
    return owner.nonce !== undefined && heldNonces.has(owner.nonce);
  }
  if (!isRunning(owner.pid)) return false;
  const started = processStartTime(owner.pid);
  // A running pid that started at another time than the owner did is another process (pid reuse).
  return owner.started === undefined || started === undefined || started === owner.started;
}

/** Deletes a lock judged stale, unless it changed since it was judged; one breaker at a time. */
async function breakStaleLock(lockPath: string, judged: string): Promise<void> {
  const breaker = `${lockPath}.break`;
  try {
    await mkdir(breaker, { mode: 0o700 });
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'EEXIST') {
      throw new DatabaseError('DATABASE_OPEN_FAILED', `Cannot lock the data directory: ${describeDriverError(error)}`, { cause: error });
    }
    const stats = await lstat(breaker).catch(() => undefined);
    if (stats && Date.now() - stats.mtimeMs > BREAK_GRACE_MS) await rmdir(breaker).catch(() => undefined);
    await new Promise((resolve) => setTimeout(resolve, 50 + Math.random() * 100));
    return;
  }
  try {
    const current = await readLock(lockPath);
    if (current?.raw === judged) await unlink(lockPath).catch(() => undefined);
  } finally {
    await rmdir(breaker).catch(() => undefined);
  }
}

function isRunning(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/** When a process started (Linux: field 22 of /proc/<pid>/stat), or undefined where that cannot be read. */
function processStartTime(pid: number): string | undefined {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    // The command name (field 2) is in parentheses and may hold spaces: count fields after its end.
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return fields[19];
  } catch {
    return undefined;
  }
}

/** Makes `dir` (created if missing, with its parents) private to this user: 0700. */
export async function privateDirectory(dir: string): Promise<void> {
  await mkdir(dir, { recursive: true, mode: 0o700 });
  await chmod(dir, 0o700);
}

/** `dir` and the directories under it 0700, its files 0600 (symbolic links are left alone, never followed). */
export async function privatiseTree(dir: string): Promise<void> {
  await chmod(dir, 0o700);
  await privatiseEntries(dir);
}

async function privatiseEntries(dir: string): Promise<void> {
  const entries = await readdir(dir, { withFileTypes: true });
  await Promise.all(
    entries.map(async (entry) => {
      const path = join(dir, entry.name);
      if (entry.isDirectory()) {
        await chmod(path, 0o700);
        await privatiseEntries(path);
      } else if (entry.isFile()) {
        await chmod(path, 0o600);
      }
    }),
  );
}

