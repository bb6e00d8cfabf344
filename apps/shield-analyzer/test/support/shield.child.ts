/**
 * Shield analyzer replicas in server mode for the distributed-mode suites: a Postgres database of the test's
 * own with the migrations deployed (as `trustmesh db migrate deploy` would), the Kafka cluster of the spec
 * file (`useKafkaCluster`: librdkafka's mock) under a topic prefix of the test's own, and each replica a
 * child process (`shield.process.ts`) configured only by environment variables, as on Kubernetes, with the
 * clients a user has (REST, gRPC, MCP), its log lines, and its broker gate.
 */
import { join } from 'node:path';

import { Client } from 'pg';

import { deployMigrations } from '@trustmesh/platform-database';
import { createTestPostgresDatabase, type TestPostgresDatabase } from '@trustmesh/platform-database/testing';
import { EVENT_STORE_MIGRATIONS } from '@trustmesh/platform-event-store';
import { PROJECTION_MIGRATIONS } from '@trustmesh/platform-projections';
import { MOCK_CLUSTER_SESSION, readTopic, startServiceChild, uniqueName, type RemoteBrokerGate, type TopicMessage } from '@trustmesh/platform-testing';

import { SHIELD_ANALYZER_MIGRATIONS } from '../../src/persistence/shield-analyzer.migrations';
import { SHIELD_CASES_TOPIC } from '../../src/persistence/shield-case.stream';
import { OPERATOR_CREDENTIALS } from './shield-app.fixture';
import { grpcClient, mcpClient, restClient, type RestCall, type ShieldGrpcApi, type ShieldMcpSession } from './shield-clients';

const workspaceRoot = join(__dirname, '../../../..');

/** Where the replicas of one test run: its database, the cluster's brokers and its topic prefix. */
export interface ShieldPlacement {
  readonly database: TestPostgresDatabase;
  readonly brokers: readonly string[];
  readonly topicPrefix: string;
  /** Every message of `shield.cases.v1` (under the prefix) once it holds `minMessages`. */
  readTopic(minMessages: number): Promise<TopicMessage[]>;
  /** SQL on the database, as an operator's psql would (read models, event log). */
  query<Row>(sql: string, params?: unknown[]): Promise<Row[]>;
  dispose(): Promise<void>;
}

export async function createShieldPlacement(brokers: readonly string[], label: string): Promise<ShieldPlacement> {
  const database = await createTestPostgresDatabase(label);
  await deployMigrations({ mode: 'server', url: database.url }, [EVENT_STORE_MIGRATIONS, PROJECTION_MIGRATIONS, SHIELD_ANALYZER_MIGRATIONS]);
  const topicPrefix = `${uniqueName('shield')}.`;
  return {
    database,
    brokers,
    topicPrefix,
    readTopic: (minMessages) => readTopic([...brokers], `${topicPrefix}${SHIELD_CASES_TOPIC}`, { minMessages, timeoutMs: 60_000 }),
    // A session per query: an outage test ends every session of the database, and this must outlive it.
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

export interface ShieldChild {
  readonly replicaId: string;
  readonly httpUrl: string;
  readonly grpcAddress: string;
  readonly operatorUrl: string;
  readonly rest: RestCall;
  readonly grpc: ShieldGrpcApi;
  /** Every log line the replica wrote. */
  readonly logs: string[];
  readonly brokerGate: RemoteBrokerGate;
  /** An MCP session as the agent holding `agentToken`; closed with the replica. */
  mcp(agentToken: string): Promise<ShieldMcpSession>;
  stderr(): string;
  /** SIGKILL: a crash, nothing flushed. */
  kill(): Promise<void>;
  /** SIGTERM: a graceful shutdown. */
  stop(): Promise<void>;
}

/** Starts one replica on `placement`; `env` adds to (and overrides) its environment. */
export async function startShieldChild(placement: ShieldPlacement, replicaId: string, env: Record<string, string> = {}): Promise<ShieldChild> {
  const logs: string[] = [];
  const child = await startServiceChild<{ httpUrl: string; grpcAddress: string; operatorUrl: string }>(join(__dirname, 'shield.process.ts'), {
    workspaceRoot,
    env: {
      DATABASE_URL: placement.database.url,
      TRUSTMESH_BUS: 'kafka',
      KAFKA_BROKERS: placement.brokers.join(','),
      ...MOCK_CLUSTER_SESSION,
      TRUSTMESH_TOPIC_PREFIX: placement.topicPrefix,
      SHIELD_REPLICA_ID: replicaId,
      SHIELD_OPERATOR_CREDENTIALS: OPERATOR_CREDENTIALS,
      SHIELD_HTTP_HOST: '127.0.0.1',
      SHIELD_HTTP_PORT: '0',
      SHIELD_GRPC_HOST: '127.0.0.1',
      SHIELD_GRPC_PORT: '0',
      SHIELD_OPERATOR_PORT: '0',
      SHIELD_MODEL_PROVIDER: 'none',
      LOG_LEVEL: 'debug',
      ...env,
    },
    onStderrLine: (line) => logs.push(line),
  });
  const { httpUrl, grpcAddress, operatorUrl } = child.ready;
  const grpc = grpcClient(grpcAddress);
  const sessions: ShieldMcpSession[] = [];
  const release = async () => {
    grpc.close();
    await Promise.all(sessions.splice(0).map((session) => session.close().catch(() => undefined)));
  };
  return {
    replicaId,
    httpUrl,
    grpcAddress,
    operatorUrl,
    rest: restClient(httpUrl),
    grpc,
    logs,
    brokerGate: child.brokerGate,
    async mcp(agentToken) {
      const session = await mcpClient(httpUrl, agentToken);
      sessions.push(session);
      return session;
    },
    stderr: child.stderr,
    async kill() {
      await child.kill();
      await release();
    },
    async stop() {
      await release();
      await child.stop();
    },
  };
}
