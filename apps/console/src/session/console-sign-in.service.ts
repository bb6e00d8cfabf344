/**
 * Signing in (API.md `POST /api/v1/session`): the login rate limits, then one password check, then a session.
 *
 * Limits, from `@trustmesh/platform-rate-limits`, counted before the password is checked (a refused attempt
 * costs no scrypt): per username, 10 attempts per 15 minutes and 50 per day, so guessing one account's
 * password is slow whoever guesses; per client address, 30 per 15 minutes and 300 per day, so one source
 * cannot spray many accounts. Every attempt counts, successful ones too: a person who signs in ten times in
 * a quarter of an hour waits, which is rare and says what to do (`Retry-After`). The username is case-folded
 * before it is a key, and a malformed one is still counted under a key of its own so it cannot be used to
 * slip past the address limit.
 *
 * An unknown username and a wrong password get the same answer after about the same time
 * (`ConsoleAccountsService.authenticate` runs one scrypt either way).
 */
import { CombinedRateLimiter, WindowRateLimiter, type RateLimiter } from '@trustmesh/platform-rate-limits';

import type { ConsoleAccountsService } from '../accounts/console-accounts.service';
import { normalizeUsername } from '../accounts/console-account.decider';
import { answered, refused, type ConsoleAccount, type ConsoleResult } from '../console-result';
import type { ConsoleSessions, OpenedSession } from './console-sessions';

export interface SignInLimits {
  perUsername: RateLimiter;
  perAddress: RateLimiter;
}

export function defaultSignInLimits(now?: () => number): SignInLimits {
  const clock = now ? { now } : {};
  return {
    perUsername: new CombinedRateLimiter([new WindowRateLimiter({ limit: 10, windowSeconds: 15 * 60, ...clock }), new WindowRateLimiter({ limit: 50, windowSeconds: 24 * 60 * 60, ...clock })]),
    perAddress: new CombinedRateLimiter([new WindowRateLimiter({ limit: 30, windowSeconds: 15 * 60, ...clock }), new WindowRateLimiter({ limit: 300, windowSeconds: 24 * 60 * 60, ...clock })]),
  };
}

export interface SignedIn {
  account: ConsoleAccount;
  session: OpenedSession;
}

export type SignInResult = ConsoleResult<SignedIn> & { retryAfterSeconds?: number };

export class ConsoleSignIn {
  constructor(
    private readonly accounts: ConsoleAccountsService,
    private readonly sessions: ConsoleSessions,
    private readonly limits: SignInLimits = defaultSignInLimits(),
  ) {}

  async signIn(body: unknown, sourceAddress: string): Promise<SignInResult> {
    if (typeof body !== 'object' || body === null || Array.isArray(body) || Object.keys(body).some((key) => key !== 'username' && key !== 'password')) {
      return refused(422, 'CONSOLE_INVALID_INPUT', 'Send {"username", "password"} and nothing else', { issues: [{ code: 'CONSOLE_BODY_SHAPE', path: '', message: 'The body must be {"username", "password"}' }] });
    }
    const { username, password } = body as { username?: unknown; password?: unknown };
    if (typeof username !== 'string' || typeof password !== 'string') {
      return refused(422, 'CONSOLE_INVALID_INPUT', 'Enter your username and password', { issues: [{ code: 'CONSOLE_CREDENTIALS_MISSING', path: typeof username !== 'string' ? '/username' : '/password', message: 'Must be a string' }] });
    }
    const usernameKey = normalizeUsername(username) ?? `malformed:${username.length > 64 ? 'long' : username.toLowerCase()}`;
    const byAddress = this.limits.perAddress.take(sourceAddress);
    const byUsername = this.limits.perUsername.take(usernameKey);
    if (!byAddress.allowed || !byUsername.allowed) {
      const retryAfterSeconds = Math.max(byAddress.allowed ? 0 : byAddress.retryAfterSeconds, byUsername.allowed ? 0 : byUsername.retryAfterSeconds);
      return { ...refused<SignedIn>(429, 'CONSOLE_LOGIN_RATE_LIMITED', `Too many sign-in attempts; wait ${retryAfterSeconds} seconds and try again`), retryAfterSeconds };
    }
    const account = await this.accounts.authenticate(username, password);
    if (!account) return refused(401, 'CONSOLE_LOGIN_FAILED', 'The username or the password is wrong; check both and try again');
    return answered({ account, session: await this.sessions.open(account) });
  }
}
