/**
 * One simulated Companion: an enrolled device, a Companion core over a simulated runtime, and the
 * WebSocket transport to the relay. It carries out what scenarios and SimulatorControl ask for:
 *
 * - disconnect: the transport is dropped as by a network failure and reconnects (replay follows, §6);
 * - restart: as a Companion process restart: the transport closes, the old core shuts down (pending
 *   interactions cancelled at the runtime, nothing more sent), and a new core starts with relaySequence 0
 *   and an empty buffer over the same simulated runtime, whose threads survive as an agent's store would;
 * - scenarios: a document runs through the simulated runtime; its directives come back here.
 */
import type { AgentRuntime } from '@trustmesh/relay-companion';

import type { SimulatorWireVersion, TlsTrust } from '../config/simulator-config';
import type { CompanionCore } from '../transport/companion-core.port';
import { CompanionTransport, type CompanionConnectionState, type TransportLog, type TransportObserver } from '../transport/companion.transport';
import { ScenarioDocumentError, type LoadedScenario, type ScenarioEngine } from './scenario-engine.port';

/** A directive a simulated runtime gives its host (scripted disconnects and restarts). */
export type RuntimeDirective = { kind: 'disconnect'; forMs: number } | { kind: 'restart'; downMs: number };

/** The simulated runtime as the host sees it: the port plus its directives. */
export interface HostedRuntime extends AgentRuntime {
  onDirective(listener: (directive: RuntimeDirective) => void): () => void;
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
  runtime: HostedRuntime;
  /** A new core over `runtime` (called at start and on every restart). */
  createCore(runtime: AgentRuntime): SimulatedCompanionCore;
  scenarios?: ScenarioEngine;
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

/**
 * Lets a new core drive the same runtime after a restart: the old core's shutdown unbinds and shuts down
 * its runtime, which must not end the simulated agent. The simulator shuts the runtime down itself on stop.
 */
function retainedRuntime(runtime: AgentRuntime): AgentRuntime {
  return new Proxy(runtime, {
    get(target, property) {
      if (property === 'unbindWorkspace' || property === 'shutdown') return async () => undefined;
      const value: unknown = Reflect.get(target, property, target);
      return typeof value === 'function' ? (value as (...args: unknown[]) => unknown).bind(target) : value;
    },
  });
}

export class CompanionSimulator {
  private core: SimulatedCompanionCore | null = null;
  private readonly transport: CompanionTransport;
  private restarts = 0;
  private restarting: Promise<void> | null = null;
  private stopped = false;
  private started = false;
  private unsubscribeDirectives: (() => void) | null = null;
  private scenario: ScenarioStatusView = { state: 'idle', name: '', stepsCompleted: 0, stepCount: 0, errorCode: '', errorMessage: '' };

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

  get runtime(): HostedRuntime {
    return this.options.runtime;
  }

  /** Starts the core and connects. */
  async start(): Promise<void> {
    if (this.started) return;
    this.started = true;
    this.unsubscribeDirectives = this.options.runtime.onDirective((directive) => this.onDirective(directive));
    const core = this.options.createCore(retainedRuntime(this.options.runtime));
    await core.start();
    this.core = core;
    this.transport.resume(core);
    this.transport.start();
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
      await this.core?.shutdown();
      const core = this.options.createCore(retainedRuntime(this.options.runtime));
      await core.start();
      this.core = core;
      if (!this.stopped) this.transport.resume(core, downMs);
    });
    this.restarting = run.finally(() => {
      if (this.restarting === run) this.restarting = null;
    });
    await run;
    return this.restarts;
  }

  /** Validates a scenario document and starts running it; throws `ScenarioDocumentError` for a bad one. */
  startScenario(document: string, format?: 'json' | 'yaml'): { name: string; stepCount: number } {
    this.requireRunning();
    if (!this.options.scenarios) throw new SimulatorStateError('this simulator has no scenario engine');
    if (this.scenario.state === 'running') throw new SimulatorStateError(`scenario ${JSON.stringify(this.scenario.name)} is still running`);
    const loaded: LoadedScenario = this.options.scenarios.load(document, format);
    this.scenario = { state: 'running', name: loaded.name, stepsCompleted: 0, stepCount: loaded.stepCount, errorCode: '', errorMessage: '' };
    const status = this.scenario;
    void loaded
      .run(this.options.runtime, (stepsCompleted) => {
        status.stepsCompleted = stepsCompleted;
      })
      .then(
        () => {
          status.state = 'completed';
          status.stepsCompleted = status.stepCount;
        },
        (error: unknown) => {
          status.state = 'failed';
          status.errorCode = error instanceof ScenarioDocumentError ? error.code : 'SCENARIO_STEP_FAILED';
          // Scenario errors describe the script (step numbers, expectations), never payloads or secrets.
          status.errorMessage = error instanceof Error ? error.message.slice(0, 500) : 'the scenario failed';
        },
      );
    return { name: loaded.name, stepCount: loaded.stepCount };
  }

  scenarioStatus(): ScenarioStatusView {
    return { ...this.scenario };
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
    this.unsubscribeDirectives?.();
    await this.restarting?.catch(() => undefined);
    await this.transport.stop();
    await this.core?.shutdown();
    if (this.started) {
      await this.options.runtime.unbindWorkspace().catch(() => undefined);
      await this.options.runtime.shutdown().catch(() => undefined);
    }
  }

  private onDirective(directive: RuntimeDirective): void {
    if (this.stopped) return;
    if (directive.kind === 'disconnect') this.transport.dropConnection(Math.max(1, directive.forMs));
    else void this.restart(directive.downMs).catch((error: unknown) => this.options.log?.('warn', `restart failed: ${error instanceof Error ? error.message : String(error)}`));
  }

  private requireRunning(): void {
    if (!this.started || this.stopped) throw new SimulatorStateError('the Companion is not running');
  }
}
