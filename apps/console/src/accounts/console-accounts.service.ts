/**
 * Console accounts: created, re-passworded and deleted by an operator (the CLI, `trustmesh console account`),
 * signed in to over HTTP. Framework-free: the event store holds the truth (console.streams.ts), decisions are
 * `decide`/`evolve` (console-account.decider.ts), lists read the `console_accounts` projection.
 *
 * Sign-in reads the username's stream and the account's verifier stream rather than the projection, so a
 * password changed a moment ago is the one that counts, on every replica. The hash goes only to the verifier
 * stream, which is never published (console.streams.ts); the published account events carry no secret. A
 * password change or a deletion ends every session of the account (API.md).
 */
import { randomUUID } from 'node:crypto';

import { ConcurrencyError, type EventStore } from '@trustmesh/platform-event-store';
import type { ProjectionRunner } from '@trustmesh/platform-projections';
import type { SqlExecutor } from '@trustmesh/platform-database';

import { answered, refused, type ConsoleAccount, type ConsoleResult } from '../console-result';
import type { PrismaClient } from '../persistence/generated/prisma/client';
import { accountStreamId, CONSOLE_ACCOUNTS_TOPIC, passwordStreamId } from '../persistence/console.streams';
import {
  currentPasswordHash,
  decide,
  fold,
  normalizeUsername,
  PASSWORD_SET,
  type ConsoleAccountCommand,
  type ConsoleAccountEvent,
  type ConsoleAccountState,
  type ConsolePasswordSetData,
} from './console-account.decider';
import { DUMMY_HASH, hashPassword, passwordProblem, verifyPassword } from './password.hashing';

export interface ConsoleAccountListing {
  accountId: string;
  username: string;
  createdAt: string;
  passwordChangedAt: string;
}

export interface ConsoleAccountsDeps {
  store: EventStore;
  prisma: PrismaClient;
  /** The read models' runner: writes wait for it so the next list already shows them. */
  projection: ProjectionRunner<SqlExecutor>;
  now?: () => Date;
}

const USERNAME_MESSAGE = 'A username is 3-64 characters of a-z, 0-9, ".", "_" and "-"';
const PROJECTION_WAIT_MS = 10_000;
/** The verifier stream a sign-in for an unknown name reads (no account gets the nil UUID): same reads, same time. */
const NO_ACCOUNT_ID = '00000000-0000-0000-0000-000000000000';

export class ConsoleAccountsService {
  private readonly now: () => Date;

  constructor(private readonly deps: ConsoleAccountsDeps) {
    this.now = deps.now ?? (() => new Date());
  }

  async create(usernameRaw: unknown, password: unknown): Promise<ConsoleResult<ConsoleAccount>> {
    const username = normalizeUsername(usernameRaw);
    if (!username) return refused(422, 'CONSOLE_USERNAME_INVALID', USERNAME_MESSAGE);
    const problem = passwordProblem(password);
    if (problem) return refused(422, 'CONSOLE_PASSWORD_INVALID', problem);
    const passwordHash = await hashPassword(password as string);
    const accountId = randomUUID();
    const at = this.now().toISOString();
    const result = await this.change(username, { kind: 'create', accountId, username, at }, (id) => this.setVerifier(id, passwordHash, at));
    if (!result.ok) return result;
    return answered({ accountId, username }, 201);
  }

  async setPassword(usernameRaw: unknown, password: unknown): Promise<ConsoleResult<ConsoleAccount>> {
    const username = normalizeUsername(usernameRaw);
    if (!username) return refused(422, 'CONSOLE_USERNAME_INVALID', USERNAME_MESSAGE);
    const problem = passwordProblem(password);
    if (problem) return refused(422, 'CONSOLE_PASSWORD_INVALID', problem);
    const passwordHash = await hashPassword(password as string);
    const at = this.now().toISOString();
    const result = await this.change(username, { kind: 'set-password', at }, (id) => this.setVerifier(id, passwordHash, at));
    if (!result.ok) return result;
    await this.forgetSignIns(result.value.accountId);
    return answered({ accountId: result.value.accountId, username });
  }

  async delete(usernameRaw: unknown): Promise<ConsoleResult<ConsoleAccount>> {
    const username = normalizeUsername(usernameRaw);
    if (!username) return refused(422, 'CONSOLE_USERNAME_INVALID', USERNAME_MESSAGE);
    const result = await this.change(username, { kind: 'delete', at: this.now().toISOString() });
    if (!result.ok) return result;
    await this.forgetSignIns(result.value.accountId);
    return answered({ accountId: result.value.accountId, username });
  }

  /** Ends the account's sessions and forgets its trusted devices (console-trusted-devices.ts): after a password change or deletion. */
  private async forgetSignIns(accountId: string): Promise<void> {
    await this.deps.prisma.consoleSession.deleteMany({ where: { accountId } });
    await this.deps.prisma.consoleTrustedDevice.deleteMany({ where: { accountId } });
  }

  /** Every live account, by username. */
  async list(): Promise<ConsoleAccountListing[]> {
    const rows = await this.deps.prisma.consoleAccountView.findMany({ orderBy: { username: 'asc' }, take: 10_000 });
    return rows.map((row) => ({ accountId: row.accountId, username: row.username, createdAt: row.createdAt.toISOString(), passwordChangedAt: row.passwordChangedAt.toISOString() }));
  }

  /**
   * The account when `password` is its password, else null. Always runs exactly one scrypt, against the
   * account's verifier or, for a name that is malformed or unknown (or an account without a verifier), against
   * a dummy one; a well-formed unknown name reads a verifier stream too, so it costs the reads a known one does.
   */
  async authenticate(usernameRaw: unknown, password: unknown): Promise<ConsoleAccount | null> {
    const username = normalizeUsername(usernameRaw);
    const state = username ? (await this.load(username)).state : null;
    const stored = username ? await this.passwordHashOf(state?.accountId ?? NO_ACCOUNT_ID) : null;
    const candidate = typeof password === 'string' && password.length <= 4 * 1024 ? password : '';
    const matches = await verifyPassword(candidate, stored ?? DUMMY_HASH);
    if (!state || stored === null || !matches || passwordProblem(password) !== null) return null;
    return { accountId: state.accountId, username: state.username };
  }

  private async passwordHashOf(accountId: string): Promise<string | null> {
    const recorded = await this.deps.store.readStream(passwordStreamId(accountId));
    return currentPasswordHash(accountId, recorded.map((event) => event.envelope));
  }

  /** Appends the account's new verifier, stored and never published (`topic: null`). */
  private async setVerifier(accountId: string, passwordHash: string, at: string): Promise<void> {
    const data: ConsolePasswordSetData = { accountId, passwordHash, setAt: at };
    // 'any': two changes at once each end with one of them set, the later commit's, as the operator expects.
    await this.deps.store.append(passwordStreamId(accountId), 'any', [{ eventType: PASSWORD_SET, data }], { topic: null });
  }

  private async load(username: string): Promise<{ state: ConsoleAccountState; version: number }> {
    const recorded = await this.deps.store.readStream(accountStreamId(username));
    const events = recorded.map((event) => ({ eventType: event.envelope.eventType, data: event.envelope.data }) as ConsoleAccountEvent);
    return { state: fold(events), version: recorded.at(-1)?.envelope.streamVersion ?? 0 };
  }

  /**
   * Decides the command on the stream's current state and appends; one retry when another writer got there
   * first. `beforeAppend` (the verifier, for a creation or a password change) runs once per account the decision
   * is about, before the published event that makes it count: a crash in between leaves a verifier that no live
   * account points to (a creation) or a password already in force (a change), never an account without one.
   */
  private async change(username: string, command: ConsoleAccountCommand, beforeAppend?: (accountId: string) => Promise<void>): Promise<ConsoleResult<{ accountId: string }>> {
    let preparedFor: string | null = null;
    for (let attempt = 0; ; attempt += 1) {
      const { state, version } = await this.load(username);
      const decision = decide(command, state);
      if (!decision.ok) {
        return decision.refusal === 'ACCOUNT_EXISTS'
          ? refused(409, 'CONSOLE_ACCOUNT_EXISTS', 'An account with this username exists; choose another username')
          : refused(404, 'CONSOLE_ACCOUNT_NOT_FOUND', 'No account has this username; `trustmesh console account list` shows them');
      }
      const accountId = decision.events[0]?.data.accountId as string;
      // Again only when a retry finds another account on the name (it was deleted and made anew meanwhile).
      if (beforeAppend && preparedFor !== accountId) {
        await beforeAppend(accountId);
        preparedFor = accountId;
      }
      try {
        await this.deps.store.append(accountStreamId(username), version, decision.events, { topic: CONSOLE_ACCOUNTS_TOPIC });
      } catch (error) {
        if (error instanceof ConcurrencyError && attempt === 0) continue;
        throw error;
      }
      await this.deps.projection.catchUp(PROJECTION_WAIT_MS);
      return answered({ accountId });
    }
  }
}
