import {
  ACCOUNT_CREATED,
  ACCOUNT_DELETED,
  ACCOUNT_PASSWORD_CHANGED,
  currentPasswordHash,
  decide,
  fold,
  normalizeUsername,
  PASSWORD_SET,
  type ConsoleAccountEvent,
} from './console-account.decider';

const AT = '2026-12-04T10:00:00.000Z';
const created: ConsoleAccountEvent = { eventType: ACCOUNT_CREATED, data: { accountId: 'a-1', username: 'alice', createdAt: AT } };

describe('console account decider', () => {
  describe('usernames', () => {
    it('case-folds 3-64 of [a-z0-9._-] and refuses anything else', () => {
      expect(normalizeUsername('Alice.B_1-x')).toBe('alice.b_1-x');
      expect(normalizeUsername('abc')).toBe('abc');
      expect(normalizeUsername('a'.repeat(64))).toBe('a'.repeat(64));
      for (const bad of ['ab', 'a'.repeat(65), 'al ice', 'alice@x', 'ålice', '', 'a/b', 42, null]) expect(normalizeUsername(bad)).toBeNull();
    });
  });

  it('given no stream, when created, then one ConsoleAccountCreated with public facts only', () => {
    const decision = decide({ kind: 'create', accountId: 'a-1', username: 'alice', at: AT }, fold([]));
    expect(decision).toEqual({ ok: true, events: [created] });
  });

  it('given an account, when created again, then refused ACCOUNT_EXISTS', () => {
    expect(decide({ kind: 'create', accountId: 'a-2', username: 'alice', at: AT }, fold([created]))).toEqual({ ok: false, refusal: 'ACCOUNT_EXISTS' });
  });

  it('given an account, when its password is set, then a ConsoleAccountPasswordChanged saying when, not what', () => {
    const later = '2026-12-05T10:00:00.000Z';
    const decision = decide({ kind: 'set-password', at: later }, fold([created]));
    expect(decision).toEqual({ ok: true, events: [{ eventType: ACCOUNT_PASSWORD_CHANGED, data: { accountId: 'a-1', changedAt: later } }] });
    expect(fold([created, ...(decision.ok ? decision.events : [])])).toEqual({ accountId: 'a-1', username: 'alice', createdAt: AT, passwordChangedAt: later });
  });

  it('given a deleted account, then no account: password and delete refused, a new creation with a fresh id allowed', () => {
    const deleted: ConsoleAccountEvent = { eventType: ACCOUNT_DELETED, data: { accountId: 'a-1', deletedAt: AT } };
    const state = fold([created, deleted]);
    expect(state).toBeNull();
    expect(decide({ kind: 'set-password', at: AT }, state)).toEqual({ ok: false, refusal: 'ACCOUNT_NOT_FOUND' });
    expect(decide({ kind: 'delete', at: AT }, state)).toEqual({ ok: false, refusal: 'ACCOUNT_NOT_FOUND' });
    const again = decide({ kind: 'create', accountId: 'a-2', username: 'alice', at: AT }, state);
    expect(again.ok).toBe(true);
    expect(fold([created, deleted, ...(again.ok ? again.events : [])])).toMatchObject({ accountId: 'a-2' });
  });

  it('ignores a later event about another account id on the same name (an older account’s)', () => {
    const recreated: ConsoleAccountEvent = { eventType: ACCOUNT_CREATED, data: { accountId: 'a-2', username: 'alice', createdAt: AT } };
    const stale: ConsoleAccountEvent = { eventType: ACCOUNT_PASSWORD_CHANGED, data: { accountId: 'a-1', changedAt: '2026-12-06T00:00:00.000Z' } };
    expect(fold([recreated, stale])?.passwordChangedAt).toBe(AT);
  });

  describe('the verifier stream', () => {
    const set = (accountId: string, passwordHash: string) => ({ eventType: PASSWORD_SET, data: { accountId, passwordHash, setAt: AT } });

    it('given no ConsolePasswordSet, then no hash: the account cannot sign in', () => {
      expect(currentPasswordHash('a-1', [])).toBeNull();
    });

    it('given several, then the latest of this account counts; others and unknown event types are ignored', () => {
      expect(currentPasswordHash('a-1', [set('a-1', 'h1'), set('a-1', 'h2')])).toBe('h2');
      expect(currentPasswordHash('a-1', [set('a-1', 'h1'), set('a-2', 'other'), { eventType: 'ConsolePasswordCleared', data: { accountId: 'a-1' } }])).toBe('h1');
      expect(currentPasswordHash('a-1', [{ eventType: PASSWORD_SET, data: null }, { eventType: PASSWORD_SET, data: { accountId: 'a-1', passwordHash: 42 } }])).toBeNull();
    });
  });
});
