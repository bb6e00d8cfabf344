import { DUMMY_HASH, hashPassword, passwordProblem, PASSWORD_MAX_LENGTH, verifyPassword } from './password.hashing';

describe('console password hashing (scrypt)', () => {
  it('hashes with N=2^15, r=8, p=1 and a fresh 16-byte salt, and verifies only the same password', async () => {
    const password = 'a long enough passphrase';
    const [first, second] = await Promise.all([hashPassword(password), hashPassword(password)]);
    expect(first).toMatch(/^scrypt\$15\$8\$1\$[A-Za-z0-9_-]{22}\$[A-Za-z0-9_-]{43}$/);
    expect(first).not.toBe(second);
    expect(first).not.toContain(password);
    await expect(verifyPassword(password, first)).resolves.toBe(true);
    await expect(verifyPassword(password, second)).resolves.toBe(true);
    await expect(verifyPassword('a long enough passphrasE', first)).resolves.toBe(false);
    await expect(verifyPassword('', first)).resolves.toBe(false);
  });

  it('treats composed and decomposed forms of one password alike (NFC)', async () => {
    const hash = await hashPassword('caf\u00e9 passphrase!!');
    await expect(verifyPassword('cafe\u0301 passphrase!!', hash)).resolves.toBe(true);
  });

  it('matches no password against the dummy hash an unknown name is checked with, at a real hash’s cost', async () => {
    const real = await hashPassword('the real passphrase');
    const timed = async (hash: string) => {
      const started = process.hrtime.bigint();
      await verifyPassword('some guessed passphrase', hash);
      return Number(process.hrtime.bigint() - started) / 1e6;
    };
    await expect(verifyPassword('', DUMMY_HASH)).resolves.toBe(false);
    await expect(verifyPassword('some guessed passphrase', DUMMY_HASH)).resolves.toBe(false);
    const [dummy, actual] = [await timed(DUMMY_HASH), await timed(real)];
    // Same parameters, same work: within a factor of three on a shared machine.
    expect(dummy / actual).toBeGreaterThan(1 / 3);
    expect(dummy / actual).toBeLessThan(3);
  });

  it('refuses a stored hash it cannot read or whose cost is out of bounds, without running it', async () => {
    const real = await hashPassword('the real passphrase');
    for (const bad of ['', 'plain', real.replace('scrypt$15', 'scrypt$30'), real.replace('scrypt$15$8', 'scrypt$15$99'), real.replace('scrypt', 'bcrypt')]) {
      await expect(verifyPassword('the real passphrase', bad)).resolves.toBe(false);
    }
  });

  it('accepts 12 to 1024 characters, counted as characters, and says what is wrong without repeating it', () => {
    expect(passwordProblem('x'.repeat(12))).toBeNull();
    expect(passwordProblem('😀'.repeat(12))).toBeNull();
    expect(passwordProblem('x'.repeat(PASSWORD_MAX_LENGTH))).toBeNull();
    expect(passwordProblem('short-pass1')).toBe('The password must be at least 12 characters');
    expect(passwordProblem('x'.repeat(PASSWORD_MAX_LENGTH + 1))).toBe('The password must be at most 1024 characters');
    expect(passwordProblem(12345678901234)).toBe('The password must be a string');
  });
});
