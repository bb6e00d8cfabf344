import { parseSamples, sumOf } from './prometheus-text';

const EXPOSITION = [
  '# HELP relay_frames_total Frames handled, by type and direction.',
  '# TYPE relay_frames_total counter',
  'relay_frames_total{direction="outbound",type="turn.delta"} 120',
  'relay_frames_total{direction="inbound",type="turn.start"} 7',
  'relay_frames_total{direction="outbound",type="quote\\"d"} 3 1733300000000',
  'relay_connections{socket="browser"} 2',
  'relay_connections{socket="companion"} 1',
  'relay_connections_opened_total{socket="browser"} 40',
  'relay_connections{socket="broken" 9',
  'relay_connections{socket="companion"} not-a-number',
  'shield_consultations_total 5e1',
].join('\n');

describe('prometheus text samples', () => {
  it('reads the families asked for, with labels and escapes, and sums them', () => {
    const samples = parseSamples(EXPOSITION, new Set(['relay_frames_total', 'relay_connections', 'shield_consultations_total']));
    expect(samples).toHaveLength(6);
    expect(samples[2]).toEqual({ name: 'relay_frames_total', labels: { direction: 'outbound', type: 'quote"d' }, value: 3 });
    expect(sumOf(samples, 'relay_frames_total', { direction: 'outbound' })).toBe(123);
    expect(sumOf(samples, 'relay_connections')).toBe(3);
    expect(sumOf(samples, 'shield_consultations_total')).toBe(50);
    // A family prefix is not the family; a missing family is null, not 0.
    expect(sumOf(samples, 'relay_connections_opened_total')).toBeNull();
  });

  it('keeps at most maxSamples, whatever the exporter sends', () => {
    const flood = Array.from({ length: 50_000 }, (_, index) => `relay_connections{socket="s${index}"} 1`).join('\n');
    expect(parseSamples(flood, new Set(['relay_connections']), 100)).toHaveLength(100);
  });
});
