/**
 * Sessions, CSRF tokens and sign-in limits on a real embedded database (PGlite) opened the way the console
 * opens it, with clocks the test moves.
 */
import { createConsoleDataDir } from '../../test/support/console-world';
import { ConsoleAccountsService } from '../accounts/console-accounts.service';
import { loadConsoleConfig } from '../config/console.config';
import { createPinoLogger } from '@trustmesh/platform-logging';
import { openConsoleInfrastructure, type ConsoleInfrastructure } from '../persistence/console-infrastructure';
import { clearedSessionCookie, constantTimeEqual, ConsoleSessions, csrfTokenOf, SESSION_ABSOLUTE_MS, SESSION_IDLE_MS, sessionCookie, sessionIdFromCookie } from './console-sessions';
import { ConsoleSignIn, defaultSignInLimits } from './console-sign-in.service';
import { ConsoleTrustedDevices, DEVICE_TRUST_MS, deviceCookie, MAX_DEVICES_PER_ACCOUNT } from './console-trusted-devices';

describe('console sessions, CSRF and sign-in (embedded PGlite)', () => {
  let data: { dataDir: string; remove(): Promise<void> };
  let infrastructure: ConsoleInfrastructure;
  let accounts: ConsoleAccountsService;
  let clock = Date.parse('2026-12-04T08:00:00.000Z');
  const now = () => new Date(clock);

  beforeAll(async () => {
    data = await createConsoleDataDir();
    infrastructure = await openConsoleInfrastructure(loadConsoleConfig({ TRUSTMESH_DATA_DIR: data.dataDir }), createPinoLogger({ service: 'console-test', level: 'warn', write: () => undefined }));
    accounts = new ConsoleAccountsService({ store: infrastructure.store, prisma: infrastructure.prisma, projection: infrastructure.projection });
    for (const username of ['carol', 'dave', 'erin']) expect((await accounts.create(username, `${username} passphrase 123`)).ok).toBe(true);
  }, 120_000);

  afterAll(async () => {
    await infrastructure?.close();
    await data?.remove();
  });

  const sessions = () => new ConsoleSessions(infrastructure.prisma, now);
  const devices = () => new ConsoleTrustedDevices(infrastructure.prisma, now);
  const carol = async () => (await accounts.authenticate('carol', 'carol passphrase 123'))!;

  it('stores only the SHA-256 of a 256-bit session id and resolves the cookie to its account and CSRF token', async () => {
    const opened = await sessions().open(await carol());
    expect(opened.sessionId).toMatch(/^[A-Za-z0-9_-]{43}$/);
    const rows = await infrastructure.prisma.consoleSession.findMany();
    expect(JSON.stringify(rows)).not.toContain(opened.sessionId);
    expect(JSON.stringify(rows)).not.toContain(opened.csrfToken);
    const live = await sessions().resolve(opened.sessionId);
    expect(live).toEqual({ account: { accountId: expect.any(String), username: 'carol' }, csrfToken: opened.csrfToken });
    await sessions().end(opened.sessionId);
    expect(await sessions().resolve(opened.sessionId)).toBeNull();
  });

  it('refuses malformed, unknown, idle and expired sessions', async () => {
    const account = await carol();
    for (const bad of [undefined, '', 'x', 'A'.repeat(43), `${'A'.repeat(42)}=`, 'A'.repeat(44)]) expect(await sessions().resolve(bad)).toBeNull();

    const idle = await sessions().open(account);
    clock += SESSION_IDLE_MS - 60_000;
    expect(await sessions().resolve(idle.sessionId)).not.toBeNull();
    clock += SESSION_IDLE_MS - 1_000;
    // Used within the idle timeout: still live.
    expect(await sessions().resolve(idle.sessionId)).not.toBeNull();
    clock += SESSION_IDLE_MS;
    expect(await sessions().resolve(idle.sessionId)).toBeNull();

    const busy = await sessions().open(account);
    const opened = clock;
    while (clock < opened + SESSION_ABSOLUTE_MS - SESSION_IDLE_MS) {
      clock += SESSION_IDLE_MS / 2;
      expect(await sessions().resolve(busy.sessionId)).not.toBeNull();
    }
    clock = opened + SESSION_ABSOLUTE_MS;
    // Used all along, but seven days are the end.
    expect(await sessions().resolve(busy.sessionId)).toBeNull();
  });

  it('derives a CSRF token per session, compared in constant time', async () => {
    const account = await carol();
    const [a, b] = [await sessions().open(account), await sessions().open(account)];
    expect(a.csrfToken).not.toBe(b.csrfToken);
    expect(csrfTokenOf(a.sessionId)).toBe(a.csrfToken);
    expect(constantTimeEqual(a.csrfToken, a.csrfToken)).toBe(true);
    expect(constantTimeEqual(b.csrfToken, a.csrfToken)).toBe(false);
    expect(constantTimeEqual('', a.csrfToken)).toBe(false);
    expect(constantTimeEqual(a.csrfToken.slice(0, -1), a.csrfToken)).toBe(false);
  });

  it('ends every session of an account when its password changes or it is deleted', async () => {
    const dave = (await accounts.authenticate('dave', 'dave passphrase 123'))!;
    const [one, two] = [await sessions().open(dave), await sessions().open(dave)];
    const other = await sessions().open(await carol());
    expect((await accounts.setPassword('dave', 'dave new passphrase')).ok).toBe(true);
    expect(await sessions().resolve(one.sessionId)).toBeNull();
    expect(await sessions().resolve(two.sessionId)).toBeNull();
    expect(await sessions().resolve(other.sessionId)).not.toBeNull();
    expect(await accounts.authenticate('dave', 'dave passphrase 123')).toBeNull();
    const renewed = (await accounts.authenticate('dave', 'dave new passphrase'))!;
    expect(renewed.accountId).toBe(dave.accountId);

    const three = await sessions().open(renewed);
    expect((await accounts.delete('DAVE')).ok).toBe(true);
    expect(await sessions().resolve(three.sessionId)).toBeNull();
    expect(await accounts.authenticate('dave', 'dave new passphrase')).toBeNull();
    expect((await accounts.list()).map((account) => account.username)).toEqual(['carol', 'erin']);
    // The name is free again, for a new account with a new id.
    const again = await accounts.create('dave', 'dave third passphrase');
    expect(again.ok && again.value.accountId).not.toBe(dave.accountId);
  });

  it('refuses duplicate names, bad names and bad passwords with stable codes', async () => {
    const duplicate = await accounts.create('Carol', 'another passphrase');
    expect(!duplicate.ok && duplicate.error.code).toBe('CONSOLE_ACCOUNT_EXISTS');
    const badName = await accounts.create('c', 'another passphrase');
    expect(!badName.ok && badName.error.code).toBe('CONSOLE_USERNAME_INVALID');
    const shortPassword = await accounts.create('frank', 'short');
    expect(!shortPassword.ok && shortPassword.error.code).toBe('CONSOLE_PASSWORD_INVALID');
    const missing = await accounts.setPassword('nobody', 'a fine passphrase');
    expect(!missing.ok && missing.error.code).toBe('CONSOLE_ACCOUNT_NOT_FOUND');
  });

  it('takes about as long to refuse an unknown name as a wrong password (one scrypt each)', async () => {
    const timed = async (username: string) => {
      const started = process.hrtime.bigint();
      expect(await accounts.authenticate(username, 'a wrong passphrase')).toBeNull();
      return Number(process.hrtime.bigint() - started) / 1e6;
    };
    await timed('carol');
    const known: number[] = [];
    const unknown: number[] = [];
    for (let round = 0; round < 3; round += 1) {
      known.push(await timed('carol'));
      unknown.push(await timed('nobody-by-this-name'));
    }
    const median = (values: number[]) => [...values].sort((a, b) => a - b)[1] as number;
    // Shared cores make single timings noisy: medians within a factor of two.
    expect(median(unknown) / median(known)).toBeGreaterThan(0.5);
    expect(median(unknown) / median(known)).toBeLessThan(2);
  });

  describe('sign-in', () => {
    it('limits attempts per username and per client address, counting refused ones, then lets them through again', async () => {
      let limitsClock = Date.parse('2026-12-04T09:00:00.000Z');
      const signIn = new ConsoleSignIn(accounts, sessions(), devices(), defaultSignInLimits(() => limitsClock));
      for (let attempt = 0; attempt < 10; attempt += 1) expect((await signIn.signIn({ username: 'erin', password: `wrong passphrase ${attempt}` }, '192.0.2.1')).status).toBe(401);
      const limited = await signIn.signIn({ username: 'ERIN', password: 'erin passphrase 123' }, '192.0.2.2');
      expect(limited.status).toBe(429);
      expect(!limited.ok && limited.error.code).toBe('CONSOLE_LOGIN_RATE_LIMITED');
      expect(limited.retryAfterSeconds).toBeGreaterThan(0);
      expect(limited.retryAfterSeconds).toBeLessThanOrEqual(15 * 60);

      // Another name from the same address still signs in until the address's own limit.
      expect((await signIn.signIn({ username: 'carol', password: 'carol passphrase 123' }, '192.0.2.1')).status).toBe(200);
      limitsClock += 15 * 60 * 1000;
      expect((await signIn.signIn({ username: 'erin', password: 'erin passphrase 123' }, '192.0.2.3')).status).toBe(200);

      for (let attempt = 0; attempt < 30; attempt += 1) await signIn.signIn({ username: `sprayed-${attempt}`, password: 'a guessed passphrase' }, '198.51.100.9');
      expect((await signIn.signIn({ username: 'carol', password: 'carol passphrase 123' }, '198.51.100.9')).status).toBe(429);
    });

    it('counts only failures against a username: signing in often is never limited', async () => {
      const signIn = new ConsoleSignIn(accounts, sessions(), devices(), defaultSignInLimits(() => Date.parse('2026-12-04T10:00:00.000Z')));
      // Each from its own address and without the device cookie: only the username's allowance is in play.
      for (let attempt = 0; attempt < 25; attempt += 1) expect((await signIn.signIn({ username: 'erin', password: 'erin passphrase 123' }, `192.0.2.${100 + attempt}`)).status).toBe(200);
      for (let attempt = 0; attempt < 10; attempt += 1) expect((await signIn.signIn({ username: 'erin', password: 'a wrong guess' }, '192.0.2.99')).status).toBe(401);
      expect((await signIn.signIn({ username: 'erin', password: 'erin passphrase 123' }, '192.0.2.98')).status).toBe(429);
    });

    it("does not lock a name's owner out of a browser they signed in from, while guesses at the name are refused", async () => {
      let limitsClock = Date.parse('2026-12-04T11:00:00.000Z');
      const signIn = new ConsoleSignIn(accounts, sessions(), devices(), defaultSignInLimits(() => limitsClock));
      const first = await signIn.signIn({ username: 'Carol', password: 'carol passphrase 123' }, '192.0.2.10');
      expect(first.ok).toBe(true);
      const token = first.ok ? first.value.device?.token : undefined;
      expect(token).toMatch(/^[A-Za-z0-9_-]{43}$/);
      // Stored as its SHA-256 only.
      const stored = await infrastructure.prisma.consoleTrustedDevice.findMany({ where: { username: 'carol' } });
      expect(stored.length).toBeGreaterThan(0);
      expect(JSON.stringify(stored)).not.toContain(token!);

      // An attacker uses up carol's allowance from many addresses: untrusted browsers are refused, the right password too.
      for (let attempt = 0; attempt < 12; attempt += 1) await signIn.signIn({ username: 'carol', password: `guess ${attempt}` }, `198.51.100.${attempt}`);
      expect((await signIn.signIn({ username: 'carol', password: 'carol passphrase 123' }, '198.51.100.50')).status).toBe(429);
      // A forged, malformed or another name's device cookie is no device.
      expect((await signIn.signIn({ username: 'carol', password: 'carol passphrase 123' }, '198.51.100.51', 'A'.repeat(43))).status).toBe(429);
      expect((await signIn.signIn({ username: 'carol', password: 'carol passphrase 123' }, '198.51.100.52', `${token!};x`)).status).toBe(429);
      expect((await signIn.signIn({ username: 'erin', password: 'wrong' }, '198.51.100.53', token)).status).toBe(401);

      // Carol's own browser signs in, and is not handed a new device.
      const again = await signIn.signIn({ username: 'carol', password: 'carol passphrase 123' }, '192.0.2.11', token);
      expect(again.status).toBe(200);
      expect(again.ok && again.value.device).toBeUndefined();
      // Guessing from a stolen device cookie has its own allowance of failures, then stops.
      for (let attempt = 0; attempt < 10; attempt += 1) expect((await signIn.signIn({ username: 'carol', password: `device guess ${attempt}` }, `203.0.113.${attempt}`, token)).status).toBe(401);
      expect((await signIn.signIn({ username: 'carol', password: 'carol passphrase 123' }, '203.0.113.99', token)).status).toBe(429);
      limitsClock += 15 * 60 * 1000;
      expect((await signIn.signIn({ username: 'carol', password: 'carol passphrase 123' }, '192.0.2.12', token)).status).toBe(200);

      // A device expires, and a password change forgets every device of the account.
      const later = new ConsoleTrustedDevices(infrastructure.prisma, () => new Date(clock + DEVICE_TRUST_MS));
      expect(await later.trustedFor(token, 'carol')).toBeNull();
      expect(await devices().trustedFor(token, 'carol')).not.toBeNull();
      expect((await accounts.setPassword('carol', 'carol passphrase 123')).ok).toBe(true);
      expect(await devices().trustedFor(token, 'carol')).toBeNull();
      expect(await infrastructure.prisma.consoleTrustedDevice.count({ where: { username: 'carol' } })).toBe(0);
    });

    it(`keeps an account's ${MAX_DEVICES_PER_ACCOUNT} newest devices and sweeps expired ones`, async () => {
      const store = devices();
      const dave = (await accounts.authenticate('dave', 'dave third passphrase'))!;
      const tokens: string[] = [];
      for (let index = 0; index < MAX_DEVICES_PER_ACCOUNT + 3; index += 1) {
        clock += 1000;
        tokens.push((await store.trust(dave)).token);
      }
      expect(await infrastructure.prisma.consoleTrustedDevice.count({ where: { accountId: dave.accountId } })).toBe(MAX_DEVICES_PER_ACCOUNT);
      expect(await store.trustedFor(tokens[0], 'dave')).toBeNull();
      expect(await store.trustedFor(tokens.at(-1), 'dave')).not.toBeNull();
      expect(await new ConsoleTrustedDevices(infrastructure.prisma, () => new Date(clock + DEVICE_TRUST_MS)).sweep()).toBeGreaterThanOrEqual(MAX_DEVICES_PER_ACCOUNT);
      expect(await infrastructure.prisma.consoleTrustedDevice.count({ where: { accountId: dave.accountId } })).toBe(0);
    });

    it('answers a malformed body with a stable code and no session', async () => {
      const signIn = new ConsoleSignIn(accounts, sessions(), devices());
      for (const body of [null, [], 'x', { username: 'carol' }, { username: 'carol', password: 7 }, { username: 'carol', password: 'carol passphrase 123', extra: 1 }]) {
        const result = await signIn.signIn(body, '203.0.113.1');
        expect(result.status).toBe(422);
        expect(!result.ok && result.error.code).toBe('CONSOLE_INVALID_INPUT');
      }
    });
  });

  it('writes the cookie HttpOnly, SameSite=Strict, Path=/ and Secure only for an https console; reads it back', () => {
    expect(sessionCookie('abc', false)).toBe('tm_console_session=abc; Path=/; HttpOnly; SameSite=Strict; Max-Age=604800');
    expect(sessionCookie('abc', true)).toContain('; Secure');
    expect(clearedSessionCookie(true)).toBe('tm_console_session=; Path=/; HttpOnly; SameSite=Strict; Max-Age=0; Secure');
    expect(sessionIdFromCookie('theme=dark; tm_console_session=xyz; other=1')).toBe('xyz');
    expect(sessionIdFromCookie('theme=dark')).toBeUndefined();
    expect(sessionIdFromCookie(undefined)).toBeUndefined();
    expect(deviceCookie('abc', false)).toBe(`tm_console_device=abc; Path=/api/v1/session; HttpOnly; SameSite=Strict; Max-Age=${DEVICE_TRUST_MS / 1000}`);
    expect(deviceCookie('abc', true)).toContain('; Secure');
  });
});
