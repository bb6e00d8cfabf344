import { didWebDocument, didWebResolver, generateSigningKey, signDetachedPayload, type TestSigningKey } from '@trustmesh/cards-signatures/testing';

import { challengeText, createChallengeToken } from './challenge-token';
import { didWebChallengeVerifier, OWNERSHIP_JWS_TYP } from './did-web.verifier';
import { checkProof } from './proof.checker';

const DOMAIN = 'acme.com';
const DID = `did:web:${DOMAIN}`;

describe('did:web ownership proof with real signatures', () => {
  const token = createChallengeToken();
  const now = () => new Date('2026-12-03T08:00:00Z');
  let key: TestSigningKey;

  beforeAll(async () => {
    key = await generateSigningKey({ signer: DID, fragment: 'owner' });
  });

  const sign = (text: string, signingKey: TestSigningKey = key, header: Record<string, unknown> = { typ: OWNERSHIP_JWS_TYP }) => signDetachedPayload(new TextEncoder().encode(text), signingKey, header);
  const check = (jws: string, resolver = didWebResolver([didWebDocument(DID, [key])]), checkToken = token) => checkProof('did-web', DOMAIN, checkToken, { didWebVerifier: didWebChallengeVerifier(resolver, jws), now });

  it('accepts the challenge text signed with an assertionMethod key of did:web:<domain>', async () => {
    expect(await check(await sign(challengeText(token)))).toEqual({ ok: true, method: 'did-web', checkedAt: '2026-12-03T08:00:00.000Z', grantsSubdomains: false });
  });

  it('refuses a signature over another token', async () => {
    const outcome = await check(await sign(challengeText(createChallengeToken())));
    expect(outcome).toMatchObject({ ok: false, code: 'OWNERSHIP_DID_SIGNATURE_INVALID' });
    if (!outcome.ok) expect(outcome.message).toContain('SIGNATURE_INVALID');
  });

  it('refuses a key listed only under authentication', async () => {
    const outcome = await check(await sign(challengeText(token)), didWebResolver([didWebDocument(DID, [key], ['authentication'])]));
    expect(outcome).toMatchObject({ ok: false, code: 'OWNERSHIP_DID_SIGNATURE_INVALID' });
    if (!outcome.ok) expect(outcome.message).toContain('KEY_NOT_ASSERTION_METHOD');
  });

  it('refuses a key removed from the DID document', async () => {
    const other = await generateSigningKey({ signer: DID, fragment: 'other' });
    const outcome = await check(await sign(challengeText(token)), didWebResolver([didWebDocument(DID, [other])]));
    expect(outcome).toMatchObject({ ok: false, code: 'OWNERSHIP_DID_SIGNATURE_INVALID' });
    if (!outcome.ok) expect(outcome.message).toContain('KEY_NOT_FOUND');
  });

  it('refuses a wrong or missing typ, so a card signature cannot serve as a proof', async () => {
    for (const header of [{ typ: 'ai-card+jws' }, { typ: undefined }]) {
      const outcome = await check(await sign(challengeText(token), key, header));
      expect(outcome).toMatchObject({ ok: false, code: 'OWNERSHIP_DID_SIGNATURE_INVALID' });
      if (!outcome.ok) expect(outcome.message).toContain('JWS_TYP_MISMATCH');
    }
  });

  it('refuses a key of another domain', async () => {
    const foreign = await generateSigningKey({ signer: 'did:web:evil.com', fragment: 'owner' });
    const resolver = didWebResolver([didWebDocument(DID, [key]), didWebDocument('did:web:evil.com', [foreign])]);
    const outcome = await check(await sign(challengeText(token), foreign), resolver);
    expect(outcome).toMatchObject({ ok: false, code: 'OWNERSHIP_DID_SIGNATURE_INVALID' });
    if (!outcome.ok) expect(outcome.message).toContain('JWS_KID_INVALID');
  });

  it('reports an unreachable DID document as unavailable (retry later), not as a bad signature', async () => {
    expect(await check(await sign(challengeText(token)), didWebResolver([]))).toMatchObject({ ok: false, code: 'OWNERSHIP_DID_UNAVAILABLE' });
  });
});
