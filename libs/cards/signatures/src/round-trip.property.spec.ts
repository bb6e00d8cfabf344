/**
 * Property: any card a signer signs verifies, and changing any single byte of its canonical payload (then
 * re-reading it as the document) makes verification fail.
 */
import fc from 'fast-check';

import { canonicalJson } from '@trustmesh/shared-canonical-json';

import { didWebDocument, didWebResolver, generateSigningKey, signAiCard, type TestSigningKey } from './testing';
import { verifyAiCardSignature } from './index';

const NOW = new Date('2026-10-01T12:00:00Z');

const jsonValue = fc.jsonValue({ maxDepth: 3 }).filter((value) => !Object.is(value, -0));

function canonicalOrNull(value: unknown): string | null {
  try {
    return canonicalJson(value);
  } catch {
    return null;
  }
}

describe('sign -> verify round trip', () => {
  let key: TestSigningKey;
  let resolver: ReturnType<typeof didWebResolver>;

  beforeAll(async () => {
    key = await generateSigningKey({ signer: 'did:web:acme.example', fragment: 'prop' });
    resolver = didWebResolver([didWebDocument('did:web:acme.example', [key])]);
  });

  it('verifies whatever card content was signed, and refuses any single-byte change of its payload', async () => {
    await fc.assert(
      fc.asyncProperty(fc.dictionary(fc.string({ unit: 'grapheme', maxLength: 8 }), jsonValue, { maxKeys: 5 }), fc.nat(), fc.integer({ min: 1, max: 255 }), async (metadata, position, delta) => {
        const card = { id: 'did:web:acme.example', name: 'n', publisher: { id: 'did:web:acme.example', name: 'Acme' }, metadata };
        const signed = await signAiCard(card, key);
        expect(await verifyAiCardSignature(signed, { resolver, now: NOW })).toMatchObject({ verified: true });

        const bytes = new TextEncoder().encode(canonicalJson(card));
        const index = position % bytes.length;
        bytes[index] = ((bytes[index] ?? 0) + delta) % 256;
        let changed: unknown;
        try {
          changed = JSON.parse(new TextDecoder('utf-8', { fatal: true }).decode(bytes));
        } catch {
          return; // the changed bytes are no longer a JSON document, so there is nothing to present
        }
        const result = await verifyAiCardSignature({ ...(changed as object), signature: signed['signature'] }, { resolver, now: NOW });
        // A change that parses to the same canonical text (e.g. an escape spelled differently) is the same document;
        // one that has no canonical text (a digit that pushes a number past a double's range) is not.
        const same = changed !== null && typeof changed === 'object' && !Array.isArray(changed) && canonicalOrNull(changed) === canonicalJson(card);
        expect(result.verified).toBe(same);
      }),
      { numRuns: 60 },
    );
  });
});
