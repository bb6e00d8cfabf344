/**
 * What SimulatorControl drives: the simulator's own Companion, its scenarios and the load mode. The gRPC
 * controller only authenticates, checks bounds and maps errors; `CompanionSimulator` and `LoadController`
 * implement this behind the SIMULATOR_CONTROL token.
 */
import type { simulatorControlV1 } from '@trustmesh/contracts';

export const SIMULATOR_CONTROL = Symbol('SIMULATOR_CONTROL');
export const SIMULATOR_CONTROL_CREDENTIAL = Symbol('SIMULATOR_CONTROL_CREDENTIAL');

export type SimulatorControlErrorCode = 'INVALID_ARGUMENT' | 'FAILED_PRECONDITION' | 'UNAVAILABLE';

/** A refusal with a gRPC status and a message written for the person running the test or tool. */
export class SimulatorControlError extends Error {
  constructor(
    readonly code: SimulatorControlErrorCode,
    message: string,
  ) {
    super(message);
    this.name = 'SimulatorControlError';
  }
}

export interface SimulatorControlPort {
  stats(): simulatorControlV1.GetStatsResponse;
  startScenario(document: string, format: 'json' | 'yaml' | undefined): Promise<simulatorControlV1.StartScenarioResponse>;
  disconnect(reconnectAfterMs: number): simulatorControlV1.DisconnectResponse;
  restart(): Promise<simulatorControlV1.RestartResponse>;
  startLoad(request: simulatorControlV1.StartLoadRequest): Promise<simulatorControlV1.StartLoadResponse>;
  stopLoad(): Promise<simulatorControlV1.LoadStatus>;
}
