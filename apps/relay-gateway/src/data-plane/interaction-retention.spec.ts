import { ByteBudget, relieve } from './byte-budget';
import { InteractionRetention } from './interaction-retention';
import type { LoggedFrame } from './workspace-frame-log';

const HOUR = 3_600_000;
const request = (relaySequence: number, bytes: number, at = 0, expiresAt = Date.parse('2099-01-01T00:00:00Z')): LoggedFrame => ({
  relaySequence,
  text: `request-${relaySequence}`,
  wire: '1.2',
  type: 'interaction.request',
  bytes,
  at,
  interactionId: `i-${relaySequence}`,
  interactionMethod: 'userInput.request',
  expiresAt,
});
const settled = (relaySequence: number, of: number): LoggedFrame => ({ ...request(relaySequence, 10), type: 'interaction.resolved', interactionId: `i-${of}` });
const limits = { maxCount: 1_000, maxBytes: 1_000_000, maxAgeMs: 24 * HOUR };

describe('InteractionRetention', () => {
  it('keeps requests until settled and redelivers them in ascending relaySequence', () => {
    const retention = new InteractionRetention(limits);
    retention.note(request(5, 10));
    retention.note(request(3, 10));
    retention.note(request(7, 10));
    retention.note(settled(8, 5));
    expect(retention.redeliverable(1).live.map((entry) => entry.relaySequence)).toEqual([3, 7]);
    expect(retention.bytes).toBe(20);
  });

  it('bounds a workspace by bytes: 1,000 requests of 641 KiB cannot hold 626 MiB', () => {
    const retention = new InteractionRetention({ ...limits, maxBytes: 16 * 1024 * 1024 });
    let evicted = 0;
    for (let sequence = 0; sequence < 1_000; sequence += 1) evicted += retention.note(request(sequence, 641 * 1024)).evicted;
    expect(retention.bytes).toBeLessThanOrEqual(16 * 1024 * 1024);
    expect(retention.size).toBe(25);
    expect(evicted).toBe(975);
    // The newest are the ones kept.
    expect(retention.redeliverable(1).live[0]?.relaySequence).toBe(975);
  });

  it('keeps no request larger than the workspace bound', () => {
    const retention = new InteractionRetention({ ...limits, maxBytes: 1_000 });
    expect(retention.note(request(0, 2_000))).toEqual({ evicted: 1, clamped: true });
    expect(retention.size).toBe(0);
  });

  it('caps how long a request is kept, whatever its expiresAt, and says so', () => {
    const retention = new InteractionRetention(limits);
    expect(retention.note(request(0, 10, 1_000)).clamped).toBe(true);
    expect(retention.note(request(1, 10, 1_000, 1_000 + HOUR)).clamped).toBe(false);
    expect(retention.expire(1_000 + 2 * HOUR).map((entry) => entry.relaySequence)).toEqual([1]);
    expect(retention.expire(1_000 + 24 * HOUR)).toEqual([]);
    expect(retention.expire(1_001 + 24 * HOUR).map((entry) => entry.relaySequence)).toEqual([0]);
    expect(retention.size).toBe(0);
  });

  it('shares a process budget: the workspace holding the most gives up its oldest first', () => {
    const budget = new ByteBudget(10_000);
    const big = new InteractionRetention(limits, budget);
    const small = new InteractionRetention(limits, budget);
    for (let sequence = 0; sequence < 20; sequence += 1) big.note(request(sequence, 1_000));
    small.note(request(0, 1_000));
    relieve(budget, [big, small]);
    expect(small.size).toBe(1);
    expect(budget.used).toBeLessThanOrEqual(9_000);
    expect(big.redeliverable(1).live[0]?.relaySequence).toBe(12);
    big.clear();
    small.clear();
    expect(budget.used).toBe(0);
  });

  it('counts what a kept request grows by (its 1.1 copy) and gives it back when the request goes', () => {
    const budget = new ByteBudget(1_000_000);
    const retention = new InteractionRetention(limits, budget);
    const kept = request(1, 100);
    retention.note(kept);
    retention.grow(kept, 40);
    kept.bytes += 40;
    // An entry this retention does not keep (settled, or another workspace's) is not counted here.
    retention.grow(request(2, 100), 40);
    expect(retention.bytes).toBe(140);
    expect(budget.used).toBe(140);
    retention.note(settled(3, 1));
    expect(retention.bytes).toBe(0);
    expect(budget.used).toBe(0);
  });
});
