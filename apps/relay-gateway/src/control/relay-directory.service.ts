/**
 * The `RelayDirectory` the data plane uses (see relay-directory.port.ts for the contract): device
 * authentication, browser ticket consumption, presence, audit and the cross-replica listeners, on the
 * control plane's event streams.
 */
import { digestsEqual, sha256, sha256Hex } from '@trustmesh/platform-credentials';
import { ConcurrencyError } from '@trustmesh/platform-event-store';
import type { EventEnvelope } from '@trustmesh/platform-events';

import type { JsonLogger } from '../logging/json-logger';
import type { ControlEventFeed } from './control-event-feed';
import type { ControlStore } from './control-store';
import { controlEvent, isControlEvent, streams } from './control.events';
import { decideTicketConsume, deviceState, ticketState } from './control.state';
import type {
  AcceptedBrowserTicket,
  AuthenticatedDevice,
  BrowserSessionEnd,
  BrowserSessionStart,
  BrowserSessionsEndRequest,
  BrowserTicketVerdict,
  CompanionConnection,
  CompanionDisconnection,
  DeviceRevocation,
  InteractionAuditRecord,
  RelayDirectory,
  Unsubscribe,
  WorkspaceStatusView,
} from './relay-directory.port';
import { looksLike, SECRET_PREFIXES } from './secrets';
import type { WorkspacePresence } from './workspace-presence.service';
import type { WorkspaceRegistry } from './workspace-registry';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[1-8][0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;
/** §11: credentials are at least 16 characters; nothing over 4 KiB is looked at. */
const MAX_SECRET_LENGTH = 4096;
/** Compared against when the device is unknown, so the time taken does not tell unknown from wrong. */
const DUMMY_DIGEST = sha256('relay-gateway/unknown-device');

const text = (value: unknown, max: number): string | null => (typeof value === 'string' && value.length > 0 ? value.slice(0, max) : null);

export class RelayDirectoryService implements RelayDirectory {
  constructor(
    private readonly control: ControlStore,
    private readonly workspaces: WorkspaceRegistry,
    private readonly presence: WorkspacePresence,
    private readonly feed: ControlEventFeed,
    private readonly logger: JsonLogger,
    private readonly now: () => Date = () => new Date(),
  ) {}

  async authenticateDevice(deviceId: string, credential: string): Promise<AuthenticatedDevice | null> {
    if (typeof deviceId !== 'string' || !UUID.test(deviceId)) return null;
    if (typeof credential !== 'string' || credential.length < 16 || credential.length > MAX_SECRET_LENGTH) return null;
    // §12 step 5: a pairing code is never a credential, even before it is looked up.
    if (credential.trim().startsWith(SECRET_PREFIXES.pairingCode)) {
      this.logger.warn('device.connect refused', { deviceId, refusal: 'PAIRING_CODE_AS_CREDENTIAL' });
      return null;
    }
    const state = deviceState(await this.control.read(streams.device(deviceId)));
    const stored = state.enrolled ? Buffer.from(state.enrolled.credentialVerifier, 'hex') : DUMMY_DIGEST;
    const matches = digestsEqual(sha256(credential), stored) && looksLike('deviceCredential', credential);
    if (!state.enrolled || !matches) return null;
    if (state.revoked) {
      this.logger.info('device.connect refused', { deviceId, refusal: 'DEVICE_REVOKED' });
      return null;
    }
    const workspace = await this.workspaces.find(state.enrolled.workspaceId);
    if (!workspace) return null;
    return { deviceId, workspaceId: workspace.workspaceId, endToEndEncrypted: workspace.endToEndEncrypted };
  }

  async consumeBrowserTicket(ticket: string, origin: string | undefined): Promise<BrowserTicketVerdict> {
    if (typeof ticket !== 'string' || ticket.length > MAX_SECRET_LENGTH || !looksLike('browserTicket', ticket)) {
      return { ok: false, code: 'SESSION_TICKET_INVALID' };
    }
    const streamId = streams.ticket(sha256Hex(ticket));
    const recorded = await this.control.readRecorded(streamId);
    const state = ticketState(recorded.map((event) => event.envelope));
    const verdict = decideTicketConsume(state, origin, this.now());
    if (verdict !== 'consumable' || !state.issued) return { ok: false, code: verdict === 'consumable' ? 'SESSION_TICKET_INVALID' : verdict };
    const issued = state.issued;
    // Ended by EndBrowserSessions after it was minted: §10's closed list has no code for that, and to the
    // browser it is simply no longer a valid ticket (nothing consumed; a fresh descriptor works).
    const issuedPosition = recorded.find((event) => isControlEvent(event.envelope, 'BrowserSessionIssued'))?.position ?? 0;
    if (await this.browserSessionEndedSince({ ...issued, issuedPosition })) {
      this.logger.info('browser ticket refused', { workspaceId: issued.workspaceId, sessionId: issued.sessionId, refusal: 'SESSION_ENDED_BY_OPERATOR' });
      return { ok: false, code: 'SESSION_TICKET_INVALID' };
    }
    // The session's encryption profile comes from its workspace: look it up before the ticket is spent, and
    // fail closed. A workspace that cannot be found refuses the ticket (nothing consumed); one that cannot be
    // read throws (503, nothing consumed). Never a plaintext session on an encrypted workspace.
    const workspace = await this.workspaces.find(issued.workspaceId);
    if (!workspace) {
      this.logger.warn('browser ticket for an unknown workspace refused', { workspaceId: issued.workspaceId });
      return { ok: false, code: 'SESSION_TICKET_INVALID' };
    }
    try {
      await this.control.append(streamId, state.version, [
        controlEvent('BrowserSessionTicketConsumed', { sessionId: issued.sessionId, workspaceId: issued.workspaceId, consumedAt: this.now().toISOString() }),
      ]);
    } catch (error) {
      // Another upgrade (on any replica) consumed it first: single use holds through the stream version.
      if (error instanceof ConcurrencyError) return { ok: false, code: 'SESSION_TICKET_ALREADY_USED' };
      throw error;
    }
    return {
      ok: true,
      workspaceId: issued.workspaceId,
      sessionId: issued.sessionId,
      acceptedWireVersions: [...issued.acceptedWireVersions],
      userId: issued.userId,
      origin: issued.origin,
      encrypted: workspace.endToEndEncrypted,
      expiresAt: new Date(issued.expiresAt),
      issuedPosition,
    };
  }

  /**
   * Whether EndBrowserSessions named this ticket's person or session after the ticket was issued. "After" is
   * the event store's global position (commit order across streams), never a replica's clock.
   */
  async browserSessionEndedSince(ticket: Pick<AcceptedBrowserTicket, 'workspaceId' | 'sessionId' | 'userId' | 'issuedPosition'>): Promise<boolean> {
    const ends = await Promise.all([
      this.control.readRecorded(streams.userSessionEnds(ticket.workspaceId, sha256Hex(ticket.userId))),
      this.control.readRecorded(streams.sessionEnds(ticket.workspaceId, ticket.sessionId)),
    ]);
    return ends.flat().some((end) => end.position > ticket.issuedPosition && isControlEvent(end.envelope, 'BrowserSessionsEndRequested'));
  }

  async companionConnected(connection: CompanionConnection): Promise<void> {
    await this.presence.companionConnected(connection);
    // A revocation appended between authenticateDevice and now would have been delivered before this
    // socket was registered: look again, and close it through the listeners if so.
    const events = await this.control.read(streams.device(connection.deviceId));
    const revoked = events.find((event) => isControlEvent(event, 'DeviceRevoked'));
    if (revoked) this.feed.deliver([revoked]);
  }

  companionDisconnected(disconnection: CompanionDisconnection): Promise<void> {
    return this.presence.companionDisconnected(disconnection);
  }

  browserSessionStarted(session: BrowserSessionStart): Promise<void> {
    return this.presence.browserSessionStarted(session);
  }

  browserSessionEnded(session: BrowserSessionEnd): Promise<void> {
    return this.presence.browserSessionEnded(session);
  }

  async recordInteraction(record: InteractionAuditRecord): Promise<void> {
    await this.control.append(streams.audit(record.workspaceId), 'any', [
      controlEvent('InteractionAudited', {
        workspaceId: record.workspaceId,
        interactionId: text(record.interactionId, 100) ?? 'unknown',
        method: text(record.method, 64) ?? 'unknown',
        phase: record.phase,
        sessionId: text(record.sessionId, 100),
        userId: text(record.userId, 200),
        outcomeKind: text(record.outcomeKind, 64),
        responseKind: text(record.responseKind, 64),
        relaySequence: typeof record.relaySequence === 'number' && Number.isSafeInteger(record.relaySequence) ? record.relaySequence : null,
        occurredAt: (record.occurredAt ?? this.now()).toISOString(),
      }),
    ]);
  }

  getWorkspaceStatus(workspaceId: string): Promise<WorkspaceStatusView | null> {
    if (typeof workspaceId !== 'string' || !UUID.test(workspaceId)) return Promise.resolve(null);
    return this.presence.status(workspaceId);
  }

  onWorkspaceStatusChanged(listener: (status: WorkspaceStatusView) => void): Unsubscribe {
    return this.presence.onStatusChanged(listener);
  }

  onDeviceRevoked(listener: (revocation: DeviceRevocation) => void): Unsubscribe {
    return this.feed.on((envelope: EventEnvelope) => {
      if (isControlEvent(envelope, 'DeviceRevoked')) listener({ deviceId: envelope.data.deviceId, workspaceId: envelope.data.workspaceId });
    });
  }

  onBrowserSessionsEndRequested(listener: (request: BrowserSessionsEndRequest) => void): Unsubscribe {
    return this.feed.on((envelope: EventEnvelope) => {
      if (!isControlEvent(envelope, 'BrowserSessionsEndRequested')) return;
      const { workspaceId, sessionId, userId } = envelope.data;
      listener({ workspaceId, sessionId, userId });
    });
  }
}
