/**
 * `trustmesh console account` as an operator runs it: the real bin against the console's embedded database
 * (`$TRUSTMESH_DATA_DIR/console`), the password piped on stdin and never accepted as an argument.
 */
import { spawnSync } from 'node:child_process';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { mkdtemp, rename, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

import { createSeededDataDir } from '@trustmesh/platform-database/testing';

const bin = join(__dirname, '..', '..', '..', 'bin', 'trustmesh.js');

function trustmesh(args: string[], dataDir: string, stdin = '') {
  const run = spawnSync(process.execPath, [bin, 'console', 'account', ...args], {
    input: stdin,
    encoding: 'utf8',
    timeout: 120_000,
    env: { PATH: process.env['PATH'] ?? '', TRUSTMESH_DATA_DIR: dataDir },
  });
  return { code: run.status, stdout: run.stdout, stderr: run.stderr };
}

/** Every file under `dir`, as bytes, for a check that a secret is stored nowhere in plain text. */
function everyFile(dir: string): Buffer[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    return statSync(path).isDirectory() ? everyFile(path) : [readFileSync(path)];
  });
}

describe('trustmesh console account', () => {
  let dataDir: string;

  beforeAll(async () => {
    dataDir = await mkdtemp(join(tmpdir(), 'trustmesh-cli-console-'));
    const seeded = await createSeededDataDir('cli-console');
    await rename(seeded.dataDir, join(dataDir, 'console'));
  }, 60_000);

  afterAll(async () => {
    await rm(dataDir, { recursive: true, force: true });
  });

  it('creates, lists, re-passwords and deletes accounts, with exit codes 0, 1 and 2', () => {
    const password = 'a piped passphrase 4d9c';
    const created = trustmesh(['create', '--username', 'Operator.One'], dataDir, `${password}\n`);
    expect(created).toMatchObject({ code: 0, stdout: expect.stringMatching(/^created account operator\.one \([0-9a-f-]{36}\)\n$/) });
    expect(created.stdout + created.stderr).not.toContain(password);

    const duplicate = trustmesh(['create', '--username', 'operator.one'], dataDir, 'another passphrase\n');
    expect(duplicate.code).toBe(1);
    expect(duplicate.stderr).toContain('CONSOLE_ACCOUNT_EXISTS');

    const short = trustmesh(['create', '--username', 'second'], dataDir, 'short\n');
    expect(short.code).toBe(1);
    expect(short.stderr).toContain('CONSOLE_PASSWORD_INVALID');
    expect(short.stderr).not.toContain('short\n');

    expect(trustmesh(['create', '--username', 'second'], dataDir, 'second passphrase\n').code).toBe(0);
    const listed = trustmesh(['list', '--json'], dataDir);
    expect(listed.code).toBe(0);
    const accounts = JSON.parse(listed.stdout) as { username: string; accountId: string }[];
    expect(accounts.map((account) => account.username)).toEqual(['operator.one', 'second']);

    const changed = trustmesh(['set-password', '--username', 'second'], dataDir, 'second new passphrase\n');
    expect(changed.code).toBe(0);
    expect(changed.stdout).toContain('password changed');
    expect(trustmesh(['delete', '--username', 'second'], dataDir).code).toBe(0);
    expect(trustmesh(['delete', '--username', 'second'], dataDir).code).toBe(1);
    expect(JSON.parse(trustmesh(['list', '--json'], dataDir).stdout)).toEqual([expect.objectContaining({ username: 'operator.one' })]);

    // Only scrypt hashes are stored: no file of the database holds a password.
    for (const file of everyFile(join(dataDir, 'console'))) {
      for (const secret of [password, 'second passphrase', 'second new passphrase']) expect(file.includes(Buffer.from(secret))).toBe(false);
    }
  }, 180_000);

  it('says to stop the console when its embedded database is open in another process', async () => {
    const { spawn } = await import('node:child_process');
    const running = spawn(process.execPath, ['--import', 'tsx', join(__dirname, '..', '..', 'console', 'src', 'main.ts')], {
      cwd: join(__dirname, '..', '..', '..'),
      env: { PATH: process.env['PATH'] ?? '', TRUSTMESH_DATA_DIR: dataDir, CONSOLE_HTTP_PORT: '0', TSX_TSCONFIG_PATH: join(__dirname, '..', '..', '..', 'tsconfig.base.json') },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let output = '';
    running.stdout?.on('data', (chunk: Buffer) => (output += chunk.toString('utf8')));
    const exited = new Promise<number | null>((resolve) => running.once('exit', (code) => resolve(code)));
    try {
      const deadline = Date.now() + 120_000;
      while (!output.includes('console listening') && running.exitCode === null && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 200));
      expect(output).toContain('console listening');
      const refused = trustmesh(['list'], dataDir);
      expect(refused.code).toBe(1);
      expect(refused.stderr).toContain('DATABASE_IN_USE: the console (or another command) has its embedded database open: stop it and run this again');
    } finally {
      running.kill('SIGTERM');
      expect(await exited).toBe(0);
    }
  }, 180_000);

  it('never takes a password from argv, and says how to call it', () => {
    const argv = trustmesh(['create', '--username', 'third', '--password', 'argv passphrase'], dataDir);
    expect(argv.code).toBe(2);
    expect(argv.stderr).toContain('a password is never an argument');
    expect(trustmesh(['create'], dataDir).code).toBe(2);
    expect(trustmesh(['rename', '--username', 'x'], dataDir).code).toBe(2);
    const empty = trustmesh(['create', '--username', 'third'], dataDir, '');
    expect(empty.code).toBe(1);
    expect(empty.stderr).toContain('no password on stdin');
  }, 60_000);
});
