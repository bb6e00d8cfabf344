/**
 * The levels kafkajs' lines reach the bus's logger at, for the exact lines kafkajs 2.2 writes: what a group's
 * normal life produces (rebalances, re-joins, handled error responses, restarts) stays below error, a lost
 * connection kafkajs retries is a warning, and what nobody handles keeps its level. The rebalance it models is
 * exercised on a real cluster in kafka-event-bus.spec.ts, an outage in platform-projections'
 * broker-outage.spec.ts.
 *
 * Then how an outage reads: the first line of a kind, its repeats collapsed with a count, one line when the
 * cluster answers again; on a clock the test moves.
 */
import { logLevel, type LogEntry } from 'kafkajs';

import { recordingLogger, type RecordingLogger } from '../test/bus-events';
import { kafkaClientLog, kafkaLineLevel, type KafkaClientLog } from './kafka-log';

function entry(namespace: string, level: logLevel, message: string, extra: Record<string, unknown> = {}): LogEntry {
  return { namespace, level, label: logLevel[level], log: { timestamp: new Date().toISOString(), logger: 'kafkajs', message, ...extra } };
}

function line(namespace: string, level: logLevel, message: string, extra: Record<string, unknown> = {}) {
  const logger = recordingLogger();
  kafkaClientLog(logger).logCreator(logLevel.DEBUG)(entry(namespace, level, message, extra));
  return logger.lines[0];
}

/** A client log on a clock the test moves (`at`, in ms), and what it wrote. */
function clientLog(options: { maxKeys?: number } = {}) {
  const logger: RecordingLogger = recordingLogger();
  let now = 1_000_000;
  const log: KafkaClientLog = kafkaClientLog(logger, { now: () => now, ...options });
  const write = log.logCreator(logLevel.DEBUG);
  return {
    lines: logger.lines,
    at(ms: number) {
      now = 1_000_000 + ms;
    },
    write: (namespace: string, level: logLevel, message: string, extra: Record<string, unknown> = {}) => write(entry(namespace, level, message, extra)),
    answered: () => log.answered(),
  };
}

const BROKER = '127.0.0.1:40123';
/** What kafkajs' connection layer writes for each refused connection (network/connection.js). */
function refused(log: ReturnType<typeof clientLog>, broker = BROKER) {
  log.write('Connection', logLevel.ERROR, `Connection error: connect ECONNREFUSED ${broker}`, { broker, clientId: 'app', stack: 'Error: connect ECONNREFUSED\n    at internal' });
}

describe('kafkajs lines', () => {
  it('log the handled error responses of a rebalance at debug', () => {
    for (const request of ['Heartbeat(key: 12, version: 3)', 'OffsetCommit(key: 8, version: 5)', 'SyncGroup(key: 14, version: 3)']) {
      expect(line('Connection', logLevel.ERROR, `Response ${request}`, { error: 'The coordinator is not aware of this member', correlationId: 7, size: 10 })).toMatchObject({
        level: 'debug',
        message: `kafkajs Connection: Response ${request}`,
      });
    }
  });

  it('log rebalances, re-joins and the restarts they cause at info', () => {
    expect(line('Runner', logLevel.ERROR, 'The coordinator is not aware of this member, re-joining the group', { groupId: 'g', memberId: 'm', error: 'The coordinator is not aware of this member' })?.level).toBe('info');
    expect(line('Runner', logLevel.WARN, 'The group is rebalancing, re-joining', { groupId: 'g', error: 'The group is rebalancing, so a rejoin is needed' })?.level).toBe('info');
    expect(line('Consumer', logLevel.ERROR, 'Crash: KafkaJSProtocolError: The group is rebalancing, so a rejoin is needed', { groupId: 'g', retryCount: 0 })?.level).toBe('info');
    expect(line('Consumer', logLevel.ERROR, 'Crash: KafkaJSProtocolError: Specified group generation id is not valid', { groupId: 'g' })?.level).toBe('info');
    expect(line('Consumer', logLevel.ERROR, 'Restarting the consumer in 300ms', { groupId: 'g', retryTime: 300 })?.level).toBe('info');
    expect(line('Runner', logLevel.ERROR, 'Error when calling eachMessage', { error: 'The group is rebalancing, so a rejoin is needed' })?.level).toBe('info');
  });

  it('keep other crashes visible (warn) and everything nobody handles at error', () => {
    expect(line('Consumer', logLevel.ERROR, 'Crash: KafkaJSNumberOfRetriesExceeded: Connection error: connect ECONNREFUSED 127.0.0.1:9092', { groupId: 'g' })?.level).toBe('warn');
    expect(line('Consumer', logLevel.ERROR, 'Offset out of range, resetting to default offset', { topic: 't', partition: 0 })?.level).toBe('error');
    expect(kafkaLineLevel('Connection', 'error', 'SASL PLAIN authentication failed: Authentication failed')).toBe('error');
    expect(kafkaLineLevel('Producer', 'error', 'KafkaJSNumberOfRetriesExceeded: Connection error: connect ECONNREFUSED 127.0.0.1:9092')).toBe('error');
    expect(kafkaLineLevel('Producer', 'error', 'Failed to send messages')).toBe('error');
    expect(kafkaLineLevel('Connection', 'info', 'Response Metadata')).toBe('info');
  });

  it('log a lost or refused connection that kafkajs retries as a warning', () => {
    expect(line('Connection', logLevel.ERROR, 'Connection error: connect ECONNREFUSED 127.0.0.1:9092', { broker: '127.0.0.1:9092' })?.level).toBe('warn');
    expect(line('Connection', logLevel.ERROR, 'Connection error: read ECONNRESET', { broker: '127.0.0.1:9092' })?.level).toBe('warn');
    expect(line('Connection', logLevel.ERROR, 'Connection timeout', { broker: '127.0.0.1:9092' })?.level).toBe('warn');
    expect(line('BrokerPool', logLevel.ERROR, 'Failed to connect to seed broker, trying another broker from the list: Connection error: connect ECONNREFUSED 127.0.0.1:9092', { retryCount: 0, retryTime: 300 })?.level).toBe('warn');
    expect(line('BrokerPool', logLevel.ERROR, 'Failed to connect to broker, reconnecting', { retryCount: 1, retryTime: 600 })?.level).toBe('warn');
    expect(line('Producer', logLevel.ERROR, 'Failed to send messages: Closed connection', { retryCount: 2, retryTime: 900 })?.level).toBe('warn');
  });

  it('keep only the safe fields', () => {
    expect(line('Connection', logLevel.ERROR, 'Response Heartbeat(key: 12, version: 3)', { correlationId: 3, payload: 'secret', request: { body: 'x' } })?.fields).toEqual({ correlationId: 3 });
  });

  it('never carry a SASL password or a message payload, whatever kafkajs attaches', () => {
    const sasl = { mechanism: 'plain', username: 'svc', password: 'hunter2-secret' };
    const written = line('Connection', logLevel.ERROR, 'SASL PLAIN authentication failed: Authentication failed', {
      broker: BROKER,
      sasl,
      authenticationProvider: sasl,
      messages: [{ value: 'payload-bytes' }],
      request: { apiKey: 0, body: 'payload-bytes' },
    });
    expect(written).toEqual({ level: 'error', message: 'kafkajs Connection: SASL PLAIN authentication failed: Authentication failed', fields: { broker: BROKER } });
    expect(JSON.stringify(written)).not.toMatch(/hunter2|payload-bytes|password/);
  });
});

describe('kafkajs lines in an outage', () => {
  it('log the first failure, collapse its repeats and say once when the cluster answers again', () => {
    const log = clientLog();
    // 25 s of refused connections, four a second, then the first publish that succeeds.
    for (let ms = 0; ms < 25_000; ms += 250) {
      log.at(ms);
      refused(log);
    }
    log.at(25_000);
    log.answered();
    log.answered();

    expect(log.lines).toEqual([
      { level: 'warn', message: `kafkajs Connection: Connection error: connect ECONNREFUSED ${BROKER}`, fields: { broker: BROKER, clientId: 'app' } },
      { level: 'info', message: 'kafkajs: the cluster answers again', fields: { failingForMs: 25_000, suppressed: 99 } },
    ]);
  });

  it('log the first failure of the next outage at once', () => {
    const log = clientLog();
    refused(log);
    log.at(1_000);
    log.answered();
    log.at(2_000);
    refused(log);
    refused(log);
    expect(log.lines.map((written) => [written.level, written.fields['suppressed']])).toEqual([
      ['warn', undefined],
      ['info', 0],
      ['warn', undefined],
    ]);
  });

  it('write at most one line per kind per 30 s while the failure lasts, each with the count suppressed since the last', () => {
    const log = clientLog();
    for (let ms = 0; ms <= 65_000; ms += 1_000) {
      log.at(ms);
      refused(log);
    }
    expect(log.lines.map(({ level, fields }) => [level, fields['suppressed'], fields['suppressedForMs']])).toEqual([
      ['warn', undefined, undefined],
      ['warn', 29, 30_000],
      ['warn', 29, 30_000],
    ]);
    expect(log.lines[1]?.message).toBe(`kafkajs Connection: Connection error: connect ECONNREFUSED ${BROKER} (29 more like it suppressed since the last, 30 s ago)`);
    // Still the line's own fields: the count is added, nothing is lost.
    expect(log.lines[1]?.fields).toMatchObject({ broker: BROKER, clientId: 'app' });
  });

  it('tell kinds apart by level, namespace, broker and message shape, not by the numbers in them', () => {
    const log = clientLog();
    refused(log, '127.0.0.1:1001');
    refused(log, '127.0.0.1:1002');
    refused(log, '127.0.0.1:1001');
    for (let retryCount = 0; retryCount < 5; retryCount += 1) {
      log.write('BrokerPool', logLevel.ERROR, `Failed to connect to seed broker, trying another broker from the list: Connection error: connect ECONNREFUSED 127.0.0.1:${1001 + (retryCount % 2)}`, { retryCount, retryTime: 100 * 2 ** retryCount });
    }
    log.write('Connection', logLevel.ERROR, 'Connection timeout', { broker: '127.0.0.1:1001' });
    log.write('Connection', logLevel.ERROR, 'SASL PLAIN authentication failed: Authentication failed', { broker: '127.0.0.1:1001' });
    log.write('Connection', logLevel.ERROR, 'SASL PLAIN authentication failed: Authentication failed', { broker: '127.0.0.1:1001' });
    expect(log.lines.map(({ level, message }) => `${level} ${message}`)).toEqual([
      'warn kafkajs Connection: Connection error: connect ECONNREFUSED 127.0.0.1:1001',
      'warn kafkajs Connection: Connection error: connect ECONNREFUSED 127.0.0.1:1002',
      'warn kafkajs BrokerPool: Failed to connect to seed broker, trying another broker from the list: Connection error: connect ECONNREFUSED 127.0.0.1:1001',
      'warn kafkajs Connection: Connection timeout',
      'error kafkajs Connection: SASL PLAIN authentication failed: Authentication failed',
    ]);
  });

  it('keep a failure the app must act on at error, collapsed too, and not end it by a success', () => {
    const log = clientLog();
    for (let index = 0; index < 10; index += 1) log.write('Connection', logLevel.ERROR, 'SASL SCRAM SHA512 authentication failed: Authentication failed', { broker: BROKER });
    log.answered();
    log.write('Connection', logLevel.ERROR, 'SASL SCRAM SHA512 authentication failed: Authentication failed', { broker: BROKER });
    expect(log.lines.map(({ level }) => level)).toEqual(['error']);
  });

  it('leave a group\'s normal life (rebalances, handled responses) below error and uncollapsed', () => {
    const log = clientLog();
    for (let index = 0; index < 3; index += 1) {
      log.write('Runner', logLevel.WARN, 'The group is rebalancing, re-joining', { groupId: 'g', error: 'The group is rebalancing, so a rejoin is needed' });
      log.write('Connection', logLevel.ERROR, 'Response Heartbeat(key: 12, version: 3)', { error: 'The group is rebalancing, so a rejoin is needed', correlationId: index });
    }
    expect(log.lines.map(({ level }) => level)).toEqual(['info', 'debug', 'info', 'debug', 'info', 'debug']);
  });

  it('say the cluster is back at most once per 30 s, so one broker down among answering ones stays quiet', () => {
    const log = clientLog();
    // For a minute, the one broker refuses every connection while the others answer every operation.
    for (let ms = 0; ms < 60_000; ms += 500) {
      log.at(ms);
      refused(log, '127.0.0.1:1003');
      log.answered();
    }
    expect(log.lines.length).toBeLessThanOrEqual(6);
    expect(log.lines.filter(({ message }) => message === 'kafkajs: the cluster answers again')).toHaveLength(2);
  });

  it('keep at most maxKeys kinds, reporting the count of a kind it forgets', () => {
    const log = clientLog({ maxKeys: 4 });
    log.write('Connection', logLevel.ERROR, 'Broker said: alpha', { broker: BROKER });
    log.write('Connection', logLevel.ERROR, 'Broker said: alpha', { broker: BROKER });
    log.write('Connection', logLevel.ERROR, 'Broker said: alpha', { broker: BROKER });
    // A hostile broker's random texts push it out.
    for (let index = 0; index < 1_000; index += 1) log.write('Connection', logLevel.ERROR, `Broker said: ${index.toString(36).replace(/\d/g, 'x')}${'q'.repeat(index % 7)}`, { broker: BROKER });
    const alpha = log.lines.filter(({ message }) => message.includes('alpha'));
    expect(alpha.map(({ fields }) => fields['suppressed'])).toEqual([undefined, 1]);
    // Forgotten: it is a first line again.
    const before = log.lines.length;
    log.write('Connection', logLevel.ERROR, 'Broker said: alpha', { broker: BROKER });
    expect(log.lines.slice(before).map(({ message }) => message)).toEqual(['kafkajs Connection: Broker said: alpha']);
  });

  it('write nothing when the cluster answers and nothing failed', () => {
    const log = clientLog();
    log.answered();
    expect(log.lines).toEqual([]);
  });
});
