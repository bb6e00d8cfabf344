import { defaultAdapterLogger, describeError, jsonLineBusLogger } from './bus-log';

describe('bus log lines', () => {
  it('are one JSON object per line, at or above the threshold, named after who logs', () => {
    const lines: string[] = [];
    const logger = jsonLineBusLogger('warn', (line) => void lines.push(line), 'platform-bus.spec');
    logger.log('info', 'below the threshold');
    logger.log('warn', 'kept', { partition: 3 });
    expect(lines).toHaveLength(1);
    expect(lines[0]!.endsWith('\n')).toBe(true);
    // The platform's one line shape (@trustmesh/platform-logging), with the adapter as its component.
    expect(JSON.parse(lines[0]!)).toEqual({ time: expect.any(String), level: 'warn', service: 'platform-bus', replica: expect.any(String), msg: 'kept', component: 'platform-bus.spec', partition: 3 });
  });

  it('name the adapter when an adapter logs without a logger of its own', () => {
    const written: string[] = [];
    const write = jest.spyOn(process.stderr, 'write').mockImplementation((chunk: string | Uint8Array) => {
      written.push(String(chunk));
      return true;
    });
    try {
      defaultAdapterLogger('local').log('info', 'from the local bus');
      defaultAdapterLogger('kafka').log('info', 'from the kafka bus');
    } finally {
      write.mockRestore();
    }
    expect(written.map((line) => (JSON.parse(line) as { component: string }).component)).toEqual(['platform-bus.local', 'platform-bus.kafka']);
  });

  it('describe an error by its class only, unless kafkajs wrote its text', () => {
    expect(describeError(new TypeError('cannot read the secret payload'))).toBe('TypeError');
    const kafkaError = Object.assign(new Error('The group is rebalancing'), { name: 'KafkaJSProtocolError' });
    expect(describeError(kafkaError)).toBe('KafkaJSProtocolError: The group is rebalancing');
    expect(describeError('a string')).toBe('string');
  });
});
