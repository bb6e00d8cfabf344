/**
 * What the data plane writes to the bus, so that several gateway replicas behave as one relay:
 *
 * - `relay.workspace-frames.v1` (key = workspaceId): the workspace's Companion→browser stream, in the
 *   order the Companion's replica forwarded it.
 *   - `RelayFramesSequenced`: a batch of sequenced frames (and gaps) of one stream epoch. This is the
 *     frames log: every replica reads it (its own consumer group, from the earliest retained offset) to
 *     keep its in-memory catch-up ring and to fan frames out to the browser sessions it holds.
 *   - `RelayResponseRouted`: a `runtime.response` for a browser session held by another replica
 *     (`targetInstance`); only that replica delivers it. In the same topic as the frames so a session
 *     sees responses and events in the Companion's order.
 *   - `RelayRequestReceived`: the Companion's replica took a routed request (`targetInstance` is the
 *     requester's process): the holder is alive. A request with no receipt in time makes the requester's
 *     replica report the Companion unreachable (`route-receipts.ts`). Before its response, in the same stream.
 * - `relay.companion-inbound.v1` (key = workspaceId): `RelayCompanionFrameRouted`, a browser's
 *   `runtime.request` / `runtime.ack` (or encrypted request) for a Companion held by another replica;
 *   the replica holding the workspace's Companion forwards it.
 *
 * Every record names its writer (`origin`, one id per gateway process): a replica skips its own
 * records, which it already delivered on the in-process fast path, so no frame reaches a peer twice.
 * Frames travel as the exact text the peer sent, validated before it was written and again when read
 * (`frames-bus.validation.ts`): a record is input, whoever wrote it.
 */
import type { WireVersion } from '@trustmesh/relay-protocol';

export const WORKSPACE_FRAMES_TOPIC = 'relay.workspace-frames.v1';
export const COMPANION_INBOUND_TOPIC = 'relay.companion-inbound.v1';

export const FRAMES_SEQUENCED = 'RelayFramesSequenced';
export const RESPONSE_ROUTED = 'RelayResponseRouted';
export const COMPANION_FRAME_ROUTED = 'RelayCompanionFrameRouted';
export const REQUEST_RECEIVED = 'RelayRequestReceived';

/**
 * `connectionId`: the Companion connection that sent it (absent in records of older gateways). A replica that
 * rebuilds its rings from the log learns from it whose stream the ring holds, and so whether the Companion that
 * is live now has confirmed it.
 */
export type SequencedItem =
  | { relaySequence: number; text: string; wire: WireVersion; at: number; connectionId?: string }
  | { gap: { from: number; through: number }; text: string; wire: WireVersion; at: number; connectionId?: string };

export interface FramesSequencedData {
  origin: string;
  epoch: string;
  items: SequencedItem[];
}

/** The audit context of an `interaction.candidate` request, carried to where its response is delivered. */
export interface CandidateContext {
  interactionId: string;
  method: string;
  outcomeKind: string;
}

export interface ResponseRoutedData {
  origin: string;
  targetInstance: string;
  sessionId: string;
  requestId: string;
  method: string | null;
  candidate: CandidateContext | null;
  text: string;
  wire: WireVersion;
}

export interface CompanionFrameRoutedData {
  origin: string;
  sessionId: string;
  kind: 'request' | 'ack';
  requestId: string | null;
  method: string | null;
  candidate: CandidateContext | null;
  text: string;
}

export interface RequestReceivedData {
  origin: string;
  targetInstance: string;
  requestId: string;
}
