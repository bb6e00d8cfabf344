/**
 * A replica that starts while its bus is slow (Kafka behind a broker gate that is closed at first, as after
 * a broker outage) answers its probes at once: /healthz 200 and /readyz 503 naming what the start waits for,
 * every other request and WebSocket upgrade 503 `GATEWAY_STARTING`; once the gate opens and the consumers
 * join, /readyz turns 200 on the same port and the gateway serves. Postgres with migrations deployed first,
 * as in distributed mode. Every log line of the process, the Kafka bus's included, has one shape. A start on a database where nothing was deployed is refused with
 * `MIGRATIONS_PENDING` naming every pending migration of every owner, and the one command that applies them all.
 */
import { randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { request as httpsRequest } from 'node:https';
import { join } from 'node:path';

import { LOCAL_BUS_MIGRATIONS } from '@trustmesh/platform-bus';
import { deployMigrations, loadMigrations } from '@trustmesh/platform-database';
import { createTempDataDir, createTestPostgresDatabase, type TestPostgresDatabase } from '@trustmesh/platform-database/testing';
import { EVENT_STORE_MIGRATIONS } from '@trustmesh/platform-event-store';
import { PROJECTION_MIGRATIONS } from '@trustmesh/platform-projections';
import { createBrokerGate, useKafkaCluster, waitUntil } from '@trustmesh/platform-testing';
import { WebSocket } from 'ws';

import { RELAY_GATEWAY_MIGRATIONS } from '../src/persistence/relay-gateway.migrations';
import { startRelayGateway, type RelayGatewayHandle } from '../src/relay-gateway.bootstrap';

const kafka = useKafkaCluster();

interface Reply {
  status: number;
  json: Record<string, unknown> | undefined;
  retryAfter: string | undefined;
}

function get(baseUrl: string, path: string, ca: string, method = 'GET'): Promise<Reply> {
  const url = new URL(path, baseUrl);
  return new Promise((resolve, reject) => {
    const request = httpsRequest({ host: url.hostname, port: url.port, path: url.pathname, method, ca, servername: 'localhost' }, (response) => {
      const chunks: Buffer[] = [];
      response.on('data', (chunk: Buffer) => chunks.push(chunk));
      response.on('end', () => {
        let json: Record<string, unknown> | undefined;
        try {
          json = JSON.parse(Buffer.concat(chunks).toString('utf8')) as Record<string, unknown>;
        } catch {
          json = undefined;
        }
        const retryAfter = response.headers['retry-after'];
        resolve({ status: response.statusCode ?? 0, json, retryAfter: Array.isArray(retryAfter) ? retryAfter[0] : retryAfter });
      });
    });
    request.on('error', reject);
    request.end();
  });
}

/** The HTTP status a WebSocket upgrade is refused with (or 101). */
function upgradeStatus(url: string, ca: string): Promise<number> {
  return new Promise((resolve) => {
    const socket = new WebSocket(url, { ca, origin: 'https://app.trustmesh.test' });
    socket.on('unexpected-response', (_request, response) => {
      resolve(response.statusCode ?? 0);
      socket.terminate();
    });
    socket.on('open', () => {
      resolve(101);
      socket.terminate();
    });
    socket.on('error', () => resolve(0));
  });
}

describe('relay gateway start with a slow bus (Postgres, Kafka behind a closed gate)', () => {
  let database: TestPostgresDatabase;
  let tlsDir: { dataDir: string; remove(): Promise<void> };
  let gateway: RelayGatewayHandle | undefined;
  let starting: Promise<RelayGatewayHandle> | undefined;

  beforeAll(async () => {
    database = await createTestPostgresDatabase('relay-gateway-startup');
    tlsDir = await createTempDataDir('relay-gateway-startup-tls');
    await deployMigrations({ mode: 'server', url: database.url }, [EVENT_STORE_MIGRATIONS, LOCAL_BUS_MIGRATIONS, PROJECTION_MIGRATIONS, RELAY_GATEWAY_MIGRATIONS]);
  }, 120_000);

  afterAll(async () => {
    await (gateway ?? (await starting?.catch(() => undefined)))?.close();
    await database?.drop();
    await tlsDir?.remove();
  }, 120_000);

  it('answers /healthz 200 and /readyz 503 before the bus joins, then turns ready on the same port', async () => {
    const gate = createBrokerGate();
    gate.down();
    const logs: string[] = [];
    starting = startRelayGateway(
      {
        DATABASE_URL: database.url,
        TRUSTMESH_BUS: 'kafka',
        KAFKA_BROKERS: kafka.brokers.join(','),
        TRUSTMESH_TOPIC_PREFIX: `st${randomBytes(4).toString('hex')}.`,
        RELAY_PUBLIC_BASE_URL: 'https://relay.trustmesh.test',
        RELAY_SERVICE_CREDENTIAL_SHA256: 'ab'.repeat(32),
        RELAY_TLS: 'self-signed',
        RELAY_TLS_SELF_SIGNED_DIR: join(tlsDir.dataDir, 'tls'),
        RELAY_HTTP_HOST: '127.0.0.1',
        RELAY_HTTP_PORT: '0',
        RELAY_GRPC_HOST: '127.0.0.1',
        RELAY_GRPC_PORT: '0',
        // Server mode's default operator port (9464) is shared by every suite running beside this one.
        RELAY_OPERATOR_PORT: '0',
        RELAY_REPLICA_ID: 'replica-slow',
        LOG_LEVEL: 'info',
      },
      { print: () => undefined, writeLog: (line) => logs.push(line), kafkaSocketFactory: gate.socketFactory },
    );
    let settled = false;
    void starting.then(
      () => (settled = true),
      () => (settled = true),
    );

    const startingLine = async () => {
      for (const line of logs) {
        const parsed = JSON.parse(line) as Record<string, unknown>;
        if (parsed['msg'] === 'relay gateway starting') return String(parsed['http']);
      }
      return settled ? 'settled' : null;
    };
    let httpUrl: string | null = null;
    await waitUntil(async () => (httpUrl = await startingLine()) !== null, { timeoutMs: 60_000, what: 'the gateway to log that it is starting' });
    expect(httpUrl).toMatch(/^https:\/\/127\.0\.0\.1:\d+$/);
    const base = httpUrl!;
    const ca = readFileSync(join(tlsDir.dataDir, 'tls', 'cert.pem'), 'utf8');

    // While the gate is closed the start cannot finish, and the port answers all the same.
    await waitUntil(() => gate.stats.refused > 0, { timeoutMs: 60_000, what: 'the bus to try the brokers' });
    expect(await get(base, '/healthz', ca)).toMatchObject({ status: 200, json: { status: 'ok' } });
    const notReady = await get(base, '/readyz', ca);
    expect(notReady.status).toBe(503);
    expect(notReady.json).toMatchObject({ status: 'not-ready', checks: { startup: expect.stringMatching(/^(event-bus|consumers)$/) } });
    expect(notReady.retryAfter).toBe('5');
    expect(await get(base, '/v1/device-enrollments/redeem', ca, 'POST')).toMatchObject({ status: 503, json: { error: 'GATEWAY_STARTING' } });
    expect(await upgradeStatus(`${base.replace(/^https:/, 'wss:')}/v1/companion`, ca)).toBe(503);
    expect(settled).toBe(false);

    // The brokers come back: the consumers join, and the same port turns ready.
    gate.up();
    gateway = await starting;
    expect(gateway.httpUrl).toBe(base);
    await waitUntil(async () => (await get(base, '/readyz', ca)).status === 200, { timeoutMs: 60_000, what: '/readyz to turn 200' });
    expect((await get(base, '/readyz', ca)).json).toEqual({ status: 'ready', checks: { database: 'ok', bus: 'ok' } });
    expect(await get(base, '/healthz', ca)).toMatchObject({ status: 200 });
    // The app serves the enrollment endpoint now: a bad body is its own error, not GATEWAY_STARTING.
    const redeem = await get(base, '/v1/device-enrollments/redeem', ca, 'POST');
    expect(redeem.status).not.toBe(503);

    // One line shape for the whole process: the gateway's own lines, Nest's and the Kafka bus's (kafkajs' too)
    // carry the same fields, the bus's with its component.
    const parsed = logs.map((line) => JSON.parse(line) as Record<string, unknown>);
    for (const line of parsed) {
      expect(line).toMatchObject({ time: expect.any(String), level: expect.stringMatching(/^(debug|info|warn|error)$/), service: 'relay-gateway', replica: 'replica-slow', msg: expect.any(String) });
    }
    expect(parsed.filter((line) => line['component'] === 'platform-bus.kafka').map((line) => line['msg'])).toContainEqual(expect.stringContaining('joined group'));
  }, 240_000);

  it('refuses an undeployed database naming every pending migration of every owner and the command for all', async () => {
    const empty = await createTestPostgresDatabase('relay-gateway-undeployed');
    try {
      const error = await startRelayGateway(
        {
          DATABASE_URL: empty.url,
          RELAY_PUBLIC_BASE_URL: 'https://relay.trustmesh.test',
          RELAY_SERVICE_CREDENTIAL_SHA256: 'ab'.repeat(32),
          RELAY_TLS: 'self-signed',
          RELAY_TLS_SELF_SIGNED_DIR: join(tlsDir.dataDir, 'tls-undeployed'),
          RELAY_HTTP_HOST: '127.0.0.1',
          RELAY_HTTP_PORT: '0',
          RELAY_GRPC_HOST: '127.0.0.1',
          RELAY_GRPC_PORT: '0',
          RELAY_OPERATOR_PORT: '0',
        },
        { print: () => undefined, writeLog: () => undefined },
      ).then(
        () => null,
        (failure: unknown) => failure as { code?: string; message: string },
      );
      expect(error?.code).toBe('MIGRATIONS_PENDING');
      const sets = [EVENT_STORE_MIGRATIONS, LOCAL_BUS_MIGRATIONS, PROJECTION_MIGRATIONS, RELAY_GATEWAY_MIGRATIONS];
      const names = (await Promise.all(sets.map(async (set) => (await loadMigrations(set)).map((migration) => `${set.library}/${migration.name}`)))).flat();
      expect(names.length).toBeGreaterThan(4);
      expect(error?.message).toContain(`${names.length} pending migration(s)`);
      for (const name of names) expect(error?.message).toContain(name);
      expect(error?.message).toContain('npx trustmesh db migrate deploy');
    } finally {
      await empty.drop();
    }
  }, 120_000);
});
