/**
 * SimulatorControl's use cases over the simulator's parts: its own Companion (absent in load-only runs)
 * and the load mode (absent without a RelayControl target). Maps domain views to the contract's messages.
 */
import { simulatorControlV1, timestampFromDate } from '@trustmesh/contracts';

import { SimulatorControlError, type SimulatorControlPort } from '../grpc/simulator-control.port';
import { LoadStartError, type LoadOptions, type LoadRun } from '../load/load-driver';
import type { LoadReport } from '../load/load-report';
import { CompanionSimulator, ScenarioDocumentError, SimulatorStateError, type CompanionStatsView, type ScenarioStatusView } from './companion-simulator';

const CONNECTION_STATE: Record<CompanionStatsView['state'], simulatorControlV1.CompanionConnectionState> = {
  stopped: simulatorControlV1.CompanionConnectionState.STOPPED,
  connecting: simulatorControlV1.CompanionConnectionState.CONNECTING,
  connected: simulatorControlV1.CompanionConnectionState.CONNECTED,
  'backing-off': simulatorControlV1.CompanionConnectionState.BACKING_OFF,
};

const SCENARIO_STATE: Record<ScenarioStatusView['state'], simulatorControlV1.ScenarioRunState> = {
  idle: simulatorControlV1.ScenarioRunState.IDLE,
  running: simulatorControlV1.ScenarioRunState.RUNNING,
  completed: simulatorControlV1.ScenarioRunState.COMPLETED,
  failed: simulatorControlV1.ScenarioRunState.FAILED,
};

export function companionStatsMessage(view: CompanionStatsView | null): simulatorControlV1.CompanionStats {
  if (!view) {
    return {
      connectionState: simulatorControlV1.CompanionConnectionState.STOPPED,
      deviceId: '',
      workspaceId: '',
      wireVersion: '',
      generation: 0,
      framesSent: 0,
      gapsSent: 0,
      acksReceived: 0,
      acknowledgedThrough: -1,
      lastRelaySequence: -1,
      bufferFrames: 0,
      bufferBytes: 0,
      requestsReceived: 0,
      reconnects: 0,
      restarts: 0,
      connectedSince: null,
    };
  }
  return {
    connectionState: CONNECTION_STATE[view.state],
    deviceId: view.deviceId,
    workspaceId: view.workspaceId,
    wireVersion: view.wireVersion,
    generation: view.generation,
    framesSent: view.framesSent,
    gapsSent: view.gapsSent,
    acksReceived: view.acksReceived,
    acknowledgedThrough: view.acknowledgedThrough,
    lastRelaySequence: view.lastRelaySequence,
    bufferFrames: view.bufferFrames,
    bufferBytes: view.bufferBytes,
    requestsReceived: view.requestsReceived,
    reconnects: view.reconnects,
    restarts: view.restarts,
    connectedSince: view.connectedSince ? timestampFromDate(view.connectedSince) : null,
  };
}

export function loadReportMessage(report: LoadReport): simulatorControlV1.LoadReport {
  return {
    companions: report.companions,
    browsers: report.browsers,
    durationSeconds: report.durationSeconds,
    framesSent: report.framesSent,
    framesDelivered: report.framesDelivered,
    deliveredFramesPerSecond: report.deliveredFramesPerSecond,
    latencyP50Ms: report.latencyMs.p50,
    latencyP95Ms: report.latencyMs.p95,
    latencyP99Ms: report.latencyMs.p99,
    latencyMaxMs: report.latencyMs.max,
    errors: report.errors,
    gaps: report.gaps,
    reconnects: report.reconnects,
  };
}

/** Everything of a load run except the counts, which each StartLoad call chooses. */
export type LoadDefaults = Omit<LoadOptions, 'companions' | 'browsers' | 'turnIntervalMs'>;

export class SimulatorControlService implements SimulatorControlPort {
  private run: LoadRun | null = null;
  private starting = false;
  private lastStatus: simulatorControlV1.LoadStatus = { state: simulatorControlV1.LoadRunState.IDLE, report: null, errorMessage: '' };
  private durationTimer: NodeJS.Timeout | null = null;

  constructor(
    private readonly companion: CompanionSimulator | null,
    private readonly load: { defaults: LoadDefaults; start: (options: LoadOptions) => Promise<LoadRun> } | null,
  ) {}

  stats(): simulatorControlV1.GetStatsResponse {
    const scenario = this.companion?.scenarioStatus() ?? { state: 'idle', name: '', stepsCompleted: 0, stepCount: 0, errorCode: '', errorMessage: '' };
    return {
      companion: companionStatsMessage(this.companion?.stats() ?? null),
      scenario: { ...scenario, state: SCENARIO_STATE[scenario.state] },
      load: this.loadStatus(),
    };
  }

  async startScenario(document: string, format: 'json' | 'yaml' | undefined): Promise<simulatorControlV1.StartScenarioResponse> {
    const companion = this.requireCompanion();
    try {
      return await companion.startScenario(document, format);
    } catch (error) {
      if (error instanceof ScenarioDocumentError) throw new SimulatorControlError('INVALID_ARGUMENT', error.message);
      if (error instanceof SimulatorStateError) throw new SimulatorControlError('FAILED_PRECONDITION', error.message);
      throw error;
    }
  }

  disconnect(reconnectAfterMs: number): simulatorControlV1.DisconnectResponse {
    const companion = this.requireCompanion();
    try {
      return { droppedGeneration: companion.disconnect(reconnectAfterMs) };
    } catch (error) {
      if (error instanceof SimulatorStateError) throw new SimulatorControlError('FAILED_PRECONDITION', error.message);
      throw error;
    }
  }

  async restart(): Promise<simulatorControlV1.RestartResponse> {
    const companion = this.requireCompanion();
    try {
      return { restarts: await companion.restart() };
    } catch (error) {
      if (error instanceof SimulatorStateError) throw new SimulatorControlError('FAILED_PRECONDITION', error.message);
      throw error;
    }
  }

  async startLoad(request: simulatorControlV1.StartLoadRequest): Promise<simulatorControlV1.StartLoadResponse> {
    if (!this.load) throw new SimulatorControlError('FAILED_PRECONDITION', 'load mode needs RELAY_CONTROL_ADDRESS and RELAY_CONTROL_CREDENTIAL');
    if (this.starting || (this.run && this.run.currentState === 'running')) throw new SimulatorControlError('FAILED_PRECONDITION', 'a load run is already active; stop it first');
    this.starting = true;
    this.lastStatus = { state: simulatorControlV1.LoadRunState.STARTING, report: null, errorMessage: '' };
    try {
      const wireVersion = request.wireVersion === '1.2' || request.wireVersion === '1.1' ? request.wireVersion : this.load.defaults.wireVersion;
      this.run = await this.load.start({
        ...this.load.defaults,
        companions: request.companions,
        browsers: request.browsers,
        ...(request.turnIntervalMs > 0 ? { turnIntervalMs: request.turnIntervalMs } : {}),
        ...(wireVersion ? { wireVersion } : {}),
      });
    } catch (error) {
      const message = error instanceof LoadStartError ? error.message : 'the load run could not start; see the simulator log';
      this.lastStatus = { state: simulatorControlV1.LoadRunState.FAILED, report: null, errorMessage: message };
      throw new SimulatorControlError('UNAVAILABLE', message);
    } finally {
      this.starting = false;
    }
    if (request.durationSeconds > 0) {
      this.durationTimer = setTimeout(() => void this.stopLoad(), request.durationSeconds * 1000);
      this.durationTimer.unref();
    }
    return { workspaceIds: this.run.workspaceIds };
  }

  async stopLoad(): Promise<simulatorControlV1.LoadStatus> {
    if (this.durationTimer) clearTimeout(this.durationTimer);
    this.durationTimer = null;
    const run = this.run;
    if (run) {
      const report = await run.stop();
      this.lastStatus = {
        state: run.failure ? simulatorControlV1.LoadRunState.FAILED : simulatorControlV1.LoadRunState.STOPPED,
        report: loadReportMessage(report),
        errorMessage: run.failure ?? '',
      };
      this.run = null;
    }
    return this.lastStatus;
  }

  /** Stops what runs (SIGTERM). */
  async close(): Promise<void> {
    await this.stopLoad();
  }

  private loadStatus(): simulatorControlV1.LoadStatus {
    if (this.run && this.run.currentState === 'running') {
      return { state: simulatorControlV1.LoadRunState.RUNNING, report: loadReportMessage(this.run.report()), errorMessage: '' };
    }
    return this.lastStatus;
  }

  private requireCompanion(): CompanionSimulator {
    if (!this.companion) throw new SimulatorControlError('FAILED_PRECONDITION', 'this simulator runs no Companion of its own (load mode only)');
    return this.companion;
  }
}
