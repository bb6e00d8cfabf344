/**
 * The seam between the gateway's control plane (workspaces, devices, pairing, browser tickets, presence,
 * audit; owned by src/control, src/enrollment, src/persistence) and its data plane (the /v1/companion and
 * /v1/browser WebSocket servers in src/data-plane). The data plane depends on this file only and gets the
 * implementation from Nest's container:
 *
 *   constructor(@Inject(RELAY_DIRECTORY) private readonly directory: RelayDirectory) {}
 *
 * `RELAY_DIRECTORY` is provided by a global module, so any module imported by `AppModule` can inject it.
 *
 * Rules every method keeps:
 * - Secrets (device credentials, tickets) are compared in constant time against stored SHA-256 verifiers;
 *   no method logs them or returns them, and no method throws on bad input: a refusal is a value.
 * - Methods that return a Promise may reject only on infrastructure failure (database or bus down); the
 *   data plane then refuses the connection as an internal error (close, or 503 at the upgrade).
 * - Listener callbacks run on every replica (the control plane fans events out over the event bus) and
 *   may fire more than once for one fact (at-least-once delivery): handle them idempotently.
 * - Presence and audit calls (`companionConnected`, `browserSessionStarted`, `recordInteraction`, …) are
 *   durable once their promise resolves; they never carry payload content.
 */
import type { HandshakeErrorCode, WireVersion } from '@trustmesh/relay-protocol';

/** DI token of the `RelayDirectory` implementation. */
export const RELAY_DIRECTORY = Symbol.for('trustmesh.relay-gateway.RelayDirectory');

/** A Companion whose `device.connect` credential checked out. */
export interface AuthenticatedDevice {
  deviceId: string;
  /** The one Workspace this device serves (§12 step 7): bind the socket to it. */
  workspaceId: string;
  /**
   * The Workspace uses the end-to-end encryption profile: `runtime.encrypted` frames may cross its sockets
   * (FrameReader option `encryption`). False for the baseline profile, which refuses them (§13).
   */
  endToEndEncrypted: boolean;
}

/** What a browser ticket admits, once consumed (it can never be consumed again). */
export interface AcceptedBrowserTicket {
  ok: true;
  workspaceId: string;
  /** A fresh id for `session.ready.sessionId` and the audit trail (UUIDv7). */
  sessionId: string;
  /**
   * The Wire versions the browser accepts, most preferred first, as its backend forwarded them (never empty:
   * `["1.1"]` when none were given; unknown entries kept, "1.0" removed). Negotiate with
   * `negotiateWireVersion(acceptedWireVersions, …)` against the Companion's version (§2).
   */
  acceptedWireVersions: string[];
  /** Opaque id of the person, from the calling service: audit only, never forwarded to the Companion. */
  userId: string;
  /** The origin the ticket was bound to (equal to the upgrade's Origin header). */
  origin: string;
  /** See `AuthenticatedDevice.endToEndEncrypted`. */
  encrypted: boolean;
  expiresAt: Date;
  /** Where the ticket was issued in the control log (opaque): pass the ticket to `browserSessionEndedSince`. */
  issuedPosition: number;
}

export interface RefusedBrowserTicket {
  ok: false;
  /**
   * A handshake error of §10: answer the upgrade with `HANDSHAKE_ERRORS[code]` (401 for ticket codes, 403 for
   * ORIGIN_NOT_ALLOWED) and the JSON body `{"code": code}`.
   */
  code: HandshakeErrorCode;
}

export type BrowserTicketVerdict = AcceptedBrowserTicket | RefusedBrowserTicket;

/** A Companion socket that authenticated and is now the Workspace's live Companion on this replica. */
export interface CompanionConnection {
  /** Unique per socket (UUID), chosen by the data plane: tells a replaced connection from its successor. */
  connectionId: string;
  workspaceId: string;
  deviceId: string;
  /** The version from `device.connect` (1.1 or 1.2; 1.0 Companions are refused before this call). */
  wireVersion: WireVersion;
}

/**
 * `unreachable`: reported by another replica, whose request routed to this connection's replica got no receipt
 * in time (that replica is dead or cut off); a holder that is alive re-asserts the connection when it hears it.
 */
export type CompanionDisconnectReason = 'closed' | 'replaced' | 'revoked' | 'heartbeat-timeout' | 'shutdown' | 'error' | 'unreachable';

export interface CompanionDisconnection {
  connectionId: string;
  workspaceId: string;
  deviceId: string;
  reason: CompanionDisconnectReason;
}

export interface BrowserSessionStart {
  /** `AcceptedBrowserTicket.sessionId`. */
  sessionId: string;
  workspaceId: string;
  userId: string;
  /** The version sent in `session.ready.relayProtocolVersion`. */
  wireVersion: WireVersion;
}

export type BrowserSessionEndReason =
  | 'closed'
  | 'invalid-frame'
  | 'session-error'
  | 'slow-consumer'
  | 'heartbeat-timeout'
  | 'shutdown'
  | 'error'
  /** EndBrowserSessions (closed 4008). */
  | 'ended-by-operator'
  /** RELAY_BROWSER_SESSION_MAX_SECONDS passed (closed 4012, retryable). */
  | 'lifetime-reached';

export interface BrowserSessionEnd {
  sessionId: string;
  workspaceId: string;
  reason: BrowserSessionEndReason;
  /** The close code sent or received, if any. */
  closeCode?: number;
}

/**
 * One step of an interaction's life, for the operator audit (who, which method, when, outcome kind).
 * Never payload content: no projection, no candidate values, no reasons.
 */
export interface InteractionAuditRecord {
  workspaceId: string;
  interactionId: string;
  /** `approval.request` or `userInput.request`. */
  method: string;
  /**
   * requested: an `interaction.request` was forwarded; candidate: a browser sent `interaction.candidate`;
   * resolved / cancelled: the terminal frame passed; expired: the gateway dropped a retained request past
   * its `expiresAt`.
   */
  phase: 'requested' | 'candidate' | 'resolved' | 'cancelled' | 'expired';
  /** The browser session that sent the candidate (phase candidate). */
  sessionId?: string;
  /** The person behind that session (`AcceptedBrowserTicket.userId`). */
  userId?: string;
  /** For candidates, the decision kind only: `approve`, `reject`, `submitted`, `cancelled`. */
  outcomeKind?: string;
  /** The `runtime.response` result of the candidate, by kind only: `accepted` or the error code. */
  responseKind?: string;
  relaySequence?: number;
  occurredAt?: Date;
}

/** Whether a Workspace's Companion is reachable, as the Control 1.0 `workspace.status` reports it. */
export interface WorkspaceStatusView {
  workspaceId: string;
  status: 'online' | 'offline';
  /** The connected device when online, else null. */
  deviceId: string | null;
  /** The connected Companion's version when online, else null. */
  wireVersion: WireVersion | null;
  /** The version of the current or last Companion connection (§2 "last-known"); null if none ever. */
  lastKnownWireVersion: WireVersion | null;
  /** The replica holding the Companion socket when online (diagnostics). */
  replicaId: string | null;
  /** The live Companion connection when online (see `CompanionConnection.connectionId`). */
  connectionId: string | null;
  /** Open browser sessions on all replicas. */
  browserSessionCount: number;
  /** When `status` last changed; null if the Workspace never had a Companion. */
  changedAt: Date | null;
  endToEndEncrypted: boolean;
}

export interface DeviceRevocation {
  deviceId: string;
  workspaceId: string;
}

/** Which live browser sessions EndBrowserSessions ends: one by id, or all of a person's on a workspace. */
export interface BrowserSessionsEndRequest {
  workspaceId: string;
  sessionId: string | null;
  userId: string | null;
}

export type Unsubscribe = () => void;

export interface RelayDirectory {
  /**
   * Checks a `device.connect` (§12 step 6): the device exists, is not revoked, and `credential` (the frame's
   * `pairingToken`) matches its verifier. Pairing codes are never accepted, nor anything over 4 KiB.
   * Returns null on any refusal (the data plane closes the socket without an error frame).
   */
  authenticateDevice(deviceId: string, credential: string): Promise<AuthenticatedDevice | null>;

  /**
   * Checks and consumes a browser ticket at the HTTP upgrade (§13): known, unexpired, unused and bound to
   * `origin` (the upgrade's `Origin` header, undefined when absent). Consumption is atomic across replicas:
   * of two upgrades with one ticket exactly one gets `ok: true`. A refusal consumes nothing.
   * Refusals, in this order: SESSION_TICKET_INVALID (malformed or unknown), SESSION_TICKET_EXPIRED,
   * SESSION_TICKET_ALREADY_USED, ORIGIN_NOT_ALLOWED, then SESSION_TICKET_INVALID again when
   * EndBrowserSessions named the ticket's person or session after it was issued (revoked).
   */
  consumeBrowserTicket(ticket: string, origin: string | undefined): Promise<BrowserTicketVerdict>;

  /**
   * Whether EndBrowserSessions named this accepted ticket's person or session after it was issued. Asked once
   * more when the session is registered: an end recorded between `consumeBrowserTicket` and then reached the
   * replica's listeners before there was a session to close.
   */
  browserSessionEndedSince(ticket: AcceptedBrowserTicket): Promise<boolean>;

  /** Records that `connection` is now its Workspace's live Companion (status online, audit, other replicas). */
  companionConnected(connection: CompanionConnection): Promise<void>;
  /** Records that a Companion socket closed; the Workspace goes offline only if it was the live one. */
  companionDisconnected(disconnection: CompanionDisconnection): Promise<void>;

  /** Records an open browser session (after `session.ready` was sent). */
  browserSessionStarted(session: BrowserSessionStart): Promise<void>;
  /** Records a browser session's end. Safe to call for a session that never started. */
  browserSessionEnded(session: BrowserSessionEnd): Promise<void>;

  /** Appends one interaction lifecycle step to the operator audit. */
  recordInteraction(record: InteractionAuditRecord): Promise<void>;

  /** The Workspace's status as all replicas see it; null if the Workspace is unknown. */
  getWorkspaceStatus(workspaceId: string): Promise<WorkspaceStatusView | null>;

  /**
   * Calls `listener` with a Workspace's new status whenever its Companion connectivity, its live Companion
   * connection (`connectionId`, e.g. a newer connection on another replica replaced it) or its browser
   * session count changes on any replica. Use it to send `workspace.status` to browser sessions held here
   * (only when `status` changed), and to close a Companion socket held here whose `connectionId` is no
   * longer the live one.
   */
  onWorkspaceStatusChanged(listener: (status: WorkspaceStatusView) => void): Unsubscribe;

  /**
   * Calls `listener` when a device is revoked, on every replica (at once on the replica that took the
   * RevokeDevice call). Close that device's Companion socket if this replica holds it, then call
   * `companionDisconnected` with reason `revoked`: RevokeDevice waits for that before it returns.
   */
  onDeviceRevoked(listener: (revocation: DeviceRevocation) => void): Unsubscribe;

  /**
   * Calls `listener` when EndBrowserSessions was called, on every replica (at once on the replica that took
   * the call). Close the matching sessions held here with 4008 and record their end (`ended-by-operator`):
   * the call waits for their live rows to go.
   */
  onBrowserSessionsEndRequested(listener: (request: BrowserSessionsEndRequest) => void): Unsubscribe;
}
