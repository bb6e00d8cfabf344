/**
 * The RelayControl use cases (proto/trustmesh/relay/v1/relay_control.proto documents each one), free of
 * any transport: the gRPC server maps their `ControlError`s to status codes. Writes go to the event store;
 * single-use and idempotency are decided by stream versions, so they hold across replicas.
 */
import { ConcurrencyError } from '@trustmesh/platform-event-store';
import { uuidv7 } from '@trustmesh/platform-events';
import { REMOTE_WIRE_VERSIONS, DEFAULT_BROWSER_WIRE_VERSIONS } from '@trustmesh/relay-protocol';
import { sha256Hex } from '@trustmesh/platform-credentials';

import type { RelayEndpoints } from '../config/relay-endpoints';
import type { RelayGatewayConfig } from '../config/relay-gateway.config';
import type { JsonLogger } from '../logging/json-logger';
import type { PrismaClient } from '../persistence/generated/prisma/client';
import type { ControlStore } from './control-store';
import { controlEvent, isControlEvent, streams, type WorkspaceCreationAccepted } from './control.events';
import { deviceState } from './control.state';
import { mintSecret } from './secrets';
import { visibleStatusKey, type WorkspacePresence } from './workspace-presence.service';
import type { WorkspaceRecord, WorkspaceRegistry } from './workspace-registry';
import type { WorkspaceStatusView } from './relay-directory.port';

export type ControlErrorCode = 'INVALID_ARGUMENT' | 'NOT_FOUND' | 'ALREADY_EXISTS' | 'UNAVAILABLE' | 'PERMISSION_DENIED' | 'FAILED_PRECONDITION';

/**
 * A refused control call: a status code, a message for the person operating the calling service, and,
 * where one status code covers several causes, a stable `reason` (sent as `relay-refusal-code`).
 */
export class ControlError extends Error {
  constructor(
    readonly code: ControlErrorCode,
    message: string,
    readonly reason?: string,
  ) {
    super(message);
    this.name = 'ControlError';
  }
}

export interface DeviceView {
  deviceId: string;
  workspaceId: string;
  enrolledAt: Date;
  connected: boolean;
  wireVersion: string;
  lastConnectedAt: Date | null;
}

const UUID = /^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[1-8][0-9a-fA-F]{3}-[89abAB][0-9a-fA-F]{3}-[0-9a-fA-F]{12}$/;
const MAX_USER_ID = 200;
const MAX_DISPLAY_NAME = 200;
const MAX_REASON = 500;
const DEFAULT_PAGE_SIZE = 50;
const MAX_PAGE_SIZE = 500;
const MAX_PAGE_TOKEN = 512;
const DEFAULT_AUDIT_PAGE_SIZE = 50;
const MAX_AUDIT_PAGE_SIZE = 200;
const MAX_ACCEPTED_VERSIONS = 16;
/** How long RevokeDevice waits for the replica holding the socket to report it closed. */
const REVOKE_DISCONNECT_WAIT_MS = 5_000;
const REVOKE_DISCONNECT_POLL_MS = 100;

const length = (value: string) => [...value].length;

function uuidArgument(field: string, value: string): string {
  if (typeof value !== 'string' || !UUID.test(value)) throw new ControlError('INVALID_ARGUMENT', `${field} must be a UUID (canonical text form)`);
  return value.toLowerCase();
}

function boundedText(field: string, value: string | undefined, max: number): string {
  const text = value ?? '';
  if (length(text) > max) throw new ControlError('INVALID_ARGUMENT', `${field} must be at most ${max} characters`);
  return text;
}

/** A serialized origin: scheme "://" host [":" port], nothing else (RFC 6454 §6.2). */
export function isSerializedOrigin(origin: string): boolean {
  if (origin.length === 0 || origin.length > 300 || /\s/.test(origin)) return false;
  let url: URL;
  try {
    url = new URL(origin);
  } catch {
    return false;
  }
  return (url.protocol === 'https:' || url.protocol === 'http:') && url.origin === origin;
}

export class RelayControlService {
  constructor(
    private readonly control: ControlStore,
    private readonly workspaces: WorkspaceRegistry,
    private readonly presence: WorkspacePresence,
    private readonly prisma: PrismaClient,
    private readonly endpoints: RelayEndpoints,
    private readonly config: RelayGatewayConfig,
    private readonly logger: JsonLogger,
    private readonly now: () => Date = () => new Date(),
  ) {}

  async createWorkspace(input: { requestId: string; ownerUserId: string; displayName: string; endToEndEncrypted: boolean }): Promise<WorkspaceRecord> {
    const requestId = uuidArgument('request_id', input.requestId);
    const ownerUserId = boundedText('owner_user_id', input.ownerUserId, MAX_USER_ID);
    const displayName = input.displayName ?? '';
    if (displayName.trim() === '') throw new ControlError('INVALID_ARGUMENT', 'display_name must not be empty');
    boundedText('display_name', displayName, MAX_DISPLAY_NAME);
    const wanted = { ownerUserId, displayName, endToEndEncrypted: input.endToEndEncrypted === true };

    const requestStream = streams.workspaceRequest(requestId);
    let accepted = (await this.control.read(requestStream)).find((event) => isControlEvent(event, 'WorkspaceCreationAccepted'))?.data as
      | WorkspaceCreationAccepted
      | undefined;
    if (!accepted) {
      const candidate: WorkspaceCreationAccepted = { requestId, workspaceId: uuidv7(), ...wanted };
      try {
        await this.control.append(requestStream, 'no-stream', [controlEvent('WorkspaceCreationAccepted', candidate)], requestId);
        accepted = candidate;
      } catch (error) {
        if (!(error instanceof ConcurrencyError)) throw error;
        // A concurrent retry won: answer as that call did.
        accepted = (await this.control.read(requestStream)).find((event) => isControlEvent(event, 'WorkspaceCreationAccepted'))?.data as WorkspaceCreationAccepted;
      }
    }
    if (
      accepted.ownerUserId !== wanted.ownerUserId ||
      accepted.displayName !== wanted.displayName ||
      accepted.endToEndEncrypted !== wanted.endToEndEncrypted
    ) {
      throw new ControlError('ALREADY_EXISTS', 'request_id was already used to create a workspace with a different owner_user_id, display_name or end_to_end_encrypted');
    }
    // Completes a creation that stopped between its two appends (crash) as well as the normal case.
    const existing = await this.workspaces.find(accepted.workspaceId);
    if (existing) return existing;
    try {
      await this.control.append(
        streams.workspace(accepted.workspaceId),
        'no-stream',
        [controlEvent('WorkspaceCreated', { ...wanted, workspaceId: accepted.workspaceId, requestId, createdAt: this.now().toISOString() })],
        requestId,
      );
    } catch (error) {
      if (!(error instanceof ConcurrencyError)) throw error;
    }
    const created = await this.workspaces.find(accepted.workspaceId);
    if (!created) throw new ControlError('UNAVAILABLE', 'the workspace could not be recorded; retry with the same request_id');
    this.logger.info('workspace created', { workspaceId: created.workspaceId, endToEndEncrypted: created.endToEndEncrypted });
    return created;
  }

  async createPairingCode(input: { workspaceId: string; ttlSeconds: number; requestedByUserId: string }): Promise<{ pairingCode: string; expiresAt: Date }> {
    const workspaceId = uuidArgument('workspace_id', input.workspaceId);
    const requestedByUserId = boundedText('requested_by_user_id', input.requestedByUserId, MAX_USER_ID);
    await this.requireWorkspace(workspaceId);
    const { defaultTtlSeconds, maxTtlSeconds } = this.config.pairingCode;
    const ttlSeconds = !input.ttlSeconds ? defaultTtlSeconds : Math.min(Math.max(1, Math.floor(input.ttlSeconds)), maxTtlSeconds);
    const issuedAt = this.now();
    const expiresAt = new Date(issuedAt.getTime() + ttlSeconds * 1000);
    const pairingCode = mintSecret('pairingCode');
    await this.control.append(streams.pairingCode(sha256Hex(pairingCode)), 'no-stream', [
      controlEvent('PairingCodeIssued', {
        codeId: uuidv7(),
        workspaceId,
        requestedByUserId,
        issuedAt: issuedAt.toISOString(),
        expiresAt: expiresAt.toISOString(),
      }),
    ]);
    this.logger.info('pairing code issued', { workspaceId, ttlSeconds });
    return { pairingCode, expiresAt };
  }

  async listDevices(input: { workspaceId: string; pageSize: number; pageToken: string }): Promise<{ devices: DeviceView[]; nextPageToken: string }> {
    const workspaceId = uuidArgument('workspace_id', input.workspaceId);
    if (!Number.isInteger(input.pageSize) || input.pageSize < 0) throw new ControlError('INVALID_ARGUMENT', 'page_size must not be negative');
    const pageSize = input.pageSize === 0 ? DEFAULT_PAGE_SIZE : Math.min(input.pageSize, MAX_PAGE_SIZE);
    const cursor = input.pageToken ? decodePageToken(input.pageToken, workspaceId) : null;
    await this.requireWorkspace(workspaceId);
    const rows = await this.prisma.relayDevice.findMany({
      where: {
        workspaceId,
        revokedAt: null,
        ...(cursor
          ? { OR: [{ enrolledAt: { gt: cursor.enrolledAt } }, { enrolledAt: cursor.enrolledAt, deviceId: { gt: cursor.deviceId } }] }
          : {}),
      },
      orderBy: [{ enrolledAt: 'asc' }, { deviceId: 'asc' }],
      take: pageSize + 1,
    });
    const page = rows.slice(0, pageSize);
    const last = page[page.length - 1];
    return {
      devices: page.map((row) => ({
        deviceId: row.deviceId,
        workspaceId: row.workspaceId,
        enrolledAt: row.enrolledAt,
        connected: row.connected,
        wireVersion: row.wireVersion ?? '',
        lastConnectedAt: row.lastConnectedAt,
      })),
      nextPageToken: rows.length > pageSize && last ? encodePageToken({ workspaceId, enrolledAt: last.enrolledAt, deviceId: last.deviceId }) : '',
    };
  }

  /**
   * A page of the workspace's operator audit (the `relay_interaction_audit` projection), newest first: rows
   * in the order the projection wrote them, which is the order of the interaction events on their stream.
   */
  async listWorkspaceAudit(input: { workspaceId: string; pageSize: number; pageToken: string }): Promise<{ entries: WorkspaceAuditView[]; nextPageToken: string }> {
    const workspaceId = uuidArgument('workspace_id', input.workspaceId);
    if (!Number.isInteger(input.pageSize) || input.pageSize < 0) throw new ControlError('INVALID_ARGUMENT', 'page_size must not be negative');
    const pageSize = input.pageSize === 0 ? DEFAULT_AUDIT_PAGE_SIZE : Math.min(input.pageSize, MAX_AUDIT_PAGE_SIZE);
    const before = input.pageToken ? decodeAuditPageToken(input.pageToken, workspaceId) : null;
    await this.requireWorkspace(workspaceId);
    const rows = await this.prisma.relayInteractionAudit.findMany({
      where: { workspaceId, ...(before !== null ? { id: { lt: before } } : {}) },
      orderBy: { id: 'desc' },
      take: pageSize + 1,
    });
    const page = rows.slice(0, pageSize);
    const last = page[page.length - 1];
    return {
      entries: page.map((row) => ({
        eventId: row.eventId,
        occurredAt: row.occurredAt,
        interactionId: row.interactionId,
        method: row.method,
        phase: row.phase,
        sessionId: row.sessionId ?? '',
        userId: row.userId ?? '',
        outcomeKind: row.outcomeKind ?? '',
        responseKind: row.responseKind ?? '',
        relaySequence: row.relaySequence === null ? 0 : Number(row.relaySequence),
      })),
      nextPageToken: rows.length > pageSize && last ? Buffer.from(JSON.stringify({ w: workspaceId, i: last.id.toString() }), 'utf8').toString('base64url') : '',
    };
  }

  async revokeDevice(input: { workspaceId: string; deviceId: string; reason: string; revokedByUserId: string }): Promise<{ revokedAt: Date; disconnected: boolean }> {
    const workspaceId = uuidArgument('workspace_id', input.workspaceId);
    const deviceId = uuidArgument('device_id', input.deviceId);
    const reason = boundedText('reason', input.reason, MAX_REASON);
    const revokedByUserId = boundedText('revoked_by_user_id', input.revokedByUserId, MAX_USER_ID);
    await this.requireWorkspace(workspaceId);
    for (let attempt = 0; ; attempt += 1) {
      const state = deviceState(await this.control.read(streams.device(deviceId)));
      if (!state.enrolled || state.enrolled.workspaceId !== workspaceId) throw new ControlError('NOT_FOUND', 'no such device is enrolled in this workspace');
      if (state.revoked) return { revokedAt: new Date(state.revoked.revokedAt), disconnected: false };
      const before = await this.presence.status(workspaceId);
      const liveConnection = before?.status === 'online' && before.deviceId === deviceId ? before.connectionId : null;
      const revokedAt = this.now();
      try {
        await this.control.append(streams.device(deviceId), state.version, [
          controlEvent('DeviceRevoked', { deviceId, workspaceId, reason, revokedByUserId, revokedAt: revokedAt.toISOString() }),
        ]);
      } catch (error) {
        if (error instanceof ConcurrencyError && attempt < 5) continue;
        throw error;
      }
      this.logger.info('device revoked', { workspaceId, deviceId, wasConnected: liveConnection !== null });
      const disconnected = liveConnection ? await this.waitUntilGone(workspaceId, liveConnection) : false;
      return { revokedAt, disconnected };
    }
  }

  /**
   * Ends live browser sessions: one by id, or every session of a person on the workspace. The request is an
   * audited event every replica hears (like DeviceRevoked); the replica holding a session closes it (4008)
   * and records its end, which removes its live row. Waits (bounded) for the rows of the sessions that were
   * live at the call, and answers how many went.
   *
   * The event goes to the scope's own stream (the person's, or the session's): redeeming a ticket reads it
   * there, and a ticket of that scope issued before it (an earlier global position in the event store, the
   * database's order, so no replica's clock is compared) is refused. Tickets minted after it work.
   */
  async endBrowserSessions(input: { workspaceId: string; sessionId: string; userId: string; reason: string; endedByUserId: string }): Promise<{ endedSessionCount: number }> {
    const workspaceId = uuidArgument('workspace_id', input.workspaceId);
    const sessionGiven = (input.sessionId ?? '') !== '';
    const userGiven = (input.userId ?? '') !== '';
    if (sessionGiven === userGiven) throw new ControlError('INVALID_ARGUMENT', 'set exactly one of session_id (one session) and user_id (all of that person\'s sessions)');
    const sessionId = sessionGiven ? uuidArgument('session_id', input.sessionId) : null;
    const userId = userGiven ? boundedText('user_id', input.userId, MAX_USER_ID) : null;
    const reason = boundedText('reason', input.reason, MAX_REASON);
    const requestedByUserId = boundedText('ended_by_user_id', input.endedByUserId, MAX_USER_ID);
    await this.requireWorkspace(workspaceId);

    const live = await this.prisma.relayLiveBrowserSession.findMany({ where: { workspaceId, ...(sessionId ? { sessionId } : {}) }, select: { sessionId: true } });
    let targets = live.map((row) => row.sessionId);
    if (userId !== null && targets.length > 0) {
      // Whose a live session is comes from the read model (its ticket's row), which trails the store by
      // milliseconds: wait (bounded) until every live session has its row before filtering by person.
      const deadline = Date.now() + REVOKE_DISCONNECT_WAIT_MS;
      let rows = await this.prisma.relayBrowserSession.findMany({ where: { sessionId: { in: targets } }, select: { sessionId: true, userId: true } });
      while (rows.length < targets.length && Date.now() < deadline) {
        await new Promise((resolve) => setTimeout(resolve, REVOKE_DISCONNECT_POLL_MS));
        rows = await this.prisma.relayBrowserSession.findMany({ where: { sessionId: { in: targets } }, select: { sessionId: true, userId: true } });
      }
      targets = rows.filter((row) => row.userId === userId).map((row) => row.sessionId);
    }
    const scope = sessionId !== null ? streams.sessionEnds(workspaceId, sessionId) : streams.userSessionEnds(workspaceId, sha256Hex(userId as string));
    await this.control.append(scope, 'any', [
      controlEvent('BrowserSessionsEndRequested', { workspaceId, sessionId, userId, reason, requestedByUserId, requestedAt: this.now().toISOString() }),
    ]);
    this.logger.info('browser sessions end requested', { workspaceId, sessionId, liveSessions: targets.length });
    return { endedSessionCount: targets.length === 0 ? 0 : await this.waitUntilSessionsGone(targets) };
  }

  async createBrowserSession(input: {
    workspaceId: string;
    origin: string;
    acceptedWireVersions: readonly string[];
    userId: string;
  }): Promise<{ connectUrl: string; expiresAt: Date }> {
    const workspaceId = uuidArgument('workspace_id', input.workspaceId);
    const origin = input.origin ?? '';
    if (!isSerializedOrigin(origin)) {
      throw new ControlError('INVALID_ARGUMENT', 'origin must be a serialized origin: scheme "://" host [":" port], no path and no trailing slash');
    }
    const userId = boundedText('user_id', input.userId, MAX_USER_ID);
    const given = input.acceptedWireVersions ?? [];
    if (given.length > MAX_ACCEPTED_VERSIONS || given.some((version) => typeof version !== 'string' || version.length > 16)) {
      throw new ControlError('INVALID_ARGUMENT', `accepted_wire_versions takes at most ${MAX_ACCEPTED_VERSIONS} entries of at most 16 characters`);
    }
    // §2: "1.0" is never chosen for a browser; unknown entries are kept and ignored at negotiation.
    const acceptedWireVersions = given.length === 0 ? [...DEFAULT_BROWSER_WIRE_VERSIONS] : given.filter((version) => version !== '1.0');
    if (!acceptedWireVersions.some((version) => (REMOTE_WIRE_VERSIONS as readonly string[]).includes(version))) {
      throw new ControlError('INVALID_ARGUMENT', `accepted_wire_versions has no version a browser may use (${REMOTE_WIRE_VERSIONS.join(', ')})`);
    }
    await this.requireWorkspace(workspaceId);
    const issuedAt = this.now();
    const expiresAt = new Date(issuedAt.getTime() + this.config.browserTicket.ttlSeconds * 1000);
    const ticket = mintSecret('browserTicket');
    const sessionId = uuidv7();
    await this.control.append(streams.ticket(sha256Hex(ticket)), 'no-stream', [
      controlEvent('BrowserSessionIssued', {
        sessionId,
        workspaceId,
        origin,
        acceptedWireVersions,
        userId,
        issuedAt: issuedAt.toISOString(),
        expiresAt: expiresAt.toISOString(),
      }),
    ]);
    this.logger.info('browser session issued', { workspaceId, sessionId });
    return { connectUrl: this.endpoints.browserConnectUrl(ticket), expiresAt };
  }

  async getWorkspaceStatus(input: { workspaceId: string }): Promise<WorkspaceStatusView> {
    const workspaceId = uuidArgument('workspace_id', input.workspaceId);
    const status = await this.presence.status(workspaceId);
    if (!status) throw new ControlError('NOT_FOUND', 'no such workspace');
    return status;
  }

  /**
   * Subscribes before reading the current status, so no change between the two is lost; changes are passed
   * on only when they differ from what the watcher was last given.
   */
  async watchWorkspaceStatus(input: { workspaceId: string }, onChange: (status: WorkspaceStatusView) => void): Promise<{ current: WorkspaceStatusView; stop: () => void }> {
    const workspaceId = uuidArgument('workspace_id', input.workspaceId);
    await this.requireWorkspace(workspaceId);
    let lastKey: string | null = null;
    const buffered: WorkspaceStatusView[] = [];
    const deliver = (status: WorkspaceStatusView) => {
      const key = visibleStatusKey(status);
      if (key === lastKey) return;
      lastKey = key;
      onChange(status);
    };
    const stop = this.presence.onStatusChanged((status) => (lastKey === null ? buffered.push(status) : deliver(status)), workspaceId);
    const current = await this.presence.status(workspaceId);
    if (!current) {
      stop();
      throw new ControlError('NOT_FOUND', 'no such workspace');
    }
    lastKey = visibleStatusKey(current);
    // A change announced while the current status was read: read again and send what is newest after it.
    if (buffered.length > 0) {
      setImmediate(() => {
        this.presence
          .status(workspaceId)
          .then((status) => status && deliver(status))
          .catch(() => undefined);
      });
    }
    return { current, stop };
  }

  private async requireWorkspace(workspaceId: string): Promise<WorkspaceRecord> {
    const workspace = await this.workspaces.find(workspaceId);
    if (!workspace) throw new ControlError('NOT_FOUND', 'no such workspace');
    return workspace;
  }

  /** How many of `sessionIds` have no live row any more, once all are gone or after a bounded wait. */
  private async waitUntilSessionsGone(sessionIds: string[]): Promise<number> {
    const deadline = Date.now() + REVOKE_DISCONNECT_WAIT_MS;
    for (;;) {
      const still = await this.prisma.relayLiveBrowserSession.count({ where: { sessionId: { in: sessionIds } } });
      if (still === 0 || Date.now() >= deadline) {
        if (still > 0) this.logger.warn('ended browser sessions still live after the wait', { sessions: still });
        return sessionIds.length - still;
      }
      await new Promise((resolve) => setTimeout(resolve, REVOKE_DISCONNECT_POLL_MS));
    }
  }

  /**
   * Resolves true once `connectionId` is no longer the workspace's live connection, false after a bounded
   * wait. The holding replica writes presence to the database before it announces it, so besides the
   * announcement this also looks at the database every so often.
   */
  private waitUntilGone(workspaceId: string, connectionId: string): Promise<boolean> {
    return new Promise<boolean>((resolve) => {
      let settled = false;
      const check = () => {
        this.presence
          .status(workspaceId)
          .then((status) => {
            if (status?.connectionId !== connectionId) finish(true);
          })
          .catch(() => undefined);
      };
      const finish = (gone: boolean) => {
        if (settled) return;
        settled = true;
        clearTimeout(timer);
        clearInterval(poll);
        stop();
        if (!gone) this.logger.warn('revoked device still connected after the wait', { workspaceId });
        resolve(gone);
      };
      const timer = setTimeout(() => finish(false), REVOKE_DISCONNECT_WAIT_MS);
      const poll = setInterval(check, REVOKE_DISCONNECT_POLL_MS);
      const stop = this.presence.onStatusChanged((status) => {
        if (status.connectionId !== connectionId) finish(true);
      }, workspaceId);
      check();
    });
  }
}

interface PageCursor {
  enrolledAt: Date;
  deviceId: string;
}

function encodePageToken(cursor: { workspaceId: string; enrolledAt: Date; deviceId: string }): string {
  return Buffer.from(JSON.stringify({ w: cursor.workspaceId, e: cursor.enrolledAt.toISOString(), d: cursor.deviceId }), 'utf8').toString('base64url');
}

function decodePageToken(token: string, workspaceId: string): PageCursor {
  const invalid = new ControlError('INVALID_ARGUMENT', 'page_token is not a next_page_token from ListDevices for this workspace_id');
  if (token.length > MAX_PAGE_TOKEN || !/^[A-Za-z0-9_-]+$/.test(token)) throw invalid;
  try {
    const parsed = JSON.parse(Buffer.from(token, 'base64url').toString('utf8')) as { w?: unknown; e?: unknown; d?: unknown };
    if (parsed.w !== workspaceId || typeof parsed.e !== 'string' || typeof parsed.d !== 'string' || !UUID.test(parsed.d)) throw invalid;
    const enrolledAt = new Date(parsed.e);
    if (Number.isNaN(enrolledAt.getTime())) throw invalid;
    return { enrolledAt, deviceId: parsed.d };
  } catch {
    throw invalid;
  }
}

/** One row of a workspace's operator audit as ListWorkspaceAudit answers it (no payload content). */
export interface WorkspaceAuditView {
  eventId: string;
  occurredAt: Date;
  interactionId: string;
  method: string;
  phase: string;
  sessionId: string;
  userId: string;
  outcomeKind: string;
  responseKind: string;
  relaySequence: number;
}

/** The audit row id a ListWorkspaceAudit page token stands for; refused unless it is this workspace's. */
function decodeAuditPageToken(token: string, workspaceId: string): bigint {
  const invalid = new ControlError('INVALID_ARGUMENT', 'page_token is not a next_page_token from ListWorkspaceAudit for this workspace_id');
  if (token.length > MAX_PAGE_TOKEN || !/^[A-Za-z0-9_-]+$/.test(token)) throw invalid;
  try {
    const parsed = JSON.parse(Buffer.from(token, 'base64url').toString('utf8')) as { w?: unknown; i?: unknown };
    if (parsed.w !== workspaceId || typeof parsed.i !== 'string' || !/^[1-9][0-9]{0,18}$/.test(parsed.i)) throw invalid;
    return BigInt(parsed.i);
  } catch {
    throw invalid;
  }
}
