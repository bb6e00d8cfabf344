import { LatencySamples, WorkspaceStamps, classifyFrameText } from './latency-recorder';
import { formatLoadReport, emptyLoadReport } from './load-report';

const W = '0190a5e4-7c1e-7b3a-9f00-5d2c7e8a1b42';

describe('load-mode measurements', () => {
  it('recognises sequenced frames and gaps by their top-level members only', () => {
    expect(classifyFrameText(JSON.stringify({ type: 'runtime.event', workspaceId: W, relaySequence: 42, event: { sequence: 7 } }))).toEqual({ kind: 'sequenced', relaySequence: 42 });
    expect(classifyFrameText(JSON.stringify({ type: 'interaction.resolved', workspaceId: W, relaySequence: 3 }))).toEqual({ kind: 'sequenced', relaySequence: 3 });
    expect(classifyFrameText(JSON.stringify({ type: 'runtime.gap', workspaceId: W, fromRelaySequence: 0, throughRelaySequence: 9 }))).toEqual({ kind: 'gap' });
    expect(classifyFrameText(JSON.stringify({ type: 'runtime.response', requestId: 'r', result: { text: '"relaySequence":5 "type":"runtime.event"' } }))).toEqual({ kind: 'other' });
    expect(classifyFrameText(JSON.stringify({ type: 'runtime.event', relaySequence: 1, event: { delta: '"type":"runtime.gap"' } }))).toEqual({ kind: 'sequenced', relaySequence: 1 });
  });

  it('matches each browser delivery to the latest write of its frame', () => {
    let browsers = 2;
    const stamps = new WorkspaceStamps(() => browsers);
    const frame = JSON.stringify({ type: 'runtime.event', workspaceId: W, relaySequence: 0, event: {} });
    expect(stamps.sent(frame, 100)).toBe(true);
    expect(stamps.received(0, 103)).toBe(3);
    expect(stamps.received(0, 105)).toBe(5);
    expect(stamps.received(0, 106)).toBeNull();
    browsers = 0;
    expect(stamps.sent(JSON.stringify({ type: 'runtime.event', relaySequence: 1 }), 0)).toBe(true);
    expect(stamps.received(1, 5)).toBeNull();
  });

  it('computes nearest-rank percentiles', () => {
    const samples = new LatencySamples();
    for (let i = 1; i <= 100; i += 1) samples.add(i);
    expect(samples.summary()).toEqual({ count: 100, p50: 50, p95: 95, p99: 99, max: 100 });
    expect(new LatencySamples().summary()).toEqual({ count: 0, p50: 0, p95: 0, p99: 0, max: 0 });
  });

  it('prints a report a person can read', () => {
    const text = formatLoadReport({ ...emptyLoadReport(2, 4), durationSeconds: 10, framesDelivered: 1000, deliveredFramesPerSecond: 100 });
    expect(text).toContain('load: 2 companions, 4 browsers, 10.0 s');
    expect(text).toContain('frames delivered   1000 (100.0 frames/s)');
  });
});
