/**
 * @trustmesh/relay-companion-sim: a simulated agent runtime behind the Companion's `AgentRuntime` port,
 * with scenario files and a load generator. Pure TypeScript: time comes from an injected clock.
 */
export { createManualClock, systemClock, type ManualClock, type SimClock, type TimerId } from './clock/sim-clock';
export { createSeededRandom, type SeededRandom } from './runtime/seeded-random';
export {
  createSimulatedRuntime,
  SimulatedRuntime,
  chunks,
  type SimulatedRuntimeOptions,
  type SimDirective,
  type ExpectationRecord,
  type TurnObserver,
  type LocalTurnOptions,
  type SeedThreadOptions,
} from './runtime/simulated-runtime';
export { SIM_RUNTIME_ERROR_CODES, type SimRuntimeErrorCode } from './runtime/sim-runtime.error';
export { DEFAULT_AGENTS, type SimAgentConfig, type SimToolConfig } from './runtime/capabilities';
export { echoTurnScripts } from './runtime/default-turn-scripts';
export type * from './runtime/turn-script';
