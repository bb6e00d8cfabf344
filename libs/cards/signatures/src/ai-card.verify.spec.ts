import { base64url } from 'jose';

import { canonicalJson } from '@trustmesh/shared-canonical-json';

import { didWebDocument, didWebResolver, generateSigningKey, signAiCard, signDetachedPayload, type TestSigningKey } from './testing';
import { ALL_SIGNATURE_CODES, mapResolver, verifyAiCardSignature, type SignatureResult } from './index';

const NOW = new Date('2026-10-01T12:00:00Z');

function card(overrides: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    $schema: 'https://example.org/ai-card/v1/schema.json',
    specVersion: '1.0',
    id: 'did:web:acme.example',
    name: 'Acme Finance Agent',
    description: 'Answers questions about Acme invoices.',
    publisher: { id: 'did:web:acme.example', name: 'Acme Corp' },
    services: { a2a: { type: 'a2a', name: 'Finance A2A', protocolSpecific: { url: 'https://agents.acme.example/a2a' } } },
    createdAt: '2026-01-01T00:00:00Z',
    updatedAt: '2026-02-01T00:00:00Z',
    ...overrides,
  };
}

function codeOf(result: SignatureResult): string {
  return result.verified ? 'VERIFIED' : result.code;
}

/** A detached JWS whose header is written by hand (the test signer would refuse some of these). */
function forged(header: Record<string, unknown>, signatureBytes = 64): string {
  return `${base64url.encode(JSON.stringify(header))}..${base64url.encode(new Uint8Array(signatureBytes).fill(7))}`;
}

describe('verifyAiCardSignature (v1 card profile)', () => {
  let key: TestSigningKey;
  let resolver: ReturnType<typeof didWebResolver>;

  beforeAll(async () => {
    key = await generateSigningKey({ signer: 'did:web:acme.example', fragment: 'card-key' });
    resolver = didWebResolver([didWebDocument('did:web:acme.example', [key])]);
  });

  it('verifies a card signed by its did:web publisher and records signer, kid, alg and time', async () => {
    const signed = await signAiCard(card(), key);
    const result = await verifyAiCardSignature(signed, { resolver, now: NOW });
    expect(result).toEqual({ verified: true, signer: 'did:web:acme.example', kid: 'did:web:acme.example#card-key', alg: 'ES256', verifiedAt: '2026-10-01T12:00:00.000Z' });
  });

  it('verifies an EdDSA (Ed25519) signature', async () => {
    const edKey = await generateSigningKey({ alg: 'EdDSA', signer: 'did:web:acme.example', fragment: 'ed-key' });
    const signed = await signAiCard(card(), edKey);
    const result = await verifyAiCardSignature(signed, { resolver: didWebResolver([didWebDocument('did:web:acme.example', [edKey])]), now: NOW });
    expect(result).toMatchObject({ verified: true, alg: 'EdDSA' });
    // RFC 9864's fully specified name is a synonym.
    const synonym = await signAiCard(card(), edKey, { alg: 'Ed25519' });
    await expect(verifyAiCardSignature(synonym, { resolver: didWebResolver([didWebDocument('did:web:acme.example', [edKey])]), now: NOW })).resolves.toMatchObject({ verified: true, alg: 'EdDSA' });
    // An Ed25519 key cannot stand in for ES256, nor the reverse.
    const mismatch = await signAiCard(card(), edKey, { alg: 'ES256' });
    await expect(verifyAiCardSignature(mismatch, { resolver: didWebResolver([didWebDocument('did:web:acme.example', [edKey])]), now: NOW })).resolves.toMatchObject({ code: 'KEY_INVALID' });
  });

  it('refuses a card whose content changed after signing', async () => {
    const signed = await signAiCard(card(), key);
    const result = await verifyAiCardSignature({ ...signed, description: 'Answers questions about Acme invoices!' }, { resolver, now: NOW });
    expect(result).toMatchObject({ verified: false, code: 'SIGNATURE_INVALID', pointer: '/signature' });
  });

  it('canonicalises non-ASCII and multibyte content (key order, raw UTF-8) the same way the signer did', async () => {
    const multibyte = card({ name: 'Agent Zürich 東京 🚀', description: 'é\u0000"\\', metadata: { é: 1, e: 2, '\u{1F600}': 3, '\uFB33': 4 } });
    const signed = await signAiCard(multibyte, key);
    await expect(verifyAiCardSignature(signed, { resolver, now: NOW })).resolves.toMatchObject({ verified: true });
    // The same card with member order changed is the same canonical payload.
    const reordered = Object.fromEntries(Object.entries(signed).reverse());
    await expect(verifyAiCardSignature(reordered, { resolver, now: NOW })).resolves.toMatchObject({ verified: true });
    // NFC versus NFD is different text, so a different payload.
    await expect(verifyAiCardSignature({ ...signed, name: 'Agent Zu\u0308rich 東京 🚀' }, { resolver, now: NOW })).resolves.toMatchObject({ code: 'SIGNATURE_INVALID' });
  });

  it('refuses once the key is removed from the DID document', async () => {
    const other = await generateSigningKey({ signer: 'did:web:acme.example', fragment: 'other' });
    const signed = await signAiCard(card(), key);
    const result = await verifyAiCardSignature(signed, { resolver: didWebResolver([didWebDocument('did:web:acme.example', [other])]), now: NOW });
    expect(result).toMatchObject({ verified: false, code: 'KEY_NOT_FOUND', kid: 'did:web:acme.example#card-key' });
  });

  it('refuses a key listed only for authentication or key agreement', async () => {
    const signed = await signAiCard(card(), key);
    for (const relationship of ['authentication', 'keyAgreement'] as const) {
      const result = await verifyAiCardSignature(signed, { resolver: didWebResolver([didWebDocument('did:web:acme.example', [key], [relationship])]), now: NOW });
      expect(codeOf(result)).toBe('KEY_NOT_ASSERTION_METHOD');
    }
  });

  it('refuses keys whose controller, private parts or declared use are wrong, and documents that do not match the signer', async () => {
    const signed = await signAiCard(card(), key);
    const document = didWebDocument('did:web:acme.example', [key]);
    const method = (document['verificationMethod'] as Array<Record<string, unknown>>)[0]!;
    const variant = (change: (vm: Record<string, unknown>, doc: Record<string, unknown>) => void) => {
      const doc = structuredClone(document);
      change((doc['verificationMethod'] as Array<Record<string, unknown>>)[0]!, doc);
      return didWebResolver([], { 'https://acme.example/.well-known/did.json': doc });
    };
    const cases: Array<[string, ReturnType<typeof didWebResolver>]> = [
      ['KEY_CONTROLLER_MISMATCH', variant((vm) => (vm['controller'] = 'did:web:evil.example'))],
      ['KEY_INVALID', variant((vm) => (vm['publicKeyJwk'] = { ...(method['publicKeyJwk'] as object), d: 'AAAA' }))],
      ['KEY_INVALID', variant((vm) => (vm['publicKeyJwk'] = { ...(method['publicKeyJwk'] as object), use: 'enc' }))],
      ['KEY_INVALID', variant((vm) => (vm['publicKeyJwk'] = { ...(method['publicKeyJwk'] as object), alg: 'ES384' }))],
      ['KEY_INVALID', variant((vm) => (vm['publicKeyJwk'] = { ...(method['publicKeyJwk'] as object), key_ops: ['sign'] }))],
      ['KEY_INVALID', variant((vm) => (vm['publicKeyJwk'] = { ...(method['publicKeyJwk'] as object), crv: 'P-384' }))],
      ['KEY_DOCUMENT_INVALID', variant((_vm, doc) => (doc['id'] = 'did:web:other.example'))],
      ['KEY_AMBIGUOUS', variant((vm, doc) => (doc['verificationMethod'] = [vm, { ...vm, id: '#card-key' }]))],
      ['KEY_DOCUMENT_UNAVAILABLE', mapResolver({})],
    ];
    for (const [code, caseResolver] of cases) expect(codeOf(await verifyAiCardSignature(signed, { resolver: caseResolver, now: NOW }))).toBe(code);
  });

  it('resolves relative verification method ids against the document id', async () => {
    const signed = await signAiCard(card(), key);
    const document = didWebDocument('did:web:acme.example', [key]);
    (document['verificationMethod'] as Array<Record<string, unknown>>)[0]!['id'] = '#card-key';
    document['assertionMethod'] = ['#card-key'];
    await expect(verifyAiCardSignature(signed, { resolver: didWebResolver([document]), now: NOW })).resolves.toMatchObject({ verified: true });
  });

  it.each([
    ['jku', 'https://evil.example/jwks.json'],
    ['jwk', { kty: 'EC' }],
    ['x5u', 'https://evil.example/cert.pem'],
    ['x5c', ['MIIB']],
    ['b64', false],
  ])('refuses the forbidden header parameter %s', async (name, value) => {
    const signed = await signAiCard(card(), key, { [name]: value });
    await expect(verifyAiCardSignature(signed, { resolver, now: NOW })).resolves.toMatchObject({ verified: false, code: 'JWS_HEADER_FORBIDDEN' });
  });

  it('refuses an unsupported crit', async () => {
    const signed = await signAiCard(card(), key, { crit: ['exp'], exp: 1 });
    await expect(verifyAiCardSignature(signed, { resolver, now: NOW })).resolves.toMatchObject({ code: 'JWS_CRIT_UNSUPPORTED' });
  });

  it('refuses algorithm confusion with a distinct code for each kind', async () => {
    const kid = 'did:web:acme.example#card-key';
    const cases: Array<[Record<string, unknown>, string]> = [
      [{ alg: 'none', kid }, 'JWS_ALG_NONE'],
      [{ alg: 'HS256', kid }, 'JWS_ALG_SYMMETRIC'],
      [{ alg: 'RS256', kid }, 'JWS_ALG_UNSUPPORTED'],
      [{ alg: 'ES384', kid }, 'JWS_ALG_UNSUPPORTED'],
      [{ kid }, 'JWS_ALG_MISSING'],
    ];
    for (const [header, code] of cases) {
      expect(codeOf(await verifyAiCardSignature({ ...card(), signature: forged(header) }, { resolver, now: NOW }))).toBe(code);
    }
  });

  it('refuses an HS256 signature made with the published public key as the HMAC secret', async () => {
    const unsigned = card();
    const header = base64url.encode(JSON.stringify({ alg: 'HS256', kid: key.kid, typ: 'ai-card+jws' }));
    const secret = new TextEncoder().encode(JSON.stringify(key.publicJwk));
    const hmacKey = await crypto.subtle.importKey('raw', secret, { name: 'HMAC', hash: 'SHA-256' }, false, ['sign']);
    const mac = await crypto.subtle.sign('HMAC', hmacKey, new TextEncoder().encode(`${header}.${base64url.encode(canonicalJson(unsigned))}`));
    const result = await verifyAiCardSignature({ ...unsigned, signature: `${header}..${base64url.encode(new Uint8Array(mac))}` }, { resolver, now: NOW });
    expect(codeOf(result)).toBe('JWS_ALG_SYMMETRIC');
  });

  it('accepts typ ai-card+jws, JOSE or absent, and refuses any other typ', async () => {
    for (const typ of ['ai-card+jws', 'JOSE', undefined]) {
      await expect(verifyAiCardSignature(await signAiCard(card(), key, { typ }), { resolver, now: NOW })).resolves.toMatchObject({ verified: true });
    }
    for (const typ of ['ai-catalog+jws', 'ai-catalog-trust-manifest+jws', 'JWT', 7]) {
      expect(codeOf(await verifyAiCardSignature(await signAiCard(card(), key, { typ }), { resolver, now: NOW }))).toBe('JWS_TYP_MISMATCH');
    }
  });

  it('refuses a kid outside the signer, with a path or query, or without a fragment', async () => {
    for (const kid of ['did:web:evil.example#card-key', 'did:web:acme.example', 'did:web:acme.example#', 'did:web:acme.example/path#card-key', 'did:web:acme.example#a?b', 'did:web:acme.example#a/b', 'card-key', undefined]) {
      expect(codeOf(await verifyAiCardSignature(await signAiCard(card(), key, { kid }), { resolver, now: NOW }))).toBe('JWS_KID_INVALID');
    }
  });

  it('chooses the signer by §1.2: publisher.id, else id, else a registered key', async () => {
    const spiffeCard = card({ id: 'spiffe://acme.example/finance', publisher: { id: 'https://acme.example', name: 'Acme' } });
    expect(codeOf(await verifyAiCardSignature(await signAiCard(spiffeCard, key), { resolver, now: NOW }))).toBe('SIGNER_UNKNOWN');
    const byId = card({ publisher: { id: 'https://acme.example', name: 'Acme' } });
    await expect(verifyAiCardSignature(await signAiCard(byId, key), { resolver, now: NOW })).resolves.toMatchObject({ verified: true, signer: 'did:web:acme.example' });
    const registered = await generateSigningKey({ signer: 'https://acme.example', fragment: 'k1' });
    const jwksUrl = 'https://acme.example/.well-known/jwks.json';
    const jwksResolver = mapResolver({ [jwksUrl]: { keys: [{ ...registered.publicJwk, kid: 'jwks-key-1' }] } });
    const signed = await signAiCard(spiffeCard, registered, { kid: 'jwks-key-1' });
    await expect(verifyAiCardSignature(signed, { resolver: jwksResolver, now: NOW, registeredKey: { signer: 'https://acme.example', jwksUrl } })).resolves.toMatchObject({ verified: true, signer: 'https://acme.example', kid: 'jwks-key-1' });
    // The JWS cannot move the key lookup elsewhere: jku is refused, not followed.
    const withJku = await signAiCard(spiffeCard, registered, { kid: 'jwks-key-1', jku: 'https://evil.example/jwks.json' });
    expect(codeOf(await verifyAiCardSignature(withJku, { resolver: jwksResolver, now: NOW, registeredKey: { signer: 'https://acme.example', jwksUrl } }))).toBe('JWS_HEADER_FORBIDDEN');
  });

  it('refuses did:web signers that are not a root lowercase domain', async () => {
    for (const did of ['did:web:Acme.example', 'did:web:acme.example%3A8443', 'did:web:acme.example:users:alice', 'did:web:10.0.0.1', 'did:web:acme.example.', 'did:web:localhost']) {
      const other = await generateSigningKey({ signer: did });
      const signed = await signAiCard(card({ publisher: { id: did, name: 'X' } }), other);
      expect(codeOf(await verifyAiCardSignature(signed, { resolver, now: NOW }))).toBe('SIGNER_NOT_DID_WEB');
    }
  });

  it('never throws on hostile signatures, and returns only listed codes', async () => {
    const huge = `${'A'.repeat(9000)}..${'B'.repeat(86)}`;
    const inputs: unknown[] = [
      { ...card(), signature: 42 },
      { ...card(), signature: 'not a jws' },
      { ...card(), signature: 'a.b.c' },
      { ...card(), signature: '!!!..AAAA' },
      { ...card(), signature: huge },
      { ...card(), signature: `${base64url.encode('[1,2]')}..AAAA` },
      { ...card(), signature: `${base64url.encode('{"alg":"ES256","alg":"none"}')}..AAAA` },
      { ...card(), signature: forged({ alg: 'ES256', kid: key.kid }, 70) },
      { ...card(), signature: forged({ alg: 'ES256', kid: key.kid }) },
      { ...card(), signature: `${base64url.encode(new Uint8Array([0xff, 0xfe]))}..AAAA` },
      { ...card(), metadata: { n: Number.NaN }, signature: forged({ alg: 'ES256', kid: key.kid }) },
      card(),
      null,
      [],
      'card',
    ];
    const codes = [];
    for (const input of inputs) {
      const result = await verifyAiCardSignature(input, { resolver, now: NOW });
      expect(result.verified).toBe(false);
      if (!result.verified) {
        expect(ALL_SIGNATURE_CODES).toContain(result.code);
        expect(result.message.length).toBeGreaterThan(10);
        codes.push(result.code);
      }
    }
    expect(codes).toEqual([
      'JWS_MALFORMED',
      'JWS_MALFORMED',
      'JWS_NOT_DETACHED',
      'JWS_HEADER_INVALID',
      'JWS_HEADER_TOO_LARGE',
      'JWS_HEADER_INVALID',
      'JWS_HEADER_INVALID',
      'JWS_SIGNATURE_ENCODING',
      'SIGNATURE_INVALID',
      'JWS_HEADER_INVALID',
      'PAYLOAD_NOT_CANONICAL',
      'SIGNATURE_ABSENT',
      'DOCUMENT_INVALID',
      'DOCUMENT_INVALID',
      'DOCUMENT_INVALID',
    ]);
  });

  it('signs detached: a JWS with an embedded payload is refused', async () => {
    const detached = await signDetachedPayload(new TextEncoder().encode('{}'), key);
    const [header, , signature] = detached.split('.');
    const result = await verifyAiCardSignature({ ...card(), signature: `${header}.e30.${signature}` }, { resolver, now: NOW });
    expect(codeOf(result)).toBe('JWS_NOT_DETACHED');
  });
});
