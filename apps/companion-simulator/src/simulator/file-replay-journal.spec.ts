// The replay journal on a real filesystem: a torn last line (a crash mid-append) is dropped, a damaged
// line before it is refused, and compaction keeps only what a later window could still accept.
import { appendFileSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

import { FileReplayJournal } from './file-replay-journal';

const SENDER = '6f1d2c3b-4a59-4e68-8f70-9a8b7c6d5e4f';
const entry = (counter: number, sentAt: number) => ({ sender: SENDER, counter, sentAt });

describe('the file replay journal', () => {
  let dir: string;
  beforeEach(() => (dir = mkdtempSync(join(tmpdir(), 'sim-replay-journal-'))));
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  it('loads what an earlier journal appended, dropping entries sealed before the horizon', async () => {
    const file = join(dir, 'nested', 'journal.jsonl');
    const first = new FileReplayJournal(file);
    expect(await first.load(0)).toEqual([]);
    await first.append(entry(0, 1_000), 0);
    await first.append(entry(1, 5_000), 0);
    expect(await new FileReplayJournal(file).load(2_000)).toEqual([entry(1, 5_000)]);
    expect(readFileSync(file, 'utf8')).toBe(`${JSON.stringify(entry(1, 5_000))}\n`);
  });

  it('drops a line torn by a crash before appending after it', async () => {
    const file = join(dir, 'journal.jsonl');
    writeFileSync(file, `${JSON.stringify(entry(0, 1_000))}\n{"sender":"6f1d2c3b-4a59`);
    const journal = new FileReplayJournal(file);
    expect(await journal.load(0)).toEqual([entry(0, 1_000)]);
    await journal.append(entry(1, 2_000), 0);
    expect(await new FileReplayJournal(file).load(0)).toEqual([entry(0, 1_000), entry(1, 2_000)]);
  });

  it('refuses a damaged line that is not the last (REPLAY_JOURNAL_CORRUPT)', async () => {
    const file = join(dir, 'journal.jsonl');
    writeFileSync(file, `{"sender":"x","counter":0,"sentAt":1}\n`);
    appendFileSync(file, `${JSON.stringify(entry(1, 2_000))}\n`);
    await expect(new FileReplayJournal(file).load(0)).rejects.toMatchObject({ code: 'REPLAY_JOURNAL_CORRUPT', message: expect.stringContaining('line 1') });
  });
});
