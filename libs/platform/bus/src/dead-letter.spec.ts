/** Dead-letter headers and failure codes, shared by both adapters: stable codes, never error text. */
import { deadLetterHeaders, failureCode } from './dead-letter';
import { DLQ_HEADERS } from './event-bus.port';

describe('dead letters', () => {
  it("use a thrown error's own stable code, and HANDLER_FAILED for anything else", () => {
    expect(failureCode(Object.assign(new Error('x'), { code: 'UPCAST_FROM_THE_FUTURE' }))).toBe('UPCAST_FROM_THE_FUTURE');
    expect(failureCode(Object.assign(new Error('x'), { code: 'ECONNRESET: secret host' }))).toBe('HANDLER_FAILED');
    expect(failureCode(Object.assign(new Error('x'), { code: 42 }))).toBe('HANDLER_FAILED');
    expect(failureCode(new Error('UPCAST_FROM_THE_FUTURE'))).toBe('HANDLER_FAILED');
    expect(failureCode('a string')).toBe('HANDLER_FAILED');
    expect(failureCode(null)).toBe('HANDLER_FAILED');
  });

  it('keep the original headers and add the origin, the tries and the code', () => {
    const headers = deadLetterHeaders(
      { 'event-type': 'DevicePaired', [DLQ_HEADERS.errorCode]: 'FORGED' },
      { topic: 'staging.relay.workspace-frames.v1', partition: 3, offset: '9007199254740993', attempts: 5, code: 'HANDLER_FAILED' },
    );
    expect(headers).toEqual({
      'event-type': 'DevicePaired',
      [DLQ_HEADERS.originTopic]: 'staging.relay.workspace-frames.v1',
      [DLQ_HEADERS.originPartition]: '3',
      [DLQ_HEADERS.originOffset]: '9007199254740993',
      [DLQ_HEADERS.attempts]: '5',
      [DLQ_HEADERS.errorCode]: 'HANDLER_FAILED',
    });
  });
});
