/**
 * The scenario document as TypeScript, mirroring `SCENARIO_JSON_SCHEMA` (the schema is the definition;
 * a test keeps the two in step by loading documents that use every field).
 */
import type { RuntimeProtocolVersion } from '@trustmesh/relay-companion';

import { COUNTERPARTY_TURN_STEPS, type CounterpartyRequest, type CounterpartyRequestName } from './counterparty-request';
import type { DelayStep, DisconnectStep, RestartStep, ToolStep, TurnStep } from '../runtime/turn-script';

export type ScenarioHistoryEntry = { kind: 'user'; text: string } | { kind: 'assistant'; text: string } | ToolStep;

export interface ScenarioThread {
  /** How steps refer to the thread. */
  key: string;
  /** A fixed thread id (UUID); drawn from the seed when absent. */
  id?: string;
  title?: string;
  model?: string;
  history?: ScenarioHistoryEntry[];
}

/** Starts a turn at the machine (as if typed there) and waits until it ends. */
export interface ScenarioTurnStep {
  kind: 'turn';
  thread: string;
  input: string;
  startDelayMs?: number;
  steps: TurnStep[];
}

/** Waits for a person to start a turn on the thread (input matching `match`), which then plays `steps`. */
export interface ScenarioAwaitTurnStep {
  kind: 'awaitTurn';
  thread: string;
  match?: string;
  timeoutMs?: number;
  startDelayMs?: number;
  steps: TurnStep[];
}

/**
 * A counterparty asks the Companion's agent to act (`counterparty-request.ts`): the host assesses the request,
 * then a turn at the machine raises the action's approval carrying the assessment, and waits for the answer.
 */
export interface ScenarioCounterpartyRequestStep {
  kind: 'counterpartyRequest';
  thread: string;
  /** A built-in request by name, or one written out. */
  request: CounterpartyRequestName | CounterpartyRequest;
  /** How long the person has to answer (default: the runtime's interaction timeout). */
  expiresInMs?: number;
  expect?: 'approve' | 'reject' | 'expire';
}

/** Steps that play a turn on a thread. */
export type ScenarioThreadStep = ScenarioTurnStep | ScenarioAwaitTurnStep | ScenarioCounterpartyRequestStep;

export type ScenarioStep = ScenarioThreadStep | DelayStep | DisconnectStep | RestartStep;

export interface Scenario {
  version: 1;
  name: string;
  description?: string;
  runtime?: {
    seed?: number;
    model?: string;
    protocolVersion?: Exclude<RuntimeProtocolVersion, '1.0'>;
    interactionTimeoutMs?: number;
  };
  threads?: ScenarioThread[];
  steps: ScenarioStep[];
}

/** Steps a run reports progress over: every top-level step, plus every step inside its turns. */
export function scenarioStepCount(scenario: Scenario): number {
  return scenario.steps.reduce((count, step) => count + 1 + turnStepCount(step), 0);
}

/** How many turn steps `step` plays (0 for steps that play no turn). */
export function turnStepCount(step: ScenarioStep): number {
  if (step.kind === 'turn' || step.kind === 'awaitTurn') return step.steps.length;
  return step.kind === 'counterpartyRequest' ? COUNTERPARTY_TURN_STEPS : 0;
}
