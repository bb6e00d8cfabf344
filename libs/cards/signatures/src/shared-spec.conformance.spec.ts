/**
 * Conformance against the reference material in `../shared/spec/ai-card` (next to the repository), when that
 * folder exists; a clean clone without it runs only the test that says so. Nothing there is verifiable offline:
 * the signed examples carry placeholder signatures and no DID documents are published with them. What can be
 * checked is checked: the A2A canonicalisation reference pair byte for byte, the documented trust-manifest
 * payload shape, that real headers pass our header rules, and that every placeholder is refused with a listed
 * code rather than an exception.
 */
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative, resolve } from 'node:path';

import { a2aSigningPayload } from './a2a.canonical';
import { checkHeader, decodeProtectedHeader, splitDetachedCompact } from './jws.header';
import { verifyDetachedCompact } from './jws.verify';
import { mapResolver } from './key.resolution';
import { signedObjectPayload, type JsonObject } from './payload.canonical';
import { ALL_SIGNATURE_CODES } from './signature.codes';
import { verifyA2aCardSignatures } from './a2a.verify';

const REPO_ROOT = resolve(__dirname, '..', '..', '..', '..');
const SPEC = resolve(REPO_ROOT, '..', 'shared', 'spec', 'ai-card');
const present = existsSync(SPEC);

function readJson(path: string): unknown {
  return JSON.parse(readFileSync(join(SPEC, path), 'utf8')) as unknown;
}

/** Every string held under a `signature` or `jws` key in a JSON file, with its pointer. */
function signatureStrings(value: unknown, pointer = ''): Array<{ pointer: string; jws: string }> {
  if (Array.isArray(value)) return value.flatMap((item, index) => signatureStrings(item, `${pointer}/${index}`));
  if (value === null || typeof value !== 'object') return [];
  return Object.entries(value).flatMap(([key, item]) =>
    (key === 'signature' || key === 'jws') && typeof item === 'string' ? [{ pointer: `${pointer}/${key}`, jws: item }] : signatureStrings(item, `${pointer}/${key}`),
  );
}

function jsonFiles(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) return jsonFiles(path);
    return name.endsWith('.json') && name !== 'manifest.json' ? [path] : [];
  });
}

describe('conformance with ../shared/spec/ai-card', () => {
  it(`runs only when the reference folder exists (${present ? 'present: cases registered' : 'absent: nothing to check'})`, () => {
    expect(existsSync(SPEC)).toBe(present);
  });

  if (present) {
    it('canonicalises the A2A reference fragment to the exact expected bytes', () => {
      const input = readJson('a2a/examples/canonicalization-fragment.input.json') as JsonObject;
      const expected = readFileSync(join(SPEC, 'a2a/examples/canonicalization-fragment.expected.json'), 'utf8');
      expect(a2aSigningPayload(input)).toBe(expected);
    });

    it('builds the documented trust-manifest payload: minus its own jws and additionalSignatures only', () => {
      const payload = readJson('catalog/examples/signed-release-only-manifest.PAYLOAD.json') as JsonObject;
      const signed = { ...payload, signature: { ...(payload['signature'] as JsonObject), jws: 'header..signature' }, additionalSignatures: [] };
      expect(signedObjectPayload(signed)).toEqual(payload);
    });

    it('accepts the real protected headers of the examples under our header rules', () => {
      const catalog = readJson('catalog/examples/multi-artifact-nested-catalog.json');
      const [manifestSignature] = signatureStrings(catalog).filter((found) => found.pointer.endsWith('/jws'));
      expect(manifestSignature).toBeDefined();
      const parts = splitDetachedCompact(manifestSignature!.jws, '');
      const decoded = 'verified' in parts ? parts : decodeProtectedHeader(parts.protectedB64, '');
      expect('header' in decoded && checkHeader(decoded.header, { kind: 'trust-manifest', algs: ['ES256'], kid: { signerFragment: 'did:web:acme.com' } }, '')).toEqual({ alg: 'ES256', kid: 'did:web:acme.com#release-signing-key' });
    });

    it('reaches key resolution (jku only a hint) for the A2A sample signature, which has no published key', async () => {
      const card = readJson('a2a/examples/georoute-agent-card.v1.0.json');
      const requested: string[] = [];
      const result = await verifyA2aCardSignatures(card, { resolver: async (url) => void requested.push(url), keySource: { kind: 'did-web', signer: 'did:web:example.com' } });
      expect(result.results).toEqual([expect.objectContaining({ verified: false, code: 'KEY_DOCUMENT_UNAVAILABLE' })]);
      expect(requested).toEqual(['https://example.com/.well-known/did.json']);
    });

    it('refuses every placeholder signature in the examples and vectors with a listed code, never throwing', async () => {
      const found = ['examples', 'catalog/examples', 'test-vectors'].flatMap((dir) => jsonFiles(join(SPEC, dir))).flatMap((file) => {
        let value: unknown;
        try {
          value = JSON.parse(readFileSync(file, 'utf8'));
        } catch {
          return [];
        }
        return signatureStrings(value).map((signature) => ({ file: relative(SPEC, file), ...signature }));
      });
      expect(found.length).toBeGreaterThan(0);
      for (const { jws } of found) {
        const result = await verifyDetachedCompact(jws, {
          payload: new Uint8Array(),
          rules: { kind: 'ai-card', algs: ['ES256', 'EdDSA'], kid: { jwks: true } },
          keySource: { kind: 'did-web', signer: 'did:web:acme.com' },
          resolver: mapResolver({}),
          now: new Date(),
          pointer: '',
        });
        expect(result.verified).toBe(false);
        if (!result.verified) expect(ALL_SIGNATURE_CODES).toContain(result.code);
      }
    });
  }
});
