import { MetricsRegistry } from './data-plane.metrics';

describe('MetricsRegistry counters', () => {
  it('counts bumps with the same labels in one series, whatever order the labels are given in', async () => {
    const registry = new MetricsRegistry();
    const frames = registry.counter('relay_frames_total', 'Frames.', ['direction', 'type']);
    frames({ type: 'runtime.event', direction: 'inbound' });
    frames({ direction: 'inbound', type: 'runtime.event' }, 2);
    frames({ type: 'runtime.event', direction: 'outbound' });

    expect(registry.value('relay_frames_total', { type: 'runtime.event', direction: 'inbound' })).toBe(3);
    expect(registry.value('relay_frames_total', { type: 'runtime.event', direction: 'outbound' })).toBe(1);
    expect(await registry.render()).toContain('relay_frames_total{direction="inbound",type="runtime.event"} 3\n');
  });

  it('keeps label sets apart that a joined key could confuse', async () => {
    const registry = new MetricsRegistry();
    const counter = registry.counter('c_total', 'C.', ['a', 'ab', 'b']);
    counter({ a: 'b' });
    counter({ a: '', b: '' });
    counter({ ab: '' });
    counter();

    expect(registry.value('c_total', { a: 'b' })).toBe(1);
    expect(registry.value('c_total', { a: '', b: '' })).toBe(1);
    expect(registry.value('c_total', { ab: '' })).toBe(1);
    expect(registry.value('c_total')).toBe(1);
    expect((await registry.render()).split('\n').filter((line) => line.startsWith('c_total'))).toHaveLength(4);
  });
});
