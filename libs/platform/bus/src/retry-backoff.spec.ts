import { pause, retryDelayMs, waitAlive } from './retry-backoff';

describe('retry backoff', () => {
  it('doubles from the base after each failed try, up to the cap', () => {
    expect([1, 2, 3, 4, 5].map((attempt) => retryDelayMs(attempt, 200, 1_000))).toEqual([200, 400, 800, 1_000, 1_000]);
    expect(retryDelayMs(1, 0, 1_000)).toBe(0);
  });

  // No clock in the assertions: a wait that failed to end early would outlast the test's timeout instead.
  const LONGER_THAN_THE_TEST = 600_000;

  it('heartbeats while it waits, and ends early when waiting is pointless', async () => {
    let beats = 0;
    const heartbeat = async () => {
      beats += 1;
    };
    expect(await waitAlive(30, { heartbeat, heartbeatEveryMs: 20, abandoned: () => false, signal: new AbortController().signal })).toBe(true);
    // It keeps heartbeating for as long as it waits: here, until the third beat makes the wait pointless.
    beats = 0;
    expect(await waitAlive(LONGER_THAN_THE_TEST, { heartbeat, heartbeatEveryMs: 20, abandoned: () => beats >= 3, signal: new AbortController().signal })).toBe(false);
    expect(beats).toBe(3);

    const stop = new AbortController();
    setTimeout(() => stop.abort(), 30);
    expect(await waitAlive(LONGER_THAN_THE_TEST, { heartbeat, heartbeatEveryMs: 5_000, abandoned: () => false, signal: stop.signal })).toBe(false);

    expect(await waitAlive(LONGER_THAN_THE_TEST, { heartbeat, heartbeatEveryMs: 20, abandoned: () => true, signal: new AbortController().signal })).toBe(false);
  });

  it('pauses for the delay, or until the signal aborts', async () => {
    expect(await pause(20, new AbortController().signal)).toBe(true);
    const stop = new AbortController();
    setTimeout(() => stop.abort(), 20);
    expect(await pause(LONGER_THAN_THE_TEST, stop.signal)).toBe(false);
    expect(await pause(LONGER_THAN_THE_TEST, stop.signal)).toBe(false);
  });
});
