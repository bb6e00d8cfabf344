/**
 * A test double of the control plane behind `RelayDirectory`, in memory: devices with credentials,
 * tickets with origin and versions, workspace status with listeners, and a record of every presence and
 * audit call. Its status views are shared with other processes only when `relayStatus` is wired to a
 * bus (the two-replica test does so).
 */
import { randomUUID } from 'node:crypto';

import type { WireVersion } from '@trustmesh/relay-protocol';

import type {
  AuthenticatedDevice,
  BrowserSessionEnd,
  BrowserSessionStart,
  BrowserTicketVerdict,
  CompanionConnection,
  CompanionDisconnection,
  DeviceRevocation,
  InteractionAuditRecord,
  RelayDirectory,
  Unsubscribe,
  WorkspaceStatusView,
} from '../../../src/control/relay-directory.port';

export interface TestDevice {
  deviceId: string;
  workspaceId: string;
  credential: string;
  encrypted?: boolean;
  revoked?: boolean;
}

export interface TestTicket {
  workspaceId: string;
  origin: string;
  acceptedWireVersions?: string[];
  userId?: string;
  encrypted?: boolean;
  expired?: boolean;
  used?: boolean;
}

export class InMemoryDirectory implements RelayDirectory {
  readonly devices = new Map<string, TestDevice>();
  readonly tickets = new Map<string, TestTicket>();
  readonly views = new Map<string, WorkspaceStatusView>();
  readonly calls: Array<{ call: string; data: unknown }> = [];
  /** Workspaces the directory does not know (getWorkspaceStatus answers null). */
  readonly unknownWorkspaces = new Set<string>();
  private readonly statusListeners = new Set<(status: WorkspaceStatusView) => void>();
  private readonly revocationListeners = new Set<(revocation: DeviceRevocation) => void>();
  /** Set by the two-replica test to share status changes with the other process. */
  publishStatus: ((view: WorkspaceStatusView) => void) | undefined;

  addDevice(workspaceId: string, options: Partial<TestDevice> = {}): TestDevice {
    const device: TestDevice = { deviceId: randomUUID(), workspaceId, credential: `cred-${randomUUID()}`, ...options };
    this.devices.set(device.deviceId, device);
    return device;
  }

  addTicket(ticket: TestTicket, value = `ticket-${randomUUID()}`): string {
    this.tickets.set(value, ticket);
    return value;
  }

  async authenticateDevice(deviceId: string, credential: string): Promise<AuthenticatedDevice | null> {
    const device = this.devices.get(deviceId);
    if (!device || device.revoked || device.credential !== credential) return null;
    return { deviceId, workspaceId: device.workspaceId, endToEndEncrypted: device.encrypted ?? false };
  }

  async consumeBrowserTicket(ticket: string, origin: string | undefined): Promise<BrowserTicketVerdict> {
    const entry = this.tickets.get(ticket);
    if (!entry) return { ok: false, code: 'SESSION_TICKET_INVALID' };
    if (entry.expired) return { ok: false, code: 'SESSION_TICKET_EXPIRED' };
    if (entry.used) return { ok: false, code: 'SESSION_TICKET_ALREADY_USED' };
    if (origin !== entry.origin) return { ok: false, code: 'ORIGIN_NOT_ALLOWED' };
    entry.used = true;
    return {
      ok: true,
      workspaceId: entry.workspaceId,
      sessionId: randomUUID(),
      acceptedWireVersions: entry.acceptedWireVersions ?? ['1.2', '1.1'],
      userId: entry.userId ?? 'user-1',
      origin: entry.origin,
      encrypted: entry.encrypted ?? false,
      expiresAt: new Date(Date.now() + 60_000),
    };
  }

  async companionConnected(connection: CompanionConnection): Promise<void> {
    this.calls.push({ call: 'companionConnected', data: connection });
    this.setView({
      ...this.view(connection.workspaceId),
      status: 'online',
      deviceId: connection.deviceId,
      wireVersion: connection.wireVersion,
      lastKnownWireVersion: connection.wireVersion,
      connectionId: connection.connectionId,
      changedAt: new Date(),
    });
  }

  async companionDisconnected(disconnection: CompanionDisconnection): Promise<void> {
    this.calls.push({ call: 'companionDisconnected', data: disconnection });
    const view = this.view(disconnection.workspaceId);
    if (view.connectionId !== disconnection.connectionId) return;
    this.setView({ ...view, status: 'offline', deviceId: null, wireVersion: null, connectionId: null, changedAt: new Date() });
  }

  async browserSessionStarted(session: BrowserSessionStart): Promise<void> {
    this.calls.push({ call: 'browserSessionStarted', data: session });
  }

  async browserSessionEnded(session: BrowserSessionEnd): Promise<void> {
    this.calls.push({ call: 'browserSessionEnded', data: session });
  }

  async recordInteraction(record: InteractionAuditRecord): Promise<void> {
    this.calls.push({ call: 'recordInteraction', data: record });
  }

  async getWorkspaceStatus(workspaceId: string): Promise<WorkspaceStatusView | null> {
    return this.unknownWorkspaces.has(workspaceId) ? null : this.view(workspaceId);
  }

  onWorkspaceStatusChanged(listener: (status: WorkspaceStatusView) => void): Unsubscribe {
    this.statusListeners.add(listener);
    return () => this.statusListeners.delete(listener);
  }

  onDeviceRevoked(listener: (revocation: DeviceRevocation) => void): Unsubscribe {
    this.revocationListeners.add(listener);
    return () => this.revocationListeners.delete(listener);
  }

  revoke(deviceId: string): void {
    const device = this.devices.get(deviceId);
    if (!device) return;
    device.revoked = true;
    for (const listener of this.revocationListeners) listener({ deviceId, workspaceId: device.workspaceId });
  }

  /** Applies a status view (from this process or, in the two-replica test, from the other one). */
  applyView(view: WorkspaceStatusView): void {
    const current = this.views.get(view.workspaceId);
    if (current?.changedAt && view.changedAt && current.changedAt.getTime() > view.changedAt.getTime()) return;
    this.views.set(view.workspaceId, view);
    for (const listener of this.statusListeners) listener(view);
  }

  callsOf(call: string): unknown[] {
    return this.calls.filter((entry) => entry.call === call).map((entry) => entry.data);
  }

  private setView(view: WorkspaceStatusView): void {
    this.applyView(view);
    this.publishStatus?.(view);
  }

  private view(workspaceId: string): WorkspaceStatusView {
    return (
      this.views.get(workspaceId) ?? {
        workspaceId,
        status: 'offline',
        deviceId: null,
        wireVersion: null,
        lastKnownWireVersion: null as WireVersion | null,
        replicaId: null,
        connectionId: null,
        browserSessionCount: 0,
        changedAt: null,
        endToEndEncrypted: false,
      }
    );
  }
}
