/**
 * The distributed deployment of Trustmesh for the cross-app suite, built as Kubernetes would run it: one
 * Postgres database per app (no app reads another's tables) migrated by the deploy step operators run
 * (`trustmesh db migrate deploy`, a child process), the spec file's Kafka cluster (librdkafka's mock) under
 * one topic prefix shared by every app (apps talk through topics), and each app a child process started by
 * the path of its own process script, configured by nothing but environment variables.
 *
 * App code is never imported here (an app is not a library): the scripts are spawned by path and everything
 * else goes through what a user or an operator has: gRPC, HTTP, SQL on the read models.
 */
import { execFile } from 'node:child_process';
import { createHash, randomBytes } from 'node:crypto';
import { join } from 'node:path';
import { promisify } from 'node:util';

import { Client } from 'pg';

import { createTestPostgresDatabase, type TestPostgresDatabase } from '@trustmesh/platform-database/testing';
import { MOCK_CLUSTER_SESSION, startServiceChild, uniqueName, type RemoteBrokerGate } from '@trustmesh/platform-testing';

export const workspaceRoot = join(__dirname, '../../../..');

/** The process scripts: each wraps its app's real bootstrap (and, for apps on Kafka, a broker gate). */
const SCRIPTS = {
  gateway: 'apps/relay-gateway/test/data-plane/support/gateway.process.ts',
  registry: 'apps/card-registry/test/support/registry.process.ts',
  shield: 'apps/shield-analyzer/test/support/shield.process.ts',
  simulator: 'apps/companion-simulator/test/support/simulator.process.ts',
} as const;

export type AppName = 'gateway' | 'registry' | 'shield';

const sha256 = (text: string) => createHash('sha256').update(text).digest('hex');
const secret = (prefix: string) => `${prefix}${randomBytes(24).toString('base64url')}`;

/** The credentials of one run: each app holds only their digests, the test holds the credentials. */
export interface PlatformCredentials {
  /** RelayControl's service credential (gRPC bearer). */
  readonly relayService: string;
  /** The registry operator `ops`. */
  readonly registryOperator: string;
  /** The Shield operator account `acme`; the simulator consults with it. */
  readonly shieldOperator: string;
  /** SimulatorControl's bearer. */
  readonly simulatorControl: string;
}

/** SQL on one app's database, as an operator's psql would: a session per query, so it outlives any outage. */
export type Query = <Row>(sql: string, params?: unknown[]) => Promise<Row[]>;

export interface PlatformWorld {
  readonly brokers: readonly string[];
  readonly topicPrefix: string;
  readonly credentials: PlatformCredentials;
  /** Each app's DATABASE_URL. */
  readonly databaseUrl: Record<AppName, string>;
  readonly query: Record<AppName, Query>;
  dispose(): Promise<void>;
}

/** Creates a database per app and deploys the migrations into each through the `trustmesh` command. */
export async function createPlatformWorld(brokers: readonly string[]): Promise<PlatformWorld> {
  const apps: AppName[] = ['gateway', 'registry', 'shield'];
  const databases = {} as Record<AppName, TestPostgresDatabase>;
  try {
    for (const app of apps) databases[app] = await createTestPostgresDatabase(`platform-${app}`);
    for (const app of apps) await migrateDeploy(databases[app].url);
  } catch (error) {
    await Promise.all(Object.values(databases).map((database) => database.drop()));
    throw error;
  }
  return {
    brokers,
    topicPrefix: `${uniqueName('platform')}.`,
    credentials: {
      relayService: secret('tmsc_'),
      registryOperator: secret('registry-ops-'),
      shieldOperator: secret('shield-acme-'),
      simulatorControl: secret('simulator-control-'),
    },
    databaseUrl: Object.fromEntries(apps.map((app) => [app, databases[app].url])) as Record<AppName, string>,
    query: Object.fromEntries(apps.map((app) => [app, queryOn(databases[app].url)])) as Record<AppName, Query>,
    dispose: async () => {
      await Promise.all(Object.values(databases).map((database) => database.drop()));
    },
  };
}

/** `trustmesh db migrate deploy` on `databaseUrl`, as the deploy job of a release runs it. */
async function migrateDeploy(databaseUrl: string): Promise<void> {
  try {
    await promisify(execFile)(process.execPath, [join(workspaceRoot, 'bin/trustmesh.js'), 'db', 'migrate', 'deploy'], {
      cwd: workspaceRoot,
      env: { ...process.env, DATABASE_URL: databaseUrl },
    });
  } catch (error) {
    const { stderr, stdout } = error as { stderr?: string; stdout?: string };
    throw new Error(`trustmesh db migrate deploy failed:\n${stderr || stdout || String(error)}`);
  }
}

function queryOn(url: string): Query {
  return async <Row>(text: string, params: unknown[] = []) => {
    const sql = new Client({ connectionString: url });
    await sql.connect();
    try {
      return (await sql.query(text, params)).rows as Row[];
    } finally {
      await sql.end();
    }
  };
}

/** One app process of the world. */
export interface AppChild<Ready> {
  readonly name: string;
  readonly ready: Ready;
  /** Every log line the process wrote (stderr), in order. */
  readonly logs: string[];
  readonly brokerGate: RemoteBrokerGate;
  /** Is the process still running (not killed, not exited)? */
  alive(): boolean;
  stderr(): string;
  /** SIGKILL: a crash, nothing flushed. */
  kill(): Promise<void>;
  /** SIGTERM: a graceful shutdown. */
  stop(): Promise<void>;
}

export interface ServiceReady {
  httpUrl: string;
  grpcAddress: string;
  operatorUrl: string;
}

export interface SimulatorReady {
  controlAddress: string;
  deviceId: string;
  workspaceId: string;
}

async function startChild<Ready extends object>(script: string, name: string, env: Record<string, string>): Promise<AppChild<Ready>> {
  const logs: string[] = [];
  const child = await startServiceChild<Ready>(join(workspaceRoot, script), { workspaceRoot, env, onStderrLine: (line) => logs.push(line) });
  return {
    name,
    ready: child.ready,
    logs,
    brokerGate: child.brokerGate,
    alive: () => child.process.exitCode === null && child.process.signalCode === null,
    stderr: child.stderr,
    kill: () => child.kill(),
    stop: () => child.stop(),
  };
}

/** What every app on Kafka shares: its database, the cluster, the topic prefix, the mock cluster's session. */
function serverMode(world: PlatformWorld, app: AppName): Record<string, string> {
  return {
    DATABASE_URL: world.databaseUrl[app],
    TRUSTMESH_BUS: 'kafka',
    KAFKA_BROKERS: world.brokers.join(','),
    ...MOCK_CLUSTER_SESSION,
    TRUSTMESH_TOPIC_PREFIX: world.topicPrefix,
    // Info: the consumer groups' joins are logged there (`groupJoins`).
    LOG_LEVEL: 'info',
  };
}

/** Where a gateway publishes its workspaces' cards: a registry replica and the publisher the registry onboarded. */
export interface GatewayCardPublishing {
  /** gRPC address of the registry replica the gateway talks to (loopback, so no TLS). */
  registryGrpcAddress: string;
  /** The file holding the publisher credential (`tmrp_…`) the registry's operator issued. */
  credentialFile: string;
  /** The namespace the registry granted that publisher. */
  namespace: string;
}

export function startGateway(world: PlatformWorld, replicaId: string, cards: GatewayCardPublishing): Promise<AppChild<ServiceReady & { certFile: string | null }>> {
  return startChild(SCRIPTS.gateway, `gateway ${replicaId}`, {
    ...serverMode(world, 'gateway'),
    RELAY_REGISTRY_GRPC_ADDRESS: cards.registryGrpcAddress,
    RELAY_REGISTRY_PUBLISHER_CREDENTIAL_FILE: cards.credentialFile,
    RELAY_CARD_NAMESPACE: cards.namespace,
    RELAY_CARD_PUBLISHER_NAME: 'Trustmesh Relay',
    // A delivery the registry missed (e.g. during the broker outage's rebalances) is retried soon.
    RELAY_REGISTRY_RETRY_MAX_SECONDS: '5',
    RELAY_REPLICA_ID: replicaId,
    RELAY_SERVICE_CREDENTIAL_SHA256: sha256(world.credentials.relayService),
    // Server mode refuses plaintext listeners unless a proxy terminates TLS, as the ingress does here.
    RELAY_TLS: 'terminated-by-proxy',
    RELAY_PUBLIC_BASE_URL: 'https://relay.trustmesh.test',
    RELAY_HTTP_HOST: '127.0.0.1',
    RELAY_HTTP_PORT: '0',
    RELAY_GRPC_HOST: '127.0.0.1',
    RELAY_GRPC_PORT: '0',
    RELAY_OPERATOR_PORT: '0',
    RELAY_FRAMES_PUBLISH_LINGER_MS: '2',
    RELAY_FIRST_ACK_TIMEOUT_MS: '60000',
  });
}

export function startRegistry(world: PlatformWorld, replicaId: string): Promise<AppChild<ServiceReady>> {
  return startChild(SCRIPTS.registry, `registry ${replicaId}`, {
    ...serverMode(world, 'registry'),
    REGISTRY_REPLICA_ID: replicaId,
    REGISTRY_OPERATOR_CREDENTIALS: `ops:${sha256(world.credentials.registryOperator)}`,
    REGISTRY_HTTP_HOST: '127.0.0.1',
    REGISTRY_HTTP_PORT: '0',
    REGISTRY_GRPC_HOST: '127.0.0.1',
    REGISTRY_GRPC_PORT: '0',
    REGISTRY_OPERATOR_PORT: '0',
  });
}

export function startShield(world: PlatformWorld, replicaId: string): Promise<AppChild<ServiceReady>> {
  return startChild(SCRIPTS.shield, `shield ${replicaId}`, {
    ...serverMode(world, 'shield'),
    SHIELD_REPLICA_ID: replicaId,
    SHIELD_OPERATOR_CREDENTIALS: `acme:${sha256(world.credentials.shieldOperator)}`,
    SHIELD_HTTP_HOST: '127.0.0.1',
    SHIELD_HTTP_PORT: '0',
    SHIELD_GRPC_HOST: '127.0.0.1',
    SHIELD_GRPC_PORT: '0',
    SHIELD_OPERATOR_PORT: '0',
    SHIELD_MODEL_PROVIDER: 'none',
  });
}

/**
 * The companion simulator (`companion-simulator run`) paired with a pairing code into a workspace of the
 * gateway at `gatewayHttpUrl`, its credential kept in `credentialFile`, consulting the Shield at
 * `shieldAddress` before a counterparty's approval. It speaks WebSocket and gRPC only: no broker gate.
 */
export function startSimulator(
  world: PlatformWorld,
  options: { gatewayHttpUrl: string; pairingCode: string; credentialFile: string; shieldAddress: string },
): Promise<AppChild<SimulatorReady>> {
  return startChild(SCRIPTS.simulator, 'companion simulator', {
    RELAY_GATEWAY_URL: options.gatewayHttpUrl,
    SIMULATOR_PAIRING_CODE: options.pairingCode,
    SIMULATOR_CREDENTIAL_FILE: options.credentialFile,
    SIMULATOR_CONTROL_CREDENTIAL: world.credentials.simulatorControl,
    SIMULATOR_CONTROL_ADDRESS: '127.0.0.1:0',
    SIMULATOR_SHIELD_ADDRESS: options.shieldAddress,
    SIMULATOR_SHIELD_CREDENTIAL: world.credentials.shieldOperator,
    // Far beyond a loaded machine's pauses: the approval must carry the Shield's verdict, not "not checked".
    SIMULATOR_SHIELD_DEADLINE_MS: '30000',
  });
}

/** A consumer group join a process logged (`kafka consumer: joined group`), with how many partitions it got. */
export interface GroupJoin {
  groupId: string;
  partitions: number;
}

/** The group joins in `logs` from line `from` on, in order. */
export function groupJoins(logs: readonly string[], from = 0): GroupJoin[] {
  const joins: GroupJoin[] = [];
  for (const line of logs.slice(from)) {
    if (!line.includes('"kafka consumer: joined group"')) continue;
    const { groupId, partitions } = JSON.parse(line) as GroupJoin;
    joins.push({ groupId, partitions });
  }
  return joins;
}
