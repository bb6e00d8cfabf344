/**
 * Live presence: which Companion connection is each workspace's live one, on which replica, and how many
 * browser sessions are open, across replicas. The replica holding a socket writes the presence row first
 * (so any replica reading afterwards sees it at once), then appends the fact to the workspace's presence
 * stream (audit, read models, and the notification every replica's feed delivers). The rows are read and
 * written in plain SQL (`presence-rows.ts`): these statements run for every socket that opens or closes.
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
import type { ControlEventFeed } from './control-event-feed';
import type { ControlStore } from './control-store';
import { controlEvent, streams } from './control.events';
import type { PresenceRows } from './presence-rows';
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
  /** Workspaces whose next refresh is queued and has not started reading yet: it covers any event that comes meanwhile. */
  private readonly refreshQueued = new Set<string>();
  private readonly unsubscribeFeed: () => void;

  constructor(
    private readonly rows: PresenceRows,
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
    await this.rows.companionOnline(connection, this.config.replicaId, now);
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
    const wasLive = await this.rows.companionOffline(disconnection.workspaceId, disconnection.connectionId, now);
    await this.control.append(streams.presence(disconnection.workspaceId), 'any', [
      controlEvent('CompanionDisconnected', {
        workspaceId: disconnection.workspaceId,
        deviceId: disconnection.deviceId,
        connectionId: disconnection.connectionId,
        reason: disconnection.reason,
        replicaId: this.config.replicaId,
        wasLive,
        disconnectedAt: now.toISOString(),
      }),
    ]);
  }

  async browserSessionStarted(session: BrowserSessionStart): Promise<void> {
    const now = new Date();
    await this.rows.sessionStarted(session, this.config.replicaId, now);
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
    if (!(await this.rows.sessionEnded(session.sessionId))) return;
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
    const { companions, sessions } = await this.rows.heldBy(replicaId);
    for (const row of companions) {
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
    let released = 0;
    for (const replicaId of await this.rows.holders()) released += await this.releaseReplica(replicaId, 'shutdown');
    return released;
  }

  /** The workspace's status as all replicas see it; null if the workspace is unknown. */
  async status(workspaceId: string): Promise<WorkspaceStatusView | null> {
    const workspace = await this.workspaces.find(workspaceId);
    if (!workspace) return null;
    const row = await this.rows.status(workspaceId);
    const version = (value: string | null): WireVersion | null => (isWireVersion(value) ? value : null);
    const { online } = row;
    return {
      workspaceId,
      status: online ? 'online' : 'offline',
      deviceId: online ? row.deviceId : null,
      wireVersion: online ? version(row.wireVersion) : null,
      lastKnownWireVersion: version(row.lastWireVersion),
      replicaId: online ? row.replicaId : null,
      connectionId: online ? row.connectionId : null,
      browserSessionCount: row.browserSessionCount,
      changedAt: row.changedAt,
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
    // Every event arrives at least twice (at once from this replica, again from the bus), and a connection
    // burst brings several per workspace: one read that starts after them all sees what each of them wrote.
    if (this.refreshQueued.has(workspaceId)) return;
    this.refreshQueued.add(workspaceId);
    const previous = this.refreshing.get(workspaceId) ?? Promise.resolve();
    const next = previous
      .then(() => {
        this.refreshQueued.delete(workspaceId);
        return this.refresh(workspaceId);
      })
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
