/**
 * @trustmesh/relay-companion: the Companion's side of the Roll Relay Protocol, transport-agnostic.
 * A host adds sockets, enrollment and configuration; this library owns sequencing, replay, ACKs,
 * idempotency, request policy, dispatch, the interaction broker, leak-safe projection, end-to-end
 * encryption of output and the outbound size limit (BEHAVIOUR.md §4–§11). See README.md.
 */
export * from './agent-runtime.port';
export {
  CompanionSession,
  DEFAULT_COMPANION_LIMITS,
  type CompanionSessionOptions,
  type CompanionLimits,
  type CompanionStats,
  type CompanionWireVersion,
  type GenerationEnd,
  type GenerationEndReason,
  type ReceiveResult,
} from './session/companion-session';
export type { SendFrame } from './session/connection-generation';
export type { CompanionCipher, CompanionSealableFrame } from './session/companion-cipher.port';
export type { CompanionDiagnostic, CompanionDiagnosticEvent, DiagnosticSink } from './session/diagnostics';
export {
  createRequestPolicy,
  productionRequestPolicy,
  PRODUCTION_REMOTE_METHODS,
  LOCAL_DENY_REASON,
  type RequestPolicy,
  type RequestPolicyContext,
  type RequestPolicyOptions,
  type ResponderPolicy,
  type ResponderPolicyContext,
  type ApprovalPolicy,
  type ApprovalPolicyContext,
  type ApprovalDecision,
  type AppResultGrant,
  type CompanionPolicies,
} from './policy/companion-policies';
export { ReplayBuffer, DEFAULT_REPLAY_LIMITS, type BufferedFrame, type ReplayBufferLimits, type ReplayPlan } from './replay/replay-buffer';
export { IdempotencyCache, DEFAULT_IDEMPOTENCY_ENTRIES, type CacheLookup } from './idempotency/idempotency-cache';
export { LEGACY_INTERACTION_TTL_MS } from './interactions/interaction-broker';
export { systemClock, ManualClock, type Clock } from './clock';
export { deviceConnectFrame, type DeviceConnectInput } from './session/device-connect';
