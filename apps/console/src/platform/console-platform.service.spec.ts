/**
 * ConsolePlatformService against the real relay gateway, Shield and card registry, each started as its own process on
 * embedded PGlite with its operator listener (`/readyz`, `/metrics`) on a port of its own: readiness of each app, the
 * consults-per-second and publishes-per-second series moving after real consults and publishes (made through the
 * console's own Shield and registry services), an app that is not configured, and the bounds: an operator port
 * that never answers and one that floods `/metrics` cost a bounded wait and nothing else.
 */
import { createHash, randomUUID } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';

import { SecretText, type GrpcClientTarget } from '@trustmesh/platform-config';
import { createSeededDataDir } from '@trustmesh/platform-database/testing';
import { freeLoopbackPort, startServiceChild, type ServiceChild } from '@trustmesh/platform-testing';

import type { ConsoleAccount } from '../console-result';
import { ConsoleRegistryService } from '../registry/console-registry.service';
import { ConsoleShieldService } from '../shield/console-shield.service';
import { ConsolePlatformService } from './console-platform.service';

const workspaceRoot = join(__dirname, '../../../..');
const CREDENTIAL = `console-platform-${randomUUID()}`;
const OPERATOR = `registry-operator-${randomUUID()}`;
const sha256 = (text: string) => createHash('sha256').update(text).digest('hex');
const account: ConsoleAccount = { accountId: randomUUID(), username: 'ops-watcher' };
const target = (address: string): GrpcClientTarget => ({ address, loopback: true, tls: null, credential: new SecretText(CREDENTIAL) });
const DOMAIN = 'platform-console.example';

type Ready = { httpUrl: string; grpcAddress: string; operatorUrl: string };

describe('ConsolePlatformService against the running relay gateway, Shield and card registry', () => {
  const dirs: Array<{ dataDir: string; remove(): Promise<void> }> = [];
  let shield: ServiceChild<Ready>;
  let registry: ServiceChild<Ready>;
  let relay: ServiceChild<Ready>;
  let shieldService: ConsoleShieldService;
  let registryService: ConsoleRegistryService;
  beforeAll(async () => {
    const [shieldDir, registryDir, relayDir] = await Promise.all([createSeededDataDir('console-platform-shield'), createSeededDataDir('console-platform-registry'), createSeededDataDir('console-platform-relay')]);
    dirs.push(shieldDir, registryDir, relayDir);
    [shield, registry, relay] = await Promise.all([
      startServiceChild<Ready>(join(workspaceRoot, 'apps/shield-analyzer/test/support/shield.process.ts'), {
        workspaceRoot,
        env: { TRUSTMESH_DATA_DIR: shieldDir.dataDir, SHIELD_HTTP_PORT: '0', SHIELD_GRPC_PORT: '0', SHIELD_OPERATOR_PORT: '0', SHIELD_MODEL_PROVIDER: 'none', SHIELD_SERVICE_CREDENTIALS: `console:${sha256(CREDENTIAL)}` },
      }),
      startServiceChild<Ready>(join(workspaceRoot, 'apps/card-registry/test/support/registry.process.ts'), {
        workspaceRoot,
        env: {
          TRUSTMESH_DATA_DIR: registryDir.dataDir,
          REGISTRY_HTTP_PORT: '0',
          REGISTRY_GRPC_PORT: '0',
          REGISTRY_OPERATOR_PORT: '0',
          REGISTRY_TRUST_TASK_INTERVAL_MS: '0',
          REGISTRY_OPERATOR_CREDENTIALS: `ops:${sha256(OPERATOR)}`,
          REGISTRY_SERVICE_CREDENTIALS: `console:${sha256(CREDENTIAL)}`,
        },
      }),
      startServiceChild<Ready>(join(workspaceRoot, 'apps/relay-gateway/test/data-plane/support/gateway.process.ts'), {
        workspaceRoot,
        env: { TRUSTMESH_DATA_DIR: relayDir.dataDir, RELAY_HTTP_PORT: '0', RELAY_GRPC_PORT: '0', RELAY_OPERATOR_PORT: '0', RELAY_TLS: 'off' },
      }),
    ]);
    shieldService = new ConsoleShieldService({ target: target(shield.ready.grpcAddress) });
    registryService = new ConsoleRegistryService({ target: target(registry.ready.grpcAddress) });
  }, 120_000);
  afterAll(async () => {
    shieldService?.close();
    registryService?.close();
    await Promise.all([shield?.stop(), registry?.stop(), relay?.stop()]);
    await Promise.all(dirs.map((dir) => dir.remove()));
  });

  const platform = (relayUrl: string | null = relay.ready.operatorUrl) => new ConsolePlatformService({ targets: { relay: relayUrl, shield: shield.ready.operatorUrl, registry: registry.ready.operatorUrl } });

  it("reports each app's readiness, and one that is not configured as such", async () => {
    const health = await platform().health();
    if (!health.ok) throw new Error('health refused');
    expect(health.value.apps).toEqual([
      { app: 'relay-gateway', ready: true, checkedAt: expect.any(String) },
      { app: 'shield-analyzer', ready: true, checkedAt: expect.any(String) },
      { app: 'card-registry', ready: true, checkedAt: expect.any(String) },
      { app: 'console', ready: true, checkedAt: expect.any(String) },
    ]);
    const unreachable = await platform(`http://127.0.0.1:${await freeLoopbackPort()}`).health();
    expect(unreachable.ok && unreachable.value.apps[0]).toMatchObject({ app: 'relay-gateway', ready: false, detail: 'cannot be reached' });
    const unconfigured = await platform(null).health();
    expect(unconfigured.ok && unconfigured.value.apps[0]).toEqual({ app: 'relay-gateway', ready: false, checkedAt: expect.any(String), detail: 'not configured (CONSOLE_RELAY_OPERATOR_URL)' });
  });

  it('computes consults and publishes per second from the apps /metrics between scrapes', async () => {
    const watcher = platform();
    const first = await watcher.metrics();
    // An idle relay: no connections, no frames yet.
    expect(first).toMatchObject({ ok: true, value: { series: { connections: 0, framesPerSecond: 0, consultsPerSecond: 0, publishesPerSecond: 0 } } });
    // Without the relay configured its series are unknown (null), never a false 0.
    expect(await platform(null).metrics()).toMatchObject({ ok: true, value: { series: { connections: null, framesPerSecond: null } } });

    const opened = await shieldService.openCase(account, {
      agentId: 'agent-a',
      title: 'Supplier asks to change bank details',
      goal: 'Pay the invoice to the correct account',
      counterparty: { type: 'human', reference: 'northwind' },
    });
    if (!opened.ok) throw new Error(JSON.stringify(opened.error));
    for (let index = 0; index < 3; index += 1) expect((await shieldService.consult(account, String(opened.value['caseId']), { message: `Please pay invoice ${index} today.` })).ok).toBe(true);

    // The account's publisher exists after its first call; an operator grants it the namespace.
    expect((await registryService.namespaces(account)).ok).toBe(true);
    const granted = await fetch(`${registry.ready.httpUrl}/v1/operator/namespaces`, {
      method: 'POST',
      headers: { authorization: `Bearer ${OPERATOR}`, 'content-type': 'application/json' },
      body: JSON.stringify({ namespace: DOMAIN, publisherId: `console-${account.accountId}` }),
    });
    expect(granted.status).toBe(201);
    const card = (updatedAt: string) => ({
      $schema: 'https://schemas.example.org/ai-card/v1.json',
      specVersion: '1.0',
      id: `did:web:${DOMAIN}`,
      name: 'Platform helper',
      description: 'Watches the platform',
      publisher: { id: `did:web:${DOMAIN}`, name: 'Ops' },
      services: { a2a: { type: 'a2a', name: 'Ops over A2A', protocolSpecific: { url: `https://${DOMAIN}/a2a` } } },
      createdAt: '2026-01-10T09:00:00Z',
      updatedAt,
    });
    expect(await registryService.publish(account, { card: card('2026-02-01T10:00:00Z') })).toMatchObject({ ok: true, status: 201 });
    expect(await registryService.publish(account, { card: card('2026-02-02T10:00:00Z') })).toMatchObject({ ok: true, status: 201 });

    await new Promise((resolve) => setTimeout(resolve, 1_100));
    const second = await watcher.metrics();
    if (!second.ok) throw new Error('metrics refused');
    expect(second.value.series.consultsPerSecond).toBeGreaterThan(0);
    expect(second.value.series.publishesPerSecond).toBeGreaterThan(0);
    // 3 consults and 2 publishes in a little over a second (the interval since the first scrape).
    expect(second.value.series.consultsPerSecond).toBeLessThanOrEqual(3 / 1.1);
    expect(second.value.series.publishesPerSecond).toBeLessThanOrEqual(2 / 1.1);
    // Within a second the same answer is reused: no scrape, no new interval.
    expect(await watcher.metrics()).toEqual(second);
  });

  it('bounds what a hanging or flooding operator port costs', async () => {
    const hanging: Server = createServer(() => undefined);
    const flooding: Server = createServer((_request, response) => {
      response.writeHead(200, { 'content-type': 'text/plain' });
      const line = `${'relay_connections{socket="browser"} 1\n'.repeat(1000)}`;
      const pump = () => {
        while (response.write(line)) if (response.writableLength > 1 << 20) break;
      };
      response.on('drain', pump);
      pump();
    });
    await Promise.all([new Promise<void>((resolve) => hanging.listen(0, '127.0.0.1', resolve)), new Promise<void>((resolve) => flooding.listen(0, '127.0.0.1', resolve))]);
    const urlOf = (server: Server) => `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    try {
      const slow = new ConsolePlatformService({ targets: { relay: urlOf(hanging), shield: null, registry: null }, timeoutMs: 500 });
      const started = Date.now();
      const health = await slow.health();
      expect(Date.now() - started).toBeLessThan(2_000);
      expect(health.ok && health.value.apps[0]).toMatchObject({ ready: false, detail: 'did not answer within 0.5 s' });

      const flooded = new ConsolePlatformService({ targets: { relay: urlOf(flooding), shield: null, registry: null }, timeoutMs: 5_000, maxMetricsBytes: 64 * 1024 });
      expect(await flooded.metrics()).toMatchObject({ ok: true, value: { series: { connections: null, framesPerSecond: null } } });
    } finally {
      hanging.closeAllConnections();
      flooding.closeAllConnections();
      await Promise.all([new Promise((resolve) => hanging.close(resolve)), new Promise((resolve) => flooding.close(resolve))]);
    }
  });
});
