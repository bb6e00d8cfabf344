/**
 * The AgentRuntime port: what the Companion core (`CompanionSession`) drives. An adapter implements it
 * over a real agent runtime (JSON-RPC stdio, Runtime Protocol 1.0–1.5) or a simulated one
 * (`@trustmesh/relay-companion-sim`).
 *
 * Everything the runtime hands back is RAW Runtime data: it may hold secrets (tool input and output,
 * approval previews and reasons, display payloads, turn messages, local paths, newer-Runtime cursors).
 * The core never copies raw data onto the wire by hand: each raw shape below is the input type of the
 * `@trustmesh/relay-protocol` projection that turns it into what Wire 1.1/1.2 may carry
 * (`projectRuntimeEvent`, `projectInteractionRequest`, `projectThreadSnapshot`,
 * `projectOperationResult`), or is reduced by the core from an allowlist where the protocol library has
 * no projection (thread summaries, app-output results). Adapters may therefore return extra fields
 * freely; they never cross.
 *
 * Conventions:
 * - ids are UUIDs unless stated otherwise; times are RFC 3339 strings with an offset;
 * - params objects are the Wire 1.2 method params, already validated by the core (schema of the
 *   session's Wire version) before the runtime sees them;
 * - a method that fails throws `AgentRuntimeError` (or anything else): only its `code` and `retryable`
 *   ever reach the browser (BEHAVIOUR.md §10); any other throw becomes `COMPANION_ERROR`;
 * - listener callbacks are synchronous and called in the Runtime's order; the core numbers frames in
 *   the order it receives them.
 *
 * This file is a stable contract: members are only ever added, never changed.
 */
import type { RuntimeEventEnvelope, UserInputSubmission, Wire12 } from '@trustmesh/relay-protocol';

// ---------------------------------------------------------------------------------------------------
// Raw data shapes
// ---------------------------------------------------------------------------------------------------

/** Runtime protocol versions (a Runtime label, not the Wire version). */
export type RuntimeProtocolVersion = '1.0' | '1.1' | '1.2' | '1.3' | '1.4' | '1.5';

/**
 * A thread as the Runtime describes it. Only `id`, `title`, `model`, `createdAt`, `updatedAt` and
 * `messageCount` cross (the Wire `ThreadSummary`); anything else (working directory, owner…) stays.
 */
export interface RuntimeThread {
  id: string;
  /** 1..200 characters when present. */
  title?: string;
  model?: string;
  createdAt: string;
  updatedAt: string;
  messageCount: number;
  readonly [runtimeField: string]: unknown;
}

/** A page of `listThreads`; `nextCursor` (`^\d+$`) is echoed back as `cursor`, `null` = last page. */
export interface RuntimeThreadPage {
  items: RuntimeThread[];
  nextCursor: string | null;
}

/** A transcript message. Parts that carry a `text` string become text parts; every other part is dropped. */
export interface RuntimeMessage {
  sequence: number;
  role: 'user' | 'assistant';
  createdAt: string;
  parts: Array<{ type: string; text?: string; readonly [runtimeField: string]: unknown }>;
  readonly [runtimeField: string]: unknown;
}

export type OperationOutcomeKind = 'success' | 'user_rejected' | 'policy_denied' | 'invalid_input' | 'cancelled' | 'tool_failed';

/** Runtime 1.5 app-output descriptor of an operation (what `tool.completed.appOutput` carries). */
export type AppOutputDescriptor =
  | { status: 'available'; schemaId: string; schemaVersion: number }
  | { status: 'rejected'; reason: 'credential_field' | 'credential_value'; field?: string }
  | { status: 'not_provided' | 'invalid' | 'too_large' | 'expired' | 'denied' };

/**
 * An operation (a completed tool call). Secret-bearing: `display` (always projected to `null`),
 * `outcome.reason` (dropped), raw input/output fields (never copied).
 */
export interface RuntimeOperation {
  id: string;
  sequence: number;
  toolCallId: string;
  agentName: string;
  toolName: string;
  createdAt: string;
  outcome: { kind: OperationOutcomeKind; reason?: string };
  display: unknown;
  /** Runtime 1.5; Wire 1.2 reports `not_provided` when absent, Wire 1.1 drops it. */
  appOutput?: AppOutputDescriptor;
  readonly [runtimeField: string]: unknown;
}

/** An approval the Runtime is waiting for, as a snapshot lists it. `preview` keeps only `explanation`; `reason` is dropped. */
export interface RuntimePendingApproval {
  id: string;
  turnId: string;
  agentName: string;
  toolName: string;
  preview: unknown;
  reason?: string;
  readonly [runtimeField: string]: unknown;
}

/**
 * A thread snapshot page: the input of `projectThreadSnapshot`. Lists page backwards: `messages` holds
 * the newest `limit` messages with `sequence < messageBeforeSequence` (when given), oldest first, and
 * `nextBeforeSequence` is the value to pass for the next older page (`null`: none). Same for
 * `operations` with `operationBeforeSequence`. Newer-Runtime fields (`pendingInteractions`,
 * `eventCursor`, recovery data) may be present and are dropped.
 */
export interface RuntimeThreadSnapshot {
  thread: RuntimeThread;
  messages: { items: RuntimeMessage[]; nextBeforeSequence: number | null };
  operations: { items: RuntimeOperation[]; nextBeforeSequence: number | null };
  /** `waiting-for-user` is reported as `running`. Absent or `null` when no turn runs. */
  activeTurn?: { id: string; status: 'running' | 'cancelling' | 'waiting-for-user'; startedAt: string; readonly [runtimeField: string]: unknown } | null;
  pendingApprovals: RuntimePendingApproval[];
  transcriptCompleteness: 'complete' | 'legacy_snapshot';
  readonly [runtimeField: string]: unknown;
}

/**
 * The `thread.capabilities` manifest. Exposed on purpose (it may reveal cwd, platform, agents, skills,
 * tool schemas or VCS data; BEHAVIOUR.md §9), so it crosses as given, except: in Wire 1.2 the core sets
 * `appOutput = {supported}` from `describe().appResults` and, for every `tools[]` entry with
 * `agentName`/`toolName` and an `appOutput` object, `appOutput.remoteReadable` from the host's live
 * grant; Wire 1.1 peers see no `appOutput` at all. Must be JSON (no `undefined`, functions, NaN).
 */
export type RuntimeCapabilitiesManifest = { readonly [field: string]: unknown };

/** The Runtime 1.5 app result of an operation. `data` and `fallbackText` are the secret-bearing part. */
export type RuntimeAppOutputResult =
  | {
      status: 'available';
      schemaId: string;
      schemaVersion: number;
      /** The Runtime's own verdict; the host grant must also allow the (agentName, toolName) pair. */
      remoteReadable: boolean;
      data: { readonly [field: string]: unknown };
      /** ≤ 4096 characters. */
      fallbackText: string;
    }
  | { status: 'rejected'; reason: 'credential_field' | 'credential_value'; field?: string }
  | { status: 'not_provided' | 'invalid' | 'too_large' | 'expired' | 'denied' };

/** What `getOperationResult` returns for an operation that exists. */
export interface RuntimeOperationResult {
  threadId: string;
  operationId: string;
  agentName: string;
  toolName: string;
  createdAt: string;
  output: RuntimeAppOutputResult;
  readonly [runtimeField: string]: unknown;
}

/** Static facts about the runtime behind the port. */
export interface RuntimeDescription {
  runtimeInstanceId: string;
  runtimeProtocolVersion: RuntimeProtocolVersion;
  /** Runtime 1.5 app results are available (`getOperationResult` works); `operation.result.get` needs it. */
  appResults: boolean;
}

// ---------------------------------------------------------------------------------------------------
// Server requests (approvals and user input) — the input of `projectInteractionRequest`
// ---------------------------------------------------------------------------------------------------

/**
 * The raw approval of a server request: `RuntimeApproval` of the protocol library plus what the Runtime
 * also sends. Only identity and `preview.explanation` (trimmed, 1..100 characters) cross.
 */
export interface RuntimeApprovalRequest {
  /** The Runtime's `approvalId` (UUID); the same id its timeline uses in `approval.required`. */
  id: string;
  agentName: string;
  toolName: string;
  preview: unknown;
  reason?: string;
  input?: unknown;
  readonly [runtimeField: string]: unknown;
}

/**
 * The raw user-input form. Projected control by control to the Wire form (type, id, label,
 * description, required and the type's bounds/options); everything else (prefilled values, hints)
 * stays. Forms breaking §8's rules are refused and never published.
 */
export interface RuntimeUserInputForm {
  title?: string;
  description?: string;
  controls: ReadonlyArray<{ readonly [field: string]: unknown }>;
  readonly [runtimeField: string]: unknown;
}

/**
 * What a server request asks for; assignable to the protocol's `RuntimeInteraction`. Any other
 * `method` (`authentication.request`, file pickers) is local-only: never published, and cancelled with
 * reason `not-projectable`.
 */
export type RuntimeServerRequestPayload =
  | { method: 'approval.request'; approval: RuntimeApprovalRequest; sensitivity?: string }
  | { method: 'userInput.request'; form: RuntimeUserInputForm; sensitivity?: string }
  | { method: string; sensitivity?: string; readonly [runtimeField: string]: unknown };

/** A server request the Runtime raises during a turn. */
export interface RuntimeServerRequest {
  /**
   * The Runtime's handle for this request (e.g. the JSON-RPC id as a string). Local only: it never
   * crosses the relay; the core passes it back to `resolveServerRequest`/`cancelServerRequest`.
   */
  serverRequestId: string;
  /** Runtime ≥ 1.2 supplies one (UUID); when absent (Runtime 1.1 approvals) the core assigns a local one. */
  interactionId?: string;
  threadId: string;
  turnId: string;
  /** Deadline; when absent the core uses now + 5 min. A request already expired is refused (cancel reason `expired`). */
  expiresAt?: string;
  request: RuntimeServerRequestPayload;
}

/** The Runtime ended a server request on its own (aborted it, or it was answered on the device). */
export interface RuntimeServerRequestEnd {
  serverRequestId: string;
  outcome: 'resolved' | 'cancelled';
}

/** The answer the core gives a server request. Approval `reject.reason` and user-input values come from the browser's candidate (normalised) or from local policy. */
export type ServerRequestResolution =
  | { method: 'approval.request'; decision: 'approve' }
  | { method: 'approval.request'; decision: 'reject'; reason?: string }
  | { method: 'userInput.request'; response: UserInputSubmission | { status: 'cancelled'; reason?: string } };

/**
 * Why the core fails a server request without an answer:
 * - `expired`: its deadline passed (the core's timer) or it arrived already expired;
 * - `not-projectable`: local-only kind, non-`normal` sensitivity, malformed form, duplicate pending id,
 *   or no workspace bound;
 * - `policy-failure`: the local approval policy threw or answered something invalid;
 * - `unbound` / `shutdown`: the workspace was unbound or the Companion is shutting down.
 * (A terminal turn also ends its interactions, but the Runtime already knows: no call is made.)
 */
export type ServerRequestCancelReason = 'expired' | 'not-projectable' | 'policy-failure' | 'unbound' | 'shutdown';

/** Receives what the Runtime emits, in the Runtime's order. Calls must not throw (a throw is logged and ignored). */
export interface AgentRuntimeListener {
  /** A raw timeline event (the input of `projectRuntimeEvent`); `tool.output` is skipped and takes no sequence. */
  event(envelope: RuntimeEventEnvelope): void;
  /** A new server request (approval or user input) waiting for an answer. */
  serverRequest(request: RuntimeServerRequest): void;
  /** A server request ended without the core (Runtime abort, or answered locally). */
  serverRequestEnded(end: RuntimeServerRequestEnd): void;
}

// ---------------------------------------------------------------------------------------------------
// Errors
// ---------------------------------------------------------------------------------------------------

/**
 * A Runtime failure. Only `code` (a string, or a JSON-RPC number that becomes `JSON_RPC_<n>`) and
 * `retryable` (default false) reach the browser; the message stays local. String codes must match
 * `^[A-Za-z][A-Za-z0-9_]{0,63}$`, otherwise the browser sees `COMPANION_ERROR`.
 */
export class AgentRuntimeError extends Error {
  override readonly name = 'AgentRuntimeError';

  constructor(
    readonly code: string | number,
    message = 'The runtime reported an error.',
    readonly retryable = false,
  ) {
    super(message);
  }
}

/** Duck-typed check, so adapters in other bundles (another copy of this class) are recognised too. */
export function isAgentRuntimeError(error: unknown): error is Pick<AgentRuntimeError, 'code' | 'retryable'> {
  if (error === null || typeof error !== 'object') return false;
  const { code, retryable, name } = error as { code?: unknown; retryable?: unknown; name?: unknown };
  return name === 'AgentRuntimeError' && (typeof code === 'string' || typeof code === 'number') && (retryable === undefined || typeof retryable === 'boolean');
}

// ---------------------------------------------------------------------------------------------------
// The port
// ---------------------------------------------------------------------------------------------------

export interface AgentRuntime {
  /** Static facts; called whenever the core needs them (cheap, synchronous). */
  describe(): RuntimeDescription;

  /**
   * Binds the runtime to the Companion's one workspace (BEHAVIOUR.md §12: one Companion binds one
   * Workspace). Server requests are registered only while bound. Called once by `CompanionSession.start()`.
   */
  bindWorkspace(workspaceId: string): Promise<void>;
  /** Unbinds; the core has already cancelled every pending interaction (reason `unbound`). */
  unbindWorkspace(): Promise<void>;
  /** Stops the runtime for good (after `unbindWorkspace`). */
  shutdown(): Promise<void>;

  /** Delivers raw events and server requests to `listener` until the returned function is called. */
  subscribe(listener: AgentRuntimeListener): () => void;

  /** `thread.list`: newest-updated first; `limit` 1..500. */
  listThreads(params: Wire12.ThreadListParams): Promise<RuntimeThreadPage>;
  /** `thread.create`; `params.requestId` is the Runtime's own idempotency key (not the relay's). */
  createThread(params: Wire12.ThreadCreateParams): Promise<RuntimeThread>;
  /**
   * `thread.open` (called with just `threadId` and `limit: 100`: the newest page) and `thread.snapshot`
   * (paging backwards per list, see `RuntimeThreadSnapshot`).
   */
  readThread(params: Wire12.ThreadSnapshotParams): Promise<RuntimeThreadSnapshot>;
  renameThread(params: Wire12.ThreadRenameParams): Promise<RuntimeThread>;
  /** Resolves once deleted (the wire answer is `{deleted: true}`). */
  deleteThread(params: Wire12.ThreadDeleteParams): Promise<void>;
  /** `{detached}`: false when the thread was not attached to this Companion. */
  detachThread(params: Wire12.ThreadDetachParams): Promise<{ detached: boolean }>;
  getCapabilities(params: Wire12.ThreadCapabilitiesParams): Promise<RuntimeCapabilitiesManifest>;

  /**
   * Starts a turn and returns once it is accepted; the turn then streams through the listener
   * (`turn.started` … `turn.completed|cancelled|failed`), raising server requests on the way.
   */
  startTurn(params: Wire12.TurnStartParams): Promise<{ turnId: string }>;
  /** `{cancelling}`: false when the turn had already ended. */
  cancelTurn(params: Wire12.TurnCancelParams): Promise<{ cancelling: boolean }>;

  /** `null` when the operation does not exist. */
  getOperation(params: Wire12.OperationGetParams): Promise<RuntimeOperation | null>;
  /** Runtime 1.5 only (see `describe().appResults`); `null` when the operation does not exist. */
  getOperationResult(params: Wire12.OperationResultGetParams): Promise<RuntimeOperationResult | null>;

  /** Answers a pending server request. Throws if it is no longer pending. */
  resolveServerRequest(serverRequestId: string, resolution: ServerRequestResolution): Promise<void>;
  /** Fails a pending server request without an answer (the turn sees a cancelled/expired request). */
  cancelServerRequest(serverRequestId: string, reason: ServerRequestCancelReason): Promise<void>;
}
