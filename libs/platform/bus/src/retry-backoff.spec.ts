import { pause, retryDelayMs } from './retry-backoff';

describe('retry backoff', () => {
  it('doubles from the base after each failed try, up to the cap', () => {
    expect([1, 2, 3, 4, 5].map((attempt) => retryDelayMs(attempt, 200, 1_000))).toEqual([200, 400, 800, 1_000, 1_000]);
    expect(retryDelayMs(1, 0, 1_000)).toBe(0);
  });

  // No clock in the assertions: a wait that failed to end early would outlast the test's timeout instead.
  const LONGER_THAN_THE_TEST = 600_000;

  it('pauses for the delay, or until the signal aborts', async () => {
    expect(await pause(20, new AbortController().signal)).toBe(true);
    const stop = new AbortController();
    setTimeout(() => stop.abort(), 20);
    expect(await pause(LONGER_THAN_THE_TEST, stop.signal)).toBe(false);
    expect(await pause(LONGER_THAN_THE_TEST, stop.signal)).toBe(false);
  });
});
