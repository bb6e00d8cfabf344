/**
 * What the console asks of the relay gateway's RelayControl, in the console's words: the port the
 * workspaces service is written against (relay-control.grpc-adapter.ts is the gRPC adapter; tests of the
 * service's own rules can stand a recording one in). Every failure is a `RelayCallFailed` carrying the gRPC
 * status name and the gateway's stable reason, never its free text (the service decides what a person sees).
 */
export type RelayFailureKind = 'not_found' | 'invalid_argument' | 'unavailable' | 'failed';

export class RelayCallFailed extends Error {
  constructor(
    readonly rpc: string,
    readonly kind: RelayFailureKind,
    /** The gateway's `relay-refusal-code`, when it sent one. */
    readonly reason = '',
  ) {
    super(`RelayControl ${rpc} failed (${kind})`);
    this.name = 'RelayCallFailed';
  }
}

export interface RelayWorkspace {
  workspaceId: string;
  displayName: string;
  createdAt: string;
  endToEndEncrypted: boolean;
}

export interface RelayWorkspaceStatus {
  connectivity: 'online' | 'offline';
  deviceId?: string;
  wireVersion?: string;
  browserSessionCount: number;
  changedAt?: string;
}

export interface RelayDevice {
  deviceId: string;
  enrolledAt: string;
  connected: boolean;
  wireVersion?: string;
  lastConnectedAt?: string;
}

export interface RelayAuditEntry {
  at: string;
  interactionId: string;
  method: string;
  phase: string;
  userId?: string;
  outcomeKind?: string;
  responseKind?: string;
}

export interface RelayPage<T> {
  items: T[];
  nextPageToken: string;
}

export interface RelayControlPort {
  createWorkspace(requestId: string, ownerUserId: string, displayName: string): Promise<RelayWorkspace>;
  createPairingCode(workspaceId: string, requestedByUserId: string): Promise<{ pairingCode: string; expiresAt: string }>;
  getWorkspaceStatus(workspaceId: string): Promise<RelayWorkspaceStatus>;
  listDevices(workspaceId: string, pageSize: number, pageToken: string): Promise<RelayPage<RelayDevice>>;
  revokeDevice(workspaceId: string, deviceId: string, reason: string, revokedByUserId: string): Promise<{ revokedAt: string; disconnected: boolean }>;
  createBrowserSession(workspaceId: string, origin: string, userId: string): Promise<{ connectUrl: string; expiresAt: string }>;
  listWorkspaceAudit(workspaceId: string, pageSize: number, pageToken: string): Promise<RelayPage<RelayAuditEntry>>;
  close(): void;
}
