import { createHash } from 'node:crypto';

import { validateConsultInput } from '../validation/shield-inputs.validator';
import type { ConsultInput } from '../shield.types';
import { computeInputDigest, INPUT_DIGEST_PATTERN } from './input-digest';

function parsed(input: unknown): ConsultInput {
  const result = validateConsultInput(input);
  if (!result.ok) throw new Error(JSON.stringify(result.issues));
  return result.value;
}

describe('inputDigest (§8.1)', () => {
  it.each([
    ['What should I do?', 'auFu4XMNWPYqXheUk07asLnZ9az6XRJzJgvF4Dpd-1c'],
    ['Private conversation content that must be discarded', 'zqj3AlbAVzc4j_ltnS25CkZM7dJwtZAMQ5BKYOFZaLA'],
  ])('gives the table\'s digest for the message %p with an empty context and empty lists', async (message, digest) => {
    await expect(computeInputDigest(parsed({ message }))).resolves.toBe(digest);
    // Defaults written out, surrounding spaces and key order make no difference: the digest is over the parsed input.
    await expect(computeInputDigest(parsed({ policies: [], situationContext: '  ', facts: [], evidence: [], message: `  ${message}\n` }))).resolves.toBe(digest);
  });

  it('is base64url SHA-256 of the canonical JSON, 43 characters without padding', async () => {
    const input = parsed({ message: 'Refund £120?', proposedAction: '', facts: [{ statement: 'Order 42 paid', source: 'system', status: 'verified' }] });
    const expected = createHash('sha256')
      .update('{"evidence":[],"facts":[{"evidenceReferences":[],"source":"system","statement":"Order 42 paid","status":"verified"}],"message":"Refund £120?","policies":[],"proposedAction":"","situationContext":""}', 'utf8')
      .digest('base64url');
    const digest = await computeInputDigest(input);
    expect(digest).toBe(expected);
    expect(digest).toMatch(INPUT_DIGEST_PATTERN);
  });

  it('tells an explicit empty proposedAction apart from an absent one, and ids given from ids absent', async () => {
    const base = { message: 'Pay the invoice?' };
    const withEmpty = await computeInputDigest(parsed({ ...base, proposedAction: '' }));
    const without = await computeInputDigest(parsed(base));
    expect(withEmpty).not.toBe(without);
    const fact = { statement: 'Invoice 7 is due', source: 'owner', status: 'asserted' };
    const withId = await computeInputDigest(parsed({ ...base, facts: [{ ...fact, factId: '0b6c1c5e-6f0a-4a4e-9d8e-3b2f1a0c9d8e' }] }));
    const withoutId = await computeInputDigest(parsed({ ...base, facts: [fact] }));
    expect(withId).not.toBe(withoutId);
  });

  it('changes with the message and the context', async () => {
    const a = await computeInputDigest(parsed({ message: 'a' }));
    expect(await computeInputDigest(parsed({ message: 'b' }))).not.toBe(a);
    expect(await computeInputDigest(parsed({ message: 'a', situationContext: 'x' }))).not.toBe(a);
  });

  it('gives the same digest where only WebCrypto is there (a browser), multibyte text included', async () => {
    const input = parsed({ message: 'Überweisung 1.200 € – 請求書 🧾?', facts: [{ statement: 'Ç', source: 'owner', status: 'asserted' }] });
    const onNode = await computeInputDigest(input);
    const getBuiltinModule = Object.getOwnPropertyDescriptor(process, 'getBuiltinModule');
    Object.defineProperty(process, 'getBuiltinModule', { value: undefined, configurable: true });
    try {
      let inBrowser: typeof computeInputDigest | undefined;
      jest.isolateModules(() => {
        inBrowser = (jest.requireActual('./input-digest') as { computeInputDigest: typeof computeInputDigest }).computeInputDigest;
      });
      await expect(inBrowser?.(input)).resolves.toBe(onNode);
    } finally {
      if (getBuiltinModule) Object.defineProperty(process, 'getBuiltinModule', getBuiltinModule);
    }
  });
});
