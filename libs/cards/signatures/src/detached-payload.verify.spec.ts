import { didWebDocument, didWebResolver, generateSigningKey, signDetachedPayload, type TestSigningKey } from './testing';
import { verifyDetachedPayloadSignature, type SignatureResult } from './index';

const SIGNER = 'did:web:acme.example';
const TYP = 'example-purpose+jws';
const payload = new TextEncoder().encode('the exact bytes a caller defines');

function codeOf(result: SignatureResult): string {
  return result.verified ? 'VERIFIED' : result.code;
}

describe('verifyDetachedPayloadSignature', () => {
  let key: TestSigningKey;
  let resolver: ReturnType<typeof didWebResolver>;

  beforeAll(async () => {
    key = await generateSigningKey({ signer: SIGNER, fragment: 'k1' });
    resolver = didWebResolver([didWebDocument(SIGNER, [key])]);
  });

  const verify = (jws: unknown, overrides: Partial<Parameters<typeof verifyDetachedPayloadSignature>[1]> = {}) =>
    verifyDetachedPayloadSignature(jws, { payload, typ: TYP, signer: SIGNER, resolver, now: new Date('2026-12-03T08:00:00Z'), ...overrides });

  it('verifies a detached JWS by an assertionMethod key of the did:web signer over exactly these bytes', async () => {
    const jws = await signDetachedPayload(payload, key, { typ: TYP });
    expect(await verify(jws)).toEqual({ verified: true, signer: SIGNER, kid: `${SIGNER}#k1`, alg: 'ES256', verifiedAt: '2026-12-03T08:00:00.000Z' });
  });

  it('refuses other bytes, another typ, no typ, and a signer other than the one required', async () => {
    const jws = await signDetachedPayload(payload, key, { typ: TYP });
    expect(codeOf(await verify(jws, { payload: new TextEncoder().encode('other bytes') }))).toBe('SIGNATURE_INVALID');
    expect(codeOf(await verify(await signDetachedPayload(payload, key, { typ: 'ai-card+jws' })))).toBe('JWS_TYP_MISMATCH');
    expect(codeOf(await verify(await signDetachedPayload(payload, key)))).toBe('JWS_TYP_MISMATCH');
    expect(codeOf(await verify(jws, { signer: 'did:web:other.example' }))).toBe('JWS_KID_INVALID');
    expect(codeOf(await verify(jws, { signer: 'https://acme.example' }))).toBe('SIGNER_NOT_DID_WEB');
  });

  it('keeps the shared header and key rules: forbidden jwk, EdDSA only when allowed, authentication-only keys', async () => {
    expect(codeOf(await verify(await signDetachedPayload(payload, key, { typ: TYP, jwk: key.publicJwk })))).toBe('JWS_HEADER_FORBIDDEN');
    const edKey = await generateSigningKey({ alg: 'EdDSA', signer: SIGNER, fragment: 'ed' });
    const edResolver = didWebResolver([didWebDocument(SIGNER, [edKey])]);
    const edJws = await signDetachedPayload(payload, edKey, { typ: TYP });
    expect(codeOf(await verify(edJws, { resolver: edResolver }))).toBe('JWS_ALG_NOT_ALLOWED_BY_PROFILE');
    expect(codeOf(await verify(edJws, { resolver: edResolver, algs: ['ES256', 'EdDSA'] }))).toBe('VERIFIED');
    const authOnly = didWebResolver([didWebDocument(SIGNER, [key], ['authentication'])]);
    expect(codeOf(await verify(await signDetachedPayload(payload, key, { typ: TYP }), { resolver: authOnly }))).toBe('KEY_NOT_ASSERTION_METHOD');
  });

  it('still checks the current DID document for a key it has verified with before (imported keys are memoised, not trusted)', async () => {
    const jws = await signDetachedPayload(payload, key, { typ: TYP });
    expect(codeOf(await verify(jws))).toBe('VERIFIED');
    const rotated = await generateSigningKey({ signer: SIGNER, fragment: 'k2' });
    expect(codeOf(await verify(jws, { resolver: didWebResolver([didWebDocument(SIGNER, [rotated])]) }))).toBe('KEY_NOT_FOUND');
    expect(codeOf(await verify(jws, { resolver: didWebResolver([didWebDocument(SIGNER, [key], ['authentication'])]) }))).toBe('KEY_NOT_ASSERTION_METHOD');
    expect(codeOf(await verify(jws))).toBe('VERIFIED');
  });
});
