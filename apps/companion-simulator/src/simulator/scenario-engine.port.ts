/**
 * The seam to the simulated runtime's scenario files (`@trustmesh/relay-companion-sim`): load validates a
 * document (JSON or YAML) and says what is wrong with it; run plays it on a runtime. Disconnect and
 * restart steps reach the host as runtime directives, not through this port.
 */
import type { HostedRuntime } from './companion-simulator';

export interface LoadedScenario {
  name: string;
  stepCount: number;
  /** Plays the scenario; `progress` gets the number of steps finished so far. Rejects when a step fails. */
  run(runtime: HostedRuntime, progress: (stepsCompleted: number) => void): Promise<void>;
}

export interface ScenarioEngine {
  /** Throws `ScenarioDocumentError` when the document is not a valid scenario. */
  load(document: string, format?: 'json' | 'yaml'): LoadedScenario;
}

/** A scenario document that cannot run; the message names the offending path, e.g. `/steps/2/delayMs`. */
export class ScenarioDocumentError extends Error {
  constructor(
    readonly code: string,
    message: string,
  ) {
    super(message);
    this.name = 'ScenarioDocumentError';
  }
}
