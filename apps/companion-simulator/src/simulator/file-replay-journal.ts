/**
 * The Companion's replay journal on disk (`ReplayJournal` of relay-encryption, README "Replays across
 * restarts"): one JSON line `{"sender","counter","sentAt"}` per opened envelope, appended and flushed to
 * disk (`datasync`) before the cipher hands the frame to the core.
 *
 * Crash safety rests on two rules:
 * - append before act: an opening whose line is not durable was never acted on, so losing it is harmless;
 * - rewrite by rename: `load` and every compaction write the kept lines to a temporary file, flush it and
 *   rename it over the journal, so the journal is always a whole old or a whole new file. A line torn by a
 *   crash can only be the last one (appends are sequential) and is dropped by the next `load`'s rewrite,
 *   before anything is appended after it. A damaged line anywhere else is refused
 *   (`REPLAY_JOURNAL_CORRUPT`): forgetting an entry would let its envelope be replayed.
 *
 * The journal stays small: only entries sealed within the clock skew allowance matter (a later window
 * refuses everything older as stale), so compaction keeps those and drops the rest.
 */
import { mkdir, open, readFile, rename } from 'node:fs/promises';
import { dirname } from 'node:path';

import type { ReplayJournal, ReplayJournalEntry } from '@trustmesh/relay-encryption';

/** Appends between compactions, at least; more when many entries are still within the allowance. */
const MIN_APPENDS_PER_COMPACTION = 1024;
const UUID_TEXT = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

export class ReplayJournalCorruptError extends Error {
  override readonly name = 'ReplayJournalCorruptError';
  readonly code = 'REPLAY_JOURNAL_CORRUPT';

  constructor(file: string, line: number) {
    super(
      `the end-to-end replay journal ${JSON.stringify(file)} is damaged at line ${line}; ` +
        'if the Companion has been stopped for over a minute, delete the file and start again',
    );
  }
}

export class FileReplayJournal implements ReplayJournal {
  /** What the file holds (after the last compaction, plus appends): the input of the next compaction. */
  private entries: ReplayJournalEntry[] = [];
  private appendsSinceCompaction = 0;
  /** Writes one at a time, in order: an append never interleaves with a compaction's rename. */
  private tail: Promise<unknown> = Promise.resolve();

  constructor(private readonly file: string) {}

  async load(keepSince: number): Promise<readonly ReplayJournalEntry[]> {
    const entries = parseJournal(this.file, await readJournal(this.file));
    await this.compact(entries, keepSince);
    return [...this.entries];
  }

  append(entry: ReplayJournalEntry, keepSince: number): Promise<void> {
    const write = this.tail.then(async () => {
      await writeDurably(this.file, 'a', `${JSON.stringify(entry)}\n`);
      this.entries.push(entry);
      this.appendsSinceCompaction += 1;
      if (this.appendsSinceCompaction >= Math.max(MIN_APPENDS_PER_COMPACTION, this.entries.length / 2)) await this.compact(this.entries, keepSince);
    });
    this.tail = write.catch(() => undefined);
    return write;
  }

  /** Rewrites the journal with the entries still within the allowance, atomically. */
  private async compact(entries: readonly ReplayJournalEntry[], keepSince: number): Promise<void> {
    const kept = entries.filter((entry) => entry.sentAt >= keepSince);
    await mkdir(dirname(this.file), { recursive: true, mode: 0o700 });
    const temporary = `${this.file}.tmp`;
    await writeDurably(temporary, 'w', kept.map((entry) => `${JSON.stringify(entry)}\n`).join(''));
    await rename(temporary, this.file);
    await syncDirectory(dirname(this.file));
    this.entries = kept;
    this.appendsSinceCompaction = 0;
  }
}

async function readJournal(file: string): Promise<string> {
  try {
    return await readFile(file, 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return '';
    throw error;
  }
}

function parseJournal(file: string, text: string): ReplayJournalEntry[] {
  const lines = text.split('\n');
  // Every complete line ends with "\n"; what follows the last one is empty, or a line torn by a crash.
  lines.pop();
  return lines.map((line, index) => {
    const entry = parseEntry(line);
    if (!entry) throw new ReplayJournalCorruptError(file, index + 1);
    return entry;
  });
}

function parseEntry(line: string): ReplayJournalEntry | null {
  let value: unknown;
  try {
    value = JSON.parse(line);
  } catch {
    return null;
  }
  const { sender, counter, sentAt } = (value !== null && typeof value === 'object' ? value : {}) as Record<string, unknown>;
  if (typeof sender !== 'string' || !UUID_TEXT.test(sender)) return null;
  if (typeof counter !== 'number' || !Number.isSafeInteger(counter) || counter < 0) return null;
  if (typeof sentAt !== 'number' || !Number.isSafeInteger(sentAt)) return null;
  return { sender, counter, sentAt };
}

/** Writes (`w`) or appends (`a`) `text` and returns once it is on disk. */
async function writeDurably(file: string, flags: 'w' | 'a', text: string): Promise<void> {
  const handle = await open(file, flags, 0o600);
  try {
    await handle.writeFile(text, 'utf8');
    await handle.datasync();
  } finally {
    await handle.close();
  }
}

/** Makes a rename durable: the directory entry is flushed too. */
async function syncDirectory(directory: string): Promise<void> {
  const handle = await open(directory, 'r');
  try {
    await handle.sync();
  } finally {
    await handle.close();
  }
}
