/**
 * What the console's account commands put on the bus, on a real embedded database opened the way the console
 * opens it: after a creation, a password change and a deletion, every record of every topic in the bus's log
 * holds the accounts' public facts and no password hash, while the store keeps the verifier (unpublished) that
 * sign-in reads, and each change still holds at once and ends the account's sessions.
 */
import { createPinoLogger } from '@trustmesh/platform-logging';

import { createConsoleDataDir } from '../../test/support/console-world';
import { loadConsoleConfig } from '../config/console.config';
import { openConsoleInfrastructure, type ConsoleInfrastructure } from '../persistence/console-infrastructure';
import { accountStreamId, CONSOLE_ACCOUNTS_TOPIC, passwordStreamId } from '../persistence/console.streams';
import { ConsoleSessions } from '../session/console-sessions';
import { ACCOUNT_CREATED, ACCOUNT_DELETED, ACCOUNT_PASSWORD_CHANGED, PASSWORD_SET } from './console-account.decider';
import { ConsoleAccountsService } from './console-accounts.service';

interface LogRecord {
  topic: string;
  key: string;
  value: string;
  headers: unknown;
}

describe('console accounts on the bus (embedded PGlite)', () => {
  let data: { dataDir: string; remove(): Promise<void> };
  let infrastructure: ConsoleInfrastructure;
  let accounts: ConsoleAccountsService;

  beforeAll(async () => {
    data = await createConsoleDataDir();
    infrastructure = await openConsoleInfrastructure(loadConsoleConfig({ TRUSTMESH_DATA_DIR: data.dataDir }), createPinoLogger({ service: 'console-test', level: 'warn', write: () => undefined }));
    accounts = new ConsoleAccountsService({ store: infrastructure.store, prisma: infrastructure.prisma, projection: infrastructure.projection });
  }, 120_000);

  afterAll(async () => {
    await infrastructure?.close();
    await data?.remove();
  });

  /** Every record in the bus's log, whatever its topic: what a consumer (or a following replica) could read. */
  const everyRecord = () =>
    infrastructure.database.withConnection((sql) => sql.query<LogRecord>('SELECT topic, key, value, headers FROM bus_messages ORDER BY topic, partition, "offset"'));
  const published = async () => (await everyRecord()).map((record) => `${record.topic} ${record.key} ${record.value} ${JSON.stringify(record.headers)}`);

  it('publishes creation, password change and deletion without a hash; sign-in reads the unpublished verifier', async () => {
    const sessions = new ConsoleSessions(infrastructure.prisma);
    const created = await accounts.create('Alice', 'first passphrase 1');
    expect(created).toMatchObject({ ok: true, status: 201 });
    const accountId = created.ok ? created.value.accountId : '';
    expect(await accounts.authenticate('alice', 'first passphrase 1')).toEqual({ accountId, username: 'alice' });
    expect((await published()).join('\n')).not.toContain('scrypt$');

    const before = await sessions.open({ accountId, username: 'alice' });
    expect((await accounts.setPassword('alice', 'second passphrase 2')).ok).toBe(true);
    // In force at once (read from the store, not from a projection), and the old sessions are gone.
    expect(await accounts.authenticate('alice', 'first passphrase 1')).toBeNull();
    expect(await accounts.authenticate('alice', 'second passphrase 2')).toEqual({ accountId, username: 'alice' });
    expect(await sessions.resolve(before.sessionId)).toBeNull();
    expect((await published()).join('\n')).not.toContain('scrypt$');

    const live = await sessions.open({ accountId, username: 'alice' });
    expect((await accounts.delete('alice')).ok).toBe(true);
    expect(await sessions.resolve(live.sessionId)).toBeNull();
    expect(await accounts.authenticate('alice', 'second passphrase 2')).toBeNull();

    const records = await everyRecord();
    for (const record of records) {
      expect(`${record.value} ${JSON.stringify(record.headers)}`).not.toContain('scrypt$');
      expect(record.key.startsWith('console-password-')).toBe(false);
    }
    // The facts the read model needs did go out, on the account's stream and topic.
    const accountEvents = records.filter((record) => record.key === accountStreamId('alice')).map((record) => JSON.parse(record.value) as { eventType: string; data: Record<string, unknown> });
    expect(records.filter((record) => record.key === accountStreamId('alice')).every((record) => record.topic === CONSOLE_ACCOUNTS_TOPIC)).toBe(true);
    expect(accountEvents.map((event) => event.eventType)).toEqual([ACCOUNT_CREATED, ACCOUNT_PASSWORD_CHANGED, ACCOUNT_DELETED]);
    expect(accountEvents.map((event) => Object.keys(event.data).sort())).toEqual([['accountId', 'createdAt', 'username'], ['accountId', 'changedAt'], ['accountId', 'deletedAt']]);

    // The verifier is in the store (so the check above would have seen it had it been published), with no outbox row.
    const verifier = await infrastructure.store.readStream(passwordStreamId(accountId));
    expect(verifier.map((event) => event.envelope.eventType)).toEqual([PASSWORD_SET, PASSWORD_SET]);
    expect(verifier.every((event) => JSON.stringify(event.envelope.data).includes('"passwordHash":"scrypt$'))).toBe(true);
    const [outbox] = await infrastructure.database.withConnection((sql) =>
      sql.query<{ rows: number }>(`SELECT count(*)::int AS rows FROM outbox o JOIN events e ON e.position = o.event_position WHERE e.stream_id LIKE 'console-password-%'`),
    );
    expect(Number(outbox?.rows)).toBe(0);
  });

  it('a name created again gets a verifier of its own: the old password does not open the new account', async () => {
    const first = await accounts.create('bob', 'bob passphrase one');
    expect((await accounts.delete('bob')).ok).toBe(true);
    const second = await accounts.create('bob', 'bob passphrase two');
    expect(first.ok && second.ok && first.value.accountId !== second.value.accountId).toBe(true);
    expect(await accounts.authenticate('bob', 'bob passphrase one')).toBeNull();
    expect(await accounts.authenticate('bob', 'bob passphrase two')).toMatchObject({ username: 'bob' });
    expect((await accounts.create('BOB', 'bob passphrase three')).ok).toBe(false);
    expect((await published()).join('\n')).not.toContain('scrypt$');
    expect(await accounts.list()).toEqual([expect.objectContaining({ username: 'bob', accountId: second.ok ? second.value.accountId : '' })]);
  });

  it('an account without a verifier (made before verifiers moved) cannot sign in until its password is set again', async () => {
    const accountId = crypto.randomUUID();
    const at = new Date().toISOString();
    await infrastructure.store.append(accountStreamId('carol'), 'no-stream', [{ eventType: ACCOUNT_CREATED, data: { accountId, username: 'carol', createdAt: at } }], { topic: CONSOLE_ACCOUNTS_TOPIC });
    expect(await accounts.authenticate('carol', 'carol passphrase 1')).toBeNull();
    expect((await accounts.setPassword('carol', 'carol passphrase 1')).ok).toBe(true);
    expect(await accounts.authenticate('carol', 'carol passphrase 1')).toEqual({ accountId, username: 'carol' });
  });
});
