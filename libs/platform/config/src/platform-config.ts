/**
 * Platform configuration: read once at startup from the environment, validated whole, and refused
 * with one message naming every variable at fault, so a bad deployment stops before it serves.
 *
 * | variable | default | meaning |
 * |---|---|---|
 * | `TRUSTMESH_BUS` | `local` | `local` (over the database) or `kafka` |
 * | `KAFKA_BROKERS` | — (required for `kafka`) | comma-separated `host:port` list |
 * | `KAFKA_CLIENT_ID` | `trustmesh` | client id the brokers see |
 * | `KAFKA_SESSION_TIMEOUT_MS` | `30000` | how long a silent consumer-group member keeps its partitions (6000–1800000, the brokers' own bounds by default); heartbeats go at a third of it, at most every 3 s |
 * | `DATABASE_URL` | — | `postgres://…`; without it, embedded PGlite under `TRUSTMESH_DATA_DIR` |
 * | `TRUSTMESH_DATA_DIR` | `.data` | where embedded mode keeps its database |
 * | `TRUSTMESH_TOPIC_PREFIX` | (none) | prefix of every topic name, e.g. `staging.` |
 * | `TRUSTMESH_BUS_MAX_ATTEMPTS` | `5` | tries per message before the DLQ (1–100) |
 * | `TRUSTMESH_BUS_RETRY_BACKOFF_MS` | `200` | first retry delay, doubling per try (0–60000) |
 * | `TRUSTMESH_LOCAL_BUS_PARTITIONS` | `1` embedded, `4` on a server | partitions per new topic on the local bus (1–256); see `LOCAL_PARTITIONS` |
 * | `TRUSTMESH_MAINTENANCE_INTERVAL_MS` | `3600000` (1 h) | how often the maintenance jobs (retention) run, ±10 % (1000–86400000) |
 * | `TRUSTMESH_BUS_RETENTION_MS` | `604800000` (7 days) | local bus: messages every live group consumed are deleted after this |
 * | `TRUSTMESH_BUS_MAX_AGE_MS` | `2592000000` (30 days) | local bus: messages are deleted after this even if a live group has not consumed them (≥ the retention) |
 * | `TRUSTMESH_OUTBOX_RETENTION_MS` | `604800000` (7 days) | published outbox rows are deleted after this (the events stay) |
 * | `TRUSTMESH_PROJECTION_HISTORY_RETENTION_MS` | `2592000000` (30 days) | projections' applied event ids are deleted after this |
 */
import { envReader, type Env } from './env-reader';

export type BusAdapter = 'local' | 'kafka';

export interface PlatformConfig {
  bus: {
    adapter: BusAdapter;
    /** `sessionTimeoutMs` absent means the bus's default (30 s). */
    kafka: { brokers: string[]; clientId: string; sessionTimeoutMs?: number } | null;
    topicPrefix: string;
    maxAttempts: number;
    retryBackoffMs: number;
    localPartitions: number;
  };
  database: { mode: 'embedded'; dataDir: string } | { mode: 'server'; url: string };
  /** The periodic retention jobs (`platform-maintenance`); ages in milliseconds. */
  maintenance: {
    intervalMs: number;
    busRetentionMs: number;
    busMaxAgeMs: number;
    outboxRetentionMs: number;
    projectionHistoryRetentionMs: number;
  };
}

const DAY_MS = 24 * 60 * 60_000;
/**
 * Partitions per new local-bus topic when `TRUSTMESH_LOCAL_BUS_PARTITIONS` is not set. Partitions are how the
 * members of a consumer group share a topic. On a Postgres server several replicas can be members, so a topic
 * has four. An embedded database belongs to one process, so a group there has one member, and that member
 * consumes its partitions one at a time (`partitionsConsumedConcurrently` 1). More partitions would only split
 * its work into more runs, and each run pays for its own checkpoint, offsets and commit on the one database
 * thread: with four, the Shield's read model cost twice the database time per consult (`bench:shield`).
 * A topic keeps the partition count it was created with.
 */
const LOCAL_PARTITIONS = { embedded: 1, server: 4 } as const;
/** Longest age any retention variable accepts (ten years): a bound, not a recommendation. */
const MAX_RETENTION_MS = 3_650 * DAY_MS;

export interface ConfigProblem {
  variable: string;
  message: string;
  /** A stable code for the refusal, where a rule gives one (tests and tools match on it, not on the text). */
  code?: string;
}

export class ConfigError extends Error {
  constructor(readonly problems: readonly ConfigProblem[]) {
    super(`Invalid configuration:\n${problems.map((problem) => `  ${problem.variable}: ${problem.message}${problem.code ? ` [${problem.code}]` : ''}`).join('\n')}`);
    this.name = 'ConfigError';
  }
}


const HOST_PORT = /^[A-Za-z0-9.-]+:\d{1,5}$|^\[[0-9A-Fa-f:]+\]:\d{1,5}$/;
const TOPIC_PREFIX = /^[a-z0-9][a-z0-9._-]{0,63}$/;
const CLIENT_ID = /^[A-Za-z0-9._-]{1,64}$/;

/**
 * The platform configuration for an app that reads variables of its own too: the platform's problems join
 * `problems`, so the app's one `ConfigError` names every bad variable, platform or not. Undefined when any
 * platform variable is bad.
 */
export function collectPlatformConfig(env: Env, problems: ConfigProblem[]): PlatformConfig | undefined {
  try {
    return loadPlatformConfig(env);
  } catch (error) {
    if (!(error instanceof ConfigError)) throw error;
    problems.push(...error.problems);
    return undefined;
  }
}

/** Reads and validates the platform configuration; throws a `ConfigError` naming every bad variable. */
export function loadPlatformConfig(env: Env): PlatformConfig {
  const problems: ConfigProblem[] = [];
  const { fail, value, integer } = envReader(env, problems);

  const adapterRaw = value('TRUSTMESH_BUS') ?? 'local';
  let adapter: BusAdapter = 'local';
  if (adapterRaw === 'local' || adapterRaw === 'kafka') adapter = adapterRaw;
  else fail('TRUSTMESH_BUS', `must be "local" or "kafka" (got ${JSON.stringify(adapterRaw)})`);

  let kafka: PlatformConfig['bus']['kafka'] = null;
  const brokersRaw = value('KAFKA_BROKERS');
  const clientId = value('KAFKA_CLIENT_ID') ?? 'trustmesh';
  if (!CLIENT_ID.test(clientId)) fail('KAFKA_CLIENT_ID', 'must be 1–64 letters, digits, dots, dashes or underscores');
  const sessionTimeoutMs = integer('KAFKA_SESSION_TIMEOUT_MS', 30_000, 6_000, 1_800_000);
  if (adapter === 'kafka') {
    if (brokersRaw === undefined) {
      fail('KAFKA_BROKERS', 'is required when TRUSTMESH_BUS=kafka (a comma-separated list of host:port)');
    } else {
      const brokers = brokersRaw.split(',').map((broker) => broker.trim());
      const bad = brokers.filter((broker) => !HOST_PORT.test(broker) || Number(broker.slice(broker.lastIndexOf(':') + 1)) > 65535);
      if (bad.length > 0) fail('KAFKA_BROKERS', `must be a comma-separated list of host:port (not ${bad.map((b) => JSON.stringify(b)).join(', ')})`);
      else kafka = { brokers, clientId, sessionTimeoutMs };
    }
  }

  const topicPrefix = value('TRUSTMESH_TOPIC_PREFIX') ?? '';
  if (topicPrefix !== '' && !TOPIC_PREFIX.test(topicPrefix)) {
    fail('TRUSTMESH_TOPIC_PREFIX', 'must be lowercase letters, digits, dots, dashes or underscores, starting with a letter or digit');
  }

  let database: PlatformConfig['database'];
  const url = value('DATABASE_URL');
  if (url !== undefined) {
    let parsed: URL | undefined;
    try {
      parsed = new URL(url);
    } catch {
      parsed = undefined;
    }
    // Never echo the URL: it may carry a password.
    if (!parsed || !['postgres:', 'postgresql:'].includes(parsed.protocol)) fail('DATABASE_URL', 'must be a postgres:// or postgresql:// URL');
    database = { mode: 'server', url };
  } else {
    database = { mode: 'embedded', dataDir: value('TRUSTMESH_DATA_DIR') ?? '.data' };
  }

  const config: PlatformConfig = {
    bus: {
      adapter,
      kafka,
      topicPrefix,
      maxAttempts: integer('TRUSTMESH_BUS_MAX_ATTEMPTS', 5, 1, 100),
      retryBackoffMs: integer('TRUSTMESH_BUS_RETRY_BACKOFF_MS', 200, 0, 60_000),
      localPartitions: integer('TRUSTMESH_LOCAL_BUS_PARTITIONS', LOCAL_PARTITIONS[database.mode], 1, 256),
    },
    database,
    maintenance: {
      intervalMs: integer('TRUSTMESH_MAINTENANCE_INTERVAL_MS', 60 * 60_000, 1_000, DAY_MS),
      busRetentionMs: integer('TRUSTMESH_BUS_RETENTION_MS', 7 * DAY_MS, 0, MAX_RETENTION_MS),
      busMaxAgeMs: integer('TRUSTMESH_BUS_MAX_AGE_MS', 30 * DAY_MS, 0, MAX_RETENTION_MS),
      outboxRetentionMs: integer('TRUSTMESH_OUTBOX_RETENTION_MS', 7 * DAY_MS, 0, MAX_RETENTION_MS),
      projectionHistoryRetentionMs: integer('TRUSTMESH_PROJECTION_HISTORY_RETENTION_MS', 30 * DAY_MS, 0, MAX_RETENTION_MS),
    },
  };
  if (config.maintenance.busMaxAgeMs < config.maintenance.busRetentionMs) {
    fail('TRUSTMESH_BUS_MAX_AGE_MS', `must be at least TRUSTMESH_BUS_RETENTION_MS (${config.maintenance.busRetentionMs}): it is the hard bound past the retention`);
  }
  if (problems.length > 0) throw new ConfigError(problems);
  return config;
}

/** The full name of a topic under the configured prefix. */
export function topicName(config: Pick<PlatformConfig, 'bus'>, topic: string): string {
  return `${config.bus.topicPrefix}${topic}`;
}
