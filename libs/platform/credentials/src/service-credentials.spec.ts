import { delegatedAccount, MAX_ON_BEHALF_OF, parseServiceCredentials } from './service-credentials';

const DIGEST = 'cd'.repeat(32);
const ID = /^[A-Za-z0-9._-]{1,64}$/;

describe('service credentials', () => {
  it('reads service:sha256hex pairs', () => {
    const parsed = parseServiceCredentials(`console:${DIGEST}, audit2:${DIGEST.toUpperCase()}`);
    expect(parsed.ok && parsed.credentials.map((credential) => [credential.service, credential.digest.toString('hex')])).toEqual([
      ['console', DIGEST],
      ['audit2', DIGEST],
    ]);
  });

  it('refuses service names that could be the start of another prefix, duplicates and bad pairs, never echoing an entry', () => {
    expect(parseServiceCredentials(`my-console:${DIGEST}`)).toEqual({ ok: false, problem: expect.stringContaining('(1 entry does not)') });
    expect(parseServiceCredentials(`Console:${DIGEST}`)).toEqual({ ok: false, problem: expect.stringContaining('lower-case') });
    expect(parseServiceCredentials(`console:${DIGEST},console:${DIGEST}`)).toEqual({ ok: false, problem: expect.stringContaining('twice') });
    const plaintext = parseServiceCredentials('console:plaintext-secret');
    expect(plaintext.ok).toBe(false);
    expect(JSON.stringify(plaintext)).not.toContain('plaintext-secret');
  });

  it('names an account only inside the service prefix, with an id the app accepts', () => {
    expect(delegatedAccount('console:3f2a', 'console', ':', ID)).toEqual({ ok: true, account: 'console:3f2a' });
    expect(delegatedAccount(undefined, 'console', ':', ID)).toEqual({ ok: false, reason: 'missing' });
    expect(delegatedAccount('', 'console', ':', ID)).toEqual({ ok: false, reason: 'missing' });
    expect(delegatedAccount('billing:3f2a', 'console', ':', ID)).toEqual({ ok: false, reason: 'foreign' });
    expect(delegatedAccount('acme', 'console', ':', ID)).toEqual({ ok: false, reason: 'malformed' });
    expect(delegatedAccount('console:', 'console', ':', ID)).toEqual({ ok: false, reason: 'malformed' });
    expect(delegatedAccount('console:a b', 'console', ':', ID)).toEqual({ ok: false, reason: 'malformed' });
    expect(delegatedAccount('Console:3f2a', 'console', ':', ID)).toEqual({ ok: false, reason: 'malformed' });
    expect(delegatedAccount(`console:${'a'.repeat(MAX_ON_BEHALF_OF)}`, 'console', ':', ID)).toEqual({ ok: false, reason: 'malformed' });
    // The registry's separator is also an id character: `console-x` is never `consol` + `e-x`.
    expect(delegatedAccount('consoles-x', 'console', '-', /^[a-z0-9-]{1,50}$/)).toEqual({ ok: false, reason: 'foreign' });
  });
});
