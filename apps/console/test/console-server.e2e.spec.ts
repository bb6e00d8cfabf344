/**
 * The console in server mode, as an operator runs it on a Postgres server: `trustmesh db migrate deploy`,
 * the console as its own process on DATABASE_URL, and `trustmesh console account` beside the running console
 * (a server database has no single-process lock). A password changed or an account deleted from the command
 * line ends that account's live sessions at once.
 */
import { spawnSync } from 'node:child_process';
import { join } from 'node:path';

import { createTestPostgresDatabase, type TestPostgresDatabase } from '@trustmesh/platform-database/testing';

import { ConsoleBrowser, ROOT, startConsoleProcess, type ConsoleChild } from './support/console-world';

function trustmesh(args: string[], databaseUrl: string, stdin = '') {
  const run = spawnSync(process.execPath, [join(ROOT, 'bin', 'trustmesh.js'), ...args], {
    cwd: ROOT,
    input: stdin,
    encoding: 'utf8',
    timeout: 120_000,
    env: { PATH: process.env['PATH'] ?? '', DATABASE_URL: databaseUrl },
  });
  return { code: run.status, stdout: run.stdout, stderr: run.stderr };
}

describe('console on a Postgres server, accounts managed beside it', () => {
  let database: TestPostgresDatabase;
  let consoleApp: ConsoleChild;

  beforeAll(async () => {
    database = await createTestPostgresDatabase('console-server');
    expect(trustmesh(['db', 'migrate', 'deploy'], database.url).code).toBe(0);
    consoleApp = await startConsoleProcess({ DATABASE_URL: database.url, CONSOLE_HTTP_PORT: '0', CONSOLE_OPERATOR_PORT: '0' });
  }, 240_000);

  afterAll(async () => {
    await consoleApp?.child.stop();
    await database?.drop();
  }, 60_000);

  it('signs in an account created while it runs; a password change and a deletion end its sessions', async () => {
    const { httpUrl, publicOrigin } = consoleApp.child.ready;
    expect(trustmesh(['console', 'account', 'create', '--username', 'grace'], database.url, 'grace passphrase one\n').code).toBe(0);
    const browser = new ConsoleBrowser(httpUrl, publicOrigin);
    expect((await browser.signIn('grace', 'grace passphrase one')).status).toBe(200);
    expect((await browser.send('GET', '/api/v1/session')).status).toBe(200);

    expect(trustmesh(['console', 'account', 'set-password', '--username', 'grace'], database.url, 'grace passphrase two\n').code).toBe(0);
    expect((await browser.send('GET', '/api/v1/session')).status).toBe(401);
    expect((await browser.signIn('grace', 'grace passphrase one')).status).toBe(401);
    expect((await browser.signIn('grace', 'grace passphrase two')).status).toBe(200);

    expect(trustmesh(['console', 'account', 'delete', '--username', 'grace'], database.url).code).toBe(0);
    expect((await browser.send('GET', '/api/v1/session')).status).toBe(401);
    expect((await browser.signIn('grace', 'grace passphrase two')).status).toBe(401);
  }, 120_000);
});
