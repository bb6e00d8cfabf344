/**
 * A console account as an aggregate (one stream per username, see console.streams.ts): pure `decide(command,
 * state) -> events` and `evolve(state, event) -> state`, no I/O, tested given/when/then. These events are
 * published (the read model lists accounts from them), so they hold only public facts: never the password's
 * hash, which lives in the account's own unpublished verifier stream (`ConsolePasswordSet`, below).
 *
 * Usernames are 3-64 of `[a-z0-9._-]` after case folding (`Alice` and `alice` are one account); the
 * password rules live in password.hashing.ts, which hands the verifier stream only the hash.
 */
export const ACCOUNT_CREATED = 'ConsoleAccountCreated';
export const ACCOUNT_PASSWORD_CHANGED = 'ConsoleAccountPasswordChanged';
export const ACCOUNT_DELETED = 'ConsoleAccountDeleted';

export type ConsoleAccountEvent =
  | { eventType: typeof ACCOUNT_CREATED; data: { accountId: string; username: string; createdAt: string } }
  | { eventType: typeof ACCOUNT_PASSWORD_CHANGED; data: { accountId: string; changedAt: string } }
  | { eventType: typeof ACCOUNT_DELETED; data: { accountId: string; deletedAt: string } };

/** The account a username's stream holds now, or null (never created, or deleted). */
export type ConsoleAccountState = { accountId: string; username: string; createdAt: string; passwordChangedAt: string } | null;

export type ConsoleAccountCommand =
  | { kind: 'create'; accountId: string; username: string; at: string }
  | { kind: 'set-password'; at: string }
  | { kind: 'delete'; at: string };

export type AccountRefusal = 'ACCOUNT_EXISTS' | 'ACCOUNT_NOT_FOUND';

export type Decision = { ok: true; events: ConsoleAccountEvent[] } | { ok: false; refusal: AccountRefusal };

const USERNAME = /^[a-z0-9._-]{3,64}$/;

/** The username as accounts are keyed (case-folded), or null when it is not 3-64 of `[a-z0-9._-]`. */
export function normalizeUsername(raw: unknown): string | null {
  if (typeof raw !== 'string' || raw.length > 64) return null;
  const folded = raw.toLowerCase();
  return USERNAME.test(folded) ? folded : null;
}

export function decide(command: ConsoleAccountCommand, state: ConsoleAccountState): Decision {
  switch (command.kind) {
    case 'create':
      if (state) return { ok: false, refusal: 'ACCOUNT_EXISTS' };
      return { ok: true, events: [{ eventType: ACCOUNT_CREATED, data: { accountId: command.accountId, username: command.username, createdAt: command.at } }] };
    case 'set-password':
      if (!state) return { ok: false, refusal: 'ACCOUNT_NOT_FOUND' };
      return { ok: true, events: [{ eventType: ACCOUNT_PASSWORD_CHANGED, data: { accountId: state.accountId, changedAt: command.at } }] };
    case 'delete':
      if (!state) return { ok: false, refusal: 'ACCOUNT_NOT_FOUND' };
      return { ok: true, events: [{ eventType: ACCOUNT_DELETED, data: { accountId: state.accountId, deletedAt: command.at } }] };
  }
}

export function evolve(state: ConsoleAccountState, event: ConsoleAccountEvent): ConsoleAccountState {
  switch (event.eventType) {
    case ACCOUNT_CREATED:
      return { accountId: event.data.accountId, username: event.data.username, createdAt: event.data.createdAt, passwordChangedAt: event.data.createdAt };
    case ACCOUNT_PASSWORD_CHANGED:
      return state && state.accountId === event.data.accountId ? { ...state, passwordChangedAt: event.data.changedAt } : state;
    case ACCOUNT_DELETED:
      return state && state.accountId === event.data.accountId ? null : state;
  }
}

export const fold = (events: readonly ConsoleAccountEvent[]): ConsoleAccountState => events.reduce<ConsoleAccountState>(evolve, null);

/**
 * The verifier, kept apart from the published facts: `console-password-<accountId>` holds `ConsolePasswordSet`
 * events, appended with `topic: null` (stored, never on the bus). The latest one for the account is its
 * password; sign-in reads it from the store on every attempt, so a change holds at once on every replica.
 */
export const PASSWORD_SET = 'ConsolePasswordSet';

export interface ConsolePasswordSetData {
  accountId: string;
  /** `scrypt$…` (password.hashing.ts), never the password. */
  passwordHash: string;
  setAt: string;
}

/** The hash the account's verifier stream holds now, or null (none set, or events of another account). */
export function currentPasswordHash(accountId: string, events: readonly { eventType: string; data: unknown }[]): string | null {
  let hash: string | null = null;
  for (const event of events) {
    const data = event.data as Partial<ConsolePasswordSetData> | null;
    if (event.eventType === PASSWORD_SET && data?.accountId === accountId && typeof data.passwordHash === 'string') hash = data.passwordHash;
  }
  return hash;
}
