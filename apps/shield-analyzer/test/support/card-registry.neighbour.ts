/**
 * The card registry beside the Shield for the suites where both apps run (issue 12): its migrations deployed
 * on the Shield's database, and one registry process (the registry's own `test/support/registry.process.ts`,
 * started by path: an app never imports another) on the same database and bus, under the same topic prefix,
 * so what it publishes on `registry.cards.v1` reaches the Shield. Or, as `npm start` runs it, in a process with
 * an embedded database and local bus of its own (`startEmbeddedCardRegistry`), serving its topic as an EventFeed
 * for the Shield to follow. Driven over plain HTTP, as its users do.
 */
import { createHash } from 'node:crypto';
import { join } from 'node:path';

import { deployMigrations } from '@trustmesh/platform-database';
import { MOCK_CLUSTER_SESSION, startServiceChild } from '@trustmesh/platform-testing';

import type { ShieldPlacement } from './shield.child';

const workspaceRoot = join(__dirname, '../../../..');
const REGISTRY = join(workspaceRoot, 'apps', 'card-registry');
export const REGISTRY_OPERATOR_TOKEN = 'registry-operator-credential-for-shield-tests-01';

/** The supplier's billing agent the registry suites publish, and its AI Card v1 as its publisher writes it (unsigned). */
export const NORTHWIND_CARD_ID = 'https://northwind-supplies.example/agents/billing';
export const NORTHWIND_CARD = JSON.stringify({
  $schema: 'https://schemas.example.org/ai-card/v1.json',
  specVersion: '1.0',
  id: NORTHWIND_CARD_ID,
  name: 'Northwind billing agent',
  description: 'Answers questions about Northwind invoices',
  publisher: { id: 'did:web:northwind-supplies.example', name: 'Northwind Supplies' },
  services: { a2a: { type: 'a2a', name: 'Billing over A2A', protocolSpecific: { url: 'https://agents.northwind-supplies.example/a2a/billing' } } },
  createdAt: '2026-01-10T09:00:00Z',
  updatedAt: '2026-02-01T10:00:00Z',
});
const LIMITS = ['READS', 'WRITES', 'CREDENTIAL'].flatMap((kind) => [`REGISTRY_RATE_${kind}_PER_MINUTE`, `REGISTRY_RATE_${kind}_PER_HOUR`]);

export interface RegistryReply {
  status: number;
  body: any;
}

export interface CardRegistryNeighbour {
  call(method: string, path: string, token: string, body: unknown, raw?: boolean): Promise<RegistryReply>;
  /** Registers `publisherId`, grants it `namespace`, and returns a publisher credential. */
  onboard(publisherId: string, displayName: string, namespace: string): Promise<string>;
  stop(): Promise<void>;
}

export async function startCardRegistryNeighbour(placement: ShieldPlacement, bus: Record<string, string>): Promise<CardRegistryNeighbour> {
  await deployMigrations({ mode: 'server', url: placement.database.url }, [{ library: 'card-registry', directory: join(REGISTRY, 'prisma', 'migrations') }]);
  return startRegistryProcess({
    DATABASE_URL: placement.database.url,
    KAFKA_BROKERS: placement.brokers.join(','),
    ...MOCK_CLUSTER_SESSION,
    ...bus,
    TRUSTMESH_TOPIC_PREFIX: placement.topicPrefix,
  });
}

/**
 * A registry as `npm start` runs it: its own process, embedded PGlite in `dataDir` and its local bus, gRPC on
 * `grpcPort` (0: any), with `env` added (REGISTRY_FEED_CREDENTIALS for the Shield to follow it).
 */
export function startEmbeddedCardRegistry(dataDir: string, grpcPort: number, env: Record<string, string>): Promise<CardRegistryNeighbour> {
  return startRegistryProcess({ TRUSTMESH_DATA_DIR: dataDir, TRUSTMESH_BUS: 'local', REGISTRY_GRPC_PORT: String(grpcPort), ...env });
}

async function startRegistryProcess(env: Record<string, string>): Promise<CardRegistryNeighbour> {
  const child = await startServiceChild<{ httpUrl: string }>(join(REGISTRY, 'test', 'support', 'registry.process.ts'), {
    workspaceRoot,
    env: {
      REGISTRY_REPLICA_ID: 'registry-beside-shield',
      REGISTRY_OPERATOR_CREDENTIALS: `ops:${createHash('sha256').update(REGISTRY_OPERATOR_TOKEN).digest('hex')}`,
      REGISTRY_HTTP_HOST: '127.0.0.1',
      REGISTRY_HTTP_PORT: '0',
      REGISTRY_GRPC_HOST: '127.0.0.1',
      REGISTRY_GRPC_PORT: '0',
      REGISTRY_OPERATOR_PORT: '0',
      ...Object.fromEntries(LIMITS.map((name) => [name, '100000'])),
      ...env,
    },
  });
  const call: CardRegistryNeighbour['call'] = async (method, path, token, body, raw = false) => {
    const response = await fetch(`${child.ready.httpUrl}${path}`, {
      method,
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
      body: raw ? String(body) : JSON.stringify(body),
    });
    const text = await response.text();
    return { status: response.status, body: text ? JSON.parse(text) : undefined };
  };
  return {
    call,
    async onboard(publisherId, displayName, namespace) {
      const steps: [string, unknown][] = [
        ['/v1/operator/publishers', { publisherId, displayName }],
        ['/v1/operator/namespaces', { namespace, publisherId }],
        [`/v1/operator/publishers/${publisherId}/credentials`, { label: 'shield-e2e' }],
      ];
      let reply: RegistryReply = { status: 0, body: undefined };
      for (const [path, body] of steps) {
        reply = await call('POST', path, REGISTRY_OPERATOR_TOKEN, body);
        if (reply.status !== 201) throw new Error(`registry ${path}: ${reply.status} ${JSON.stringify(reply.body)}`);
      }
      return reply.body.credential as string;
    },
    stop: () => child.stop(),
  };
}
