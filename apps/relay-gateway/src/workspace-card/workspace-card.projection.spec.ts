/**
 * The desired workspace cards as the `relay-workspace-cards` projection decides them, on both databases:
 * content and revision from the card events, status from the workspace's devices; every event applied
 * twice, as an at-least-once bus may deliver it, leaves the same desired card.
 */
import { randomUUID } from 'node:crypto';

import { applyMigrations, type Database } from '@trustmesh/platform-database';
import { createTestDatabase, TEST_DATABASE_KINDS, type TestDatabase } from '@trustmesh/platform-database/testing';
import { createEnvelope } from '@trustmesh/platform-events';
import type { BusRecord } from '@trustmesh/platform-bus';

import { controlEvent, type ControlEvent } from '../control/control.events';
import { PrismaClient } from '../persistence/generated/prisma/client';
import { RELAY_GATEWAY_MIGRATIONS } from '../persistence/relay-gateway.migrations';
import { workspaceCardsProjection } from './workspace-card.projection';

describe.each(TEST_DATABASE_KINDS)('workspace cards projection on %s', (kind) => {
  let testDb: TestDatabase;
  let database: Database;
  let prisma: PrismaClient;
  const projection = workspaceCardsProjection();
  let version = 0;

  beforeAll(async () => {
    testDb = await createTestDatabase(kind, 'workspace-cards');
    database = await testDb.open();
    await applyMigrations(database, [RELAY_GATEWAY_MIGRATIONS]);
    prisma = new PrismaClient({ adapter: database.prismaAdapter() });
  });

  afterAll(async () => {
    await prisma?.$disconnect();
    await testDb?.dispose();
  });

  /** Applies each event in its own transaction, twice. */
  async function project(...events: ControlEvent[]): Promise<void> {
    const envelopes = events.map((event) => createEnvelope<unknown>(event, { streamId: 'relay-test', streamVersion: (version += 1), producer: 'relay-gateway@test' }));
    for (const envelope of envelopes) {
      for (let copy = 0; copy < 2; copy += 1) await prisma.$transaction((tx) => projection.apply(envelope, { tx, record: {} as BusRecord }));
    }
  }

  const card = async (workspaceId: string) => {
    const row = await prisma.relayWorkspaceCard.findUniqueOrThrow({ where: { workspaceId } });
    return { status: row.status, revision: row.revision, endpoint: row.endpoint, name: row.name, createdAt: row.createdAt, due: row.desiredVersion > row.deliveredVersion };
  };
  const published = (workspaceId: string, at: string, overrides: Partial<{ name: string; endpoint: string }> = {}) =>
    controlEvent('WorkspaceCardPublished', {
      workspaceId,
      identifier: `https://relay.example.com/relay/workspaces/${workspaceId}`,
      name: 'Agent',
      description: 'An agent',
      tags: ['a'],
      endpoint: 'https://relay-a.example.com',
      endToEndEncrypted: false,
      requestedByUserId: 'owner',
      publishedAt: at,
      ...overrides,
    });
  const enrolled = (workspaceId: string, deviceId: string) =>
    controlEvent('DeviceEnrolled', { deviceId, workspaceId, codeId: randomUUID(), credentialVerifier: 'a'.repeat(64), enrolledAt: '2026-01-01T10:00:00.000Z' });
  const revoked = (workspaceId: string, deviceId: string) =>
    controlEvent('DeviceRevoked', { deviceId, workspaceId, reason: 'lost', revokedByUserId: 'owner', revokedAt: '2026-01-01T11:00:00.000Z' });

  it('deprecates the card when the last device is revoked, and reactivates it when one enrols', async () => {
    const workspaceId = randomUUID();
    const [first, second, third] = [randomUUID(), randomUUID(), randomUUID()];
    await project(published(workspaceId, '2026-01-01T09:00:00.000Z'));
    expect(await card(workspaceId)).toMatchObject({ status: 'active', revision: '2026-01-01T09:00:00.000Z', createdAt: '2026-01-01T09:00:00.000Z', due: true });
    await project(enrolled(workspaceId, first), enrolled(workspaceId, second), revoked(workspaceId, first));
    expect((await card(workspaceId)).status).toBe('active');
    await project(revoked(workspaceId, second));
    expect(await card(workspaceId)).toMatchObject({ status: 'deprecated', revision: '2026-01-01T09:00:00.000Z' });
    await project(enrolled(workspaceId, third));
    expect((await card(workspaceId)).status).toBe('active');
  });

  it('publishes deprecated a workspace whose devices are all revoked already; a republish keeps createdAt', async () => {
    const workspaceId = randomUUID();
    const device = randomUUID();
    await project(enrolled(workspaceId, device), revoked(workspaceId, device), published(workspaceId, '2026-01-02T09:00:00.000Z'));
    expect((await card(workspaceId)).status).toBe('deprecated');
    await project(published(workspaceId, '2026-01-02T10:00:00.000Z', { name: 'Renamed' }));
    expect(await card(workspaceId)).toMatchObject({ name: 'Renamed', revision: '2026-01-02T10:00:00.000Z', createdAt: '2026-01-02T09:00:00.000Z', status: 'deprecated' });
  });

  it('moves the endpoint with a new revision; a move to where it already points changes nothing', async () => {
    const workspaceId = randomUUID();
    await project(published(workspaceId, '2026-01-03T09:00:00.000Z'));
    await project(controlEvent('WorkspaceCardEndpointMoved', { workspaceId, endpoint: 'https://relay-b.example.com', movedAt: '2026-01-03T10:00:00.000Z' }));
    expect(await card(workspaceId)).toMatchObject({ endpoint: 'https://relay-b.example.com', revision: '2026-01-03T10:00:00.000Z' });
    const before = await prisma.relayWorkspaceCard.findUniqueOrThrow({ where: { workspaceId } });
    await prisma.relayWorkspaceCard.update({ where: { workspaceId }, data: { deliveredVersion: before.desiredVersion } });
    await project(controlEvent('WorkspaceCardEndpointMoved', { workspaceId, endpoint: 'https://relay-b.example.com', movedAt: '2026-01-03T11:00:00.000Z' }));
    expect(await card(workspaceId)).toMatchObject({ revision: '2026-01-03T10:00:00.000Z', due: false });
  });
});
