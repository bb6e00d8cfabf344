/**
 * The control plane's read models and operator audit, projected from `relay.control.v1`: workspaces,
 * devices (enrolment, revocation, connection), pairing codes and browser sessions (their lives, never their
 * secrets), workspace status changes and interaction lifecycle steps. Each event is applied once, in the
 * runner's transaction, with upserts so that replaying the log from the start rebuilds the same rows.
 */
import type { ProjectionDefinition } from '@trustmesh/platform-projections';
import type { EventEnvelope } from '@trustmesh/platform-events';

import { RELAY_CONTROL_TOPIC, type ControlEventMap } from '../control/control.events';
import type { Prisma } from './generated/prisma/client';

/** The transaction client the control read model is written with (`prismaTransactions`). */
export type RelayPrismaTx = Prisma.TransactionClient;

export const CONTROL_READ_MODEL_PROJECTION = 'relay-control-read-model';

type Handlers = { [K in keyof ControlEventMap]?: (tx: RelayPrismaTx, data: ControlEventMap[K], envelope: EventEnvelope) => Promise<unknown> };

const date = (iso: string) => new Date(iso);

const HANDLERS: Handlers = {
  WorkspaceCreated: (tx, data) =>
    tx.relayWorkspace.upsert({
      where: { workspaceId: data.workspaceId },
      create: {
        workspaceId: data.workspaceId,
        ownerUserId: data.ownerUserId,
        displayName: data.displayName,
        endToEndEncrypted: data.endToEndEncrypted,
        createdAt: date(data.createdAt),
      },
      update: {},
    }),
  PairingCodeIssued: (tx, data) =>
    tx.relayPairingCode.upsert({
      where: { codeId: data.codeId },
      create: {
        codeId: data.codeId,
        workspaceId: data.workspaceId,
        requestedByUserId: data.requestedByUserId,
        issuedAt: date(data.issuedAt),
        expiresAt: date(data.expiresAt),
      },
      update: {},
    }),
  PairingCodeRedeemed: (tx, data) =>
    tx.relayPairingCode.updateMany({ where: { codeId: data.codeId }, data: { redeemedAt: date(data.redeemedAt), deviceId: data.deviceId } }),
  DeviceEnrolled: (tx, data) =>
    tx.relayDevice.upsert({
      where: { deviceId: data.deviceId },
      create: { deviceId: data.deviceId, workspaceId: data.workspaceId, pairingCodeId: data.codeId, enrolledAt: date(data.enrolledAt) },
      update: {},
    }),
  DeviceRevoked: (tx, data) =>
    tx.relayDevice.updateMany({
      where: { deviceId: data.deviceId, revokedAt: null },
      data: { revokedAt: date(data.revokedAt), revokedByUserId: data.revokedByUserId, revokeReason: data.reason },
    }),
  BrowserSessionIssued: (tx, data) =>
    tx.relayBrowserSession.upsert({
      where: { sessionId: data.sessionId },
      create: {
        sessionId: data.sessionId,
        workspaceId: data.workspaceId,
        userId: data.userId,
        origin: data.origin,
        acceptedWireVersions: data.acceptedWireVersions.join(',').slice(0, 200),
        issuedAt: date(data.issuedAt),
        expiresAt: date(data.expiresAt),
      },
      update: {},
    }),
  BrowserSessionTicketConsumed: (tx, data) =>
    tx.relayBrowserSession.updateMany({ where: { sessionId: data.sessionId }, data: { consumedAt: date(data.consumedAt) } }),
  BrowserSessionStarted: (tx, data) =>
    tx.relayBrowserSession.updateMany({ where: { sessionId: data.sessionId }, data: { startedAt: date(data.startedAt), wireVersion: data.wireVersion } }),
  BrowserSessionEnded: (tx, data) =>
    tx.relayBrowserSession.updateMany({
      where: { sessionId: data.sessionId },
      data: { endedAt: date(data.endedAt), endReason: data.reason.slice(0, 40), closeCode: data.closeCode },
    }),
  CompanionConnected: async (tx, data, envelope) => {
    await tx.relayDevice.updateMany({
      where: { deviceId: data.deviceId },
      data: { connected: true, connectionId: data.connectionId, wireVersion: data.wireVersion, lastConnectedAt: date(data.connectedAt) },
    });
    await tx.relayWorkspaceStatusChange.upsert({
      where: { eventId: envelope.eventId },
      create: {
        eventId: envelope.eventId,
        workspaceId: data.workspaceId,
        status: 'online',
        deviceId: data.deviceId,
        connectionId: data.connectionId,
        wireVersion: data.wireVersion,
        reason: 'connected',
        replicaId: data.replicaId,
        occurredAt: date(data.connectedAt),
      },
      update: {},
    });
  },
  CompanionDisconnected: async (tx, data, envelope) => {
    // Only the connection the device row names goes offline: a replaced socket closing late changes nothing.
    await tx.relayDevice.updateMany({
      where: { deviceId: data.deviceId, connectionId: data.connectionId },
      data: { connected: false, lastDisconnectedAt: date(data.disconnectedAt) },
    });
    if (!data.wasLive) return;
    await tx.relayWorkspaceStatusChange.upsert({
      where: { eventId: envelope.eventId },
      create: {
        eventId: envelope.eventId,
        workspaceId: data.workspaceId,
        status: 'offline',
        deviceId: data.deviceId,
        connectionId: data.connectionId,
        reason: data.reason.slice(0, 40),
        replicaId: data.replicaId,
        occurredAt: date(data.disconnectedAt),
      },
      update: {},
    });
  },
  InteractionAudited: (tx, data, envelope) =>
    tx.relayInteractionAudit.upsert({
      where: { eventId: envelope.eventId },
      create: {
        eventId: envelope.eventId,
        workspaceId: data.workspaceId,
        interactionId: data.interactionId.slice(0, 100),
        method: data.method.slice(0, 64),
        phase: data.phase.slice(0, 16),
        sessionId: data.sessionId,
        userId: data.userId,
        outcomeKind: data.outcomeKind,
        responseKind: data.responseKind,
        relaySequence: data.relaySequence === null ? null : BigInt(data.relaySequence),
        occurredAt: date(data.occurredAt),
      },
      update: {},
    }),
};

export function controlReadModelProjection(): ProjectionDefinition<RelayPrismaTx> {
  return {
    name: CONTROL_READ_MODEL_PROJECTION,
    version: 1,
    topics: [RELAY_CONTROL_TOPIC],
    apply: async (envelope, { tx }) => {
      const handler = HANDLERS[envelope.eventType as keyof ControlEventMap] as
        | ((tx: RelayPrismaTx, data: unknown, envelope: EventEnvelope) => Promise<unknown>)
        | undefined;
      // Unknown event types (a newer replica's) are skipped, not failed: this version has no rows for them.
      if (handler) await handler(tx, envelope.data, envelope);
    },
  };
}
