/**
 * @trustmesh/relay-client: the Browser side of the Roll Relay Protocol for web pages and Node.
 * See README.md for the API, the guarantees and the error codes.
 */
export {
  RelayClient,
  type RelayClientOptions,
  type RelayClientEvents,
  type RequestOptions,
  type RequestMethod,
  type ConnectionState,
  type WorkspaceStatus,
  type BrowserWireVersion,
  type InteractionChange,
  type ThreadSnapshot,
  type SnapshotEventReason,
} from './relay-client';
export { RelayClientError, type RelayClientErrorKind, type UsageErrorCode } from './client-error';
export { TypedEmitter, type Listener } from './typed-emitter';
export { systemClock, type Clock } from './connection/clock';
export { reconnectDelayMs } from './connection/reconnect-backoff';
export { checkSessionDescriptor } from './connection/session-descriptor';
export { WEBSOCKET_OPEN, type WebSocketLike, type WebSocketConstructorLike, type WebSocketMessageEventLike, type WebSocketCloseEventLike } from './connection/websocket.port';
export {
  StreamSequencer,
  type SequencerPort,
  type SequencerNotice,
  type SequencerState,
  type SequencedFrame,
  type GapNotice,
  type SnapshotReason,
  type StreamSequencerOptions,
} from './sequencing/stream-sequencer';
export {
  InteractionTracker,
  type TrackedInteraction,
  type InteractionState,
  type InteractionProblemCode,
  type RespondCheck,
} from './interactions/interaction-tracker';
export { approvalCandidate, userInputCandidate, userInputCancellation, type ApprovalDecision, type UserInputValues } from './interactions/interaction-candidates';
export {
  ThreadActivity,
  type ActivityEvent,
  type MessageUpdate,
  type ReasoningUpdate,
  type ToolActivity,
  type TurnUpdate,
  type TurnState,
  type ApprovalNotice,
} from './timeline/thread-activity';
