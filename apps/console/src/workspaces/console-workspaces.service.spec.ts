/**
 * The workspaces service's own rules, on the console's real ownership records (embedded PGlite): which
 * account may touch which workspace, what is validated before the relay is asked, what a descriptor is
 * minted for, and how relay failures read. The relay here is a recording `RelayControlPort` so each test can
 * see exactly which calls reached it (none, for a refusal); test/console.e2e.spec.ts runs the same service
 * against a real gateway.
 */
import { createPinoLogger } from '@trustmesh/platform-logging';

import { createConsoleDataDir } from '../../test/support/console-world';
import { loadConsoleConfig } from '../config/console.config';
import type { ConsoleAccount } from '../console-result';
import { openConsoleInfrastructure, type ConsoleInfrastructure } from '../persistence/console-infrastructure';
import { ConsoleWorkspacesService } from './console-workspaces.service';
import { RelayCallFailed, type RelayControlPort, type RelayFailureKind } from './relay-control.port';
import { WorkspaceOwnership } from './workspace-ownership';

const ORIGIN = 'https://console.example';

class RecordingRelay implements RelayControlPort {
  readonly calls: { rpc: string; args: unknown[] }[] = [];
  failNext: RelayFailureKind | null = null;

  private record(rpc: string, args: unknown[]): void {
    this.calls.push({ rpc, args });
    const failure = this.failNext;
    this.failNext = null;
    if (failure) throw new RelayCallFailed(rpc, failure, 'SOME_REASON');
  }

  async createWorkspace(requestId: string, ownerUserId: string, displayName: string) {
    this.record('CreateWorkspace', [requestId, ownerUserId, displayName]);
    return { workspaceId: crypto.randomUUID().toUpperCase(), displayName, createdAt: new Date().toISOString(), endToEndEncrypted: false };
  }
  async createPairingCode(workspaceId: string, requestedByUserId: string) {
    this.record('CreatePairingCode', [workspaceId, requestedByUserId]);
    return { pairingCode: 'tmpc_secret', expiresAt: new Date().toISOString() };
  }
  async getWorkspaceStatus(workspaceId: string) {
    this.record('GetWorkspaceStatus', [workspaceId]);
    return { connectivity: 'offline' as const, browserSessionCount: 0 };
  }
  async listDevices(workspaceId: string, pageSize: number, pageToken: string) {
    this.record('ListDevices', [workspaceId, pageSize, pageToken]);
    return { items: [], nextPageToken: '' };
  }
  async revokeDevice(workspaceId: string, deviceId: string, reason: string, revokedByUserId: string) {
    this.record('RevokeDevice', [workspaceId, deviceId, reason, revokedByUserId]);
    return { revokedAt: new Date().toISOString(), disconnected: false };
  }
  async createBrowserSession(workspaceId: string, origin: string, userId: string) {
    this.record('CreateBrowserSession', [workspaceId, origin, userId]);
    return { connectUrl: 'wss://relay.example/v1/browser?ticket=t', expiresAt: new Date().toISOString() };
  }
  async listWorkspaceAudit(workspaceId: string, pageSize: number, pageToken: string) {
    this.record('ListWorkspaceAudit', [workspaceId, pageSize, pageToken]);
    return {
      items: [
        { at: '2026-12-04T10:00:01.000Z', interactionId: 'i-1', method: 'approval.request', phase: 'candidate', userId: 'acc', outcomeKind: 'approve', responseKind: 'accepted' },
        { at: '2026-12-04T10:00:00.000Z', interactionId: 'i-1', method: 'approval.request', phase: 'requested' },
      ],
      nextPageToken: 'next',
    };
  }
  close(): void {
    // Nothing to release: no channel.
  }
}

describe('ConsoleWorkspacesService', () => {
  let data: { dataDir: string; remove(): Promise<void> };
  let infrastructure: ConsoleInfrastructure;
  let relay: RecordingRelay;
  let service: ConsoleWorkspacesService;
  const owner: ConsoleAccount = { accountId: crypto.randomUUID(), username: 'owner' };
  const stranger: ConsoleAccount = { accountId: crypto.randomUUID(), username: 'stranger' };
  let workspaceId: string;

  beforeAll(async () => {
    data = await createConsoleDataDir();
    infrastructure = await openConsoleInfrastructure(loadConsoleConfig({ TRUSTMESH_DATA_DIR: data.dataDir }), createPinoLogger({ service: 'console-test', level: 'warn', write: () => undefined }));
    relay = new RecordingRelay();
    service = new ConsoleWorkspacesService(relay, new WorkspaceOwnership(infrastructure.store, infrastructure.prisma, infrastructure.projection), () => ORIGIN);
    const created = await service.create(owner, { displayName: 'Desk' });
    if (!created.ok) throw new Error('create failed');
    workspaceId = created.value.workspaceId;
  }, 120_000);

  afterAll(async () => {
    await infrastructure?.close();
    await data?.remove();
  });

  beforeEach(() => relay.calls.splice(0));

  it('creates the workspace on the relay owned by the account id, keyed in lowercase', async () => {
    const created = await service.create(owner, { displayName: ' Spare ' });
    expect(created.ok && created.value).toMatchObject({ displayName: 'Spare', status: { connectivity: 'offline' } });
    expect(relay.calls[0]).toEqual({ rpc: 'CreateWorkspace', args: [expect.any(String), owner.accountId, 'Spare'] });
    expect(created.ok && created.value.workspaceId).toBe(created.ok && created.value.workspaceId.toLowerCase());
  });

  it('mints a descriptor for the console’s own origin and the signed-in account, whatever the id’s case', async () => {
    const minted = await service.createSessionDescriptor(owner, workspaceId.toUpperCase());
    expect(minted).toEqual({ ok: true, status: 200, value: { connectUrl: 'wss://relay.example/v1/browser?ticket=t', expiresAt: expect.any(String) } });
    expect(relay.calls).toEqual([{ rpc: 'CreateBrowserSession', args: [workspaceId, ORIGIN, owner.accountId] }]);
  });

  it('refuses another account’s workspace, an unknown one and a malformed id alike, without asking the relay', async () => {
    const answers = await Promise.all([
      service.createSessionDescriptor(stranger, workspaceId),
      service.createSessionDescriptor(owner, crypto.randomUUID()),
      service.createSessionDescriptor(owner, '../../etc'),
      service.createPairingCode(stranger, workspaceId),
      service.get(stranger, workspaceId),
      service.audit(stranger, workspaceId, { limit: 25, cursor: null }),
      service.revokeDevice(stranger, workspaceId, crypto.randomUUID(), undefined),
    ]);
    for (const answer of answers) expect(answer).toEqual({ ok: false, status: 404, error: { code: 'CONSOLE_WORKSPACE_NOT_FOUND', message: expect.any(String) } });
    expect(relay.calls).toEqual([]);
  });

  it('validates a device id and a revocation reason before asking the relay', async () => {
    const badDevice = await service.revokeDevice(owner, workspaceId, 'not-a-uuid', undefined);
    expect(!badDevice.ok && badDevice.error.code).toBe('CONSOLE_DEVICE_NOT_FOUND');
    const longReason = await service.revokeDevice(owner, workspaceId, crypto.randomUUID(), { reason: 'x'.repeat(501) });
    expect(!longReason.ok && longReason.error.issues?.[0]?.code).toBe('CONSOLE_REASON_INVALID');
    const extra = await service.revokeDevice(owner, workspaceId, crypto.randomUUID(), { reason: 'ok', by: 'me' });
    expect(!extra.ok && extra.error.issues?.[0]?.code).toBe('CONSOLE_FIELD_UNKNOWN');
    expect(relay.calls).toEqual([]);
    const revoked = await service.revokeDevice(owner, workspaceId, crypto.randomUUID(), { reason: 'lost' });
    expect(revoked.ok).toBe(true);
    expect(relay.calls[0]?.args[3]).toBe(owner.accountId);
  });

  it('turns relay failures into stable codes and never passes the relay’s text on', async () => {
    const cases: [RelayFailureKind, number, string][] = [
      ['unavailable', 503, 'CONSOLE_RELAY_UNAVAILABLE'],
      ['not_found', 404, 'CONSOLE_WORKSPACE_NOT_FOUND'],
      ['invalid_argument', 422, 'CONSOLE_INVALID_INPUT'],
      ['failed', 502, 'CONSOLE_RELAY_FAILED'],
    ];
    for (const [kind, status, code] of cases) {
      relay.failNext = kind;
      const answer = await service.createSessionDescriptor(owner, workspaceId);
      expect(answer).toEqual({ ok: false, status, error: { code, message: expect.any(String), upstreamCode: 'SOME_REASON' } });
    }
    const unconfigured = new ConsoleWorkspacesService(null, new WorkspaceOwnership(infrastructure.store, infrastructure.prisma, infrastructure.projection), () => ORIGIN);
    const answer = await unconfigured.createSessionDescriptor(owner, workspaceId);
    expect(!answer.ok && [answer.status, answer.error.code]).toEqual([503, 'CONSOLE_RELAY_NOT_CONFIGURED']);
  });

  it('words the audit trail for a person: action, actor, detail, and passes the page on', async () => {
    const audit = await service.audit(owner, workspaceId, { limit: 2, cursor: null });
    expect(audit).toEqual({
      ok: true,
      status: 200,
      value: {
        items: [
          { at: '2026-12-04T10:00:01.000Z', action: 'approval.request candidate', actor: 'acc', detail: 'interaction i-1, outcome approve, response accepted' },
          { at: '2026-12-04T10:00:00.000Z', action: 'approval.request requested', detail: 'interaction i-1' },
        ],
        nextCursor: 'next',
      },
    });
    expect(relay.calls).toEqual([{ rpc: 'ListWorkspaceAudit', args: [workspaceId, 2, ''] }]);
  });
});
