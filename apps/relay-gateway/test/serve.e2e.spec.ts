/**
 * `nx serve relay-gateway`'s command as a real process: a bad configuration stops it before it serves,
 * naming the variable; a good one serves until SIGTERM and then exits cleanly. In server mode (Postgres) it
 * refuses plaintext listeners and an empty credential digest list, and serves every response with the
 * security headers.
 */
import { spawn } from 'node:child_process';
import { createHash, randomBytes } from 'node:crypto';
import { readFileSync, writeFileSync } from 'node:fs';
import { request } from 'node:https';
import { createServer, type Server, type Socket } from 'node:net';
import { join } from 'node:path';

import * as grpc from '@grpc/grpc-js';
import { serviceInfoV1GrpcJs } from '@trustmesh/contracts';
import { LOCAL_BUS_MIGRATIONS } from '@trustmesh/platform-bus';
import { deployMigrations } from '@trustmesh/platform-database';
import { createTempDataDir, createTestPostgresDatabase, type TestPostgresDatabase } from '@trustmesh/platform-database/testing';
import { EVENT_STORE_MIGRATIONS } from '@trustmesh/platform-event-store';
import { PROJECTION_MIGRATIONS } from '@trustmesh/platform-projections';
import { waitUntil } from '@trustmesh/platform-testing';

import { RELAY_GATEWAY_MIGRATIONS } from '../src/persistence/relay-gateway.migrations';

const ROOT = join(__dirname, '..', '..', '..');

function serve(env: Record<string, string>) {
  const child = spawn(process.execPath, ['--import', 'tsx', 'apps/relay-gateway/src/main.ts'], {
    cwd: ROOT,
    env: { PATH: process.env['PATH'] ?? '', TSX_TSCONFIG_PATH: 'tsconfig.base.json', RELAY_HTTP_PORT: '0', RELAY_GRPC_PORT: '0', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const output = { stdout: '', stderr: '' };
  child.stdout.on('data', (chunk: Buffer) => (output.stdout += chunk.toString('utf8')));
  child.stderr.on('data', (chunk: Buffer) => (output.stderr += chunk.toString('utf8')));
  const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
  return { child, output, exited };
}

describe('relay-gateway process', () => {
  it('refuses a bad configuration with exit code 78 and the variable named', async () => {
    const run = serve({ RELAY_HTTP_PORT: 'eighty', RELAY_TLS: 'sometimes', RELAY_MAX_PENDING_PER_SOURCE: 'many' });
    expect(await run.exited).toBe(78);
    expect(run.output.stderr).toContain('RELAY_HTTP_PORT');
    expect(run.output.stderr).toContain('RELAY_TLS');
    // The data plane's variables are validated with the rest, before anything starts.
    expect(run.output.stderr).toContain('RELAY_MAX_PENDING_PER_SOURCE');
  });

  it('names a bad data plane variable on its own too (exit 78), rather than failing while modules are built', async () => {
    const dataDir = await createTempDataDir('relay-gateway-serve-dp');
    try {
      const run = serve({ TRUSTMESH_DATA_DIR: dataDir.dataDir, RELAY_BROWSER_SESSION_MAX_SECONDS: '0' });
      expect(await run.exited).toBe(78);
      expect(run.output.stderr).toContain('RELAY_BROWSER_SESSION_MAX_SECONDS');
    } finally {
      await dataDir.remove();
    }
  });

  it('serves until SIGTERM, then shuts down cleanly', async () => {
    const dataDir = await createTempDataDir('relay-gateway-serve');
    try {
      const run = serve({ TRUSTMESH_DATA_DIR: dataDir.dataDir });
      try {
        // The credential line is the last thing a starting gateway prints, possibly in a later chunk than
        // the listening line: wait for it rather than read it right after the first.
        await waitUntil(() => /development service credential for gRPC \(this run only; never stored\): tmsc_/.test(run.output.stdout), {
          timeoutMs: 60_000,
          what: 'the gateway to listen and print its development credential',
        });
        expect(run.output.stdout).toContain('"msg":"relay gateway listening"');
        run.child.kill('SIGTERM');
        expect(await run.exited).toBe(0);
        expect(run.output.stdout).toContain('"msg":"relay gateway stopped"');
      } finally {
        if (run.child.exitCode === null && run.child.signalCode === null) run.child.kill('SIGKILL');
      }
    } finally {
      await dataDir.remove();
    }
  });
});

describe('relay-gateway process in server mode (Postgres, migrations deployed)', () => {
  let database: TestPostgresDatabase;
  const credential = `tmsc_${randomBytes(32).toString('base64url')}`;
  const serverEnv = () => ({
    DATABASE_URL: database.url,
    RELAY_PUBLIC_BASE_URL: 'https://relay.trustmesh.test',
    RELAY_HTTP_HOST: '127.0.0.1',
    RELAY_GRPC_HOST: '127.0.0.1',
    RELAY_OPERATOR_PORT: '0',
  });

  beforeAll(async () => {
    database = await createTestPostgresDatabase('relay-gateway-serve');
    await deployMigrations({ mode: 'server', url: database.url }, [EVENT_STORE_MIGRATIONS, LOCAL_BUS_MIGRATIONS, PROJECTION_MIGRATIONS, RELAY_GATEWAY_MIGRATIONS]);
  }, 120_000);

  afterAll(async () => {
    await database?.drop();
  });

  it('refuses plaintext listeners and an empty credential digest list, naming both, and never mints a credential', async () => {
    const run = serve({ ...serverEnv(), RELAY_SERVICE_CREDENTIAL_SHA256: ',' });
    try {
      expect(await run.exited).toBe(78);
    } finally {
      if (run.child.exitCode === null && run.child.signalCode === null) run.child.kill('SIGKILL');
    }
    expect(run.output.stderr).toContain('RELAY_TLS');
    expect(run.output.stderr).toContain('RELAY_SERVICE_CREDENTIAL_SHA256');
    expect(run.output.stdout + run.output.stderr).not.toContain('tmsc_');
  });

  it('refuses an empty digest file the same way', async () => {
    const dir = await createTempDataDir('relay-gateway-serve-digests');
    try {
      const file = join(dir.dataDir, 'digests.txt');
      writeFileSync(file, '# every credential was rotated out\n');
      const run = serve({ ...serverEnv(), RELAY_TLS: 'terminated-by-proxy', RELAY_SERVICE_CREDENTIAL_SHA256_FILE: file });
      expect(await run.exited).toBe(78);
      expect(run.output.stderr).toContain('RELAY_SERVICE_CREDENTIAL_SHA256_FILE');
      expect(run.output.stdout + run.output.stderr).not.toContain('tmsc_');
    } finally {
      await dir.remove();
    }
  });

  it('serves HTTPS and gRPC over TLS only, with nosniff and HSTS on every response and no public /metrics', async () => {
    const dir = await createTempDataDir('relay-gateway-serve-tls');
    const run = serve({
      ...serverEnv(),
      RELAY_TLS: 'self-signed',
      RELAY_TLS_SELF_SIGNED_DIR: dir.dataDir,
      RELAY_SERVICE_CREDENTIAL_SHA256: createHash('sha256').update(credential).digest('hex'),
      LOG_LEVEL: 'info',
    });
    try {
      await waitUntil(() => run.output.stdout.includes('"msg":"relay gateway listening"') || run.child.exitCode !== null, {
        timeoutMs: 90_000,
        what: 'the gateway to listen',
      });
      const listening = JSON.parse(run.output.stdout.split('\n').find((line) => line.includes('"msg":"relay gateway listening"')) ?? '{}') as {
        http: string;
        grpc: string;
        grpcTls: boolean;
        operator: string;
      };
      expect(listening.grpcTls).toBe(true);
      const ca = readFileSync(join(dir.dataDir, 'cert.pem'));
      const redeem = await httpsRequest(`${listening.http}/v1/device-enrollments/redeem`, ca, 'POST', 'not json');
      expect(redeem.status).toBe(415);
      expect(redeem.headers['x-content-type-options']).toBe('nosniff');
      expect(redeem.headers['strict-transport-security']).toMatch(/^max-age=\d+/);
      const health = await httpsRequest(`${listening.http}/healthz`, ca, 'GET');
      expect(health.headers['x-content-type-options']).toBe('nosniff');
      expect(health.headers['strict-transport-security']).toMatch(/^max-age=\d+/);
      expect((await httpsRequest(`${listening.http}/metrics`, ca, 'GET')).status).toBe(404);
      expect((await fetch(`${listening.operator}/metrics`)).status).toBe(200);

      // The service credential is refused over plaintext gRPC (the port speaks TLS only), accepted over TLS.
      const plain = new serviceInfoV1GrpcJs.ServiceInfoClient(listening.grpc, grpc.credentials.createInsecure());
      const secure = new serviceInfoV1GrpcJs.ServiceInfoClient(listening.grpc, grpc.credentials.createSsl(ca));
      try {
        expect(await grpcStatus(plain)).toBe(grpc.status.UNAVAILABLE);
        expect(await grpcStatus(secure)).toBe(grpc.status.OK);
      } finally {
        plain.close();
        secure.close();
      }
      run.child.kill('SIGTERM');
      expect(await run.exited).toBe(0);
    } finally {
      if (run.child.exitCode === null && run.child.signalCode === null) run.child.kill('SIGKILL');
      await dir.remove();
    }
  });

  it('stops at once on SIGTERM while its start waits for a Kafka broker that never answers, closing what it opened', async () => {
    // A broker that takes connections and never answers: the bus cannot join, so the start cannot finish
    // (kafkajs would retry for minutes). Kubernetes sends SIGTERM then, and SIGKILL after its grace period.
    const held: Socket[] = [];
    const silentBroker: Server = createServer((socket) => {
      held.push(socket);
      socket.on('error', () => undefined);
    });
    await new Promise<void>((resolve) => silentBroker.listen(0, '127.0.0.1', resolve));
    const { port } = silentBroker.address() as { port: number };
    const run = serve({
      ...serverEnv(),
      RELAY_TLS: 'terminated-by-proxy',
      RELAY_SERVICE_CREDENTIAL_SHA256: createHash('sha256').update(credential).digest('hex'),
      TRUSTMESH_BUS: 'kafka',
      KAFKA_BROKERS: `127.0.0.1:${port}`,
      LOG_LEVEL: 'info',
    });
    try {
      await waitUntil(() => held.length > 0 || run.child.exitCode !== null, { timeoutMs: 60_000, what: 'the gateway to reach the broker' });
      expect(run.output.stdout).toContain('"msg":"relay gateway starting"');
      expect(run.output.stdout).not.toContain('"msg":"relay gateway listening"');
      run.child.kill('SIGTERM');
      expect(await run.exited).toBe(0);
      expect(run.output.stderr).toContain('SIGTERM received while starting, stopping');
      expect(run.output.stdout).not.toContain('"msg":"relay gateway listening"');
    } finally {
      if (run.child.exitCode === null && run.child.signalCode === null) run.child.kill('SIGKILL');
      for (const socket of held) socket.destroy();
      await new Promise((resolve) => silentBroker.close(resolve));
    }
  }, 60_000);

  function grpcStatus(client: serviceInfoV1GrpcJs.ServiceInfoClient): Promise<grpc.status> {
    const metadata = new grpc.Metadata();
    metadata.set('authorization', `Bearer ${credential}`);
    return new Promise((resolve) => {
      client.getServiceInfo({}, metadata, { deadline: Date.now() + 20_000 }, (error) => resolve(error ? error.code : grpc.status.OK));
    });
  }
});

function httpsRequest(
  url: string,
  ca: Buffer,
  method: string,
  body?: string,
): Promise<{ status: number; headers: Record<string, string | string[] | undefined> }> {
  return new Promise((resolve, reject) => {
    const target = new URL(url);
    const req = request(
      { host: target.hostname, port: target.port, path: target.pathname, method, ca, servername: 'localhost', headers: body ? { 'content-type': 'text/plain' } : {} },
      (response) => {
        response.resume();
        response.on('end', () => resolve({ status: response.statusCode ?? 0, headers: response.headers }));
      },
    );
    req.on('error', reject);
    req.end(body);
  });
}
