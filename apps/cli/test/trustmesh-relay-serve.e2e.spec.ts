/**
 * Distributed mode from one checkout, as apps/relay-gateway/README.md documents it: `trustmesh db migrate
 * deploy` on a Postgres database, then two `trustmesh relay serve` processes at once with their own replica
 * ids and ports (a second `nx serve` would wait for the first). Both become ready, a workspace created
 * through one replica's RelayControl is known to the other's, and SIGTERM stops each cleanly (exit 0).
 */
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { createHash, randomBytes, randomUUID } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { request as httpsRequest } from 'node:https';
import { join } from 'node:path';

import { SecretText } from '@trustmesh/platform-config';
import { createTempDataDir, createTestPostgresDatabase, type TestPostgresDatabase } from '@trustmesh/platform-database/testing';
import { waitUntil } from '@trustmesh/platform-testing';

import { RelayControl } from '../src/relay-control.client';

const ROOT = join(__dirname, '..', '..', '..');
const BIN = join(ROOT, 'bin', 'trustmesh.js');

interface Replica {
  name: string;
  child: ChildProcess;
  stdout: string;
  stderr: string;
  exited: Promise<number | null>;
}

function readyz(url: string, ca: Buffer): Promise<number> {
  const target = new URL('/readyz', url);
  return new Promise((resolve) => {
    const request = httpsRequest({ host: target.hostname, port: target.port, path: target.pathname, ca, servername: 'localhost' }, (response) => {
      response.resume();
      resolve(response.statusCode ?? 0);
    });
    request.on('error', () => resolve(0));
    request.end();
  });
}

function listening(replica: Replica): { http: string; grpc: string } | null {
  for (const line of replica.stdout.split('\n')) {
    if (!line.startsWith('{')) continue;
    const parsed = JSON.parse(line) as Record<string, unknown>;
    if (parsed['msg'] === 'relay gateway listening') return { http: String(parsed['http']), grpc: String(parsed['grpc']) };
  }
  return null;
}

describe('trustmesh relay serve: two replicas from one checkout (Postgres, local bus)', () => {
  let database: TestPostgresDatabase;
  let tlsDir: { dataDir: string; remove(): Promise<void> };
  const replicas: Replica[] = [];

  beforeAll(async () => {
    database = await createTestPostgresDatabase('cli-relay-serve');
    tlsDir = await createTempDataDir('cli-relay-serve-tls');
  }, 60_000);

  afterAll(async () => {
    for (const replica of replicas) {
      if (replica.child.exitCode === null && replica.child.signalCode === null) replica.child.kill('SIGKILL');
      await replica.exited;
    }
    await database?.drop();
    await tlsDir?.remove();
  }, 60_000);

  it('refuses arguments: the configuration is the environment', () => {
    const run = spawnSync(process.execPath, [BIN, 'relay', 'serve', '--port', '1'], { cwd: ROOT, env: { PATH: process.env['PATH'] ?? '' }, encoding: 'utf8' });
    expect(run.status).toBe(2);
    expect(run.stderr).toContain('relay serve: takes no arguments');
  });

  it('runs two replicas at once after db migrate deploy, each ready, sharing one control plane', async () => {
    const migrate = spawnSync(process.execPath, [BIN, 'db', 'migrate', 'deploy'], { cwd: ROOT, env: { PATH: process.env['PATH'] ?? '', DATABASE_URL: database.url }, encoding: 'utf8', timeout: 120_000 });
    expect(migrate.status).toBe(0);

    const credential = `tmsc_${randomBytes(32).toString('base64url')}`;
    const certDir = join(tlsDir.dataDir, 'tls');
    const start = (name: string): Replica => {
      const child = spawn(process.execPath, [BIN, 'relay', 'serve'], {
        cwd: ROOT,
        env: {
          PATH: process.env['PATH'] ?? '',
          DATABASE_URL: database.url,
          RELAY_PUBLIC_BASE_URL: 'https://relay.trustmesh.test',
          RELAY_SERVICE_CREDENTIAL_SHA256: createHash('sha256').update(credential).digest('hex'),
          RELAY_TLS: 'self-signed',
          RELAY_TLS_SELF_SIGNED_DIR: certDir,
          RELAY_HTTP_HOST: '127.0.0.1',
          RELAY_HTTP_PORT: '0',
          RELAY_GRPC_HOST: '127.0.0.1',
          RELAY_GRPC_PORT: '0',
          RELAY_REPLICA_ID: name,
          // Two replicas on one host: each its own operator port (server mode's default is 9464).
          RELAY_OPERATOR_PORT: '0',
        },
        stdio: ['ignore', 'pipe', 'pipe'],
      });
      const replica: Replica = { name, child, stdout: '', stderr: '', exited: new Promise((resolve) => child.once('exit', (code) => resolve(code))) };
      child.stdout?.on('data', (chunk: Buffer) => (replica.stdout += chunk.toString('utf8')));
      child.stderr?.on('data', (chunk: Buffer) => (replica.stderr += chunk.toString('utf8')));
      replicas.push(replica);
      return replica;
    };
    // The first writes the development certificate; the second reuses it.
    const a = start('replica-a');
    await waitUntil(() => listening(a) !== null || a.child.exitCode !== null, { timeoutMs: 180_000, what: 'replica-a to listen' });
    const b = start('replica-b');
    await waitUntil(() => listening(b) !== null || b.child.exitCode !== null, { timeoutMs: 180_000, what: 'replica-b to listen' });
    const [endpointsA, endpointsB] = [listening(a), listening(b)];
    expect(endpointsA).not.toBeNull();
    expect(endpointsB).not.toBeNull();
    expect(endpointsA!.http).not.toBe(endpointsB!.http);

    const ca = readFileSync(join(certDir, 'cert.pem'));
    await waitUntil(async () => (await readyz(endpointsA!.http, ca)) === 200 && (await readyz(endpointsB!.http, ca)) === 200, { timeoutMs: 60_000, what: 'both replicas ready' });

    // One control plane: what replica A creates, replica B knows.
    const controlA = new RelayControl({ address: endpointsA!.grpc, credential: new SecretText(credential), tls: { ca } });
    const controlB = new RelayControl({ address: endpointsB!.grpc, credential: new SecretText(credential), tls: { ca } });
    try {
      const workspaceId = await controlA.createWorkspace('serve e2e', 'u');
      await waitUntil(async () => (await controlB.hasDevice(workspaceId, randomUUID())) === false, { timeoutMs: 60_000, what: 'replica-b to know the workspace' });
    } finally {
      controlA.close();
      controlB.close();
    }

    for (const replica of [b, a]) {
      replica.child.kill('SIGTERM');
      expect(await replica.exited).toBe(0);
    }
    expect(a.stdout).toContain('"replica":"replica-a"');
    expect(b.stdout).toContain('"replica":"replica-b"');
  }, 420_000);
});
