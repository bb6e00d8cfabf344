/**
 * The process entry of the migrations command (migrations.command.ts says what it does), kept apart from
 * the library: a bundle shares one `module` among everything it inlines, so a `require.main === module`
 * check inside the library would also run this in every bundled app.
 */
import { runMigrationsCommand } from './migrations.command';

if (require.main === module) {
  void runMigrationsCommand(process.argv.slice(2), process.env, {
    stdout: (text) => process.stdout.write(text),
    stderr: (text) => process.stderr.write(text),
  }).then(
    (code) => {
      process.exitCode = code;
    },
    (error: unknown) => {
      process.stderr.write(`migrations: internal error: ${error instanceof Error ? error.message : String(error)}\n`);
      process.exitCode = 70;
    },
  );
}
