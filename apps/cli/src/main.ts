/**
 * `trustmesh`: the project's command line.
 *
 *   trustmesh relay validate --wire <1.0|1.1|1.2|control|browser-session> [--direction D] [--strict] [--json] FILE...
 *   trustmesh relay conformance [--json] DIR...
 *   trustmesh db migrate <deploy|status>
 *
 * Exit status: 0 success, 1 a frame is invalid or a conformance case mismatched, 2 a usage error or
 * an unreadable file.
 */
import { runDbMigrate } from './db-migrate.command';
import { runRelayConformance } from './relay-conformance.command';
import { runRelayValidate } from './relay-validate.command';
import { EXIT, UsageError, type CommandIo } from './command-io';

const USAGE = `Usage:
  trustmesh relay validate --wire <1.0|1.1|1.2|control|browser-session>
                           [--direction <browser-to-relay|relay-to-browser|companion-to-relay|relay-to-companion>]
                           [--strict] [--max-bytes N] [--json] FILE...
      Validate JSON frames (one per FILE; "-" reads one from stdin).
      --strict also checks method params, the deferred rules and user-input form rules.
  trustmesh relay conformance [--json] DIR...
      Check the library against fixture folders in the manifest format (a folder with a
      manifest.json, or a folder of such folders).
  trustmesh db migrate <deploy|status>
      Apply (deploy) or list (status) the platform's database migrations: the explicit step of
      distributed mode. The database is DATABASE_URL, else embedded PGlite under TRUSTMESH_DATA_DIR.
`;

export async function main(argv: readonly string[], io: CommandIo): Promise<number> {
  const [group, command, ...rest] = argv;
  try {
    if (group === undefined || group === '--help' || group === '-h' || group === 'help') {
      io.stdout(USAGE);
      return EXIT.ok;
    }
    if (group === 'relay' && command === 'validate') return await runRelayValidate(rest, io);
    if (group === 'relay' && command === 'conformance') return await runRelayConformance(rest, io);
    if (group === 'db' && command === 'migrate') return await runDbMigrate(rest, io);
    throw new UsageError(`unknown command: ${[group, command].filter(Boolean).join(' ')}`);
  } catch (error) {
    if (error instanceof UsageError) {
      io.stderr(`trustmesh: ${error.message}\n\n${USAGE}`);
      return EXIT.usage;
    }
    throw error;
  }
}

/** Runs the command line against this process's arguments and stdio, setting the exit code. */
export function runFromProcess(): Promise<void> {
  return main(process.argv.slice(2), {
    stdout: (text) => process.stdout.write(text),
    stderr: (text) => process.stderr.write(text),
    stdin: process.stdin,
  }).then(
    (code) => {
      process.exitCode = code;
    },
    (error: unknown) => {
      // Report without a stack: an internal failure is a bug to file, not something to debug from here.
      process.stderr.write(`trustmesh: internal error: ${error instanceof Error ? error.message : String(error)}\n`);
      process.exitCode = 70;
    },
  );
}

if (require.main === module) void runFromProcess();
