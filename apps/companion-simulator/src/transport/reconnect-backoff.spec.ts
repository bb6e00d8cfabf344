import { ReconnectBackoff, companionReconnectDelay } from './reconnect-backoff';

describe('the Companion reconnect schedule (§11)', () => {
  it('starts at 500 ms and doubles up to 30 s, where it stays', () => {
    expect([1, 2, 3, 4, 5, 6, 7, 8, 50].map(companionReconnectDelay)).toEqual([500, 1000, 2000, 4000, 8000, 16000, 30000, 30000, 30000]);
  });

  it('starts again at 500 ms once a transport opened', () => {
    const backoff = new ReconnectBackoff();
    expect([backoff.nextDelay(), backoff.nextDelay(), backoff.nextDelay()]).toEqual([500, 1000, 2000]);
    backoff.reset();
    expect(backoff.nextDelay()).toBe(500);
  });

  it('continues from a restored attempt count', () => {
    const backoff = new ReconnectBackoff();
    backoff.restore(3);
    expect(backoff.nextDelay()).toBe(4000);
  });

  it('refuses attempt numbers that are not whole numbers from 1', () => {
    expect(() => companionReconnectDelay(0)).toThrow(RangeError);
    expect(() => companionReconnectDelay(1.5)).toThrow(RangeError);
  });
});
