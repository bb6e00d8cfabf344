/**
 * The control plane's events and streams (ARCHITECTURE.md, "Events"). Every event is appended to the event
 * store (optimistic concurrency per stream) with an outbox row for the topic `relay.control.v1`, from which
 * the read models are projected and every replica hears about revocations and presence changes.
 *
 * Streams, one per aggregate whose commands are checked against its state:
 *
 * | stream | events | single-writer rule |
 * |---|---|---|
 * | `relay-workspace-request-<requestId>` | WorkspaceCreationAccepted | the first CreateWorkspace with that request id wins |
 * | `relay-workspace-<workspaceId>` | WorkspaceCreated | — |
 * | `relay-pairing-<sha256(code)>` | PairingCodeIssued, PairingCodeRedeemed | redeem appends at version 1: one winner |
 * | `relay-device-<deviceId>` | DeviceEnrolled, DeviceRevoked | revoke appends at the version it read |
 * | `relay-ticket-<sha256(ticket)>` | BrowserSessionIssued, BrowserSessionTicketConsumed | consume appends at version 1: one winner |
 * | `relay-presence-<workspaceId>` | CompanionConnected, CompanionDisconnected, BrowserSessionStarted, BrowserSessionEnded | any version (facts, not decisions) |
 * | `relay-audit-<workspaceId>` | InteractionAudited | any version |
 * | `relay-browser-ends-<workspaceId>-user-<sha256(userId)>` | BrowserSessionsEndRequested (one person's sessions) | any version |
 * | `relay-browser-ends-<workspaceId>-session-<sessionId>` | BrowserSessionsEndRequested (one session) | any version |
 * | `relay-workspace-card-<workspaceId>` | WorkspaceCardPublished, WorkspaceCardEndpointMoved | appends at the version it read: one card content per version |
 *
 * The two `relay-browser-ends-…` streams are what a ticket is checked against when it is redeemed: an end
 * request recorded after the ticket was issued (a later global position) revokes it. They are per scope so
 * that check reads a handful of events, never a workspace's whole audit.
 *
 * Secrets never enter an event: codes, credentials and tickets appear only as the SHA-256 digest in a
 * stream id or a `*Verifier` field (hex), which is useless to an attacker because each secret carries
 * 256 bits of entropy.
 */
import type { WireVersion } from '@trustmesh/relay-protocol';

export const RELAY_CONTROL_TOPIC = 'relay.control.v1';

export const streams = {
  workspaceRequest: (requestId: string) => `relay-workspace-request-${requestId}`,
  workspace: (workspaceId: string) => `relay-workspace-${workspaceId}`,
  pairingCode: (codeDigestHex: string) => `relay-pairing-${codeDigestHex}`,
  device: (deviceId: string) => `relay-device-${deviceId}`,
  ticket: (ticketDigestHex: string) => `relay-ticket-${ticketDigestHex}`,
  presence: (workspaceId: string) => `relay-presence-${workspaceId}`,
  audit: (workspaceId: string) => `relay-audit-${workspaceId}`,
  /** The person's id is hashed: it is opaque text of up to 200 characters, and a stream id is bounded. */
  userSessionEnds: (workspaceId: string, userIdDigestHex: string) => `relay-browser-ends-${workspaceId}-user-${userIdDigestHex}`,
  sessionEnds: (workspaceId: string, sessionId: string) => `relay-browser-ends-${workspaceId}-session-${sessionId}`,
  workspaceCard: (workspaceId: string) => `relay-workspace-card-${workspaceId}`,
} as const;

export interface WorkspaceCreationAccepted {
  requestId: string;
  workspaceId: string;
  ownerUserId: string;
  displayName: string;
  endToEndEncrypted: boolean;
}

export interface WorkspaceCreated {
  workspaceId: string;
  ownerUserId: string;
  displayName: string;
  endToEndEncrypted: boolean;
  requestId: string;
  createdAt: string;
}

export interface PairingCodeIssued {
  codeId: string;
  workspaceId: string;
  requestedByUserId: string;
  issuedAt: string;
  expiresAt: string;
}

export interface PairingCodeRedeemed {
  codeId: string;
  workspaceId: string;
  deviceId: string;
  redeemedAt: string;
}

export interface DeviceEnrolled {
  deviceId: string;
  workspaceId: string;
  codeId: string;
  /** SHA-256 of the device credential, hex. */
  credentialVerifier: string;
  enrolledAt: string;
}

export interface DeviceRevoked {
  deviceId: string;
  workspaceId: string;
  reason: string;
  revokedByUserId: string;
  revokedAt: string;
}

export interface BrowserSessionIssued {
  sessionId: string;
  workspaceId: string;
  origin: string;
  acceptedWireVersions: string[];
  userId: string;
  issuedAt: string;
  expiresAt: string;
}

export interface BrowserSessionTicketConsumed {
  sessionId: string;
  workspaceId: string;
  consumedAt: string;
}

export interface CompanionConnected {
  workspaceId: string;
  deviceId: string;
  connectionId: string;
  wireVersion: WireVersion;
  replicaId: string;
  connectedAt: string;
}

export interface CompanionDisconnected {
  workspaceId: string;
  deviceId: string;
  connectionId: string;
  reason: string;
  replicaId: string;
  /** Whether this connection was the workspace's live one (false: a replaced connection closed late). */
  wasLive: boolean;
  disconnectedAt: string;
}

export interface BrowserSessionStarted {
  workspaceId: string;
  sessionId: string;
  userId: string;
  wireVersion: WireVersion;
  replicaId: string;
  startedAt: string;
}

export interface BrowserSessionEnded {
  workspaceId: string;
  sessionId: string;
  reason: string;
  closeCode: number | null;
  replicaId: string;
  endedAt: string;
}

export interface InteractionAudited {
  workspaceId: string;
  interactionId: string;
  method: string;
  phase: string;
  sessionId: string | null;
  userId: string | null;
  outcomeKind: string | null;
  responseKind: string | null;
  relaySequence: number | null;
  occurredAt: string;
}

/**
 * EndBrowserSessions: every replica closes the matching live sessions it holds (4008), and every ticket of
 * that scope issued before this event (by global position) is refused at redemption.
 */
export interface BrowserSessionsEndRequested {
  workspaceId: string;
  /** The one session to end, or null with `userId`. */
  sessionId: string | null;
  /** Every session of this person, or null with `sessionId`. */
  userId: string | null;
  reason: string;
  requestedByUserId: string;
  requestedAt: string;
}

/**
 * PublishWorkspaceCard: the workspace's agent is to be (re)published as an AI Card with this content. The
 * event's time is the card revision's `updatedAt`, so replaying it rebuilds byte-identical documents.
 */
export interface WorkspaceCardPublished {
  workspaceId: string;
  /** The card's `id` in the registry. */
  identifier: string;
  name: string;
  description: string;
  tags: string[];
  /** The relay's public base URL the card's interface points at (https://host[:port][/prefix]). */
  endpoint: string;
  endToEndEncrypted: boolean;
  requestedByUserId: string;
  publishedAt: string;
}

/** The relay's public base URL changed (seen at start): the card gets a new revision pointing there. */
export interface WorkspaceCardEndpointMoved {
  workspaceId: string;
  endpoint: string;
  movedAt: string;
}

export interface ControlEventMap {
  WorkspaceCreationAccepted: WorkspaceCreationAccepted;
  WorkspaceCreated: WorkspaceCreated;
  PairingCodeIssued: PairingCodeIssued;
  PairingCodeRedeemed: PairingCodeRedeemed;
  DeviceEnrolled: DeviceEnrolled;
  DeviceRevoked: DeviceRevoked;
  BrowserSessionIssued: BrowserSessionIssued;
  BrowserSessionTicketConsumed: BrowserSessionTicketConsumed;
  CompanionConnected: CompanionConnected;
  CompanionDisconnected: CompanionDisconnected;
  BrowserSessionStarted: BrowserSessionStarted;
  BrowserSessionEnded: BrowserSessionEnded;
  InteractionAudited: InteractionAudited;
  BrowserSessionsEndRequested: BrowserSessionsEndRequested;
  WorkspaceCardPublished: WorkspaceCardPublished;
  WorkspaceCardEndpointMoved: WorkspaceCardEndpointMoved;
}

export type ControlEventType = keyof ControlEventMap;

/** A new event, typed by its name. */
export type ControlEvent = { [K in ControlEventType]: { eventType: K; data: ControlEventMap[K] } }[ControlEventType];

export function controlEvent<K extends ControlEventType>(eventType: K, data: ControlEventMap[K]): { eventType: K; data: ControlEventMap[K] } {
  return { eventType, data };
}

/** Narrows a stored or received envelope to one event type. */
export function isControlEvent<K extends ControlEventType>(
  envelope: { eventType: string; data: unknown },
  eventType: K,
): envelope is { eventType: K; data: ControlEventMap[K] } {
  return envelope.eventType === eventType;
}
