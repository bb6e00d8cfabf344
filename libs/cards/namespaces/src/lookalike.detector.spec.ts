import { damerauDistance, findLookalikes, lookalikeSkeleton } from './lookalike.detector';

describe('findLookalikes', () => {
  const verified = ['apple.com', 'paypal.com', 'microsoft.com', 'wikipedia.org', 'google.com', 'acmecorp.com', 'acme.com', 'octocat.github.io', 'ibm.com'];

  it.each([
    // homographs: Cyrillic/Greek letters, also given as their xn-- form
    ['аpple.com', 'apple.com', 'homograph'],
    ['xn--pple-43d.com', 'apple.com', 'homograph'],
    ['gοοgle.com', 'google.com', 'homograph'],
    ['pаypаl.com', 'paypal.com', 'homograph'],
    ['micrоsоft.com', 'microsoft.com', 'homograph'],
    ['äpple.com', 'apple.com', 'homograph'],
    ['ｇｏｏｇｌｅ.com', 'google.com', 'homograph'],
    // ASCII confusables
    ['paypa1.com', 'paypal.com', 'confusable'],
    ['rnicrosoft.com', 'microsoft.com', 'confusable'],
    ['vvikipedia.org', 'wikipedia.org', 'confusable'],
    ['g00gle.com', 'google.com', 'confusable'],
    ['paypaI.com', 'paypal.com', 'confusable'],
    // TLD swaps (flagged by decision, see lookalike.detector.ts)
    ['apple.org', 'apple.com', 'tld-swap'],
    ['acme.co.uk', 'acme.com', 'tld-swap'],
    // separators
    ['acme-corp.com', 'acmecorp.com', 'separator'],
    ['ac.me.com', 'acme.com', 'separator'],
    ['wiki-pedia.org', 'wikipedia.org', 'separator'],
    // one edit on the registrable label
    ['gooogle.com', 'google.com', 'edit-distance'],
    ['googel.com', 'google.com', 'edit-distance'],
    ['gogle.com', 'google.com', 'edit-distance'],
    ['microsofy.com', 'microsoft.com', 'edit-distance'],
    ['www.gooogle.com', 'google.com', 'edit-distance'],
    ['octocar.github.io', 'octocat.github.io', 'edit-distance'],
    // the verified domain inside a longer one
    ['acme.com.login.net', 'acme.com', 'embedded-domain'],
    ['paypal.com-secure.net', 'paypal.com', 'embedded-domain'],
  ])('%s imitates %s (%s)', (candidate, namespace, reason) => {
    expect(findLookalikes(candidate, verified)).toContainEqual({ namespace, reason });
  });

  it.each([
    ['apple.com'],
    ['store.apple.com'],
    ['APPLE.COM'],
    ['example.com'],
    ['gitlab.com'],
    ['ibn.com'],
    ['other.github.io'],
    ['not a domain'],
  ])('does not flag %s', (candidate) => {
    expect(findLookalikes(candidate, verified)).toEqual([]);
  });

  it('ignores verified entries that are not domains', () => {
    expect(findLookalikes('acme.com', ['', 'localhost', 'acme.com.'])).toEqual([]);
  });
});

describe('lookalikeSkeleton and damerauDistance', () => {
  it('folds homoglyphs and ASCII tricks to one skeleton', () => {
    expect(lookalikeSkeleton('раураl')).toBe(lookalikeSkeleton('paypal'));
    expect(lookalikeSkeleton('rnodern')).toBe(lookalikeSkeleton('modem'));
  });

  it('counts an adjacent swap as one edit', () => {
    expect(damerauDistance('acme', 'amce')).toBe(1);
    expect(damerauDistance('acme', 'acme')).toBe(0);
    expect(damerauDistance('acme', 'acne')).toBe(1);
    expect(damerauDistance('acme', 'bcmf')).toBe(2);
    expect(damerauDistance('', 'abc')).toBe(3);
  });
});
