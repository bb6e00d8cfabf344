import { domainToASCII } from 'node:url';

import fc from 'fast-check';

import { punycodeDecode, punycodeEncode } from './punycode.codec';

describe('punycode', () => {
  it.each([
    ['münchen', 'mnchen-3ya'],
    ['bücher', 'bcher-kva'],
    ['пример', 'e1afmkfd'],
    ['аpple', 'pple-43d'],
    ['他们为什么不说中文', 'ihqwcrb4cv8a8dqg056pqjye'],
    ['abc', 'abc-'],
  ])('encodes %s as %s and back', (unicode, encoded) => {
    expect(punycodeEncode(unicode)).toBe(encoded);
    expect(punycodeDecode(encoded)).toBe(unicode);
  });

  it('refuses malformed input instead of throwing', () => {
    expect(punycodeDecode('abc-!')).toBeNull();
    expect(punycodeDecode('99999999999999999')).toBeNull();
    expect(punycodeDecode('ü-abc')).toBeNull();
  });

  it('agrees with Node for lowercase labels', () => {
    const label = fc.stringMatching(/^[a-zäöüßéàçñøåæœ\u0430-\u044f\u03b1-\u03c9]{1,20}$/);
    fc.assert(
      fc.property(label, (text) => {
        const node = domainToASCII(`${text}.com`);
        fc.pre(node !== '' && node.split('.')[0] !== text.normalize('NFC'));
        const ours = punycodeEncode(text);
        const expected = node.split('.')[0] ?? '';
        if (expected.startsWith('xn--')) expect(`xn--${ours}`).toBe(expected);
        expect(punycodeDecode(ours ?? '')).toBe(text);
      }),
      { numRuns: 200 },
    );
  });
});
