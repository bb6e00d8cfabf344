/**
 * Trusted devices ("device cookies", OWASP's answer to lockout by guessing): a browser that signed in to an
 * account gets a random 256-bit token in the `tm_console_device` cookie, stored server-side as its SHA-256
 * only, bound to the account and its username, for 90 days. A later sign-in for that username from that
 * browser is limited per device instead of per username (console-sign-in.service.ts), so somebody guessing
 * at the name from elsewhere, which uses up the username's allowance, cannot lock its owner out of a
 * browser they already used.
 *
 * The token grants nothing by itself: the password is still checked, and a device has its own allowance of
 * failures. The cookie is sent only to the session route (`Path=/api/v1/session`). An account keeps at most
 * `MAX_DEVICES_PER_ACCOUNT` (its newest); a password change or deleting the account drops them all
 * (console-accounts.service.ts), so a name taken again later, or a browser that knew the old password,
 * starts untrusted.
 */
import { createHash, randomBytes } from 'node:crypto';

import type { ConsoleAccount } from '../console-result';
import type { PrismaClient } from '../persistence/generated/prisma/client';

export const DEVICE_COOKIE = 'tm_console_device';
export const DEVICE_TRUST_MS = 90 * 24 * 60 * 60 * 1000;
export const MAX_DEVICES_PER_ACCOUNT = 20;
const DEVICE_TOKEN = /^[A-Za-z0-9_-]{43}$/;
const DEVICE_COOKIE_PATH = '/api/v1/session';

const hashOf = (token: string) => createHash('sha256').update(token).digest('hex');

export class ConsoleTrustedDevices {
  constructor(
    private readonly prisma: PrismaClient,
    private readonly now: () => Date = () => new Date(),
  ) {}

  /**
   * The key this browser's attempts for `username` (case-folded) are counted under when its cookie names a
   * live device of that username, else null. The key is the token's hash: it never appears anywhere else.
   */
  async trustedFor(token: string | undefined, username: string): Promise<string | null> {
    if (token === undefined || !DEVICE_TOKEN.test(token)) return null;
    const deviceHash = hashOf(token);
    const row = await this.prisma.consoleTrustedDevice.findUnique({ where: { deviceHash } });
    if (!row || row.username !== username || row.expiresAt.getTime() <= this.now().getTime()) return null;
    return deviceHash;
  }

  /** Trusts this browser for the account: a new token (the cookie's value, shown once), and the oldest beyond the bound dropped. */
  async trust(account: ConsoleAccount): Promise<{ token: string; expiresAt: Date }> {
    const token = randomBytes(32).toString('base64url');
    const now = this.now();
    const expiresAt = new Date(now.getTime() + DEVICE_TRUST_MS);
    await this.prisma.consoleTrustedDevice.create({ data: { deviceHash: hashOf(token), accountId: account.accountId, username: account.username, createdAt: now, expiresAt } });
    const kept = await this.prisma.consoleTrustedDevice.findMany({
      where: { accountId: account.accountId },
      orderBy: [{ createdAt: 'desc' }, { deviceHash: 'asc' }],
      skip: MAX_DEVICES_PER_ACCOUNT,
      select: { deviceHash: true },
    });
    if (kept.length > 0) await this.prisma.consoleTrustedDevice.deleteMany({ where: { deviceHash: { in: kept.map((row) => row.deviceHash) } } });
    return { token, expiresAt };
  }

  /** Drops expired devices (run now and then; `trustedFor` refuses them anyway). */
  async sweep(): Promise<number> {
    const { count } = await this.prisma.consoleTrustedDevice.deleteMany({ where: { expiresAt: { lte: this.now() } } });
    return count;
  }
}

/** The `Set-Cookie` value that hands a browser its device token (Secure when the console is served over https). */
export function deviceCookie(token: string, secure: boolean): string {
  return `${DEVICE_COOKIE}=${token}; Path=${DEVICE_COOKIE_PATH}; HttpOnly; SameSite=Strict; Max-Age=${DEVICE_TRUST_MS / 1000}${secure ? '; Secure' : ''}`;
}
