/**
 * @trustmesh/relay-protocol: the Roll Relay Protocol (Wire 1.0, 1.1, 1.2 and Control 1.0) for every
 * relay peer: types and compiled validators from the schema documents, per-socket rules, registries,
 * sequencing and idempotency classifiers, leak-safe projections and the conformance runner.
 *
 * Pure TypeScript: runs in browsers and in Node, with no I/O of its own.
 */
export * as Wire10 from './generated/wire-1.0.types';
export * as Wire11 from './generated/wire-1.1.types';
export * as Wire12 from './generated/wire-1.2.types';
export * as Control10 from './generated/control-1.0.types';
export type { BrowserSessionDescriptor } from './generated/browser-session-1.0.types';
export type { RuntimeEventEnvelope, RuntimeTimelineEvent } from './generated/runtime-timeline.types';

export {
  WIRE_VERSIONS,
  REMOTE_WIRE_VERSIONS,
  DEFAULT_BROWSER_WIRE_VERSIONS,
  isWireVersion,
  negotiateWireVersion,
  versionsUpTo,
  compareWireVersions,
  type WireVersion,
} from './wire-version';

export { FRAME_ISSUE_CODES, pointerJoin, pointerGet, type FrameIssue, type FrameIssueCode, type Verdict } from './validation/frame-issue';
export {
  validateWireFrame,
  validateMethodParams,
  validateMethodResult,
  validateControlMessage,
  validateBrowserSessionDescriptor,
  validateRuntimeEventEnvelope,
  STRICT_CHECKS,
  type AnyWireFrame,
  type WireFrameOf,
  type ValidationChecks,
} from './validation/frame-validator';
export {
  FrameReader,
  checkFrame,
  decodeFrame,
  readFrameText,
  frameTooLargeIssue,
  DEFAULT_MAX_FRAME_BYTES,
  MAX_FRAME_DEPTH,
  type FrameReaderOptions,
  type FrameCheckOptions,
  type InboundFrame,
} from './validation/frame-reader';
export { utf8ByteLength, exceedsUtf8Bytes } from './validation/utf8-length';

export { DIRECTIONS, isDirection, allowedFrameTypes, isAllowedInDirection, type Direction } from './rules/direction.rules';
export { DEFERRED_RULES, isDeferredRule, checkDeferredRules, type DeferredRule } from './rules/deferred.rules';
export {
  checkUserInputForm,
  normalizeUserInput,
  type UserInputForm,
  type FormControl,
  type UserInputSubmission,
  type UserInputValue,
} from './rules/interaction-form.rules';

export { methodDisposition, requestMethods, isMutation, messageTypes, type MethodDisposition } from './registry/method-registry';
export {
  wireError,
  runtimeError,
  wireErrorRetryability,
  sessionErrorRetryable,
  HANDSHAKE_ERRORS,
  CLOSE_CODES,
  BROWSER_LOCAL_ERRORS,
  type WireError,
  type WireErrorCode,
  type SessionErrorCode,
  type HandshakeErrorCode,
  type BrowserLocalErrorCode,
} from './registry/error-registry';

export { classifyAck, type AckDisposition, type AckState } from './sequencing/ack-classifier';
export { canonicalJson } from '@trustmesh/shared-canonical-json';
export {
  classifyReplay,
  idempotencyKey,
  requestFingerprint,
  type ReplayClassification,
  type RequestIdentity,
} from './idempotency/replay-classifier';

export {
  projectRuntimeEvent,
  projectApproval,
  type TimelineProjection,
  type TimelineEnvelopeOf,
  type RuntimeApproval,
  type ApprovalProjection,
} from './projections/runtime-event.projection';
export {
  projectInteractionRequest,
  projectUserInputForm,
  interactionTerminal,
  type InteractionIdentity,
  type InteractionMethod,
  type RuntimeInteraction,
} from './projections/interaction.projection';
export { projectThreadSnapshot, projectOperationResult, type ThreadSnapshot, type OperationView } from './projections/snapshot.projection';
export { downgradeFrameTo11 } from './projections/downgrade.projection';

export { runConformance, ManifestError, type ConformanceCase, type ConformanceReport, type FixtureReader } from './conformance/conformance-runner';
export { WIRE_REGISTRY, CONTROL_REGISTRY } from './generated/registry';
