import { ManualClock, systemClock } from './clock';

describe('clocks', () => {
  it('ManualClock fires due timers in deadline order inside advance, and cancels', () => {
    const clock = new ManualClock(0);
    const fired: string[] = [];
    clock.setTimer(30, () => fired.push(`b@${clock.now()}`));
    clock.setTimer(10, () => fired.push(`a@${clock.now()}`));
    const cancel = clock.setTimer(20, () => fired.push('cancelled'));
    cancel();
    clock.advance(25);
    expect(fired).toEqual(['a@10']);
    expect(clock.now()).toBe(25);
    clock.advance(5);
    expect(fired).toEqual(['a@10', 'b@30']);
    expect(clock.pendingTimers).toBe(0);
  });

  describe('systemClock', () => {
    beforeEach(() => jest.useFakeTimers({ now: 0 }));
    afterEach(() => jest.useRealTimers());

    it('reaches deadlines beyond the host timer range in hops instead of firing at once', () => {
      const callback = jest.fn();
      systemClock.setTimer(40 * 24 * 3600 * 1000, callback);
      jest.advanceTimersByTime(30 * 24 * 3600 * 1000);
      expect(callback).not.toHaveBeenCalled();
      jest.advanceTimersByTime(10 * 24 * 3600 * 1000);
      expect(callback).toHaveBeenCalledTimes(1);
    });

    it('cancels', () => {
      const callback = jest.fn();
      const cancel = systemClock.setTimer(1000, callback);
      cancel();
      jest.advanceTimersByTime(2000);
      expect(callback).not.toHaveBeenCalled();
    });
  });
});
