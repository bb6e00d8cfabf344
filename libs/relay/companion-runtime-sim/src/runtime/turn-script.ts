/**
 * What a simulated turn does, step by step. Scenario files, the demo and the load generator all
 * produce these scripts; the turn runner plays them against the runtime's state and clock.
 *
 * Scripts carry the raw, secret-bearing Runtime data (tool input and output, approval previews and
 * reasons, outcome reasons, failure messages) exactly as an agent runtime would hold it; only the
 * Companion's projections decide what crosses the relay.
 */
import type { AppOutputDescriptor, OperationOutcomeKind } from '@trustmesh/relay-companion';
import type { FormControl, UserInputForm, Wire12 } from '@trustmesh/relay-protocol';

export type JsonValue = Wire12.JsonValue;
export type OutcomeKind = OperationOutcomeKind;
export type FailureStage = Extract<Wire12.TimelineEvent, { type: 'turn.failed' }>['stage'];
export type { AppOutputDescriptor };

/** The output a tool left for apps (Runtime 1.5 app results), as `operation.result.get` reads it. */
export type AppOutputScript =
  | { status: 'available'; schemaId: string; schemaVersion: number; remoteReadable: boolean; data: { [key: string]: JsonValue }; fallbackText: string }
  | { status: 'rejected'; reason: 'credential_field' | 'credential_value'; field?: string }
  | { status: 'not_provided' | 'invalid' | 'too_large' | 'expired' | 'denied' };

export type Decision = 'approve' | 'reject';

export interface ApprovalScript {
  /** Shown to the person (the projection keeps only this, trimmed to 100 characters). */
  explanation?: string;
  /** Further raw preview fields (command lines, diffs...): never cross the relay. */
  preview?: { [key: string]: JsonValue };
  /** The runtime's raw reason for asking: never crosses the relay. */
  reason?: string;
  /** How long the person has; the request expires (and the tool is cancelled) after it. Default 5 minutes. */
  expiresInMs?: number;
  /** Settle locally (as if answered at the machine) after `afterMs` unless the person answered first. */
  autoRespond?: { afterMs: number; decision: Decision; reason?: string };
  /** The decision the scenario expects; a different one is recorded in the scenario report. */
  expect?: Decision | 'expire';
}

export interface MessageStep {
  kind: 'message';
  text: string;
  /** Characters per `message.delta` (default 12). */
  chunkChars?: number;
  /** Delay before each delta (default 25 ms). */
  chunkDelayMs?: number;
}

export interface ReasoningStep {
  kind: 'reasoning';
  text: string;
  chunkChars?: number;
  chunkDelayMs?: number;
}

export interface ToolStep {
  kind: 'tool';
  agent: string;
  tool: string;
  input: JsonValue;
  /** Raw `tool.output` text; a string is stdout. Split into chunks over `durationMs`. */
  output?: string | { stdout?: string; stderr?: string };
  outputChunks?: number;
  durationMs?: number;
  outcome?: OutcomeKind;
  outcomeReason?: string;
  /** Raw display data for the runtime's own UI: never crosses the relay. */
  display?: JsonValue;
  approval?: ApprovalScript;
  appOutput?: AppOutputScript;
}

export type FormControlScript = FormControl & { [raw: string]: unknown };

export interface UserInputStep {
  kind: 'userInput';
  /** The tool that asks (default agent "assistant", tool "request_user_input"). */
  agent?: string;
  tool?: string;
  form: UserInputForm & { [raw: string]: unknown };
  /** The runtime's raw reason for asking: never crosses the relay. */
  reason?: string;
  expiresInMs?: number;
  autoRespond?: { afterMs: number; values: { id: string; value: JsonValue }[] } | { afterMs: number; cancel: true; reason?: string };
  expect?: 'submitted' | 'cancelled' | 'expire';
}

export interface DelayStep {
  kind: 'delay';
  ms: number;
}

export interface DisconnectStep {
  kind: 'disconnect';
  /** How long the Companion stays offline before it reconnects. */
  forMs: number;
}

export interface RestartStep {
  kind: 'restart';
  /** How long the Companion stays down before it starts again (default 0). */
  downMs?: number;
}

export interface FailStep {
  kind: 'fail';
  stage: FailureStage;
  /** The raw failure message: never crosses the relay. */
  message?: string;
}

export interface CancelStep {
  kind: 'cancel';
  /** Raw reason and message of `turn.cancelled` (e.g. cancelled at the machine): never cross the relay. */
  reason?: string;
  message?: string;
}

export interface CapabilitiesChangedStep {
  kind: 'capabilitiesChanged';
}

export type TurnStep =
  | MessageStep
  | ReasoningStep
  | ToolStep
  | UserInputStep
  | DelayStep
  | DisconnectStep
  | RestartStep
  | FailStep
  | CancelStep
  | CapabilitiesChangedStep;

export interface TurnScript {
  /** Delay between `turn.start` and `turn.started` (default 10 ms). */
  startDelayMs?: number;
  steps: TurnStep[];
}

/** What the runtime knows when it picks a script for a turn a person started. */
export interface TurnRequest {
  threadId: string;
  turnId: string;
  input: string;
  /** How many turns this thread has run before this one. */
  turnIndex: number;
}

/** Chooses the script for a turn started through `startTurn`. */
export type TurnScriptSource = (request: TurnRequest) => TurnScript;
