/**
 * `RelayControlPort` over gRPC: the relay gateway's RelayControl through @grpc/grpc-js and the ts-proto
 * grpc-js client, reached as the platform's one rule for a gRPC client reads it (CONSOLE_RELAY_CONTROL_*,
 * `readGrpcClientTarget`: TLS with its CA or plaintext on loopback, the bearer service credential held as
 * `SecretText` and put on each call's metadata only).
 */
import { status as GrpcStatus, type ServiceError } from '@grpc/grpc-js';
import { bearerMetadataOf, callUnary, channelCredentialsOf, dateFromTimestamp, relayControlV1GrpcJs, type Timestamp, type UnaryInvoker } from '@trustmesh/contracts';
import type { GrpcClientTarget } from '@trustmesh/platform-config';

import { RelayCallFailed, type RelayControlPort, type RelayFailureKind } from './relay-control.port';

const CALL_TIMEOUT_MS = 10_000;
/** The browser wire versions the page's RelayClient speaks. */
export const CONSOLE_WIRE_VERSIONS = ['1.2', '1.1'] as const;
const { WorkspaceConnectivity } = relayControlV1GrpcJs;

const iso = (timestamp: Timestamp | null | undefined): string | undefined => (timestamp ? dateFromTimestamp(timestamp).toISOString() : undefined);

function kindOf(code: number): RelayFailureKind {
  if (code === GrpcStatus.NOT_FOUND) return 'not_found';
  if (code === GrpcStatus.INVALID_ARGUMENT) return 'invalid_argument';
  if (code === GrpcStatus.UNAVAILABLE || code === GrpcStatus.DEADLINE_EXCEEDED || code === GrpcStatus.RESOURCE_EXHAUSTED) return 'unavailable';
  return 'failed';
}

export class RelayControlGrpcAdapter implements RelayControlPort {
  private readonly client: relayControlV1GrpcJs.RelayControlClient;

  constructor(private readonly target: GrpcClientTarget) {
    this.client = new relayControlV1GrpcJs.RelayControlClient(target.address, channelCredentialsOf(target));
  }

  async createWorkspace(requestId: string, ownerUserId: string, displayName: string) {
    const response = await this.unary<relayControlV1GrpcJs.CreateWorkspaceRequest, relayControlV1GrpcJs.CreateWorkspaceResponse>('CreateWorkspace', (r, m, o, c) => this.client.createWorkspace(r, m, o, c), { requestId, ownerUserId, displayName, endToEndEncrypted: false });
    const workspace = response.workspace;
    if (!workspace?.workspaceId) throw new RelayCallFailed('CreateWorkspace', 'failed');
    return { workspaceId: workspace.workspaceId, displayName: workspace.displayName, createdAt: iso(workspace.createdAt) ?? new Date().toISOString(), endToEndEncrypted: workspace.endToEndEncrypted };
  }

  async createPairingCode(workspaceId: string, requestedByUserId: string) {
    const response = await this.unary<relayControlV1GrpcJs.CreatePairingCodeRequest, relayControlV1GrpcJs.CreatePairingCodeResponse>('CreatePairingCode', (r, m, o, c) => this.client.createPairingCode(r, m, o, c), { workspaceId, ttlSeconds: 0, requestedByUserId });
    if (!response.pairingCode || !response.expiresAt) throw new RelayCallFailed('CreatePairingCode', 'failed');
    return { pairingCode: response.pairingCode, expiresAt: iso(response.expiresAt) as string };
  }

  async getWorkspaceStatus(workspaceId: string) {
    const response = await this.unary<relayControlV1GrpcJs.GetWorkspaceStatusRequest, relayControlV1GrpcJs.GetWorkspaceStatusResponse>('GetWorkspaceStatus', (r, m, o, c) => this.client.getWorkspaceStatus(r, m, o, c), { workspaceId });
    const status = response.status;
    const online = status?.connectivity === WorkspaceConnectivity.ONLINE;
    const changedAt = iso(status?.changedAt);
    return {
      connectivity: online ? ('online' as const) : ('offline' as const),
      ...(online && status?.deviceId ? { deviceId: status.deviceId } : {}),
      ...(online && status?.wireVersion ? { wireVersion: status.wireVersion } : {}),
      browserSessionCount: status?.browserSessionCount ?? 0,
      ...(changedAt ? { changedAt } : {}),
    };
  }

  async listDevices(workspaceId: string, pageSize: number, pageToken: string) {
    const response = await this.unary<relayControlV1GrpcJs.ListDevicesRequest, relayControlV1GrpcJs.ListDevicesResponse>('ListDevices', (r, m, o, c) => this.client.listDevices(r, m, o, c), { workspaceId, pageSize, pageToken });
    return {
      items: response.devices.map((device) => {
        const lastConnectedAt = iso(device.lastConnectedAt);
        return {
          deviceId: device.deviceId,
          enrolledAt: iso(device.enrolledAt) ?? '',
          connected: device.connected,
          ...(device.wireVersion ? { wireVersion: device.wireVersion } : {}),
          ...(lastConnectedAt ? { lastConnectedAt } : {}),
        };
      }),
      nextPageToken: response.nextPageToken,
    };
  }

  async revokeDevice(workspaceId: string, deviceId: string, reason: string, revokedByUserId: string) {
    const response = await this.unary<relayControlV1GrpcJs.RevokeDeviceRequest, relayControlV1GrpcJs.RevokeDeviceResponse>('RevokeDevice', (r, m, o, c) => this.client.revokeDevice(r, m, o, c), { workspaceId, deviceId, reason, revokedByUserId });
    return { revokedAt: iso(response.revokedAt) ?? new Date().toISOString(), disconnected: response.disconnected };
  }

  async createBrowserSession(workspaceId: string, origin: string, userId: string) {
    const response = await this.unary<relayControlV1GrpcJs.CreateBrowserSessionRequest, relayControlV1GrpcJs.CreateBrowserSessionResponse>('CreateBrowserSession', (r, m, o, c) => this.client.createBrowserSession(r, m, o, c), {
      workspaceId,
      origin,
      acceptedWireVersions: [...CONSOLE_WIRE_VERSIONS],
      userId,
    });
    const descriptor = response.descriptor;
    if (!descriptor?.connectUrl || !descriptor.expiresAt) throw new RelayCallFailed('CreateBrowserSession', 'failed');
    return { connectUrl: descriptor.connectUrl, expiresAt: iso(descriptor.expiresAt) as string };
  }

  async listWorkspaceAudit(workspaceId: string, pageSize: number, pageToken: string) {
    const response = await this.unary<relayControlV1GrpcJs.ListWorkspaceAuditRequest, relayControlV1GrpcJs.ListWorkspaceAuditResponse>('ListWorkspaceAudit', (r, m, o, c) => this.client.listWorkspaceAudit(r, m, o, c), { workspaceId, pageSize, pageToken });
    return {
      items: response.entries.map((entry) => ({
        at: iso(entry.occurredAt) ?? '',
        interactionId: entry.interactionId,
        method: entry.method,
        phase: entry.phase,
        ...(entry.userId ? { userId: entry.userId } : {}),
        ...(entry.outcomeKind ? { outcomeKind: entry.outcomeKind } : {}),
        ...(entry.responseKind ? { responseKind: entry.responseKind } : {}),
      })),
      nextPageToken: response.nextPageToken,
    };
  }

  close(): void {
    this.client.close();
  }

  private unary<Req, Res>(rpc: string, invoke: UnaryInvoker<Req, Res>, request: Req): Promise<Res> {
    return callUnary(invoke, request, bearerMetadataOf(this.target), CALL_TIMEOUT_MS).catch((error: ServiceError) => {
      throw new RelayCallFailed(rpc, kindOf(error.code), String(error.metadata?.get('relay-refusal-code')[0] ?? '').slice(0, 64));
    });
  }
}
