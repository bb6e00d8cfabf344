/**
 * `trustmesh relay conformance DIR...`: checks the relay protocol library against fixture folders in
 * the manifest format of BEHAVIOUR.md §14. A DIR with a `manifest.json` is one fixture set; a DIR
 * without one is searched for fixture sets below it. Every mismatch is printed with its case id,
 * expected and actual value. Exit 1 on any mismatch, 2 on an unreadable folder or manifest.
 */
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative, resolve, sep } from 'node:path';
import { parseArgs } from 'node:util';

import { ManifestError, runConformance, type ConformanceReport } from '@trustmesh/relay-protocol';

import { EXIT, UsageError, type CommandIo } from './command-io';

const MANIFEST = 'manifest.json';
/** Fixture folders are shallow; the bound keeps a mistaken DIR (like `/`) from walking a disk. */
const MAX_SEARCH_DEPTH = 4;

export async function runRelayConformance(args: readonly string[], io: CommandIo): Promise<number> {
  let parsed;
  try {
    parsed = parseArgs({ args: [...args], allowPositionals: true, strict: true, options: { json: { type: 'boolean', default: false } } });
  } catch (error) {
    throw new UsageError(error instanceof Error ? error.message : String(error));
  }
  if (parsed.positionals.length === 0) throw new UsageError('give at least one fixture folder');

  const reports: Array<ConformanceReport & { folder: string }> = [];
  let broken = false;
  for (const dir of parsed.positionals) {
    const folders = fixtureFolders(resolve(dir));
    if (folders.length === 0) {
      io.stderr(`trustmesh: no ${MANIFEST} in or below ${dir}\n`);
      broken = true;
      continue;
    }
    for (const folder of folders) {
      const label = relative(process.cwd(), folder) || '.';
      try {
        const manifest = JSON.parse(readFileSync(join(folder, MANIFEST), 'utf8')) as unknown;
        const report = runConformance(manifest, (fixture) => readFixture(folder, fixture));
        reports.push({ ...report, folder: label });
      } catch (error) {
        const reason = error instanceof ManifestError ? error.message : error instanceof SyntaxError ? 'the manifest is not valid JSON' : 'the manifest cannot be read';
        io.stderr(`trustmesh: ${label}: ${reason}\n`);
        broken = true;
      }
    }
  }

  if (parsed.values.json) {
    io.stdout(`${JSON.stringify(reports.map(({ folder, subject, cases, mismatches }) => ({ folder, subject, cases: cases.length, mismatches })), null, 2)}\n`);
  } else {
    for (const report of reports) {
      io.stdout(`${report.subject} (${report.folder}): ${report.cases.length} cases, ${report.mismatches.length} mismatches\n`);
      for (const mismatch of report.mismatches) {
        io.stdout(`  MISMATCH ${mismatch.id}: expected ${mismatch.expected}, actual ${mismatch.actual}\n`);
      }
    }
  }
  if (broken) return EXIT.usage;
  return reports.some((report) => report.mismatches.length > 0) ? EXIT.failed : EXIT.ok;
}

function fixtureFolders(dir: string, depth = 0): string[] {
  if (!isDirectory(dir)) return [];
  if (isFile(join(dir, MANIFEST))) return [dir];
  if (depth >= MAX_SEARCH_DEPTH) return [];
  return readdirSync(dir, { withFileTypes: true })
    .filter((entry) => entry.isDirectory())
    .map((entry) => entry.name)
    .sort()
    .flatMap((name) => fixtureFolders(join(dir, name), depth + 1));
}

/** Fixture names come from the manifest, so they must stay inside its folder. */
function readFixture(folder: string, fixture: string): string {
  const path = resolve(folder, fixture);
  if (!path.startsWith(folder + sep)) throw new Error(`fixture ${fixture} is outside its folder`);
  return readFileSync(path, 'utf8');
}

function isDirectory(path: string): boolean {
  try {
    return statSync(path).isDirectory();
  } catch {
    return false;
  }
}

function isFile(path: string): boolean {
  try {
    return statSync(path).isFile();
  } catch {
    return false;
  }
}
