/**
 * The presence tables in plain SQL (`presence-rows.ts`) on both databases a gateway runs on: what
 * GetWorkspaceStatus, `session.ready` and the replicas' release of a dead peer read back.
 */
import { randomUUID } from 'node:crypto';

import { applyMigrations, type Database } from '@trustmesh/platform-database';
import { createTestDatabase, TEST_DATABASE_KINDS, type TestDatabase } from '@trustmesh/platform-database/testing';

import { RELAY_GATEWAY_MIGRATIONS } from '../persistence/relay-gateway.migrations';
import { PresenceRows } from './presence-rows';

describe.each(TEST_DATABASE_KINDS)('presence rows on %s', (kind) => {
  let testDb: TestDatabase;
  let database: Database;
  let rows: PresenceRows;

  beforeAll(async () => {
    testDb = await createTestDatabase(kind, 'presence-rows');
    database = await testDb.open();
    await applyMigrations(database, [RELAY_GATEWAY_MIGRATIONS]);
    rows = new PresenceRows(database);
  });

  afterAll(async () => {
    await testDb?.dispose();
  });

  const connection = (workspaceId: string, wireVersion = '1.2') => ({ workspaceId, deviceId: randomUUID(), connectionId: randomUUID(), wireVersion });

  it('reports an unknown workspace offline, with nothing known about it', async () => {
    expect(await rows.status(randomUUID())).toEqual({
      online: false,
      deviceId: null,
      connectionId: null,
      replicaId: null,
      wireVersion: null,
      lastWireVersion: null,
      changedAt: null,
      browserSessionCount: 0,
    });
  });

  it('keeps the live connection: a replacement keeps the online time, a replaced socket closing late changes nothing', async () => {
    const workspaceId = randomUUID();
    const first = connection(workspaceId, '1.1');
    await rows.companionOnline(first, 'replica-a', new Date('2026-01-01T10:00:00.123Z'));
    expect(await rows.status(workspaceId)).toMatchObject({
      online: true,
      deviceId: first.deviceId,
      connectionId: first.connectionId,
      replicaId: 'replica-a',
      wireVersion: '1.1',
      lastWireVersion: '1.1',
      changedAt: new Date('2026-01-01T10:00:00.123Z'),
    });

    const second = connection(workspaceId, '1.2');
    await rows.companionOnline(second, 'replica-b', new Date('2026-01-01T10:05:00.000Z'));
    expect(await rows.companionOffline(workspaceId, first.connectionId, new Date('2026-01-01T10:06:00.000Z'))).toBe(false);
    expect(await rows.status(workspaceId)).toMatchObject({
      online: true,
      connectionId: second.connectionId,
      replicaId: 'replica-b',
      wireVersion: '1.2',
      changedAt: new Date('2026-01-01T10:00:00.123Z'),
    });

    expect(await rows.companionOffline(workspaceId, second.connectionId, new Date('2026-01-01T10:07:00.000Z'))).toBe(true);
    expect(await rows.status(workspaceId)).toMatchObject({
      online: false,
      deviceId: null,
      connectionId: null,
      replicaId: null,
      wireVersion: null,
      lastWireVersion: '1.2',
      changedAt: new Date('2026-01-01T10:07:00.000Z'),
    });
    // Offline twice is not a second change.
    expect(await rows.companionOffline(workspaceId, second.connectionId, new Date('2026-01-01T10:08:00.000Z'))).toBe(false);
  });

  it('counts a workspace’s live sessions, records each once and reports each end once', async () => {
    const workspaceId = randomUUID();
    const other = randomUUID();
    const sessions = [randomUUID(), randomUUID()];
    for (const sessionId of sessions) await rows.sessionStarted({ sessionId, workspaceId }, 'replica-a', new Date());
    await rows.sessionStarted({ sessionId: randomUUID(), workspaceId: other }, 'replica-a', new Date());
    // A repeated start (a retried call) is the same session.
    await rows.sessionStarted({ sessionId: sessions[0] as string, workspaceId }, 'replica-b', new Date());
    expect((await rows.status(workspaceId)).browserSessionCount).toBe(2);

    expect(await rows.sessionEnded(sessions[0] as string)).toBe(true);
    expect(await rows.sessionEnded(sessions[0] as string)).toBe(false);
    expect((await rows.status(workspaceId)).browserSessionCount).toBe(1);
    expect((await rows.status(other)).browserSessionCount).toBe(1);
  });

  it('tells what a replica holds, so a dead replica’s presence can be released', async () => {
    const replica = `replica-${randomUUID().slice(0, 8)}`;
    const live = connection(randomUUID());
    const gone = connection(randomUUID());
    const sessionId = randomUUID();
    await rows.companionOnline(live, replica, new Date());
    await rows.companionOnline(gone, replica, new Date());
    await rows.companionOffline(gone.workspaceId, gone.connectionId, new Date());
    await rows.sessionStarted({ sessionId, workspaceId: live.workspaceId }, replica, new Date());

    expect(await rows.heldBy(replica)).toEqual({
      companions: [{ workspaceId: live.workspaceId, deviceId: live.deviceId, connectionId: live.connectionId }],
      sessions: [{ sessionId, workspaceId: live.workspaceId }],
    });
    expect(await rows.holders()).toContain(replica);

    await rows.companionOffline(live.workspaceId, live.connectionId, new Date());
    await rows.sessionEnded(sessionId);
    expect(await rows.heldBy(replica)).toEqual({ companions: [], sessions: [] });
    expect(await rows.holders()).not.toContain(replica);
  });
});
