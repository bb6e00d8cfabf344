import { normalizeText } from './text.normalizer';
import { findTimeMention, findWindowDays } from './time.parser';

const NOW = Date.parse('2026-12-01T12:00:00.000Z');
const mention = (text: string) => findTimeMention(normalizeText(text).text, NOW);

describe('time parser', () => {
  it('reads policy windows in four languages', () => {
    expect(findWindowDays(normalizeText('Refunds within 30 days of delivery').text)).toBe(30);
    expect(findWindowDays(normalizeText('Erstattungen innerhalb von 14 Tagen').text)).toBe(14);
    expect(findWindowDays(normalizeText('dentro de los 2 meses').text)).toBe(60);
    expect(findWindowDays(normalizeText('dans les 4 semaines').text)).toBe(28);
  });

  it('counts elapsed days to the case time, never the clock', () => {
    expect(mention('I bought it 45 days ago')?.daysAgo).toBe(45);
    expect(mention('gekauft vor 3 Wochen')?.daysAgo).toBe(21);
    expect(mention('lo compré hace 2 meses')?.daysAgo).toBe(60);
    expect(mention("acheté il y a 10 jours")?.daysAgo).toBe(10);
  });

  it('reads calendar dates', () => {
    expect(mention('delivered on 2026-11-01')?.daysAgo).toBe(30);
    expect(mention('am 01.11.2026 geliefert')?.day).toBe('2026-11-01');
    expect(mention('bought on 3 March')?.day).toBe('2026-03-03');
    expect(mention('le 15 décembre')?.day).toBe('2025-12-15');
  });
});
