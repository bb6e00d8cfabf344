/**
 * The scenario document as TypeScript, mirroring `SCENARIO_JSON_SCHEMA` (the schema is the definition;
 * a test keeps the two in step by loading documents that use every field).
 */
import type { RuntimeProtocolVersion } from '@trustmesh/relay-companion';

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

export type ScenarioStep = ScenarioTurnStep | ScenarioAwaitTurnStep | DelayStep | DisconnectStep | RestartStep;

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
  return scenario.steps.reduce((count, step) => count + 1 + (step.kind === 'turn' || step.kind === 'awaitTurn' ? step.steps.length : 0), 0);
}
