import { parseRfc3339 } from './rfc3339.timestamp';

describe('parseRfc3339 (strict before Date.parse, CARDS.md §3.7)', () => {
  it.each([
    ['2026-01-01T00:00:00Z', Date.UTC(2026, 0, 1)],
    ['2026-01-01T01:00:00+01:00', Date.UTC(2026, 0, 1)],
    ['2026-01-01T00:00:00.123456789Z', Date.UTC(2026, 0, 1) + 123],
    ['2024-02-29T00:00:00Z', Date.UTC(2024, 1, 29)],
    ['2026-12-31T23:59:60Z', Date.UTC(2026, 11, 31, 23, 59, 59)],
  ])('reads %s as an instant', (text, instant) => {
    expect(parseRfc3339(text)).toBe(instant);
  });

  it.each(['2026-01-01', '2026-01-01T00:00:00', '2026-01-01T00:00Z', '2023-02-29T00:00:00Z', '2026-04-31T00:00:00Z', '2026-01-01T24:00:00Z', '2026-01-01T00:00:00+24:00', '2026-1-01T00:00:00Z', ' 2026-01-01T00:00:00Z', '+002026-01-01T00:00:00Z'])(
    'refuses %s',
    (text) => {
      expect(parseRfc3339(text)).toBeUndefined();
    },
  );
});
