/**
 * Live presence: which Companion connection is each workspace's live one, on which replica, and how many
 * browser sessions are open, across replicas. The replica holding a socket writes the presence row first
 * (so any replica reading afterwards sees it at once), then appends the fact to the workspace's presence
 * stream (audit, read models, and the notification every replica's feed delivers).
 *
 * Status listeners are called with a freshly read status whenever a presence event for the workspace
 * arrives (from this replica at once, from others through the bus); refreshes are serialised per
 * workspace so a listener never sees an older status after a newer one, and each listener is told only
 * when what it can see changed.
 */
import type { EventEnvelope } from '@trustmesh/platform-events';
import { isWireVersion, type WireVersion } from '@trustmesh/relay-protocol';

import type { RelayGatewayConfig } from '../config/relay-gateway.config';
import type { JsonLogger } from '../logging/json-logger';
import type { PrismaClient } from '../persistence/generated/prisma/client';
import type { ControlEventFeed } from './control-event-feed';
import type { ControlStore } from './control-store';
import { controlEvent, streams } from './control.events';
import type {
  BrowserSessionEnd,
  BrowserSessionStart,
  CompanionConnection,
  CompanionDisconnection,
  Unsubscribe,
  WorkspaceStatusView,
} from './relay-directory.port';
import type { WorkspaceRegistry } from './workspace-registry';

const PRESENCE_EVENTS = new Set(['CompanionConnected', 'CompanionDisconnected', 'BrowserSessionStarted', 'BrowserSessionEnded']);

type StatusListener = (status: WorkspaceStatusView) => void;

interface PresenceRow {
  online: boolean;
  device_id: string | null;
  connection_id: string | null;
  replica_id: string | null;
  wire_version: string | null;
  last_wire_version: string | null;
  changed_at: Date | null;
}

/** What RelayControl's WorkspaceStatus shows: a watcher is sent a message when this changes. */
export function visibleStatusKey(status: WorkspaceStatusView): string {
  return [status.status, status.deviceId ?? '', status.wireVersion ?? '', status.browserSessionCount, status.changedAt?.getTime() ?? ''].join('|');
}

/** Everything directory listeners act on, including which connection is the live one (a replacement). */
export function statusKey(status: WorkspaceStatusView): string {
  return `${visibleStatusKey(status)}|${status.connectionId ?? ''}|${status.replicaId ?? ''}`;
}

export class WorkspacePresence {
  private readonly listeners = new Set<{ listener: StatusListener; workspaceId: string | null; last: Map<string, string> }>();
  private readonly refreshing = new Map<string, Promise<void>>();
  private readonly unsubscribeFeed: () => void;

  constructor(
    private readonly prisma: PrismaClient,
    private readonly control: ControlStore,
    private readonly workspaces: WorkspaceRegistry,
    feed: ControlEventFeed,
    private readonly config: RelayGatewayConfig,
    private readonly logger: JsonLogger,
  ) {
    this.unsubscribeFeed = feed.on((envelope) => this.onEvent(envelope));
  }

  dispose(): void {
    this.unsubscribeFeed();
    this.listeners.clear();
  }

  async companionConnected(connection: CompanionConnection): Promise<void> {
    const now = new Date();
    await this.prisma.$executeRaw`
      INSERT INTO relay_workspace_presence (workspace_id, online, device_id, connection_id, replica_id, wire_version, last_wire_version, changed_at)
      VALUES (${connection.workspaceId}::uuid, true, ${connection.deviceId}::uuid, ${connection.connectionId}::uuid, ${this.config.replicaId},
              ${connection.wireVersion}, ${connection.wireVersion}, ${now.toISOString()}::timestamptz)
      ON CONFLICT (workspace_id) DO UPDATE SET
        online = true, device_id = EXCLUDED.device_id, connection_id = EXCLUDED.connection_id, replica_id = EXCLUDED.replica_id,
        wire_version = EXCLUDED.wire_version, last_wire_version = EXCLUDED.last_wire_version,
        changed_at = CASE WHEN relay_workspace_presence.online THEN relay_workspace_presence.changed_at ELSE EXCLUDED.changed_at END`;
    await this.control.append(streams.presence(connection.workspaceId), 'any', [
      controlEvent('CompanionConnected', {
        workspaceId: connection.workspaceId,
        deviceId: connection.deviceId,
        connectionId: connection.connectionId,
        wireVersion: connection.wireVersion,
        replicaId: this.config.replicaId,
        connectedAt: now.toISOString(),
      }),
    ]);
  }

  async companionDisconnected(disconnection: CompanionDisconnection): Promise<void> {
    const now = new Date();
    const updated = await this.prisma.$executeRaw`
      UPDATE relay_workspace_presence
         SET online = false, device_id = NULL, connection_id = NULL, replica_id = NULL, wire_version = NULL,
             changed_at = ${now.toISOString()}::timestamptz
       WHERE workspace_id = ${disconnection.workspaceId}::uuid AND connection_id = ${disconnection.connectionId}::uuid`;
    await this.control.append(streams.presence(disconnection.workspaceId), 'any', [
      controlEvent('CompanionDisconnected', {
        workspaceId: disconnection.workspaceId,
        deviceId: disconnection.deviceId,
        connectionId: disconnection.connectionId,
        reason: disconnection.reason,
        replicaId: this.config.replicaId,
        wasLive: updated > 0,
        disconnectedAt: now.toISOString(),
      }),
    ]);
  }

  async browserSessionStarted(session: BrowserSessionStart): Promise<void> {
    const now = new Date();
    await this.prisma.relayLiveBrowserSession.upsert({
      where: { sessionId: session.sessionId },
      create: { sessionId: session.sessionId, workspaceId: session.workspaceId, replicaId: this.config.replicaId, startedAt: now },
      update: {},
    });
    await this.control.append(streams.presence(session.workspaceId), 'any', [
      controlEvent('BrowserSessionStarted', {
        workspaceId: session.workspaceId,
        sessionId: session.sessionId,
        userId: session.userId,
        wireVersion: session.wireVersion,
        replicaId: this.config.replicaId,
        startedAt: now.toISOString(),
      }),
    ]);
  }

  async browserSessionEnded(session: BrowserSessionEnd): Promise<void> {
    const removed = await this.prisma.relayLiveBrowserSession.deleteMany({ where: { sessionId: session.sessionId } });
    if (removed.count === 0) return;
    await this.control.append(streams.presence(session.workspaceId), 'any', [
      controlEvent('BrowserSessionEnded', {
        workspaceId: session.workspaceId,
        sessionId: session.sessionId,
        reason: session.reason,
        closeCode: session.closeCode ?? null,
        replicaId: this.config.replicaId,
        endedAt: new Date().toISOString(),
      }),
    ]);
  }

  /**
   * Ends whatever presence a replica id still holds: this replica's own at start (rows a crashed predecessor
   * with the same RELAY_REPLICA_ID left behind) and at shutdown (sockets the data plane did not report
   * closed), or a dead replica's (ReplicaLiveness). Each is recorded like any other disconnect, so watchers and
   * browsers elsewhere see the workspace go offline.
   */
  async releaseReplica(replicaId: string = this.config.replicaId, reason: 'shutdown' | 'heartbeat-timeout' = 'shutdown'): Promise<number> {
    const [companions, sessions] = await Promise.all([
      this.prisma.relayWorkspacePresence.findMany({ where: { replicaId, online: true } }),
      this.prisma.relayLiveBrowserSession.findMany({ where: { replicaId } }),
    ]);
    for (const row of companions) {
      if (!row.connectionId || !row.deviceId) continue;
      await this.companionDisconnected({ connectionId: row.connectionId, workspaceId: row.workspaceId, deviceId: row.deviceId, reason });
    }
    for (const session of sessions) {
      await this.browserSessionEnded({ sessionId: session.sessionId, workspaceId: session.workspaceId, reason });
    }
    const released = companions.length + sessions.length;
    if (released > 0) this.logger.info('replica presence released', { releasedReplica: replicaId, companions: companions.length, browserSessions: sessions.length });
    return released;
  }

  /**
   * One replica on an embedded database: the database belongs to one process at a time, so whatever presence
   * it records was left by a dead predecessor, whatever replica id that one had (each start picks a new id
   * unless RELAY_REPLICA_ID is set). All of it is ended at start, so status and `session.ready` never report
   * a Companion that died with the previous process.
   */
  async releaseEveryReplica(): Promise<number> {
    const [companions, sessions] = await Promise.all([
      this.prisma.relayWorkspacePresence.findMany({ where: { online: true }, select: { replicaId: true } }),
      this.prisma.relayLiveBrowserSession.findMany({ select: { replicaId: true } }),
    ]);
    const replicas = new Set([...companions, ...sessions].map((row) => row.replicaId).filter((id): id is string => typeof id === 'string'));
    let released = 0;
    for (const replicaId of replicas) released += await this.releaseReplica(replicaId, 'shutdown');
    return released;
  }

  /** The workspace's status as all replicas see it; null if the workspace is unknown. */
  async status(workspaceId: string): Promise<WorkspaceStatusView | null> {
    const workspace = await this.workspaces.find(workspaceId);
    if (!workspace) return null;
    const [rows, browserSessionCount] = await Promise.all([
      this.prisma.$queryRaw<PresenceRow[]>`
        SELECT online, device_id::text AS device_id, connection_id::text AS connection_id, replica_id, wire_version, last_wire_version, changed_at
          FROM relay_workspace_presence WHERE workspace_id = ${workspaceId}::uuid`,
      this.prisma.relayLiveBrowserSession.count({ where: { workspaceId } }),
    ]);
    const row = rows[0];
    const version = (value: string | null | undefined): WireVersion | null => (isWireVersion(value) ? value : null);
    const online = row?.online === true;
    return {
      workspaceId,
      status: online ? 'online' : 'offline',
      deviceId: online ? (row?.device_id ?? null) : null,
      wireVersion: online ? version(row?.wire_version) : null,
      lastKnownWireVersion: version(row?.last_wire_version),
      replicaId: online ? (row?.replica_id ?? null) : null,
      connectionId: online ? (row?.connection_id ?? null) : null,
      browserSessionCount,
      changedAt: row?.changed_at ? new Date(row.changed_at) : null,
      endToEndEncrypted: workspace.endToEndEncrypted,
    };
  }

  /**
   * Calls `listener` when a workspace's visible status changes (one workspace, or all with `null`). The
   * listener is not called with the current status: read it with `status()` first.
   */
  onStatusChanged(listener: StatusListener, workspaceId: string | null = null, current?: WorkspaceStatusView): Unsubscribe {
    const entry = { listener, workspaceId, last: new Map<string, string>() };
    if (current) entry.last.set(current.workspaceId, statusKey(current));
    this.listeners.add(entry);
    return () => {
      this.listeners.delete(entry);
    };
  }

  private onEvent(envelope: EventEnvelope): void {
    if (!PRESENCE_EVENTS.has(envelope.eventType)) return;
    const workspaceId = (envelope.data as { workspaceId?: unknown }).workspaceId;
    if (typeof workspaceId !== 'string') return;
    if (![...this.listeners].some((entry) => entry.workspaceId === null || entry.workspaceId === workspaceId)) return;
    const previous = this.refreshing.get(workspaceId) ?? Promise.resolve();
    const next = previous
      .then(() => this.refresh(workspaceId))
      .catch((error: unknown) => this.logger.warn('workspace status refresh failed', { workspaceId, errorName: error instanceof Error ? error.name : 'unknown' }))
      .finally(() => {
        if (this.refreshing.get(workspaceId) === next) this.refreshing.delete(workspaceId);
      });
    this.refreshing.set(workspaceId, next);
  }

  private async refresh(workspaceId: string): Promise<void> {
    const status = await this.status(workspaceId);
    if (!status) return;
    const key = statusKey(status);
    for (const entry of [...this.listeners]) {
      if (entry.workspaceId !== null && entry.workspaceId !== workspaceId) continue;
      if (entry.last.get(workspaceId) === key) continue;
      entry.last.set(workspaceId, key);
      try {
        entry.listener(status);
      } catch (error) {
        this.logger.error('workspace status listener failed', { workspaceId, errorName: error instanceof Error ? error.name : 'unknown' });
      }
    }
  }
}
