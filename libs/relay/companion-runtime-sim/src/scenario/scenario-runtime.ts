/**
 * A runtime configured as a scenario asks (seed, model, Runtime protocol, interaction timeout).
 */
import { createSimulatedRuntime, type SimulatedRuntime, type SimulatedRuntimeOptions } from '../runtime/simulated-runtime';
import type { Scenario } from './scenario.types';

export function scenarioRuntimeOptions(scenario: Scenario): SimulatedRuntimeOptions {
  const runtime = scenario.runtime ?? {};
  return {
    ...(runtime.seed !== undefined ? { seed: runtime.seed } : {}),
    ...(runtime.model !== undefined ? { model: runtime.model } : {}),
    ...(runtime.protocolVersion !== undefined ? { runtimeProtocolVersion: runtime.protocolVersion } : {}),
    ...(runtime.interactionTimeoutMs !== undefined ? { interactionTimeoutMs: runtime.interactionTimeoutMs } : {}),
  };
}

/** A new runtime for `scenario`; `options` (clock, sentinel, directive hook...) win over the scenario's. */
export function createScenarioRuntime(scenario: Scenario, options: SimulatedRuntimeOptions = {}): SimulatedRuntime {
  return createSimulatedRuntime({ ...scenarioRuntimeOptions(scenario), ...options });
}
