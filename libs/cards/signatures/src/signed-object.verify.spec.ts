import { canonicalJson } from '@trustmesh/shared-canonical-json';

import { didWebDocument, didWebResolver, generateSigningKey, signCatalog, signTrustManifest, type TestSigningKey } from './testing';
import { DID_WEB_EDDSA_PROFILE, isPublisherSigner, selectNewestReleases, verifyCatalogSignature, verifyTrustManifest, type SignatureResult } from './index';

const NOW = new Date('2026-10-01T12:00:00Z');
const ARTIFACT = new TextEncoder().encode('{"name":"Acme Finance","skills":[]}\n');

async function sha256(bytes: Uint8Array): Promise<string> {
  const digest = new Uint8Array(await crypto.subtle.digest('SHA-256', new Uint8Array(bytes)));
  return `sha256:${Array.from(digest, (byte) => byte.toString(16).padStart(2, '0')).join('')}`;
}

function codeOf(result: SignatureResult): string {
  return result.verified ? 'VERIFIED' : result.code;
}

describe('trust manifests and catalogs (Signature objects)', () => {
  let publisher: TestSigningKey;
  let assessor: TestSigningKey;
  let resolver: ReturnType<typeof didWebResolver>;
  let entry: Record<string, unknown>;
  let manifest: Record<string, unknown>;

  beforeAll(async () => {
    publisher = await generateSigningKey({ signer: 'did:web:acme.example', fragment: 'release-signing-key' });
    assessor = await generateSigningKey({ signer: 'did:web:audits.example', fragment: 'k1' });
    resolver = didWebResolver([didWebDocument('did:web:acme.example', [publisher]), didWebDocument('did:web:audits.example', [assessor])]);
    const digest = await sha256(ARTIFACT);
    entry = { identifier: 'urn:air:acme.example:agent:finance', type: 'application/a2a-agent-card+json', url: 'https://acme.example/.well-known/agent-card.json', digest, version: '2.1.0' };
    manifest = {
      contributor: 'did:web:acme.example',
      subject: { identifier: entry['identifier'], type: entry['type'], digest, version: '2.1.0' },
      attestations: [{ type: 'SOC2-Type2', uri: 'https://acme.example/soc2.pdf' }],
      'https://example.org/unknown-extension': { kept: true },
    };
  });

  const issued = { issuedAt: '2026-09-12T10:00:00Z', expiresAt: '2026-12-31T00:00:00Z' };

  it('verifies a publisher-signed manifest bound by digest of the fetched bytes', async () => {
    const signed = await signTrustManifest(manifest, publisher, issued);
    const result = await verifyTrustManifest(signed, { resolver, entry: { ...entry, trustManifests: [signed] }, artifactBytes: ARTIFACT, now: NOW });
    expect(result).toEqual({
      verified: true,
      signer: 'did:web:acme.example',
      kid: 'did:web:acme.example#release-signing-key',
      alg: 'ES256',
      verifiedAt: '2026-10-01T12:00:00.000Z',
      profile: 'did-web-v1',
      issuedAt: '2026-09-12T10:00:00Z',
      publisherAuthority: true,
    });
  });

  it('treats a valid signature by another domain as an assessor, not the publisher', async () => {
    const signed = await signTrustManifest({ ...manifest, contributor: 'did:web:audits.example' }, assessor, issued);
    await expect(verifyTrustManifest(signed, { resolver, entry, artifactBytes: ARTIFACT, now: NOW })).resolves.toMatchObject({ verified: true, publisherAuthority: false });
    expect(isPublisherSigner('urn:air:acme.example:agent:finance', 'did:web:sub.acme.example')).toBe(false);
    expect(isPublisherSigner('urn:air:acme.example:agent:finance', 'did:web:acme.example')).toBe(true);
  });

  it('covers signer, profile, timestamps and unknown members, but not the jws itself', async () => {
    const signed = await signTrustManifest(manifest, publisher, issued);
    const signature = signed['signature'] as Record<string, unknown>;
    const tampered: Array<Record<string, unknown>> = [
      { ...signed, 'https://example.org/unknown-extension': { kept: false } },
      { ...signed, signature: { ...signature, expiresAt: '2026-12-31T00:00:01Z' } },
      { ...signed, signature: { ...signature, issuedAt: '2026-09-12T10:00:01Z' } },
      { ...signed, signature: { ...signature, note: 'added' } },
      { ...signed, attestations: [] },
    ];
    for (const document of tampered) expect(codeOf(await verifyTrustManifest(document, { resolver, entry, artifactBytes: ARTIFACT, now: NOW }))).toBe('SIGNATURE_INVALID');
    // additionalSignatures is outside the payload.
    await expect(verifyTrustManifest({ ...signed, additionalSignatures: [{ any: 1 }] }, { resolver, entry, artifactBytes: ARTIFACT, now: NOW })).resolves.toMatchObject({ verified: true });
  });

  it('compares timestamps as instants with a small skew', async () => {
    const offsets = await signTrustManifest(manifest, publisher, { issuedAt: '2026-09-12T12:00:00+02:00', expiresAt: '2026-10-01T13:59:30+02:00' });
    await expect(verifyTrustManifest(offsets, { resolver, entry, artifactBytes: ARTIFACT, now: NOW })).resolves.toMatchObject({ verified: true });
    const expired = await signTrustManifest(manifest, publisher, { issuedAt: '2026-09-12T10:00:00Z', expiresAt: '2026-10-01T11:58:00Z' });
    expect(codeOf(await verifyTrustManifest(expired, { resolver, entry, artifactBytes: ARTIFACT, now: NOW }))).toBe('SIGNATURE_EXPIRED');
    const withinSkew = await signTrustManifest(manifest, publisher, { issuedAt: '2026-10-01T12:00:30Z' });
    await expect(verifyTrustManifest(withinSkew, { resolver, entry, artifactBytes: ARTIFACT, now: NOW })).resolves.toMatchObject({ verified: true });
    const future = await signTrustManifest(manifest, publisher, { issuedAt: '2026-10-01T12:05:00Z' });
    expect(codeOf(await verifyTrustManifest(future, { resolver, entry, artifactBytes: ARTIFACT, now: NOW }))).toBe('SIGNATURE_NOT_YET_VALID');
    expect(codeOf(await verifyTrustManifest(future, { resolver, entry, artifactBytes: ARTIFACT, now: NOW, clockSkewSeconds: 600 }))).toBe('VERIFIED');
    for (const bad of [{ issuedAt: '2026-09-12' }, { issuedAt: '2026-09-12T10:00:00' }, { issuedAt: '2026-02-30T10:00:00Z' }, { issuedAt: '2026-09-12T10:00:00Z', expiresAt: '2026-09-12T10:00:00Z' }]) {
      const signed = await signTrustManifest(manifest, publisher, bad);
      expect(codeOf(await verifyTrustManifest(signed, { resolver, entry, artifactBytes: ARTIFACT, now: NOW }))).toBe('TIMESTAMP_INVALID');
    }
  });

  it('refuses a signer that is not exactly the contributor', async () => {
    for (const contributor of ['did:web:ACME.example', 'did:web:audits.example', 'did:web:acme.example/']) {
      const signed = await signTrustManifest({ ...manifest, contributor }, publisher, issued);
      expect(codeOf(await verifyTrustManifest(signed, { resolver, entry, artifactBytes: ARTIFACT, now: NOW }))).toBe('SIGNER_CONTRIBUTOR_MISMATCH');
    }
  });

  it('refuses profiles that are unknown or not allowed by policy, and algorithms outside the profile', async () => {
    const unknown = await signTrustManifest(manifest, publisher, { ...issued, profile: 'did-web-v2' });
    expect(codeOf(await verifyTrustManifest(unknown, { resolver, entry, artifactBytes: ARTIFACT, now: NOW }))).toBe('PROFILE_UNSUPPORTED');
    const edKey = await generateSigningKey({ alg: 'EdDSA', signer: 'did:web:acme.example', fragment: 'ed' });
    const edResolver = didWebResolver([didWebDocument('did:web:acme.example', [edKey])]);
    const eddsa = await signTrustManifest(manifest, edKey, { ...issued, profile: DID_WEB_EDDSA_PROFILE });
    expect(codeOf(await verifyTrustManifest(eddsa, { resolver: edResolver, entry, artifactBytes: ARTIFACT, now: NOW }))).toBe('PROFILE_UNSUPPORTED');
    await expect(verifyTrustManifest(eddsa, { resolver: edResolver, entry, artifactBytes: ARTIFACT, now: NOW, allowedProfiles: ['did-web-v1', DID_WEB_EDDSA_PROFILE] })).resolves.toMatchObject({ verified: true, alg: 'EdDSA' });
    const eddsaUnderV1 = await signTrustManifest(manifest, edKey, issued);
    expect(codeOf(await verifyTrustManifest(eddsaUnderV1, { resolver: edResolver, entry, artifactBytes: ARTIFACT, now: NOW }))).toBe('JWS_ALG_NOT_ALLOWED_BY_PROFILE');
  });

  it('refuses a manifest signature presented as a catalog one, and the reverse', async () => {
    const asCatalogTyp = await signTrustManifest(manifest, publisher, { ...issued, header: { typ: 'ai-catalog+jws' } });
    expect(codeOf(await verifyTrustManifest(asCatalogTyp, { resolver, entry, artifactBytes: ARTIFACT, now: NOW }))).toBe('JWS_TYP_MISMATCH');
    const noTyp = await signTrustManifest(manifest, publisher, { ...issued, header: { typ: undefined } });
    expect(codeOf(await verifyTrustManifest(noTyp, { resolver, entry, artifactBytes: ARTIFACT, now: NOW }))).toBe('JWS_TYP_MISMATCH');
    const catalog = { specVersion: '1.0', host: { displayName: 'Acme', identifier: 'did:web:acme.example' }, entries: [] };
    const wrongTyp = await signCatalog(catalog, publisher, { ...issued, header: { typ: 'ai-catalog-trust-manifest+jws' } });
    expect(codeOf(await verifyCatalogSignature(wrongTyp, { resolver, now: NOW }))).toBe('JWS_TYP_MISMATCH');
  });

  it('refuses a kid outside the signer', async () => {
    const signed = await signTrustManifest(manifest, publisher, { ...issued, header: { kid: 'did:web:audits.example#k1' } });
    expect(codeOf(await verifyTrustManifest(signed, { resolver, entry, artifactBytes: ARTIFACT, now: NOW }))).toBe('JWS_KID_INVALID');
  });

  it('binds the subject to the entry: identifier, type, version, digest of the bytes, url', async () => {
    const signed = await signTrustManifest(manifest, publisher, issued);
    const cases: Array<[Record<string, unknown>, Uint8Array | undefined, string]> = [
      [{ ...entry, identifier: 'urn:air:acme.example:agent:payroll' }, ARTIFACT, 'SUBJECT_MISMATCH'],
      [{ ...entry, type: 'application/mcp-server-card+json' }, ARTIFACT, 'SUBJECT_MISMATCH'],
      [{ ...entry, version: '2.2.0' }, ARTIFACT, 'SUBJECT_MISMATCH'],
      [{ ...entry, version: undefined }, ARTIFACT, 'SUBJECT_MISMATCH'],
      [entry, new TextEncoder().encode('{"name":"Acme Finance","skills":[]}'), 'SUBJECT_MISMATCH'],
      [entry, undefined, 'SUBJECT_DIGEST_UNCHECKED'],
      [{ ...entry, digest: 'sha256:00' }, ARTIFACT, 'SUBJECT_MISMATCH'],
    ];
    for (const [caseEntry, bytes, code] of cases) {
      expect(codeOf(await verifyTrustManifest(signed, { resolver, entry: caseEntry, ...(bytes ? { artifactBytes: bytes } : {}), now: NOW }))).toBe(code);
    }
    const weak = { ...manifest, subject: { ...(manifest['subject'] as object), digest: 'md5:d41d8cd98f00b204e9800998ecf8427e' } };
    expect(codeOf(await verifyTrustManifest(await signTrustManifest(weak, publisher, issued), { resolver, entry: { ...entry, digest: 'md5:d41d8cd98f00b204e9800998ecf8427e' }, artifactBytes: ARTIFACT, now: NOW }))).toBe('DIGEST_UNSUPPORTED');
  });

  it('binds by url (https only, exactly equal) and by the JCS form of inline data', async () => {
    const byUrl = { ...manifest, subject: { identifier: entry['identifier'], type: entry['type'], version: '2.1.0', url: entry['url'] } };
    const urlEntry = { ...entry, digest: undefined };
    await expect(verifyTrustManifest(await signTrustManifest(byUrl, publisher, issued), { resolver, entry: urlEntry, now: NOW })).resolves.toMatchObject({ verified: true });
    expect(codeOf(await verifyTrustManifest(await signTrustManifest(byUrl, publisher, issued), { resolver, entry: { ...urlEntry, url: 'https://acme.example/.well-known/agent-card.json?' }, now: NOW }))).toBe('SUBJECT_MISMATCH');
    const httpUrl = { ...byUrl, subject: { ...byUrl.subject, url: 'http://acme.example/card.json' } };
    expect(codeOf(await verifyTrustManifest(await signTrustManifest(httpUrl, publisher, issued), { resolver, entry: { ...urlEntry, url: 'http://acme.example/card.json' }, now: NOW }))).toBe('SUBJECT_MISMATCH');
    const neither = { ...manifest, subject: { identifier: entry['identifier'], type: entry['type'], version: '2.1.0' } };
    expect(codeOf(await verifyTrustManifest(await signTrustManifest(neither, publisher, issued), { resolver, entry: urlEntry, now: NOW }))).toBe('SUBJECT_MISMATCH');
    const data = { name: 'Ünïcode agent', skills: [], b: 1, a: 2 };
    const dataDigest = await sha256(new TextEncoder().encode(canonicalJson(data)));
    const dataEntry = { identifier: entry['identifier'], type: entry['type'], data, digest: dataDigest };
    const byData = { ...manifest, subject: { identifier: entry['identifier'], type: entry['type'], digest: dataDigest } };
    await expect(verifyTrustManifest(await signTrustManifest(byData, publisher, issued), { resolver, entry: dataEntry, now: NOW })).resolves.toMatchObject({ verified: true });
  });

  it('verifies a catalog root signature over entries and nested manifests, with host.identifier === signer', async () => {
    const signedManifest = await signTrustManifest(manifest, publisher, issued);
    const catalog = { specVersion: '1.0', host: { displayName: 'Acme', identifier: 'did:web:acme.example' }, entries: [{ ...entry, trustManifests: [signedManifest] }, { identifier: 'urn:air:acme.example:skill:x', type: 'application/agent-skills+zip', url: 'https://acme.example/x.zip' }] };
    const signed = await signCatalog(catalog, publisher, issued);
    await expect(verifyCatalogSignature(signed, { resolver, now: NOW })).resolves.toMatchObject({ verified: true, signer: 'did:web:acme.example', profile: 'did-web-v1' });
    const entries = signed['entries'] as unknown[];
    expect(codeOf(await verifyCatalogSignature({ ...signed, entries: [...entries].reverse() }, { resolver, now: NOW }))).toBe('SIGNATURE_INVALID');
    const otherHost = await signCatalog({ ...catalog, host: { displayName: 'Acme', identifier: 'did:web:audits.example' } }, publisher, issued);
    expect(codeOf(await verifyCatalogSignature(otherHost, { resolver, now: NOW }))).toBe('HOST_SIGNER_MISMATCH');
    expect(codeOf(await verifyCatalogSignature(catalog, { resolver, now: NOW }))).toBe('SIGNATURE_ABSENT');
  });

  it('keeps the newest acceptable release per contributor and refuses replays of older ones', () => {
    const candidates = [
      { contributor: 'did:web:acme.example', issuedAt: '2026-09-12T10:00:00Z', pointer: '/m/0' },
      { contributor: 'did:web:acme.example', issuedAt: '2026-09-13T09:00:00+02:00', pointer: '/m/1' },
      { contributor: 'did:web:audits.example', issuedAt: '2026-08-01T00:00:00Z', pointer: '/m/2' },
    ];
    const selection = selectNewestReleases(candidates, { 'did:web:audits.example': '2026-09-01T00:00:00Z', 'did:web:acme.example': '2026-09-13T07:00:00Z' });
    expect(selection.kept.map((kept) => kept.pointer)).toEqual(['/m/1']);
    expect(selection.superseded.map((old) => old.pointer)).toEqual(['/m/0']);
    expect(selection.replayed).toEqual([{ candidate: candidates[2], rejection: expect.objectContaining({ code: 'SIGNATURE_REPLAYED', pointer: '/m/2/signature/issuedAt' }) }]);
  });
});
