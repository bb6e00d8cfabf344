import { challengeText, createChallengeToken } from './challenge-token';
import type { DidWebChallengeVerifier } from './did-web.proof';
import { checkProof } from './proof.checker';

describe('did:web proof', () => {
  const token = createChallengeToken();
  const now = () => new Date('2026-12-03T08:00:00Z');

  it('asks the verifier about did:web:<domain> and the challenge text', async () => {
    const seen: { did: string; challenge: string }[] = [];
    const verifier: DidWebChallengeVerifier = async (request) => {
      seen.push(request);
      return { valid: true, kid: 'did:web:acme.com#k1' };
    };
    expect(await checkProof('did-web', 'acme.com', token, { didWebVerifier: verifier, now })).toEqual({
      ok: true,
      method: 'did-web',
      checkedAt: '2026-12-03T08:00:00.000Z',
      grantsSubdomains: false,
    });
    expect(seen).toEqual([{ did: 'did:web:acme.com', challenge: challengeText(token) }]);
  });

  it('maps an invalid signature and an unreachable DID document to distinct codes', async () => {
    const invalid: DidWebChallengeVerifier = async () => ({ valid: false, reason: 'invalid', message: 'the signature does not verify' });
    const unavailable: DidWebChallengeVerifier = async () => ({ valid: false, reason: 'unavailable', message: 'did.json could not be fetched' });
    expect(await checkProof('did-web', 'acme.com', token, { didWebVerifier: invalid })).toMatchObject({ ok: false, code: 'OWNERSHIP_DID_SIGNATURE_INVALID' });
    expect(await checkProof('did-web', 'acme.com', token, { didWebVerifier: unavailable })).toMatchObject({ ok: false, code: 'OWNERSHIP_DID_UNAVAILABLE' });
  });

  it('treats a verifier that throws as unavailable and hides its error text', async () => {
    const throwing: DidWebChallengeVerifier = async () => {
      throw new Error('secret stack detail');
    };
    const outcome = await checkProof('did-web', 'acme.com', token, { didWebVerifier: throwing });
    expect(outcome).toMatchObject({ ok: false, code: 'OWNERSHIP_DID_UNAVAILABLE' });
    if (!outcome.ok) expect(outcome.message).not.toContain('secret');
  });

  it('is unavailable when no verifier is configured', async () => {
    expect(await checkProof('did-web', 'acme.com', token)).toMatchObject({ ok: false, code: 'OWNERSHIP_METHOD_UNAVAILABLE' });
  });
});
