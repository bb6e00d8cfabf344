import { createChallengeToken, isChallengeToken } from './challenge-token';
import { checkProof } from './proof.checker';

describe('checkProof input checks', () => {
  const token = createChallengeToken();
  const neverCalled = async (): Promise<string[][]> => {
    throw new Error('must not be called');
  };

  it.each(['', 'localhost', 'ACME.com', 'acme.com.', 'münchen.de', '10.0.0.1', '-acme.com', 'acme..com'])('refuses the domain %j before any lookup', async (domain) => {
    expect(await checkProof('dns-txt', domain, token, { txtLookup: neverCalled })).toMatchObject({ ok: false, code: 'OWNERSHIP_DOMAIN_INVALID' });
  });

  it.each(['', 'short', `${token}x`, token.replace(/.$/, '=')])('refuses the token %j', async (bad) => {
    expect(await checkProof('dns-txt', 'acme.com', bad, { txtLookup: neverCalled })).toMatchObject({ ok: false, code: 'OWNERSHIP_TOKEN_INVALID' });
  });
});

describe('createChallengeToken', () => {
  it('makes 43-character base64url tokens that differ every time', () => {
    const tokens = new Set(Array.from({ length: 50 }, () => createChallengeToken()));
    expect(tokens.size).toBe(50);
    for (const t of tokens) expect(isChallengeToken(t)).toBe(true);
  });
});
