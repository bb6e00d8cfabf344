/**
 * The load mode: N Companions and M browser clients against a gateway, measuring what a person running a
 * relay cares about: delivered frames/s, end-to-end latency percentiles, errors, gaps and reconnects.
 *
 * One run:
 * 1. provisions one workspace per Companion through the gateway's RelayControl, redeems a pairing code for
 *    each (the real enrollment endpoint), and connects each Companion (core + simulated runtime + transport);
 * 2. connects the browsers, spread round-robin over the workspaces, each fetching a fresh session descriptor
 *    per attempt;
 * 3. starts every Companion's turn generator and opens the measurement window; warm-up is not measured;
 * 4. on stop, closes everything and reports.
 *
 * Reusable: `startLoad` / `runLoad` take the parts (`LoadStack`, `LoadProvisioner`) as options, so the
 * gateway benchmark drives the same load through the same code.
 */
import { performance } from 'node:perf_hooks';

import WebSocket from 'ws';

import { gatewayEndpoints, type SimulatorWireVersion, type TlsTrust } from '../config/simulator-config';
import { EnrollmentError } from '../enrollment/enrollment.errors';
import { redeemPairingCode } from '../enrollment/enrollment.client';
import type { CompanionSimulator, DeviceIdentity } from '../simulator/companion-simulator';
import type { TransportObserver } from '../transport/companion.transport';
import { LatencySamples, WorkspaceStamps, classifyFrameText } from './latency-recorder';
import { emptyLoadReport, type LoadReport } from './load-report';
import { ProvisioningError, RelayControlProvisioner, type BrowserSessionDescriptor, type LoadProvisioner, type RelayControlTarget } from './relay-control.provisioner';

export type LoadState = 'starting' | 'running' | 'stopped' | 'failed';

/** What a browser peer is given: everything it needs to connect, already wired to the measurements. */
export interface BrowserPeerContext {
  workspaceId: string;
  /** Wire versions the browser accepts, most preferred first. */
  wireVersions: string[];
  /** A fresh single-use descriptor per connection attempt. */
  descriptor(): Promise<BrowserSessionDescriptor>;
  /**
   * Opens the browser's socket with `ws`: trusts the gateway like the Companions do, sends the Origin the
   * session was minted for, and reports every received frame to the measurements before the client sees it.
   */
  createSocket(url: string): WebSocket;
  /** Count an error (a code, never payload content). */
  error(code: string): void;
  /** Count a reconnect. */
  reconnected(): void;
}

export interface BrowserPeer {
  /** Resolves once the session is ready (session.ready received). */
  start(): Promise<void>;
  close(): Promise<void>;
}

/** Starts and stops a Companion's generated turns. */
export interface TurnGenerator {
  stop(): void;
}

/** The parts a load run is built from (see load-stack.ts for the real ones). */
export interface LoadStack {
  createCompanion(options: {
    identity: DeviceIdentity;
    companionUrl: string;
    tls: TlsTrust;
    wireVersion: SimulatorWireVersion;
    observer: TransportObserver;
  }): CompanionSimulator;
  startTurns(companion: CompanionSimulator, options: { turnIntervalMs?: number; seed: number }): TurnGenerator;
  createBrowser(context: BrowserPeerContext): BrowserPeer;
}

export interface LoadOptions {
  /** Gateway base URL (https:// or wss://; plain only on loopback). */
  gatewayUrl: string;
  tls: TlsTrust;
  /** How workspaces, codes and sessions are provisioned: a RelayControl target or a ready provisioner. */
  relayControl?: RelayControlTarget;
  provisioner?: LoadProvisioner;
  stack: LoadStack;
  companions: number;
  browsers: number;
  wireVersion?: SimulatorWireVersion;
  browserWireVersions?: string[];
  /** Origin the browsers' sessions are bound to and send at upgrade. */
  origin?: string;
  turnIntervalMs?: number;
  /** Start the Companions' turn generators (default true); false holds idle connections (memory per connection). */
  generateTurns?: boolean;
  /** Peers connected at once while starting (default 16). */
  connectConcurrency?: number;
  /** Budget for a Companion to open its transport (default 30 s). */
  connectTimeoutMs?: number;
  /** Seed of the generated turns (default 1). */
  seed?: number;
}

export class LoadStartError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'LoadStartError';
  }
}

const DEFAULT_ORIGIN = 'http://localhost';

/**
 * What a load run may say about a failure: the messages the simulator writes itself, never the text of an
 * unexpected error (a driver's, a library's), which reaches SimulatorControl callers and GetStats.
 */
function describeFailure(error: unknown): string {
  if (error instanceof LoadStartError || error instanceof ProvisioningError || error instanceof EnrollmentError) return error.message;
  return 'an unexpected error';
}

async function inBatches<T>(items: readonly T[], concurrency: number, run: (item: T, index: number) => Promise<void>): Promise<void> {
  let next = 0;
  const workers = Array.from({ length: Math.min(concurrency, items.length) }, async () => {
    while (next < items.length) {
      const index = next;
      next += 1;
      await run(items[index] as T, index);
    }
  });
  await Promise.all(workers);
}

async function until(condition: () => boolean, timeoutMs: number, what: string): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!condition()) {
    if (Date.now() > deadline) throw new LoadStartError(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

/** A browser's socket whose received text frames are measured first (listeners run in registration order). */
function tappedSocket(url: string, tls: TlsTrust, origin: string, onText: (text: string) => void): WebSocket {
  const socket = new WebSocket(url, {
    origin,
    perMessageDeflate: false,
    ...(url.startsWith('wss:') ? { ca: tls.ca, rejectUnauthorized: !tls.insecureDev } : {}),
  });
  socket.on('message', (data: WebSocket.RawData, isBinary: boolean) => {
    if (isBinary) return;
    onText(Buffer.isBuffer(data) ? data.toString('utf8') : Array.isArray(data) ? Buffer.concat(data).toString('utf8') : Buffer.from(data).toString('utf8'));
  });
  return socket;
}

interface WorkspaceSlot {
  workspaceId: string;
  stamps: WorkspaceStamps;
  browsers: number;
  companion?: CompanionSimulator;
  turns?: TurnGenerator;
}

/** A running load. `report()` is live; `stop()` ends the run and returns the final report. */
export class LoadRun {
  private state: LoadState = 'starting';
  private readonly slots: WorkspaceSlot[] = [];
  private readonly browsers: BrowserPeer[] = [];
  private readonly latency = new LatencySamples();
  private readonly errorCounts = new Map<string, number>();
  private framesSent = 0;
  private framesDelivered = 0;
  private gaps = 0;
  private browserReconnects = 0;
  private companionReconnectsAtStart = 0;
  private windowStart = 0;
  private windowEnd: number | null = null;
  private measuring = false;
  private stopping: Promise<LoadReport> | null = null;
  private provisioner: LoadProvisioner | null = null;
  private ownsProvisioner = false;
  failure: string | null = null;

  private constructor(private readonly options: LoadOptions) {}

  /** Provisions and connects everything, then starts the turns; rejects (after cleaning up) if that fails. */
  static async start(options: LoadOptions): Promise<LoadRun> {
    const run = new LoadRun(options);
    try {
      await run.begin();
      return run;
    } catch (error) {
      run.failure = describeFailure(error);
      await run.stop();
      run.state = 'failed';
      throw error instanceof LoadStartError ? error : new LoadStartError(run.failure);
    }
  }

  get workspaceIds(): string[] {
    return this.slots.map((slot) => slot.workspaceId);
  }

  get currentState(): LoadState {
    return this.state;
  }

  report(): LoadReport {
    const { companions, browsers } = this.options;
    if (this.windowStart === 0) return { ...emptyLoadReport(companions, browsers), errors: this.errorTotal(), errorSamples: this.errorSamples() };
    const end = this.windowEnd ?? performance.now();
    const durationSeconds = Math.max(0, (end - this.windowStart) / 1000);
    const summary = this.latency.summary();
    const companionReconnects = this.slots.reduce((sum, slot) => sum + (slot.companion?.stats().reconnects ?? 0), 0) - this.companionReconnectsAtStart;
    return {
      companions,
      browsers,
      durationSeconds,
      framesSent: this.framesSent,
      framesDelivered: this.framesDelivered,
      deliveredFramesPerSecond: durationSeconds > 0 ? this.framesDelivered / durationSeconds : 0,
      latencyMs: { p50: summary.p50, p95: summary.p95, p99: summary.p99, max: summary.max, samples: summary.count },
      errors: this.errorTotal(),
      gaps: this.gaps,
      reconnects: Math.max(0, companionReconnects) + this.browserReconnects,
      errorSamples: this.errorSamples(),
    };
  }

  /** Ends the run: turns stop, peers close, the window closes. Idempotent. */
  stop(): Promise<LoadReport> {
    this.stopping ??= (async () => {
      if (this.measuring) {
        this.windowEnd = performance.now();
        this.measuring = false;
      }
      for (const slot of this.slots) slot.turns?.stop();
      await Promise.allSettled(this.browsers.map((browser) => browser.close()));
      await Promise.allSettled(this.slots.map((slot) => slot.companion?.stop()));
      if (this.ownsProvisioner) this.provisioner?.close();
      if (this.state !== 'failed') this.state = this.failure ? 'failed' : 'stopped';
      return this.report();
    })();
    return this.stopping;
  }

  private async begin(): Promise<void> {
    const { options } = this;
    const endpoints = gatewayEndpoints(options.gatewayUrl);
    if (typeof endpoints === 'string') throw new LoadStartError(`gatewayUrl ${endpoints}`);
    if (!Number.isInteger(options.companions) || options.companions < 1) throw new LoadStartError('companions must be a whole number from 1');
    if (!Number.isInteger(options.browsers) || options.browsers < 0) throw new LoadStartError('browsers must be a whole number from 0');
    if (options.provisioner) this.provisioner = options.provisioner;
    else if (options.relayControl) {
      this.provisioner = new RelayControlProvisioner(options.relayControl);
      this.ownsProvisioner = true;
    } else throw new LoadStartError('load mode needs the gateway\'s RelayControl (relayControl) or a provisioner');
    const provisioner = this.provisioner;
    const concurrency = options.connectConcurrency ?? 16;
    const wireVersion = options.wireVersion ?? '1.2';
    const origin = options.origin ?? DEFAULT_ORIGIN;
    const browserWireVersions = options.browserWireVersions ?? ['1.2', '1.1'];

    for (let i = 0; i < options.companions; i += 1) {
      const slot: WorkspaceSlot = { workspaceId: '', browsers: 0, stamps: new WorkspaceStamps(() => slot.browsers) };
      this.slots.push(slot);
    }
    for (let j = 0; j < options.browsers; j += 1) (this.slots[j % this.slots.length] as WorkspaceSlot).browsers += 1;

    // 1. Workspaces, enrollment and Companions.
    await inBatches(this.slots, concurrency, async (slot, index) => {
      slot.workspaceId = await provisioner.createWorkspace(`load ${index + 1}`).catch((error: unknown) => {
        throw new LoadStartError(`cannot create workspace ${index + 1}: ${describeFailure(error)}`);
      });
      const identity = await this.enroll(provisioner, slot.workspaceId, endpoints.redeemUrl).catch((error: unknown) => {
        throw new LoadStartError(`cannot enroll Companion ${index + 1}: ${describeFailure(error)}`);
      });
      const companion = options.stack.createCompanion({
        identity,
        companionUrl: endpoints.companionUrl,
        tls: options.tls,
        wireVersion,
        observer: {
          frameSent: (text) => {
            if (slot.stamps.sent(text) && this.measuring) this.framesSent += 1;
          },
          transportLost: (reason) => {
            if (this.measuring && reason !== 'stopped' && reason !== 'restart') this.countError(`companion: ${reason}`);
          },
        },
      });
      slot.companion = companion;
      await companion.start();
      await until(() => companion.stats().state === 'connected', options.connectTimeoutMs ?? 30_000, `Companion ${index + 1} to connect`);
    });

    // 2. Browsers.
    const browserSlots = this.slots.flatMap((slot) => Array.from({ length: slot.browsers }, () => slot));
    await inBatches(browserSlots, concurrency, async (slot) => {
      const browser = options.stack.createBrowser({
        workspaceId: slot.workspaceId,
        wireVersions: browserWireVersions,
        descriptor: () => provisioner.createBrowserSession(slot.workspaceId, origin, browserWireVersions),
        createSocket: (url) => tappedSocket(url, options.tls, origin, (text) => this.delivered(slot, text)),
        error: (code) => this.countError(`browser: ${code}`),
        reconnected: () => {
          if (this.measuring) this.browserReconnects += 1;
        },
      });
      this.browsers.push(browser);
      await browser.start();
    });

    // 3. Turns, and the measurement window.
    this.companionReconnectsAtStart = this.slots.reduce((sum, slot) => sum + (slot.companion?.stats().reconnects ?? 0), 0);
    this.errorCounts.clear();
    for (const slot of this.slots) slot.stamps.clear();
    this.windowStart = performance.now();
    this.measuring = true;
    this.state = 'running';
    this.slots.forEach((slot, index) => {
      if (slot.companion && options.generateTurns !== false) {
        slot.turns = options.stack.startTurns(slot.companion, {
          ...(options.turnIntervalMs !== undefined ? { turnIntervalMs: options.turnIntervalMs } : {}),
          seed: (options.seed ?? 1) * 10_007 + index,
        });
      }
    });
  }

  private async enroll(provisioner: LoadProvisioner, workspaceId: string, redeemUrl: string): Promise<DeviceIdentity> {
    if (provisioner.enrollDevice) return provisioner.enrollDevice(workspaceId);
    const code = await provisioner.createPairingCode(workspaceId);
    return redeemPairingCode(code, { redeemUrl, tls: this.options.tls });
  }

  private delivered(slot: WorkspaceSlot, text: string): void {
    if (!this.measuring) return;
    const kind = classifyFrameText(text);
    if (kind.kind === 'gap') {
      this.gaps += 1;
      return;
    }
    if (kind.kind !== 'sequenced') return;
    this.framesDelivered += 1;
    const latency = slot.stamps.received(kind.relaySequence);
    if (latency !== null) this.latency.add(latency);
  }

  private countError(description: string): void {
    this.errorCounts.set(description, (this.errorCounts.get(description) ?? 0) + 1);
  }

  private errorTotal(): number {
    let total = 0;
    for (const count of this.errorCounts.values()) total += count;
    return total;
  }

  private errorSamples(): string[] {
    return [...this.errorCounts.entries()].slice(0, 10).map(([description, count]) => `${count}× ${description}`);
  }
}

/** Starts a load run; see `LoadRun`. */
export function startLoad(options: LoadOptions): Promise<LoadRun> {
  return LoadRun.start(options);
}

/** Runs load for `durationMs` (or until `signal` aborts) and returns the final report. */
export async function runLoad(options: LoadOptions & { durationMs: number; signal?: AbortSignal }): Promise<LoadReport> {
  const run = await LoadRun.start(options);
  await new Promise<void>((resolve) => {
    const timer = setTimeout(resolve, options.durationMs);
    options.signal?.addEventListener(
      'abort',
      () => {
        clearTimeout(timer);
        resolve();
      },
      { once: true },
    );
  });
  return run.stop();
}
