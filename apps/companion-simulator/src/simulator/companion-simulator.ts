/**
 * One simulated Companion: an enrolled device, a Companion core over a simulated runtime, and the
 * WebSocket transport to the relay. It carries out what scenarios and SimulatorControl ask for:
 *
 * - disconnect: the transport is dropped as by a network failure and reconnects (replay follows, §6);
 * - restart: as a Companion process restart: the transport closes, the old core shuts down with its
 *   runtime (pending interactions cancelled, nothing more sent), and a new core over a new simulated
 *   runtime starts with relaySequence 0 and an empty buffer; a running scenario re-attaches to the new
 *   runtime, which re-seeds the scenario's threads under the same ids;
 * - scenarios: a document (JSON or YAML, checked by the simulated runtime's loader) plays on the runtime;
 *   its disconnect and restart steps come back here as directives; its counterparty requests are assessed
 *   by `assessCounterparty` (the Shield) before their approval is raised. A scenario that configures its
 *   runtime (seed, model, Runtime protocol) restarts the Companion onto such a runtime first.
 */
import {
  parseScenario,
  startScenario,
  ScenarioError,
  type CounterpartyAssessor,
  type Scenario,
  type ScenarioRun,
  type SimDirective,
  type SimulatedRuntime,
} from '@trustmesh/relay-companion-sim';

import type { SimulatorWireVersion, TlsTrust } from '../config/simulator-config';
import type { CompanionCore } from '../transport/companion-core.port';
import { CompanionTransport, type CompanionConnectionState, type TransportLog, type TransportObserver } from '../transport/companion.transport';

/** A scenario document that cannot run; the message names the offending paths. */
export class ScenarioDocumentError extends Error {
  constructor(
    readonly code: string,
    message: string,
  ) {
    super(message);
    this.name = 'ScenarioDocumentError';
  }
}

/** What the simulator reads from a core besides the transport port (the CompanionSession's stats). */
export interface CoreStatsView {
  nextRelaySequence: number;
  acknowledgedThrough: number;
  bufferedFrames: number;
  bufferedBytes: number;
}

export interface SimulatedCompanionCore extends CompanionCore {
  start(): Promise<void>;
  stats(): CoreStatsView;
}

export interface DeviceIdentity {
  deviceId: string;
  workspaceId: string;
  /** A secret: never logged. */
  deviceCredential: string;
}

export interface CompanionSimulatorOptions {
  identity: DeviceIdentity;
  companionUrl: string;
  tls: TlsTrust;
  wireVersion: SimulatorWireVersion;
  heartbeatTimeoutMs?: number;
  /** A new simulated runtime (at start and on every restart), configured for `scenario` when one runs. */
  createRuntime(scenario?: Scenario): SimulatedRuntime;
  /** A new core over `runtime` (at start and on every restart). */
  createCore(runtime: SimulatedRuntime): SimulatedCompanionCore;
  /** Checks counterparty requests before their approval (the Shield); absent, they go out unchecked. */
  assessCounterparty?: CounterpartyAssessor;
  observer?: TransportObserver;
  log?: TransportLog;
  /** Tests: shortens backoff delays. */
  delayFor?: (backoffDelayMs: number) => number;
}

export type ScenarioState = 'idle' | 'running' | 'completed' | 'failed';

export interface ScenarioStatusView {
  state: ScenarioState;
  name: string;
  stepsCompleted: number;
  stepCount: number;
  errorCode: string;
  errorMessage: string;
}

export interface CompanionStatsView {
  state: CompanionConnectionState;
  deviceId: string;
  workspaceId: string;
  wireVersion: SimulatorWireVersion;
  generation: number;
  framesSent: number;
  gapsSent: number;
  acksReceived: number;
  acknowledgedThrough: number;
  lastRelaySequence: number;
  bufferFrames: number;
  bufferBytes: number;
  requestsReceived: number;
  reconnects: number;
  restarts: number;
  connectedSince: Date | null;
}

/** Failures the caller can act on (a restart while stopped, a second scenario). */
export class SimulatorStateError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'SimulatorStateError';
  }
}

export class CompanionSimulator {
  private core: SimulatedCompanionCore | null = null;
  private currentRuntime: SimulatedRuntime | null = null;
  private readonly transport: CompanionTransport;
  private restarts = 0;
  private restarting: Promise<void> | null = null;
  private stopped = false;
  private started = false;
  private unsubscribeDirectives: (() => void) | null = null;
  private scenario: Scenario | null = null;
  private scenarioRun: ScenarioRun | null = null;

  constructor(private readonly options: CompanionSimulatorOptions) {
    const placeholder: CompanionCore = {
      connect: () => {
        throw new SimulatorStateError('the Companion has not started');
      },
      receive: () => undefined,
      disconnect: () => undefined,
      shutdown: async () => undefined,
    };
    this.transport = new CompanionTransport({
      companionUrl: options.companionUrl,
      deviceId: options.identity.deviceId,
      deviceCredential: options.identity.deviceCredential,
      wireVersion: options.wireVersion,
      tls: options.tls,
      core: placeholder,
      ...(options.heartbeatTimeoutMs !== undefined ? { heartbeatTimeoutMs: options.heartbeatTimeoutMs } : {}),
      ...(options.observer ? { observer: options.observer } : {}),
      ...(options.log ? { log: options.log } : {}),
      ...(options.delayFor ? { delayFor: options.delayFor } : {}),
    });
  }

  get workspaceId(): string {
    return this.options.identity.workspaceId;
  }

  /** The simulated runtime behind the current core (replaced on restart). */
  get runtime(): SimulatedRuntime {
    if (!this.currentRuntime) throw new SimulatorStateError('the Companion has not started');
    return this.currentRuntime;
  }

  /** Starts the core and connects; with `scenario`, the runtime is configured for it and it starts playing. */
  async start(scenario?: Scenario): Promise<void> {
    if (this.started) return;
    this.started = true;
    const core = await this.newCore(scenario);
    this.transport.resume(core);
    this.transport.start();
    if (scenario) this.play(scenario);
  }

  /** Drops the transport; returns the dropped generation (0 if none was open). */
  disconnect(reconnectAfterMs = 0): number {
    this.requireRunning();
    return this.transport.dropConnection(reconnectAfterMs > 0 ? reconnectAfterMs : undefined);
  }

  /** Restarts the Companion core (see the file header); resolves once the new core is connecting. */
  async restart(downMs = 0): Promise<number> {
    this.requireRunning();
    const previous = this.restarting ?? Promise.resolve();
    const run = previous.then(async () => {
      if (this.stopped) return;
      this.restarts += 1;
      this.transport.pause();
      this.unsubscribeDirectives?.();
      await this.core?.shutdown();
      const core = await this.newCore(this.scenarioRun?.status().state === 'running' ? (this.scenario ?? undefined) : undefined);
      if (this.scenarioRun?.status().state === 'running') this.scenarioRun.attach(this.runtime);
      if (!this.stopped) this.transport.resume(core, downMs);
    });
    this.restarting = run.finally(() => {
      if (this.restarting === run) this.restarting = null;
    });
    await run;
    return this.restarts;
  }

  /**
   * Checks a scenario document and starts playing it; throws `ScenarioDocumentError` for a bad document and
   * `SimulatorStateError` while another scenario runs. Resolves once it plays.
   */
  async startScenario(document: string, format?: 'json' | 'yaml'): Promise<{ name: string; stepCount: number }> {
    this.requireRunning();
    if (this.scenarioRun?.status().state === 'running') throw new SimulatorStateError(`scenario ${JSON.stringify(this.scenario?.name)} is still running`);
    let scenario: Scenario;
    try {
      scenario = parseScenario(document, { source: 'document', ...(format ? { format } : {}) });
    } catch (error) {
      if (error instanceof ScenarioError) throw new ScenarioDocumentError(error.code, error.message);
      throw error;
    }
    // A scenario that configures its runtime gets one: the Companion restarts onto it.
    if (scenario.runtime) {
      this.scenario = scenario;
      this.scenarioRun = null;
      await this.restartOnto(scenario);
    }
    const run = this.play(scenario);
    const status = run.status();
    return { name: status.name, stepCount: status.stepCount };
  }

  scenarioStatus(): ScenarioStatusView {
    const status = this.scenarioRun?.status();
    if (!status) return { state: 'idle', name: '', stepsCompleted: 0, stepCount: 0, errorCode: '', errorMessage: '' };
    return {
      state: status.state,
      name: status.name,
      stepsCompleted: status.stepsCompleted,
      stepCount: status.stepCount,
      errorCode: status.errorCode ?? '',
      errorMessage: status.errorMessage ?? '',
    };
  }

  /** Settles when the current scenario completes, fails or is stopped; null without one. */
  scenarioFinished(): Promise<ScenarioStatusView> | null {
    return this.scenarioRun ? this.scenarioRun.finished.then(() => this.scenarioStatus()) : null;
  }

  stats(): CompanionStatsView {
    const transport = this.transport.stats;
    const core = this.core?.stats();
    return {
      state: this.stopped || !this.started ? 'stopped' : transport.state,
      deviceId: this.options.identity.deviceId,
      workspaceId: this.options.identity.workspaceId,
      wireVersion: this.options.wireVersion,
      generation: transport.generation,
      framesSent: transport.framesSent,
      gapsSent: transport.gapsSent,
      acksReceived: transport.acksReceived,
      acknowledgedThrough: core?.acknowledgedThrough ?? -1,
      lastRelaySequence: core ? core.nextRelaySequence - 1 : -1,
      bufferFrames: core?.bufferedFrames ?? 0,
      bufferBytes: core?.bufferedBytes ?? 0,
      requestsReceived: transport.requestsReceived,
      reconnects: transport.reconnects,
      restarts: this.restarts,
      connectedSince: transport.connectedSince,
    };
  }

  /** Closes the transport cleanly (1000), shuts the core and the runtime down. Idempotent. */
  async stop(): Promise<void> {
    if (this.stopped) return;
    this.stopped = true;
    if (this.scenarioRun?.status().state === 'running') this.scenarioRun.stop();
    this.unsubscribeDirectives?.();
    await this.restarting?.catch(() => undefined);
    await this.transport.stop();
    // Shuts its runtime down too.
    await this.core?.shutdown();
  }

  private async newCore(scenario: Scenario | undefined): Promise<SimulatedCompanionCore> {
    const runtime = this.options.createRuntime(scenario);
    this.currentRuntime = runtime;
    this.unsubscribeDirectives = runtime.onDirective((directive) => this.onDirective(directive));
    const core = this.options.createCore(runtime);
    await core.start();
    this.core = core;
    return core;
  }

  private async restartOnto(scenario: Scenario): Promise<void> {
    this.restarts += 1;
    this.transport.pause();
    this.unsubscribeDirectives?.();
    await this.core?.shutdown();
    const core = await this.newCore(scenario);
    if (!this.stopped) this.transport.resume(core);
  }

  private play(scenario: Scenario): ScenarioRun {
    this.scenario = scenario;
    this.scenarioRun = startScenario(scenario, this.runtime, { ...(this.options.assessCounterparty ? { assessCounterparty: this.options.assessCounterparty } : {}) });
    return this.scenarioRun;
  }

  private onDirective(directive: SimDirective): void {
    if (this.stopped) return;
    if (directive.kind === 'disconnect') this.transport.dropConnection(Math.max(1, directive.forMs));
    else void this.restart(directive.downMs).catch((error: unknown) => this.options.log?.('warn', `restart failed: ${error instanceof Error ? error.message : String(error)}`));
  }

  private requireRunning(): void {
    if (!this.started || this.stopped) throw new SimulatorStateError('the Companion is not running');
  }
}
