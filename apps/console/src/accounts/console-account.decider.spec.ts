import { ACCOUNT_CREATED, ACCOUNT_DELETED, ACCOUNT_PASSWORD_CHANGED, decide, fold, normalizeUsername, type ConsoleAccountEvent } from './console-account.decider';

const AT = '2026-12-04T10:00:00.000Z';
const created: ConsoleAccountEvent = { eventType: ACCOUNT_CREATED, data: { accountId: 'a-1', username: 'alice', passwordHash: 'h1', createdAt: AT } };

describe('console account decider', () => {
  describe('usernames', () => {
    it('case-folds 3-64 of [a-z0-9._-] and refuses anything else', () => {
      expect(normalizeUsername('Alice.B_1-x')).toBe('alice.b_1-x');
      expect(normalizeUsername('abc')).toBe('abc');
      expect(normalizeUsername('a'.repeat(64))).toBe('a'.repeat(64));
      for (const bad of ['ab', 'a'.repeat(65), 'al ice', 'alice@x', 'ålice', '', 'a/b', 42, null]) expect(normalizeUsername(bad)).toBeNull();
    });
  });

  it('given no stream, when created, then one ConsoleAccountCreated', () => {
    const decision = decide({ kind: 'create', accountId: 'a-1', username: 'alice', passwordHash: 'h1', at: AT }, fold([]));
    expect(decision).toEqual({ ok: true, events: [created] });
  });

  it('given an account, when created again, then refused ACCOUNT_EXISTS', () => {
    expect(decide({ kind: 'create', accountId: 'a-2', username: 'alice', passwordHash: 'h2', at: AT }, fold([created]))).toEqual({ ok: false, refusal: 'ACCOUNT_EXISTS' });
  });

  it('given an account, when its password is set, then the new hash holds', () => {
    const decision = decide({ kind: 'set-password', passwordHash: 'h2', at: AT }, fold([created]));
    expect(decision).toEqual({ ok: true, events: [{ eventType: ACCOUNT_PASSWORD_CHANGED, data: { accountId: 'a-1', passwordHash: 'h2', changedAt: AT } }] });
    expect(fold([created, ...(decision.ok ? decision.events : [])])?.passwordHash).toBe('h2');
  });

  it('given a deleted account, then no account: password and delete refused, a new creation with a fresh id allowed', () => {
    const deleted: ConsoleAccountEvent = { eventType: ACCOUNT_DELETED, data: { accountId: 'a-1', deletedAt: AT } };
    const state = fold([created, deleted]);
    expect(state).toBeNull();
    expect(decide({ kind: 'set-password', passwordHash: 'h3', at: AT }, state)).toEqual({ ok: false, refusal: 'ACCOUNT_NOT_FOUND' });
    expect(decide({ kind: 'delete', at: AT }, state)).toEqual({ ok: false, refusal: 'ACCOUNT_NOT_FOUND' });
    const again = decide({ kind: 'create', accountId: 'a-2', username: 'alice', passwordHash: 'h4', at: AT }, state);
    expect(again.ok).toBe(true);
    expect(fold([created, deleted, ...(again.ok ? again.events : [])])).toMatchObject({ accountId: 'a-2', passwordHash: 'h4' });
  });

  it('ignores a later event about another account id on the same name (an older account’s)', () => {
    const recreated: ConsoleAccountEvent = { eventType: ACCOUNT_CREATED, data: { accountId: 'a-2', username: 'alice', passwordHash: 'h2', createdAt: AT } };
    const stale: ConsoleAccountEvent = { eventType: ACCOUNT_PASSWORD_CHANGED, data: { accountId: 'a-1', passwordHash: 'old', changedAt: AT } };
    expect(fold([recreated, stale])?.passwordHash).toBe('h2');
  });
});
