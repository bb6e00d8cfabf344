/**
 * Signing in (API.md `POST /api/v1/session`): the login rate limits, then one password check, then a session.
 *
 * Limits, from `@trustmesh/platform-rate-limits`, each attempt counted before the password is checked (a
 * refused attempt costs no scrypt, and attempts sent together cannot all slip past a check before any is
 * counted):
 * - per client address, 30 per 15 minutes and 300 per day, every attempt: one source cannot spray many
 *   accounts;
 * - per username, 10 per 15 minutes and 50 per day, from browsers the name has not signed in from: guessing
 *   one account's password is slow whoever guesses;
 * - per trusted device, the same, for a browser that signed in to this name before (its `tm_console_device`
 *   cookie, console-trusted-devices.ts) instead of the username's: whoever uses up the username's allowance
 *   cannot lock its owner out of a browser they already signed in from.
 * Only failures use up the username's and the device's allowance: a successful attempt is given back.
 * The username is case-folded before it is a key, and a malformed one is still counted under a key of its
 * own so it cannot be used to slip past the address limit.
 *
 * An unknown username and a wrong password get the same answer after about the same time
 * (`ConsoleAccountsService.authenticate` runs one scrypt either way).
 */
import { CombinedRateLimiter, WindowRateLimiter, type RateLimiter } from '@trustmesh/platform-rate-limits';

import type { ConsoleAccountsService } from '../accounts/console-accounts.service';
import { normalizeUsername } from '../accounts/console-account.decider';
import { answered, refused, type ConsoleAccount, type ConsoleResult } from '../console-result';
import type { ConsoleSessions, OpenedSession } from './console-sessions';
import type { ConsoleTrustedDevices } from './console-trusted-devices';

export interface SignInLimits {
  /** Attempts for a username from browsers it has not signed in from (failures only: successes are refunded). */
  perUsername: RateLimiter;
  /** Attempts from one trusted device for its username (failures only). */
  perDevice: RateLimiter;
  /** Every attempt from one client address. */
  perAddress: RateLimiter;
}

export function defaultSignInLimits(now?: () => number): SignInLimits {
  const clock = now ? { now } : {};
  const guesses = () => new CombinedRateLimiter([new WindowRateLimiter({ limit: 10, windowSeconds: 15 * 60, ...clock }), new WindowRateLimiter({ limit: 50, windowSeconds: 24 * 60 * 60, ...clock })]);
  return {
    perUsername: guesses(),
    perDevice: guesses(),
    perAddress: new CombinedRateLimiter([new WindowRateLimiter({ limit: 30, windowSeconds: 15 * 60, ...clock }), new WindowRateLimiter({ limit: 300, windowSeconds: 24 * 60 * 60, ...clock })]),
  };
}

export interface SignedIn {
  account: ConsoleAccount;
  session: OpenedSession;
  /** A device token for this browser's cookie, when it was not trusted for this username yet. */
  device?: { token: string };
}

export type SignInResult = ConsoleResult<SignedIn> & { retryAfterSeconds?: number };

export class ConsoleSignIn {
  constructor(
    private readonly accounts: ConsoleAccountsService,
    private readonly sessions: ConsoleSessions,
    private readonly devices: ConsoleTrustedDevices,
    private readonly limits: SignInLimits = defaultSignInLimits(),
  ) {}

  /** `deviceToken`: the browser's `tm_console_device` cookie, if it sent one. */
  async signIn(body: unknown, sourceAddress: string, deviceToken?: string): Promise<SignInResult> {
    if (typeof body !== 'object' || body === null || Array.isArray(body) || Object.keys(body).some((key) => key !== 'username' && key !== 'password')) {
      return refused(422, 'CONSOLE_INVALID_INPUT', 'Send {"username", "password"} and nothing else', { issues: [{ code: 'CONSOLE_BODY_SHAPE', path: '', message: 'The body must be {"username", "password"}' }] });
    }
    const { username, password } = body as { username?: unknown; password?: unknown };
    if (typeof username !== 'string' || typeof password !== 'string') {
      return refused(422, 'CONSOLE_INVALID_INPUT', 'Enter your username and password', { issues: [{ code: 'CONSOLE_CREDENTIALS_MISSING', path: typeof username !== 'string' ? '/username' : '/password', message: 'Must be a string' }] });
    }
    const normalized = normalizeUsername(username);
    const usernameKey = normalized ?? `malformed:${username.length > 64 ? 'long' : username.toLowerCase()}`;
    const byAddress = this.limits.perAddress.take(sourceAddress);
    if (!byAddress.allowed) return rateLimited(byAddress.retryAfterSeconds);
    const device = normalized ? await this.devices.trustedFor(deviceToken, normalized) : null;
    const [guesses, guessKey] = device ? [this.limits.perDevice, device] : [this.limits.perUsername, usernameKey];
    const byGuesses = guesses.take(guessKey);
    if (!byGuesses.allowed) return rateLimited(byGuesses.retryAfterSeconds);
    const account = await this.accounts.authenticate(username, password);
    if (!account) return refused(401, 'CONSOLE_LOGIN_FAILED', 'The username or the password is wrong; check both and try again');
    guesses.refund(guessKey);
    const session = await this.sessions.open(account);
    return answered({ account, session, ...(device ? {} : { device: { token: (await this.devices.trust(account)).token } }) });
  }
}

function rateLimited(retryAfterSeconds: number): SignInResult {
  return { ...refused<SignedIn>(429, 'CONSOLE_LOGIN_RATE_LIMITED', `Too many sign-in attempts; wait ${retryAfterSeconds} seconds and try again`), retryAfterSeconds };
}
