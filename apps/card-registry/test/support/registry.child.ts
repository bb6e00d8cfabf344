/**
 * Card registry replicas in server mode for the distributed suites: a Postgres database of the test's own
 * with the migrations deployed (as `trustmesh db migrate deploy` would), the bus either Kafka (the spec
 * file's librdkafka mock cluster, under a topic prefix of the test's own) or the local bus over the same
 * database, and each replica a child process (`registry.process.ts`) configured only by environment
 * variables, with the HTTP client a user has, its log lines, its operator port and its broker gate (the
 * outage suite cuts its Kafka connections off and on).
 */
import { join } from 'node:path';

import { Client } from 'pg';

import { LOCAL_BUS_MIGRATIONS } from '@trustmesh/platform-bus';
import { deployMigrations } from '@trustmesh/platform-database';
import { createTestPostgresDatabase, type TestPostgresDatabase } from '@trustmesh/platform-database/testing';
import { EVENT_STORE_MIGRATIONS } from '@trustmesh/platform-event-store';
import { PROJECTION_MIGRATIONS } from '@trustmesh/platform-projections';
import { MOCK_CLUSTER_SESSION, startServiceChild, uniqueName, type RemoteBrokerGate } from '@trustmesh/platform-testing';

import { CARD_REGISTRY_MIGRATIONS } from '../../src/persistence/card-registry.migrations';
import { GENEROUS_LIMITS, OPERATOR_CREDENTIALS } from './registry-app.fixture';
import { registryClient, type Call } from './registry-clients';

const workspaceRoot = join(__dirname, '../../../..');

export interface RegistryPlacement {
  readonly database: TestPostgresDatabase;
  /** Kafka brokers, or null for the local bus over the database. */
  readonly brokers: readonly string[] | null;
  readonly topicPrefix: string;
  query<Row>(sql: string, params?: unknown[]): Promise<Row[]>;
  dispose(): Promise<void>;
}

export async function createRegistryPlacement(brokers: readonly string[] | null, label: string): Promise<RegistryPlacement> {
  const database = await createTestPostgresDatabase(label);
  await deployMigrations({ mode: 'server', url: database.url }, [EVENT_STORE_MIGRATIONS, ...(brokers ? [] : [LOCAL_BUS_MIGRATIONS]), PROJECTION_MIGRATIONS, CARD_REGISTRY_MIGRATIONS]);
  return {
    database,
    brokers,
    topicPrefix: `${uniqueName('registry')}.`,
    async query<Row>(text: string, params: unknown[] = []) {
      const sql = new Client({ connectionString: database.url });
      await sql.connect();
      try {
        return (await sql.query(text, params)).rows as Row[];
      } finally {
        await sql.end();
      }
    },
    dispose: () => database.drop(),
  };
}

export interface RegistryChild {
  readonly replicaId: string;
  readonly httpUrl: string;
  /** `host:port` of its gRPC listener. */
  readonly grpcAddress: string;
  /** `http://host:port` of its operator port (/metrics, /healthz, /readyz). */
  readonly operatorUrl: string;
  readonly call: Call;
  readonly logs: string[];
  /** Cuts the process's Kafka connections off (`down`) and lets them through again (`up`). */
  readonly brokerGate: RemoteBrokerGate;
  stderr(): string;
  /** SIGKILL: a crash, nothing flushed. */
  kill(): Promise<void>;
  /** SIGTERM: a graceful shutdown. */
  stop(): Promise<void>;
}

export async function startRegistryChild(placement: RegistryPlacement, replicaId: string, env: Record<string, string> = {}): Promise<RegistryChild> {
  const logs: string[] = [];
  const bus = placement.brokers ? { TRUSTMESH_BUS: 'kafka', KAFKA_BROKERS: placement.brokers.join(','), ...MOCK_CLUSTER_SESSION } : { TRUSTMESH_BUS: 'local' };
  const child = await startServiceChild<{ httpUrl: string; grpcAddress: string; operatorUrl: string }>(join(__dirname, 'registry.process.ts'), {
    workspaceRoot,
    env: {
      DATABASE_URL: placement.database.url,
      ...bus,
      TRUSTMESH_TOPIC_PREFIX: placement.topicPrefix,
      REGISTRY_REPLICA_ID: replicaId,
      REGISTRY_OPERATOR_CREDENTIALS: OPERATOR_CREDENTIALS,
      REGISTRY_HTTP_HOST: '127.0.0.1',
      REGISTRY_HTTP_PORT: '0',
      REGISTRY_GRPC_HOST: '127.0.0.1',
      REGISTRY_GRPC_PORT: '0',
      REGISTRY_OPERATOR_PORT: '0',
      LOG_LEVEL: 'debug',
      ...GENEROUS_LIMITS,
      ...env,
    },
    onStderrLine: (line) => logs.push(line),
  });
  return {
    replicaId,
    httpUrl: child.ready.httpUrl,
    grpcAddress: child.ready.grpcAddress,
    operatorUrl: child.ready.operatorUrl,
    call: registryClient(child.ready.httpUrl),
    logs,
    brokerGate: child.brokerGate,
    stderr: child.stderr,
    kill: () => child.kill(),
    stop: () => child.stop(),
  };
}
