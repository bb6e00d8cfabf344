/**
 * Sign-in sessions (API.md "Authentication and CSRF"). A session id is 256 random bits, given to the browser
 * once in the `tm_console_session` cookie and stored only as its SHA-256, so a copy of the table signs nobody
 * in. A session ends after 12 h without a request (idle), 7 days after sign-in (absolute), at sign-out, and
 * when its account's password changes or the account is deleted (console-accounts.service.ts).
 *
 * The CSRF token is derived from the session id (HMAC-SHA256 keyed by the id): nothing more to store, it
 * changes with every session, and only the holder of the cookie can compute it, while the token itself,
 * which the page reads and keeps in memory, reveals nothing about the id. It is compared in constant time.
 */
import { createHash, createHmac, randomBytes, timingSafeEqual } from 'node:crypto';

import type { ConsoleAccount } from '../console-result';
import type { PrismaClient } from '../persistence/generated/prisma/client';

export const SESSION_COOKIE = 'tm_console_session';
export const SESSION_IDLE_MS = 12 * 60 * 60 * 1000;
export const SESSION_ABSOLUTE_MS = 7 * 24 * 60 * 60 * 1000;
/** A session's last-seen time is written at most this often (a page polling every 2 s writes no row each time). */
const TOUCH_INTERVAL_MS = 60 * 1000;
const SESSION_ID = /^[A-Za-z0-9_-]{43}$/;

export interface OpenedSession {
  /** The cookie's value: shown to this browser once, never stored. */
  sessionId: string;
  csrfToken: string;
  expiresAt: Date;
}

export interface LiveSession {
  account: ConsoleAccount;
  csrfToken: string;
}

const hashOf = (sessionId: string) => createHash('sha256').update(sessionId).digest('hex');

export function csrfTokenOf(sessionId: string): string {
  return createHmac('sha256', sessionId).update('trustmesh console csrf v1').digest('base64url');
}

/** Constant-time equality of two strings of any length (each hashed first, so lengths leak nothing either). */
export function constantTimeEqual(given: string, expected: string): boolean {
  const a = createHash('sha256').update(given).digest();
  const b = createHash('sha256').update(expected).digest();
  return timingSafeEqual(a, b) && given.length === expected.length;
}

export class ConsoleSessions {
  constructor(
    private readonly prisma: PrismaClient,
    private readonly now: () => Date = () => new Date(),
  ) {}

  async open(account: ConsoleAccount): Promise<OpenedSession> {
    const sessionId = randomBytes(32).toString('base64url');
    const now = this.now();
    const expiresAt = new Date(now.getTime() + SESSION_ABSOLUTE_MS);
    await this.prisma.consoleSession.create({ data: { sessionHash: hashOf(sessionId), accountId: account.accountId, username: account.username, createdAt: now, lastSeenAt: now, expiresAt } });
    return { sessionId, csrfToken: csrfTokenOf(sessionId), expiresAt };
  }

  /** The live session of this cookie value, or null (malformed, unknown, idle too long, past its absolute end). */
  async resolve(sessionId: string | undefined): Promise<LiveSession | null> {
    if (sessionId === undefined || !SESSION_ID.test(sessionId)) return null;
    const sessionHash = hashOf(sessionId);
    const row = await this.prisma.consoleSession.findUnique({ where: { sessionHash } });
    if (!row) return null;
    const now = this.now();
    if (row.expiresAt.getTime() <= now.getTime() || now.getTime() - row.lastSeenAt.getTime() >= SESSION_IDLE_MS) {
      await this.prisma.consoleSession.deleteMany({ where: { sessionHash } });
      return null;
    }
    if (now.getTime() - row.lastSeenAt.getTime() >= TOUCH_INTERVAL_MS) await this.prisma.consoleSession.updateMany({ where: { sessionHash }, data: { lastSeenAt: now } });
    return { account: { accountId: row.accountId, username: row.username }, csrfToken: csrfTokenOf(sessionId) };
  }

  async end(sessionId: string | undefined): Promise<void> {
    if (sessionId === undefined || !SESSION_ID.test(sessionId)) return;
    await this.prisma.consoleSession.deleteMany({ where: { sessionHash: hashOf(sessionId) } });
  }

  /** Drops sessions past their absolute end or idle too long (run now and then; resolve refuses them anyway). */
  async sweep(): Promise<number> {
    const now = this.now();
    const { count } = await this.prisma.consoleSession.deleteMany({ where: { OR: [{ expiresAt: { lte: now } }, { lastSeenAt: { lte: new Date(now.getTime() - SESSION_IDLE_MS) } }] } });
    return count;
  }
}

/** The `Set-Cookie` value that hands a browser its session (Secure when the console is served over https). */
export function sessionCookie(sessionId: string, secure: boolean): string {
  return `${SESSION_COOKIE}=${sessionId}; Path=/; HttpOnly; SameSite=Strict; Max-Age=${SESSION_ABSOLUTE_MS / 1000}${secure ? '; Secure' : ''}`;
}

export function clearedSessionCookie(secure: boolean): string {
  return `${SESSION_COOKIE}=; Path=/; HttpOnly; SameSite=Strict; Max-Age=0${secure ? '; Secure' : ''}`;
}

/** The session cookie's value from a `Cookie` header. */
export function sessionIdFromCookie(header: string | undefined): string | undefined {
  return cookieValue(header, SESSION_COOKIE);
}

/** The value of the cookie `name` from a `Cookie` header (the first one; at most 8 KiB of header is looked at). */
export function cookieValue(header: string | undefined, name: string): string | undefined {
  if (!header) return undefined;
  for (const part of header.slice(0, 8192).split(';')) {
    const index = part.indexOf('=');
    if (index > 0 && part.slice(0, index).trim() === name) return part.slice(index + 1).trim();
  }
  return undefined;
}
