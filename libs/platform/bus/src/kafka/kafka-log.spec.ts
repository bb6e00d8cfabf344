/**
 * The levels kafkajs' lines reach the bus's logger at, for the exact lines kafkajs 2.2 writes: what a group's
 * normal life produces (rebalances, re-joins, handled error responses, restarts) stays below error, and what
 * nobody handles keeps its level. The rebalance it models is exercised on a real cluster in
 * kafka-event-bus.spec.ts.
 */
import { logLevel } from 'kafkajs';

import { recordingLogger } from '../test/bus-events';
import { kafkaLineLevel, kafkaLogCreator } from './kafka-log';

function line(namespace: string, level: logLevel, message: string, extra: Record<string, unknown> = {}) {
  const logger = recordingLogger();
  kafkaLogCreator(logger)(logLevel.DEBUG)({ namespace, level, label: 'ERROR', log: { timestamp: new Date().toISOString(), logger: 'kafkajs', message, ...extra } });
  return logger.lines[0];
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
    expect(line('Connection', logLevel.ERROR, 'Connection error: connect ECONNREFUSED 127.0.0.1:9092', { broker: '127.0.0.1:9092' })?.level).toBe('error');
    expect(kafkaLineLevel('Producer', 'error', 'Failed to send messages')).toBe('error');
    expect(kafkaLineLevel('Connection', 'info', 'Response Metadata')).toBe('info');
  });

  it('keep only the safe fields', () => {
    expect(line('Connection', logLevel.ERROR, 'Response Heartbeat(key: 12, version: 3)', { correlationId: 3, payload: 'secret', request: { body: 'x' } })?.fields).toEqual({ correlationId: 3 });
  });
});
