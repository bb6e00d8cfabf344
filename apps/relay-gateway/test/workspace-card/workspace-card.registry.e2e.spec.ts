/**
 * Relay → registry (issue 12) with both apps real: the relay gateway in this process on embedded PGlite,
 * the card registry as its own process (its own PGlite), talking gRPC. Both are driven by the clients their
 * users have (RelayControl for the relay, CardRegistry and CardRegistryOperator for the registry).
 *
 * The registry's operator registers the relay as a publisher of `relay.example.com` and hands it a
 * credential, which the relay reads from a file. The registry is down when the workspace's owner publishes:
 * the card waits (PENDING) and the relay retries until the registry is back, then the registry serves it.
 * Revoking the workspace's only device deprecates the card (GetCard, SearchCards); while the registry is
 * down again the change waits and is delivered when it returns. A relay restart with a new public endpoint
 * publishes a new revision pointing there. Refusals: another person's workspace (WORKSPACE_NOT_OWNED), a
 * namespace the registry did not grant (REFUSED with the registry's code) and a relay with no publisher
 * credential (CARD_PUBLISHING_NOT_CONFIGURED). The credential never reaches a log.
 */
import { spawn } from 'node:child_process';
import { createHash, randomUUID } from 'node:crypto';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';

import * as grpc from '@grpc/grpc-js';
import { cardRegistryV1GrpcJs as registry, relayControlV1GrpcJs as relay } from '@trustmesh/contracts';
import { createSeededDataDir } from '@trustmesh/platform-database/testing';
import { freeLoopbackPort, startServiceChild, waitUntil, type ServiceChild } from '@trustmesh/platform-testing';

import type { RelayGatewayHandle } from '../../src/relay-gateway.bootstrap';
import { bearer, call, controlClient, redeem, startTestGateway, type RelayControlClient } from '../support/gateway.fixture';

const workspaceRoot = join(__dirname, '../../../..');
/** The registry's own process script (its e2e support): `startCardRegistry(process.env)` and a ready line. */
const REGISTRY_SCRIPT = join(workspaceRoot, 'apps/card-registry/test/support/registry.process.ts');
const OPERATOR_TOKEN = 'registry-operator-credential-for-relay-e2e';
const SERVICE_CREDENTIAL = 'relay-service-credential-for-workspace-card-e2e';
const sha256Hex = (text: string) => createHash('sha256').update(text).digest('hex');
const NAMESPACE = 'relay.example.com';
const OWNER = 'user-ada';


describe('relay → registry: a workspace publishes its Companion agent as an AI Card', () => {
  let registryDir: { dataDir: string; remove(): Promise<void> };
  let relayDir: { dataDir: string; remove(): Promise<void> };
  let registryPort: number;
  let registryChild: ServiceChild<{ grpcAddress: string }> | undefined;
  let cards: registry.CardRegistryClient;
  let operator: registry.CardRegistryOperatorClient;
  let gateway: RelayGatewayHandle | undefined;
  let client: RelayControlClient | undefined;
  let logs: string[] = [];
  let publisherCredential = '';
  const allLogs: string[] = [];
  const auth = bearer(SERVICE_CREDENTIAL);

  const startRegistry = async () => {
    registryChild = await startServiceChild<{ grpcAddress: string }>(REGISTRY_SCRIPT, {
      workspaceRoot,
      env: {
        TRUSTMESH_DATA_DIR: registryDir.dataDir,
        REGISTRY_OPERATOR_CREDENTIALS: `ops:${sha256Hex(OPERATOR_TOKEN)}`,
        REGISTRY_HTTP_HOST: '127.0.0.1',
        REGISTRY_HTTP_PORT: '0',
        REGISTRY_GRPC_HOST: '127.0.0.1',
        REGISTRY_GRPC_PORT: String(registryPort),
        REGISTRY_OPERATOR_PORT: '0',
        LOG_LEVEL: 'info',
      },
    });
  };
  const stopRegistry = async () => {
    await registryChild?.stop();
    registryChild = undefined;
  };
  const baseRelayEnv = () => ({
    TRUSTMESH_DATA_DIR: relayDir.dataDir,
    RELAY_SERVICE_CREDENTIAL_SHA256: sha256Hex(SERVICE_CREDENTIAL),
  });
  const cardEnv = () => ({
    RELAY_REGISTRY_GRPC_ADDRESS: `127.0.0.1:${registryPort}`,
    RELAY_REGISTRY_PUBLISHER_CREDENTIAL_FILE: join(relayDir.dataDir, 'registry-publisher.credential'),
    RELAY_CARD_NAMESPACE: NAMESPACE,
    RELAY_CARD_PUBLISHER_NAME: 'Example Relay',
    // Short backoff so the outage paths finish quickly; the cap is what is configured, not the shape.
    RELAY_REGISTRY_RETRY_MAX_SECONDS: '1',
  });
  const startGateway = async (env: Record<string, string>) => {
    const started = await startTestGateway({ ...baseRelayEnv(), ...env });
    gateway = started.gateway;
    logs = started.logs;
    client = controlClient(gateway);
  };
  const stopGateway = async () => {
    client?.close();
    await gateway?.close();
    allLogs.push(...logs);
    gateway = undefined;
  };
  const getCard = (identifier: string) => call(cards, cards.getCard, { identifier, revision: '' }, bearer(null));
  const publish = (workspaceId: string, overrides: Partial<relay.PublishWorkspaceCardRequest> = {}) =>
    call(client!, client!.publishWorkspaceCard, { workspaceId, requestedByUserId: OWNER, name: 'Ada\'s coding agent', description: 'Writes and reviews code on Ada\'s laptop.', tags: ['coding'], ...overrides }, auth);
  const refusalOf = async (promise: Promise<unknown>) => {
    try {
      await promise;
      return 'OK';
    } catch (error) {
      const serviceError = error as grpc.ServiceError;
      return `${grpc.status[serviceError.code]} ${String(serviceError.metadata.get('relay-refusal-code')[0] ?? '')}`.trim();
    }
  };

  /** `trustmesh relay publish-card` as a person runs it: its own process, the service credential from the environment. */
  const cli = (args: string[]) =>
    new Promise<{ code: number | null; stdout: string; stderr: string }>((resolve, reject) => {
      const child = spawn(process.execPath, [join(workspaceRoot, 'bin', 'trustmesh.js'), 'relay', 'publish-card', '--relay-control-address', gateway!.grpcAddress, ...args], {
        cwd: workspaceRoot,
        env: { PATH: process.env['PATH'] ?? '', RELAY_CONTROL_CREDENTIAL: SERVICE_CREDENTIAL },
        stdio: ['ignore', 'pipe', 'pipe'],
      });
      const out = { stdout: '', stderr: '' };
      child.stdout.on('data', (chunk: Buffer) => (out.stdout += chunk.toString('utf8')));
      child.stderr.on('data', (chunk: Buffer) => (out.stderr += chunk.toString('utf8')));
      child.once('error', reject);
      child.once('close', (code) => resolve({ code, ...out }));
    });

  beforeAll(async () => {
    registryDir = await createSeededDataDir('workspace-card-registry');
    relayDir = await createSeededDataDir('workspace-card-relay');
    registryPort = await freeLoopbackPort();
    await startRegistry();
    const address = `127.0.0.1:${registryPort}`;
    cards = new registry.CardRegistryClient(address, grpc.credentials.createInsecure());
    operator = new registry.CardRegistryOperatorClient(address, grpc.credentials.createInsecure());
    // The registry's operator onboards the relay as a publisher of its namespace.
    const publisher = await call(operator, operator.createPublisher, { displayName: 'Example Relay', requestId: randomUUID() }, bearer(OPERATOR_TOKEN));
    const publisherId = publisher.publisher!.publisherId;
    await call(operator, operator.grantNamespace, { publisherId, namespace: NAMESPACE }, bearer(OPERATOR_TOKEN));
    publisherCredential = (await call(operator, operator.issueCredential, { publisherId, name: 'relay', expiresInDays: 0 }, bearer(OPERATOR_TOKEN))).credential;
    writeFileSync(join(relayDir.dataDir, 'registry-publisher.credential'), `${publisherCredential}\n`, { mode: 0o600 });
  }, 120_000);

  afterAll(async () => {
    await stopGateway();
    cards?.close();
    operator?.close();
    await stopRegistry();
    await relayDir?.remove();
    await registryDir?.remove();
  });

  it('publishes while the registry is down (PENDING, retried), follows revocation and a new endpoint, and refuses what it must', async () => {
    // The registry goes down before the relay first publishes.
    await stopRegistry();
    await startGateway({ ...cardEnv(), RELAY_PUBLIC_BASE_URL: 'https://relay-a.example.com' });
    const created = await call(client!, client!.createWorkspace, { requestId: randomUUID(), ownerUserId: OWNER, displayName: 'Ada laptop', endToEndEncrypted: false }, auth);
    const workspaceId = created.workspace!.workspaceId;
    const identifier = `https://${NAMESPACE}/relay/workspaces/${workspaceId}`;
    const { pairingCode } = await call(client!, client!.createPairingCode, { workspaceId, ttlSeconds: 0, requestedByUserId: OWNER }, auth);
    const device = (await redeem(gateway!, pairingCode)).json as { deviceId: string };

    // Refusals first: another person's workspace, and bad input.
    expect(await refusalOf(publish(workspaceId, { requestedByUserId: 'user-mallory' }))).toBe('PERMISSION_DENIED WORKSPACE_NOT_OWNED');
    expect(await refusalOf(publish(workspaceId, { name: '' }))).toBe('INVALID_ARGUMENT');
    expect(await refusalOf(publish(workspaceId, { tags: Array.from({ length: 17 }, (_, index) => `t${index}`) }))).toBe('INVALID_ARGUMENT');
    expect(await refusalOf(publish(randomUUID()))).toBe('NOT_FOUND');

    const pending = await publish(workspaceId);
    expect(pending).toMatchObject({ identifier, delivery: relay.WorkspaceCardDelivery.PENDING, status: relay.WorkspaceCardStatus.ACTIVE });
    await waitUntil(() => logs.some((line) => line.includes('workspace card delivery failed; retrying') && line.includes('GRPC_UNAVAILABLE')), { timeoutMs: 20_000, what: 'a failed delivery' });

    // The registry comes back: the relay's retry delivers the card, exactly as built.
    await startRegistry();
    let card: registry.Card | undefined;
    await waitUntil(
      async () => {
        card = (await getCard(identifier).catch(() => undefined))?.card ?? undefined;
        return card !== undefined;
      },
      { timeoutMs: 30_000, what: 'the card in the registry' },
    );
    expect(card).toMatchObject({ identifier, revision: pending.revision, status: registry.CardStatus.ACTIVE, kind: registry.CardKind.AI_CARD });
    const document = JSON.parse(Buffer.from(card!.document).toString('utf8')) as Record<string, any>;
    expect(document).toMatchObject({ id: identifier, name: 'Ada\'s coding agent', tags: ['coding'], publisher: { name: 'Example Relay' } });
    expect(document['services']['roll-relay']['protocolSpecific']).toMatchObject({ endpoint: 'wss://relay-a.example.com/v1/browser', workspaceId });

    // The same content again publishes nothing new; other content is a new revision.
    const again = await publish(workspaceId);
    expect(again).toMatchObject({ revision: pending.revision, delivery: relay.WorkspaceCardDelivery.PUBLISHED });
    // Through the command line this time.
    const published = await cli(['--workspace', workspaceId, '--owner', OWNER, '--name', 'Ada\'s pair programmer', '--description', 'Writes and reviews code on Ada\'s laptop.', '--tags', 'coding']);
    expect(published.code).toBe(0);
    const renamed = JSON.parse(published.stdout) as { identifier: string; revision: string; delivery: string; status: string };
    expect(renamed).toMatchObject({ identifier, delivery: 'published', status: 'active' });
    expect(renamed.revision > pending.revision).toBe(true);
    expect((await getCard(identifier)).card).toMatchObject({ revision: renamed.revision });

    // Other agents find it.
    await waitUntil(async () => (await call(cards, cards.searchCards, { query: 'programmer', limit: 0, cursor: '' }, bearer(null))).hits.some((hit) => hit.identifier === identifier), {
      timeoutMs: 30_000,
      what: 'the card in search',
    });

    // The workspace's last device is revoked while the registry is down: the change waits, then lands.
    await stopRegistry();
    await call(client!, client!.revokeDevice, { workspaceId, deviceId: device.deviceId, reason: 'lost laptop', revokedByUserId: OWNER }, auth);
    await waitUntil(() => logs.filter((line) => line.includes('workspace card delivery failed; retrying')).length >= 2, { timeoutMs: 20_000, what: 'the deprecation to fail while the registry is down' });
    await startRegistry();
    await waitUntil(async () => (await getCard(identifier).catch(() => undefined))?.card?.status === registry.CardStatus.DEPRECATED, { timeoutMs: 30_000, what: 'the card deprecated' });
    expect((await getCard(identifier)).card?.statusMessage).toMatch(/no enrolled Companion/);
    const revisions = await call(cards, cards.listRevisions, { identifier, limit: 0, cursor: '' }, bearer(null));
    expect(revisions.revisions.map((revision) => revision.status)).toEqual([registry.CardStatus.DEPRECATED, registry.CardStatus.DEPRECATED]);
    await waitUntil(
      async () =>
        (await call(cards, cards.searchCards, { query: 'programmer', limit: 0, cursor: '' }, bearer(null))).hits.some((hit) => hit.identifier === identifier && hit.status === registry.CardStatus.DEPRECATED),
      { timeoutMs: 30_000, what: 'search to show the card deprecated' },
    );

    // The relay restarts behind a new public endpoint: the card follows with a new revision, still deprecated.
    await stopGateway();
    await startGateway({ ...cardEnv(), RELAY_PUBLIC_BASE_URL: 'https://relay-b.example.com' });
    await waitUntil(
      async () => {
        const latest = (await getCard(identifier).catch(() => undefined))?.card;
        return !!latest && latest.revision !== renamed.revision && latest.status === registry.CardStatus.DEPRECATED;
      },
      { timeoutMs: 30_000, what: 'a new revision at the new endpoint' },
    );
    const moved = JSON.parse(Buffer.from((await getCard(identifier)).card!.document).toString('utf8')) as Record<string, any>;
    expect(moved['services']['roll-relay']['protocolSpecific']['endpoint']).toBe('wss://relay-b.example.com/v1/browser');
    expect(moved['name']).toBe('Ada\'s pair programmer');

    // A namespace the registry did not grant the relay: the registry refuses for good, and says why.
    await stopGateway();
    await startGateway({ ...cardEnv(), RELAY_PUBLIC_BASE_URL: 'https://relay-b.example.com', RELAY_CARD_NAMESPACE: 'elsewhere.example.org' });
    const foreign = await publish(workspaceId, { name: 'Ada\'s pair programmer' });
    expect(foreign).toMatchObject({ identifier: `https://elsewhere.example.org/relay/workspaces/${workspaceId}`, delivery: relay.WorkspaceCardDelivery.REFUSED });
    expect(foreign.registryRefusalCode).toMatch(/^[A-Z_]+$/);

    // A relay with no publisher credential refuses with a stable code.
    await stopGateway();
    await startGateway({});
    expect(await refusalOf(publish(workspaceId))).toBe('FAILED_PRECONDITION CARD_PUBLISHING_NOT_CONFIGURED');
    const unconfigured = await cli(['--workspace', workspaceId, '--owner', OWNER, '--name', 'Agent', '--description', 'An agent']);
    expect(unconfigured.code).toBe(1);
    expect(unconfigured.stderr).toContain('FAILED_PRECONDITION (CARD_PUBLISHING_NOT_CONFIGURED)');

    // The publisher credential never reached a log line.
    await stopGateway();
    expect(allLogs.length).toBeGreaterThan(0);
    expect(allLogs.filter((line) => line.includes(publisherCredential))).toEqual([]);
  }, 240_000);
});
