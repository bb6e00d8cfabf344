/**
 * A second process opening an embedded data directory, for the specs of the data directory lock. It opens
 * DATA_DIR and reports on stdout, one JSON object per line: `{"event":"opened","pid":…,"rssMiB":…}` (its
 * resident memory once open, the embedded database's thread included) or
 * `{"event":"refused","code":…}`; an opened database is held until stdin ends, then closed (`closed`).
 */
import { openDatabase } from '../database';
import { DatabaseError } from '../database.errors';

function report(event: Record<string, unknown>): void {
  process.stdout.write(`${JSON.stringify(event)}\n`);
}

async function main(): Promise<void> {
  const dataDir = process.env['DATA_DIR'];
  if (!dataDir) throw new Error('DATA_DIR is required');
  let database;
  try {
    database = await openDatabase({ mode: 'embedded', dataDir });
  } catch (error) {
    report({ event: 'refused', code: error instanceof DatabaseError ? error.code : 'UNEXPECTED' });
    return;
  }
  await database.withConnection((sql) => sql.query('SELECT 1'));
  report({ event: 'opened', pid: process.pid, rssMiB: Math.round(process.memoryUsage.rss() / 2 ** 20) });
  process.stdin.resume();
  await new Promise((resolve) => process.stdin.once('end', resolve));
  await database.close();
  report({ event: 'closed' });
}

main().catch((error: unknown) => {
  report({ event: 'failed', error: String(error) });
  process.exitCode = 1;
});
