import { digestsEqual, indexOfDigest, looksLikeSecret, matchesAnyDigest, mintSecret, sha256, sha256Hex } from './secrets';

describe('platform credentials', () => {
  it('mints distinct 256-bit secrets, recognised only with their own prefix', () => {
    const code = mintSecret('tmpc_');
    expect(code).toMatch(/^tmpc_[A-Za-z0-9_-]{43}$/);
    expect(mintSecret()).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(looksLikeSecret(code, 'tmpc_')).toBe(true);
    expect(looksLikeSecret(code, 'tmdc_')).toBe(false);
    expect(looksLikeSecret(`${code}x`, 'tmpc_')).toBe(false);
    expect(new Set(Array.from({ length: 100 }, () => mintSecret())).size).toBe(100);
  });

  it('hashes with SHA-256 over UTF-8', () => {
    expect(sha256Hex('abc')).toBe('ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad');
    expect(sha256('é').equals(sha256(Buffer.from('é', 'utf8').toString('utf8')))).toBe(true);
  });

  it('compares digests in constant time, unequal lengths being unequal, and finds the one that matches', () => {
    expect(digestsEqual(sha256('a'), sha256('a'))).toBe(true);
    expect(digestsEqual(sha256('a'), sha256('b'))).toBe(false);
    expect(digestsEqual(sha256('a'), Buffer.alloc(3))).toBe(false);
    expect(matchesAnyDigest(sha256('b'), [sha256('a'), sha256('b')])).toBe(true);
    expect(matchesAnyDigest(sha256('c'), [sha256('a'), sha256('b')])).toBe(false);
    expect(matchesAnyDigest(sha256('c'), [])).toBe(false);
    expect(indexOfDigest(sha256('b'), [sha256('a'), sha256('b'), sha256('b')])).toBe(1);
    expect(indexOfDigest(sha256('c'), [sha256('a')])).toBe(-1);
  });
});
