/**
 * @trustmesh/relay-companion-sim: a simulated agent runtime behind the Companion's `AgentRuntime` port,
 * with scenario files and a load generator. Pure TypeScript: time comes from an injected clock.
 */
export { companionClockOf, createManualClock, systemClock, type ManualClock, type SimClock, type TimerId } from './clock/sim-clock';
export { createSeededRandom, type SeededRandom } from './runtime/seeded-random';
export {
  createSimulatedRuntime,
  SimulatedRuntime,
  chunks,
  type SimulatedRuntimeOptions,
  type SimDirective,
  type ExpectationRecord,
  type TurnObserver,
  type SettledAs,
  type LocalTurnOptions,
  type SeedThreadOptions,
} from './runtime/simulated-runtime';
export { SIM_RUNTIME_ERROR_CODES, type SimRuntimeErrorCode } from './runtime/sim-runtime.error';
export { DEFAULT_AGENTS, type SimAgentConfig, type SimToolConfig } from './runtime/capabilities';
export { echoTurnScripts } from './runtime/default-turn-scripts';
export type * from './runtime/turn-script';

export { SCENARIO_JSON_SCHEMA, SCENARIO_LIMITS, SCENARIO_SCHEMA_ID } from './scenario/scenario.schema';
export { parseScenario, validateScenario, ScenarioError, type ScenarioErrorCode, type ScenarioIssue, type ScenarioSourceOptions } from './scenario/scenario-loader';
export {
  scenarioStepCount,
  type Scenario,
  type ScenarioThread,
  type ScenarioStep,
  type ScenarioTurnStep,
  type ScenarioAwaitTurnStep,
  type ScenarioCounterpartyRequestStep,
  type ScenarioHistoryEntry,
} from './scenario/scenario.types';
export {
  startScenario,
  type ScenarioRun,
  type ScenarioRunOptions,
  type ScenarioRunStatus,
  type ScenarioRunState,
  type ScenarioRunErrorCode,
} from './scenario/scenario-run';
export { createScenarioRuntime, scenarioRuntimeOptions } from './scenario/scenario-runtime';
export {
  COUNTERPARTY_REQUESTS,
  COUNTERPARTY_REQUEST_NAMES,
  UNASSESSED_EXPLANATION,
  counterpartyRequestScenario,
  counterpartyTurnScript,
  resolveCounterpartyRequest,
  type CounterpartyAnswer,
  type CounterpartyAssessment,
  type CounterpartyAssessor,
  type CounterpartyRequest,
  type CounterpartyRequestName,
  type CounterpartyType,
} from './scenario/counterparty-request';
export { DEMO_SCENARIO_YAML, demoScenario } from './scenario/demo.scenario';
export { createLoadTurnGenerator, type LoadTurnGenerator, type LoadTurnOptions } from './load/load-turn-generator';
export { startLoadDriver, type LoadDriver, type LoadDriverOptions, type LoadDriverStats } from './load/load-driver';
