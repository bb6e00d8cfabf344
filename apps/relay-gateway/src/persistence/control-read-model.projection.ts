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

/** What a projection of `relay.control.v1` does per event type; a type without a handler leaves its rows as they are. */
export type ControlEventHandlers = { [K in keyof ControlEventMap]?: (tx: RelayPrismaTx, data: ControlEventMap[K], envelope: EventEnvelope) => Promise<unknown> };

/*
 * Each handler is one or two fixed statements (`$executeRaw`, values as bind parameters), not Prisma model
 * queries: the projection applies every control event, several per socket that connects, and a model
 * upsert cost three statements and a compilation by Prisma's WASM query compiler each time; while a burst
 * of connections was projected, that ran on the event loop the frames go through. "Create if absent" is
 * `INSERT … ON CONFLICT DO NOTHING`, what an upsert with an empty update did; times are the events' ISO
 * strings cast by the database.
 */
const HANDLERS: ControlEventHandlers = {
  WorkspaceCreated: (tx, data) => tx.$executeRaw`
    INSERT INTO relay_workspaces (workspace_id, owner_user_id, display_name, end_to_end_encrypted, created_at)
    VALUES (${data.workspaceId}::uuid, ${data.ownerUserId}, ${data.displayName}, ${data.endToEndEncrypted}, ${data.createdAt}::timestamptz)
    ON CONFLICT (workspace_id) DO NOTHING`,
  PairingCodeIssued: (tx, data) => tx.$executeRaw`
    INSERT INTO relay_pairing_codes (code_id, workspace_id, requested_by_user_id, issued_at, expires_at)
    VALUES (${data.codeId}::uuid, ${data.workspaceId}::uuid, ${data.requestedByUserId}, ${data.issuedAt}::timestamptz, ${data.expiresAt}::timestamptz)
    ON CONFLICT (code_id) DO NOTHING`,
  PairingCodeRedeemed: (tx, data) => tx.$executeRaw`
    UPDATE relay_pairing_codes SET redeemed_at = ${data.redeemedAt}::timestamptz, device_id = ${data.deviceId}::uuid WHERE code_id = ${data.codeId}::uuid`,
  DeviceEnrolled: (tx, data) => tx.$executeRaw`
    INSERT INTO relay_devices (device_id, workspace_id, pairing_code_id, enrolled_at)
    VALUES (${data.deviceId}::uuid, ${data.workspaceId}::uuid, ${data.codeId}::uuid, ${data.enrolledAt}::timestamptz)
    ON CONFLICT (device_id) DO NOTHING`,
  DeviceRevoked: (tx, data) => tx.$executeRaw`
    UPDATE relay_devices SET revoked_at = ${data.revokedAt}::timestamptz, revoked_by_user_id = ${data.revokedByUserId}, revoke_reason = ${data.reason}
     WHERE device_id = ${data.deviceId}::uuid AND revoked_at IS NULL`,
  BrowserSessionIssued: (tx, data) => tx.$executeRaw`
    INSERT INTO relay_browser_sessions (session_id, workspace_id, user_id, origin, accepted_wire_versions, issued_at, expires_at)
    VALUES (${data.sessionId}::uuid, ${data.workspaceId}::uuid, ${data.userId}, ${data.origin}, ${data.acceptedWireVersions.join(',').slice(0, 200)},
            ${data.issuedAt}::timestamptz, ${data.expiresAt}::timestamptz)
    ON CONFLICT (session_id) DO NOTHING`,
  BrowserSessionTicketConsumed: (tx, data) => tx.$executeRaw`
    UPDATE relay_browser_sessions SET consumed_at = ${data.consumedAt}::timestamptz WHERE session_id = ${data.sessionId}::uuid`,
  BrowserSessionStarted: (tx, data) => tx.$executeRaw`
    UPDATE relay_browser_sessions SET started_at = ${data.startedAt}::timestamptz, wire_version = ${data.wireVersion} WHERE session_id = ${data.sessionId}::uuid`,
  BrowserSessionEnded: (tx, data) => tx.$executeRaw`
    UPDATE relay_browser_sessions SET ended_at = ${data.endedAt}::timestamptz, end_reason = ${data.reason.slice(0, 40)}, close_code = ${data.closeCode}::integer
     WHERE session_id = ${data.sessionId}::uuid`,
  CompanionConnected: async (tx, data, envelope) => {
    await tx.$executeRaw`
      UPDATE relay_devices SET connected = true, connection_id = ${data.connectionId}::uuid, wire_version = ${data.wireVersion},
             last_connected_at = ${data.connectedAt}::timestamptz
       WHERE device_id = ${data.deviceId}::uuid`;
    await tx.$executeRaw`
      INSERT INTO relay_workspace_status_changes (event_id, workspace_id, status, device_id, connection_id, wire_version, reason, replica_id, occurred_at)
      VALUES (${envelope.eventId}::uuid, ${data.workspaceId}::uuid, 'online', ${data.deviceId}::uuid, ${data.connectionId}::uuid, ${data.wireVersion},
              'connected', ${data.replicaId}, ${data.connectedAt}::timestamptz)
      ON CONFLICT (event_id) DO NOTHING`;
  },
  CompanionDisconnected: async (tx, data, envelope) => {
    // Only the connection the device row names goes offline: a replaced socket closing late changes nothing.
    await tx.$executeRaw`
      UPDATE relay_devices SET connected = false, last_disconnected_at = ${data.disconnectedAt}::timestamptz
       WHERE device_id = ${data.deviceId}::uuid AND connection_id = ${data.connectionId}::uuid`;
    if (!data.wasLive) return;
    await tx.$executeRaw`
      INSERT INTO relay_workspace_status_changes (event_id, workspace_id, status, device_id, connection_id, reason, replica_id, occurred_at)
      VALUES (${envelope.eventId}::uuid, ${data.workspaceId}::uuid, 'offline', ${data.deviceId}::uuid, ${data.connectionId}::uuid,
              ${data.reason.slice(0, 40)}, ${data.replicaId}, ${data.disconnectedAt}::timestamptz)
      ON CONFLICT (event_id) DO NOTHING`;
  },
  InteractionAudited: (tx, data, envelope) => tx.$executeRaw`
    INSERT INTO relay_interaction_audit (event_id, workspace_id, interaction_id, method, phase, session_id, user_id, outcome_kind, response_kind, relay_sequence, occurred_at)
    VALUES (${envelope.eventId}::uuid, ${data.workspaceId}::uuid, ${data.interactionId.slice(0, 100)}, ${data.method.slice(0, 64)}, ${data.phase.slice(0, 16)},
            ${data.sessionId}, ${data.userId}, ${data.outcomeKind}, ${data.responseKind}, ${data.relaySequence}::bigint, ${data.occurredAt}::timestamptz)
    ON CONFLICT (event_id) DO NOTHING`,
};

/**
 * A projection (version 1) of `relay.control.v1` that applies each event with its type's handler. Event types
 * without one, a newer replica's among them, are skipped, not failed: the projection has no rows for them.
 */
export function controlEventProjection(name: string, handlers: ControlEventHandlers): ProjectionDefinition<RelayPrismaTx> {
  return {
    name,
    version: 1,
    topics: [RELAY_CONTROL_TOPIC],
    apply: async (envelope, { tx }) => {
      const handler = handlers[envelope.eventType as keyof ControlEventMap] as
        | ((tx: RelayPrismaTx, data: unknown, envelope: EventEnvelope) => Promise<unknown>)
        | undefined;
      if (handler) await handler(tx, envelope.data, envelope);
    },
  };
}

export function controlReadModelProjection(): ProjectionDefinition<RelayPrismaTx> {
  return controlEventProjection(CONTROL_READ_MODEL_PROJECTION, HANDLERS);
}
