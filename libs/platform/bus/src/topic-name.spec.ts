import { BusError } from './bus.error';
import { serviceTopicName, storedTopicName, subscribedTopicNames } from './topic-name';

describe('topic names', () => {
  it('carry the configured prefix in the log, and lose it again for services', () => {
    expect(storedTopicName('staging.', 'relay.workspace-frames.v1')).toBe('staging.relay.workspace-frames.v1');
    expect(serviceTopicName('staging.', 'staging.relay.workspace-frames.v1')).toBe('relay.workspace-frames.v1');
    expect(storedTopicName('', 'shield.cases.v1')).toBe('shield.cases.v1');
  });

  it('are refused with TOPIC_INVALID when Kafka would refuse them, prefix included', () => {
    for (const [prefix, topic] of [
      ['', ''],
      ['', 'no spaces'],
      ['', '..'],
      ['bad prefix ', 'shield.cases.v1'],
      ['', 'x'.repeat(250)],
    ] as const) {
      expect(() => storedTopicName(prefix, topic)).toThrow(expect.objectContaining({ name: 'BusError', code: 'TOPIC_INVALID' }));
    }
  });

  it('of a subscription are refused when their dead-letter sibling could not exist', () => {
    expect(subscribedTopicNames('p.', ['a.v1', 'b.v1', 'a.v1'])).toEqual(['p.a.v1', 'p.b.v1']);
    const longest = 'x'.repeat(249);
    expect(storedTopicName('', longest)).toBe(longest);
    expect(() => subscribedTopicNames('', [longest])).toThrow(BusError);
    expect(() => subscribedTopicNames('', ['x'.repeat(245)])).not.toThrow();
    expect(() => subscribedTopicNames('', ['x'.repeat(246)])).toThrow(expect.objectContaining({ code: 'TOPIC_INVALID', message: expect.stringContaining('.dlq') }));
  });
});
