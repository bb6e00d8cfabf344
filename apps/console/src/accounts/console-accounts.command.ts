/**
 * `trustmesh console account <create|list|set-password|delete>`: the operator's account management, run by
 * the CLI as this app's own entry point (console-accounts.main.ts; an app never imports another). It opens
 * the console's database as the console does (DATABASE_URL, else embedded PGlite under
 * `$TRUSTMESH_DATA_DIR/console`) with the same backbone and projection, appends the account's event, waits
 * for the read model, and exits.
 *
 * The password never comes from argv (shell history, process lists): it is read from stdin when stdin is
 * not a terminal (one line, e.g. `printf '%s\n' "$PW" | trustmesh console account create --username U`), else
 * prompted for twice on the terminal without echo.
 *
 * Exit status: 0 done, 1 refused (the name exists, no such account, a password too short...), 2 a usage
 * error or a configuration the console would refuse. Embedded PGlite is one process's database: stop the
 * console first (a server database has no such limit).
 */
import type { Readable, Writable } from 'node:stream';

import { ConfigError } from '@trustmesh/platform-config';
import { DatabaseError } from '@trustmesh/platform-database';
import { createPinoLogger } from '@trustmesh/platform-logging';

import { loadConsoleConfig, type ConsoleConfig } from '../config/console.config';
import { openConsoleInfrastructure, type ConsoleInfrastructure } from '../persistence/console-infrastructure';
import { PASSWORD_MAX_LENGTH } from './password.hashing';
import { ConsoleAccountsService } from './console-accounts.service';

export const EXIT = { ok: 0, failed: 1, usage: 2 } as const;

export interface AccountsIo {
  stdout(text: string): void;
  stderr(text: string): void;
  stdin: Readable & { isTTY?: boolean; setRawMode?: (raw: boolean) => unknown };
  /** Where the prompt is written (the terminal); default stderr. */
  prompt?: Writable;
}

const USAGE = `Usage:
  trustmesh console account create --username NAME
  trustmesh console account set-password --username NAME
  trustmesh console account delete --username NAME
  trustmesh console account list [--json]
      Manage the console's accounts in its database (DATABASE_URL, else embedded under
      TRUSTMESH_DATA_DIR/console; stop an embedded console first). The password is read from stdin when
      it is piped (one line), else prompted for without echo; never from an argument.`;

class UsageError extends Error {}

/** Bounded so a runaway pipe cannot fill memory: a password is at most 1024 characters (4 bytes each). */
const MAX_PASSWORD_INPUT_BYTES = PASSWORD_MAX_LENGTH * 4 + 2;

export async function runConsoleAccounts(argv: readonly string[], io: AccountsIo, env: Readonly<Record<string, string | undefined>> = process.env): Promise<number> {
  let parsed: { command: string; username: string | null; json: boolean };
  try {
    parsed = parseArgs(argv);
  } catch (error) {
    if (!(error instanceof UsageError)) throw error;
    io.stderr(`trustmesh console account: ${error.message}\n\n${USAGE}\n`);
    return EXIT.usage;
  }
  let config: ConsoleConfig;
  try {
    config = loadConsoleConfig(env);
  } catch (error) {
    if (!(error instanceof ConfigError)) throw error;
    io.stderr(`trustmesh console account: ${error.message}\n`);
    return EXIT.usage;
  }

  let password: string | undefined;
  if (parsed.command === 'create' || parsed.command === 'set-password') {
    try {
      password = io.stdin.isTTY ? await promptTwice(io) : await readPasswordLine(io.stdin);
    } catch (error) {
      io.stderr(`trustmesh console account: ${error instanceof Error ? error.message : 'could not read the password'}\n`);
      return EXIT.failed;
    }
  }

  // Only warnings reach the terminal: the operator wants the answer, not the backbone's start-up lines.
  const logger = createPinoLogger({ service: 'console-accounts', level: 'warn', write: (line) => io.stderr(`${line}\n`) });
  let infrastructure: ConsoleInfrastructure;
  try {
    infrastructure = await openConsoleInfrastructure(config, logger);
  } catch (error) {
    if (!(error instanceof DatabaseError)) throw error;
    // The driver's own text may name a server URL with its password: only the code and what to do.
    const advice =
      error.code === 'DATABASE_IN_USE'
        ? 'the console (or another command) has its embedded database open: stop it and run this again'
        : error.code === 'DATABASE_UNREACHABLE'
          ? 'the database server does not answer: check DATABASE_URL and that the server runs'
          : 'the database could not be opened';
    io.stderr(`trustmesh console account: ${error.code}: ${advice}\n`);
    return EXIT.failed;
  }
  try {
    const accounts = new ConsoleAccountsService({ store: infrastructure.store, prisma: infrastructure.prisma, projection: infrastructure.projection });
    if (parsed.command === 'list') {
      const listed = await accounts.list();
      if (parsed.json) io.stdout(`${JSON.stringify(listed)}\n`);
      else if (listed.length === 0) io.stdout('no accounts yet: trustmesh console account create --username NAME\n');
      else for (const account of listed) io.stdout(`${account.username}\t${account.accountId}\tcreated ${account.createdAt}\n`);
      return EXIT.ok;
    }
    const username = parsed.username as string;
    const result =
      parsed.command === 'create' ? await accounts.create(username, password) : parsed.command === 'set-password' ? await accounts.setPassword(username, password) : await accounts.delete(username);
    if (!result.ok) {
      io.stderr(`trustmesh console account ${parsed.command}: ${result.error.code}: ${result.error.message}\n`);
      return EXIT.failed;
    }
    const done = { create: 'created', 'set-password': 'password changed (its sessions ended) for', delete: 'deleted (its sessions ended)' }[parsed.command as 'create' | 'set-password' | 'delete'];
    io.stdout(`${done} account ${result.value.username} (${result.value.accountId})\n`);
    return EXIT.ok;
  } finally {
    await infrastructure.close();
  }
}

function parseArgs(argv: readonly string[]): { command: string; username: string | null; json: boolean } {
  const [group, command, ...rest] = argv;
  if (group !== 'account' || !command || !['create', 'list', 'set-password', 'delete'].includes(command)) throw new UsageError('expected: account <create|list|set-password|delete>');
  let username: string | null = null;
  let json = false;
  for (let index = 0; index < rest.length; index += 1) {
    const flag = rest[index];
    if (flag === '--username' && command !== 'list') {
      const value = rest[index + 1];
      if (value === undefined || value.startsWith('--')) throw new UsageError('--username needs a value');
      username = value;
      index += 1;
    } else if (flag === '--json' && command === 'list') json = true;
    else if (flag === '--password' || flag?.startsWith('--password=')) throw new UsageError('a password is never an argument: pipe it on stdin or type it at the prompt');
    else throw new UsageError('unknown argument');
  }
  if (command !== 'list' && username === null) throw new UsageError(`${command} needs --username NAME`);
  return { command, username, json };
}

/** The first line of stdin (without its line ending), at most MAX_PASSWORD_INPUT_BYTES. */
async function readPasswordLine(stdin: Readable): Promise<string> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of stdin) {
    const buffer = Buffer.isBuffer(chunk) ? chunk : Buffer.from(String(chunk));
    size += buffer.length;
    chunks.push(buffer);
    if (buffer.includes(0x0a)) break;
    if (size > MAX_PASSWORD_INPUT_BYTES) throw new Error(`the password on stdin is longer than ${PASSWORD_MAX_LENGTH} characters`);
  }
  const text = Buffer.concat(chunks).toString('utf8');
  const line = text.split('\n')[0]?.replace(/\r$/, '') ?? '';
  if (Buffer.byteLength(line) > MAX_PASSWORD_INPUT_BYTES) throw new Error(`the password on stdin is longer than ${PASSWORD_MAX_LENGTH} characters`);
  if (line === '') throw new Error('no password on stdin: pipe one line holding it');
  return line;
}

async function promptTwice(io: AccountsIo): Promise<string> {
  const first = await promptHidden(io, 'Password: ');
  const second = await promptHidden(io, 'Password again: ');
  if (first !== second) throw new Error('the two passwords differ; run the command again');
  return first;
}

/** Reads one line from the terminal in raw mode, echoing nothing; Ctrl-C aborts. */
function promptHidden(io: AccountsIo, label: string): Promise<string> {
  const out = io.prompt ?? process.stderr;
  out.write(label);
  const stdin = io.stdin;
  return new Promise((resolvePromise, reject) => {
    let typed = '';
    stdin.setRawMode?.(true);
    stdin.resume();
    const finish = (error: Error | null) => {
      stdin.off('data', onData);
      stdin.setRawMode?.(false);
      stdin.pause();
      out.write('\n');
      if (error) reject(error);
      else resolvePromise(typed);
    };
    const onData = (chunk: Buffer | string) => {
      for (const character of String(chunk)) {
        if (character === '\r' || character === '\n') return finish(null);
        if (character === '\u0003') return finish(new Error('aborted'));
        if (character === '\u007f' || character === '\b') typed = [...typed].slice(0, -1).join('');
        else if ([...typed].length > PASSWORD_MAX_LENGTH) return finish(new Error(`the password is longer than ${PASSWORD_MAX_LENGTH} characters`));
        else typed += character;
      }
    };
    stdin.on('data', onData);
  });
}
