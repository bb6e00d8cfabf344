import { findAmounts, formatAmount, parseNumber } from './amount.parser';
import { normalizeText } from './text.normalizer';

const amounts = (text: string) => findAmounts(normalizeText(text).text).map((a) => [a.value, a.currency]);

describe('amount parser', () => {
  it('reads European and US formats', () => {
    expect(amounts('Betrag: 1.234,56 €')).toEqual([[1234.56, 'eur']]);
    expect(amounts('pay $1,234.56 now')).toEqual([[1234.56, 'usd']]);
    expect(amounts('EUR 500 and 300 euros')).toEqual([
      [500, 'eur'],
      [300, 'eur'],
    ]);
    expect(amounts('£2 500')).toEqual([[2500, 'gbp']]);
  });

  it('reads scales', () => {
    expect(amounts('wire 48k today')).toEqual([[48_000, undefined]]);
    expect(amounts('2,5 Mio. EUR')).toEqual([[2_500_000, 'eur']]);
  });

  it('ignores bare numbers: order ids, years, days', () => {
    expect(amounts('order 4471 from 2026, 30 days')).toEqual([]);
  });

  it('parses separators by position', () => {
    expect(parseNumber('12.500,00')).toBe(12500);
    expect(parseNumber('12,500')).toBe(12500);
    expect(parseNumber('2,5')).toBe(2.5);
  });

  it('formats for claims', () => {
    expect(formatAmount({ value: 18400, currency: 'eur', start: 0, end: 0 })).toBe('18,400 EUR');
    expect(formatAmount({ value: 35.9, currency: 'usd', start: 0, end: 0 })).toBe('35.90 USD');
  });
});
