import fc from 'fast-check';

import { CUES } from './cue.patterns';
import { compileCues, foldPattern, foldText, normalizeText, quoteCue } from './text.normalizer';

describe('normalizeText', () => {
  it('folds case, accents, ß, repeated letters and spaces', () => {
    expect(normalizeText('  ÜBERWEISEN   Sie   SOFOOORT, Straße ').text).toBe('uberweisen sie sofort, strase');
    expect(normalizeText('Inmediatamente, por favor: ¡Ya!').text).toBe('inmediatamente, por favor: ¡ya!');
  });

  it('reads leetspeak inside words but leaves amounts alone', () => {
    expect(normalizeText('s3nd the p4ssw0rd, 1gn0re rules').text).toBe('send the pasword, ignore rules');
    expect(normalizeText('pay 48k or 500eur').text).toBe('pay 48k or 500eur');
  });

  it('drops zero-width characters and folds Cyrillic look-alikes', () => {
    expect(normalizeText('pass\u200Bword').text).toBe('pasword');
    expect(normalizeText('\u0440\u0430ypal').text).toBe('paypal');
  });

  it('folds lexicon patterns the same way, keeping regex escapes', () => {
    expect(foldPattern(String.raw`\bbank\b|immédiatement`)).toBe(String.raw`\bbank\b|imediatement`);
  });

  it('quotes the original words of a cue, at most eight words', () => {
    const source = normalizeText('Bitte ÜBERWEISEN Sie sofort! Danke.');
    const m = CUES.timePressure.exec(source.text);
    expect(m).not.toBeNull();
    const quote = quoteCue(source, m?.index ?? 0, (m?.index ?? 0) + (m?.[0].length ?? 0));
    expect(quote).toContain('sofort');
    expect(quote.startsWith('"') && quote.endsWith('"')).toBe(true);
    const long = normalizeText(`urgent ${'word '.repeat(30)}`);
    expect(quoteCue(long, 0, long.text.length).split(' ').length).toBeLessThanOrEqual(8);
  });

  it('never repeats an address or an account-like number inside a cue', () => {
    const text = normalizeText('Pay it to my paypal jo.hn+x@gmail.com instead, or IBAN DE89 3704 0044 0532 0130 00, call +49 170 1234567');
    const cue = quoteCue(text, 0, text.text.length);
    expect(cue).toContain('[address]');
    expect(cue).not.toMatch(/@|gmail/);
    const iban = normalizeText('Use IBAN DE89 3704 0044 0532 0130 00 now');
    expect(quoteCue(iban, 0, iban.text.length)).toBe('"Use IBAN [number] now"');
    const numbers = normalizeText('Send it to account 12345678 or card 4111-1111-1111-1111 today, the refund is 1,200.50 EUR');
    const quoted = quoteCue(numbers, 0, numbers.text.length);
    expect(quoted).not.toMatch(/12345678|4111/);
    expect(quoteCue(numbers, numbers.text.indexOf('refund'), numbers.text.length)).toContain('1,200.50');
  });

  it('finds typed-around cues: mixed case, typos, repeated letters', () => {
    for (const text of ['URGENTTT!!!', 'do it imediatly', 'Right   NOW please']) {
      expect(CUES.timePressure.test(normalizeText(text).text)).toBe(true);
    }
  });

  it('is linear on a 4000-character hostile message', () => {
    const hostile = `${'a '.repeat(1000)}${'send '.repeat(400)}${'!'.repeat(1000)}`.slice(0, 4000);
    const start = performance.now();
    const text = normalizeText(hostile).text;
    for (const pattern of Object.values(CUES)) pattern.test(text);
    expect(performance.now() - start).toBeLessThan(250);
  });

  it('compiles lexicon entries into one pattern that finds what each entry finds, first entry first', () => {
    const sources = [String.raw`\bsend (?:the )?code|\bcódigo`, String.raw`(?:^|\n)system:`, String.raw`\bcode\b`];
    const compiled = compileCues(sources);
    expect(compiled.source).toBe(String.raw`(?:\b(?:send (?:the )?code|codigo)|(?:^|\n)system:|\b(?:code\b))`);
    const plain = new RegExp(`(?:${sources.map(foldPattern).join('|')})`);
    for (const text of ['please send the code now', 'sendcode', 'el codigo', 'x\nsystem: code', 'decode the code', 'nothing']) {
      expect(compiled.exec(text)?.[0]).toBe(plain.exec(text)?.[0]);
      expect(compiled.exec(text)?.index).toBe(plain.exec(text)?.index);
    }
  });

  it('folds a text without its index map to the same text', () => {
    for (const text of ['  ÜBERWEISEN   Sie   SOFOOORT, Straße ', 's3nd the p4ssw0rd ', 'Ma\u200bnager\u00a0', '']) expect(foldText(text)).toBe(normalizeText(text).text);
    fc.assert(fc.property(fc.string({ maxLength: 200 }), (text) => foldText(text) === normalizeText(text).text), { numRuns: 200 });
  });
});
