/**
 * The control read model as operators read it (devices, pairing codes, browser sessions, status changes,
 * interaction audit), projected from a workspace's life on both databases; every event applied twice, as an
 * at-least-once bus may deliver it, leaves the same rows.
 */
import { randomUUID } from 'node:crypto';

import { applyMigrations, type Database } from '@trustmesh/platform-database';
import { createTestDatabase, TEST_DATABASE_KINDS, type TestDatabase } from '@trustmesh/platform-database/testing';
import { createEnvelope, type EventEnvelope } from '@trustmesh/platform-events';
import type { BusRecord } from '@trustmesh/platform-bus';

import { controlEvent, type ControlEvent } from '../control/control.events';
import { controlReadModelProjection } from './control-read-model.projection';
import { PrismaClient } from './generated/prisma/client';
import { RELAY_GATEWAY_MIGRATIONS } from './relay-gateway.migrations';

describe.each(TEST_DATABASE_KINDS)('control read model on %s', (kind) => {
  let testDb: TestDatabase;
  let database: Database;
  let prisma: PrismaClient;
  const projection = controlReadModelProjection();
  let version = 0;

  beforeAll(async () => {
    testDb = await createTestDatabase(kind, 'control-read-model');
    database = await testDb.open();
    await applyMigrations(database, [RELAY_GATEWAY_MIGRATIONS]);
    prisma = new PrismaClient({ adapter: database.prismaAdapter() });
  });

  afterAll(async () => {
    await prisma?.$disconnect();
    await testDb?.dispose();
  });

  /** Applies each event in its own transaction, twice. */
  async function project(events: readonly ControlEvent[]): Promise<EventEnvelope[]> {
    const envelopes = events.map((event) => createEnvelope<unknown>(event, { streamId: 'relay-test', streamVersion: (version += 1), producer: 'relay-gateway@test' }));
    for (const envelope of [...envelopes, ...envelopes]) {
      await prisma.$transaction((tx) => projection.apply(envelope, { tx, record: {} as BusRecord }));
    }
    return envelopes;
  }

  it('follows a workspace from creation to a revoked device, each fact once', async () => {
    const workspaceId = randomUUID();
    const codeId = randomUUID();
    const deviceId = randomUUID();
    const sessionId = randomUUID();
    const connectionId = randomUUID();
    const replaced = randomUUID();
    const [, , , , , , , , connected, , , , , , disconnected, audited] = await project([
      controlEvent('WorkspaceCreated', { workspaceId, ownerUserId: 'owner-1', displayName: 'Ops', endToEndEncrypted: true, requestId: randomUUID(), createdAt: '2026-01-01T10:00:00.000Z' }),
      controlEvent('PairingCodeIssued', { codeId, workspaceId, requestedByUserId: 'owner-1', issuedAt: '2026-01-01T10:01:00.000Z', expiresAt: '2026-01-01T10:11:00.000Z' }),
      controlEvent('PairingCodeRedeemed', { codeId, workspaceId, deviceId, redeemedAt: '2026-01-01T10:02:00.000Z' }),
      controlEvent('DeviceEnrolled', { deviceId, workspaceId, codeId, credentialVerifier: 'a'.repeat(64), enrolledAt: '2026-01-01T10:02:00.000Z' }),
      controlEvent('BrowserSessionIssued', {
        sessionId,
        workspaceId,
        origin: 'https://app.trustmesh.test',
        acceptedWireVersions: ['1.2', '1.1'],
        userId: 'user-1',
        issuedAt: '2026-01-01T10:03:00.000Z',
        expiresAt: '2026-01-01T10:04:00.000Z',
      }),
      controlEvent('BrowserSessionTicketConsumed', { sessionId, workspaceId, consumedAt: '2026-01-01T10:03:10.000Z' }),
      controlEvent('BrowserSessionStarted', { sessionId, workspaceId, userId: 'user-1', wireVersion: '1.2', replicaId: 'replica-a', startedAt: '2026-01-01T10:03:11.000Z' }),
      controlEvent('CompanionConnected', { workspaceId, deviceId, connectionId: replaced, wireVersion: '1.1', replicaId: 'replica-a', connectedAt: '2026-01-01T10:04:00.000Z' }),
      controlEvent('CompanionConnected', { workspaceId, deviceId, connectionId, wireVersion: '1.2', replicaId: 'replica-b', connectedAt: '2026-01-01T10:05:00.000Z' }),
      // The replaced socket closing late: not live, so no status change, and the device stays connected.
      controlEvent('CompanionDisconnected', { workspaceId, deviceId, connectionId: replaced, reason: 'replaced', replicaId: 'replica-a', wasLive: false, disconnectedAt: '2026-01-01T10:05:01.000Z' }),
      controlEvent('BrowserSessionEnded', { sessionId, workspaceId, reason: 'closed', closeCode: 1000, replicaId: 'replica-a', endedAt: '2026-01-01T10:06:00.000Z' }),
      controlEvent('DeviceRevoked', { deviceId, workspaceId, reason: 'lost laptop', revokedByUserId: 'owner-1', revokedAt: '2026-01-01T10:07:00.000Z' }),
      // A second revocation does not rewrite the first.
      controlEvent('DeviceRevoked', { deviceId, workspaceId, reason: 'again', revokedByUserId: 'owner-2', revokedAt: '2026-01-01T10:08:00.000Z' }),
      controlEvent('WorkspaceCreated', { workspaceId, ownerUserId: 'someone-else', displayName: 'Renamed', endToEndEncrypted: false, requestId: randomUUID(), createdAt: '2026-01-02T00:00:00.000Z' }),
      controlEvent('CompanionDisconnected', { workspaceId, deviceId, connectionId, reason: 'revoked', replicaId: 'replica-b', wasLive: true, disconnectedAt: '2026-01-01T10:07:00.500Z' }),
      controlEvent('InteractionAudited', {
        workspaceId,
        interactionId: 'interaction-1',
        method: 'approval.request',
        phase: 'resolved',
        sessionId,
        userId: 'user-1',
        outcomeKind: 'approved',
        responseKind: null,
        relaySequence: 3_000_000_000,
        occurredAt: '2026-01-01T10:05:30.000Z',
      }),
    ]);

    expect(await prisma.relayWorkspace.findMany({ where: { workspaceId } })).toEqual([
      { workspaceId, ownerUserId: 'owner-1', displayName: 'Ops', endToEndEncrypted: true, createdAt: new Date('2026-01-01T10:00:00.000Z') },
    ]);
    expect(await prisma.relayPairingCode.findUnique({ where: { codeId } })).toEqual({
      codeId,
      workspaceId,
      requestedByUserId: 'owner-1',
      issuedAt: new Date('2026-01-01T10:01:00.000Z'),
      expiresAt: new Date('2026-01-01T10:11:00.000Z'),
      redeemedAt: new Date('2026-01-01T10:02:00.000Z'),
      deviceId,
    });
    expect(await prisma.relayDevice.findUnique({ where: { deviceId } })).toEqual({
      deviceId,
      workspaceId,
      pairingCodeId: codeId,
      enrolledAt: new Date('2026-01-01T10:02:00.000Z'),
      revokedAt: new Date('2026-01-01T10:07:00.000Z'),
      revokedByUserId: 'owner-1',
      revokeReason: 'lost laptop',
      connected: false,
      connectionId,
      wireVersion: '1.2',
      lastConnectedAt: new Date('2026-01-01T10:05:00.000Z'),
      lastDisconnectedAt: new Date('2026-01-01T10:07:00.500Z'),
    });
    expect(await prisma.relayBrowserSession.findUnique({ where: { sessionId } })).toEqual({
      sessionId,
      workspaceId,
      userId: 'user-1',
      origin: 'https://app.trustmesh.test',
      acceptedWireVersions: '1.2,1.1',
      issuedAt: new Date('2026-01-01T10:03:00.000Z'),
      expiresAt: new Date('2026-01-01T10:04:00.000Z'),
      consumedAt: new Date('2026-01-01T10:03:10.000Z'),
      startedAt: new Date('2026-01-01T10:03:11.000Z'),
      wireVersion: '1.2',
      endedAt: new Date('2026-01-01T10:06:00.000Z'),
      endReason: 'closed',
      closeCode: 1000,
    });
    const changes = await prisma.relayWorkspaceStatusChange.findMany({ where: { workspaceId }, orderBy: { occurredAt: 'asc' } });
    expect(changes.map(({ id: _id, ...change }) => change)).toEqual([
      expect.objectContaining({ status: 'online', connectionId: replaced, wireVersion: '1.1', reason: 'connected', replicaId: 'replica-a' }),
      {
        eventId: (connected as EventEnvelope).eventId,
        workspaceId,
        status: 'online',
        deviceId,
        connectionId,
        wireVersion: '1.2',
        reason: 'connected',
        replicaId: 'replica-b',
        occurredAt: new Date('2026-01-01T10:05:00.000Z'),
      },
      {
        eventId: (disconnected as EventEnvelope).eventId,
        workspaceId,
        status: 'offline',
        deviceId,
        connectionId,
        wireVersion: null,
        reason: 'revoked',
        replicaId: 'replica-b',
        occurredAt: new Date('2026-01-01T10:07:00.500Z'),
      },
    ]);
    const audit = await prisma.relayInteractionAudit.findMany({ where: { workspaceId } });
    expect(audit.map(({ id: _id, ...entry }) => entry)).toEqual([
      {
        eventId: (audited as EventEnvelope).eventId,
        workspaceId,
        interactionId: 'interaction-1',
        method: 'approval.request',
        phase: 'resolved',
        sessionId,
        userId: 'user-1',
        outcomeKind: 'approved',
        responseKind: null,
        relaySequence: 3_000_000_000n,
        occurredAt: new Date('2026-01-01T10:05:30.000Z'),
      },
    ]);
  });
});
