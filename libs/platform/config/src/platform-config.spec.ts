import { ConfigError, loadPlatformConfig, topicName } from './platform-config';

const problemsOf = (env: Record<string, string>) => {
  try {
    loadPlatformConfig(env);
  } catch (error) {
    if (error instanceof ConfigError) return error.problems.map((problem) => problem.variable);
    throw error;
  }
  return [];
};

describe('platform configuration', () => {
  it('defaults to the local bus on embedded PGlite', () => {
    expect(loadPlatformConfig({})).toEqual({
      bus: { adapter: 'local', kafka: null, topicPrefix: '', maxAttempts: 5, retryBackoffMs: 200, localPartitions: 1 },
      database: { mode: 'embedded', dataDir: '.data' },
      maintenance: {
        intervalMs: 3_600_000,
        busRetentionMs: 604_800_000,
        busMaxAgeMs: 2_592_000_000,
        outboxRetentionMs: 604_800_000,
        projectionHistoryRetentionMs: 2_592_000_000,
      },
    });
  });

  it('reads the retention settings, and refuses a bus maximum age below the bus retention', () => {
    const config = loadPlatformConfig({ TRUSTMESH_MAINTENANCE_INTERVAL_MS: '60000', TRUSTMESH_BUS_RETENTION_MS: '0', TRUSTMESH_BUS_MAX_AGE_MS: '1000' });
    expect(config.maintenance).toMatchObject({ intervalMs: 60_000, busRetentionMs: 0, busMaxAgeMs: 1_000 });
    expect(problemsOf({ TRUSTMESH_BUS_RETENTION_MS: '2000', TRUSTMESH_BUS_MAX_AGE_MS: '1000' })).toEqual(['TRUSTMESH_BUS_MAX_AGE_MS']);
    expect(problemsOf({ TRUSTMESH_MAINTENANCE_INTERVAL_MS: '10', TRUSTMESH_OUTBOX_RETENTION_MS: '-1', TRUSTMESH_PROJECTION_HISTORY_RETENTION_MS: 'week' })).toEqual([
      'TRUSTMESH_MAINTENANCE_INTERVAL_MS',
      'TRUSTMESH_OUTBOX_RETENTION_MS',
      'TRUSTMESH_PROJECTION_HISTORY_RETENTION_MS',
    ]);
  });

  it('reads a distributed setup', () => {
    const config = loadPlatformConfig({
      TRUSTMESH_BUS: 'kafka',
      KAFKA_BROKERS: 'kafka-0:9092, kafka-1:9092',
      DATABASE_URL: 'postgres://relay:secret@db:5432/relay',
      TRUSTMESH_TOPIC_PREFIX: 'staging.',
      TRUSTMESH_BUS_MAX_ATTEMPTS: '3',
    });
    expect(config.bus.kafka).toEqual({ brokers: ['kafka-0:9092', 'kafka-1:9092'], clientId: 'trustmesh', sessionTimeoutMs: 30_000 });
    expect(loadPlatformConfig({ TRUSTMESH_BUS: 'kafka', KAFKA_BROKERS: 'k:9092', KAFKA_SESSION_TIMEOUT_MS: '6000' }).bus.kafka?.sessionTimeoutMs).toBe(6_000);
    expect(config.database).toEqual({ mode: 'server', url: 'postgres://relay:secret@db:5432/relay' });
    // A server's local bus may have several replicas in a group; an embedded one has one member.
    expect(config.bus.localPartitions).toBe(4);
    expect(loadPlatformConfig({ TRUSTMESH_LOCAL_BUS_PARTITIONS: '8' }).bus.localPartitions).toBe(8);
    expect(topicName(config, 'relay.workspace-frames.v1')).toBe('staging.relay.workspace-frames.v1');
  });

  it('names every bad variable at once', () => {
    expect(
      problemsOf({ TRUSTMESH_BUS: 'rabbit', TRUSTMESH_BUS_MAX_ATTEMPTS: '0', TRUSTMESH_TOPIC_PREFIX: 'Bad Prefix', DATABASE_URL: 'mysql://x' }),
    ).toEqual(['TRUSTMESH_BUS', 'TRUSTMESH_TOPIC_PREFIX', 'DATABASE_URL', 'TRUSTMESH_BUS_MAX_ATTEMPTS']);
    expect(problemsOf({ TRUSTMESH_BUS: 'kafka' })).toEqual(['KAFKA_BROKERS']);
    expect(problemsOf({ TRUSTMESH_BUS: 'kafka', KAFKA_BROKERS: 'localhost, x:99999' })).toEqual(['KAFKA_BROKERS']);
    expect(problemsOf({ TRUSTMESH_BUS_RETRY_BACKOFF_MS: '1.5' })).toEqual(['TRUSTMESH_BUS_RETRY_BACKOFF_MS']);
    // Below the brokers' group.min.session.timeout.ms a join is refused; above their maximum too.
    expect(problemsOf({ TRUSTMESH_BUS: 'kafka', KAFKA_BROKERS: 'k:9092', KAFKA_SESSION_TIMEOUT_MS: '5999' })).toEqual(['KAFKA_SESSION_TIMEOUT_MS']);
    expect(problemsOf({ KAFKA_SESSION_TIMEOUT_MS: '1800001' })).toEqual(['KAFKA_SESSION_TIMEOUT_MS']);
  });

  it('never repeats a database URL, which may hold a password', () => {
    try {
      loadPlatformConfig({ DATABASE_URL: 'mysql://user:hunter2@db/x' });
      throw new Error('expected a ConfigError');
    } catch (error) {
      expect((error as Error).message).toContain('DATABASE_URL');
      expect((error as Error).message).not.toContain('hunter2');
    }
  });
});
