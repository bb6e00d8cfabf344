/**
 * `trustmesh db migrate` as an operator runs it before starting services in distributed mode: the real
 * bin, against a fresh database on the Postgres server.
 */
import { spawnSync } from 'node:child_process';
import { join } from 'node:path';

import { createTestPostgresDatabase, type TestPostgresDatabase } from '@trustmesh/platform-database/testing';

const bin = join(__dirname, '..', '..', '..', 'bin', 'trustmesh.js');

function trustmesh(args: string[], databaseUrl: string) {
  const run = spawnSync(process.execPath, [bin, ...args], { encoding: 'utf8', timeout: 120_000, env: { ...process.env, DATABASE_URL: databaseUrl } });
  return { code: run.status, stdout: run.stdout, stderr: run.stderr };
}

describe('trustmesh db migrate', () => {
  let database: TestPostgresDatabase;
  beforeAll(async () => {
    database = await createTestPostgresDatabase('cli-migrate');
  });
  afterAll(async () => {
    await database?.drop();
  });

  it('reports pending migrations, deploys them once, then reports none', () => {
    const before = trustmesh(['db', 'migrate', 'status'], database.url);
    expect(before.code).toBe(1);
    expect(before.stdout).toContain('pending');

    const deploy = trustmesh(['db', 'migrate', 'deploy'], database.url);
    expect(deploy.code).toBe(0);
    for (const library of ['platform-event-store', 'platform-bus', 'platform-projections', 'relay-gateway', 'shield-analyzer', 'card-registry', 'console']) expect(deploy.stdout).toContain(`applied ${library}/`);

    const again = trustmesh(['db', 'migrate', 'deploy'], database.url);
    expect(again.code).toBe(0);
    expect(again.stdout).not.toContain('applied platform');
    expect(trustmesh(['db', 'migrate', 'status'], database.url).code).toBe(0);
  }, 180_000);

  it('refuses a bad database URL without echoing it, and unknown subcommands', () => {
    const bad = trustmesh(['db', 'migrate', 'status'], 'mysql://root:hunter2@db/x');
    expect(bad.code).toBe(2);
    expect(bad.stderr).toContain('DATABASE_URL');
    expect(bad.stderr + bad.stdout).not.toContain('hunter2');
    expect(trustmesh(['db', 'migrate', 'sideways'], database.url).code).toBe(2);
  }, 60_000);
});
