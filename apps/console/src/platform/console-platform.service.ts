/**
 * The Platform routes of API.md: each app's readiness (`/readyz` on its operator port) and a few live series
 * computed from their `/metrics` (Prometheus text, `prometheus-text.ts`):
 *
 * | series | from |
 * |---|---|
 * | `connections` | relay gateway `relay_connections` (open WebSockets, every socket kind) |
 * | `framesPerSecond` | relay gateway `relay_frames_total{direction="outbound"}` (frames delivered to peers) |
 * | `consultsPerSecond` | shield analyzer `shield_consultations_total` |
 * | `publishesPerSecond` | card registry `registry_card_revisions_published_total` (any transport) |
 *
 * Rates are the counters' increase over the interval since this backend's previous scrape (a counter that went
 * down restarted: its value counts from 0); the first scrape has no interval and answers 0. A series is null
 * while its app is not configured or cannot be scraped. Every request has a timeout and a bounded body, so an app
 * that hangs or floods costs the console a bounded wait and memory; answers are reused for a second, so many
 * pages polling every 2 s cost the apps one scrape a second at most. Framework-free.
 */
import { answered, type ConsoleResult } from '../console-result';
import type { PlatformTargets } from './console-platform.targets';
import { parseSamples, sumOf, type Sample } from './prometheus-text';

export type PlatformApp = 'relay-gateway' | 'shield-analyzer' | 'card-registry' | 'console';

export interface AppHealth {
  app: PlatformApp;
  ready: boolean;
  checkedAt: string;
  detail?: string;
}

export interface PlatformMetrics {
  at: string;
  series: { connections: number | null; framesPerSecond: number | null; consultsPerSecond: number | null; publishesPerSecond: number | null };
}

export interface ConsolePlatformOptions {
  targets: PlatformTargets;
  /** Each request's timeout (default 2 s). */
  timeoutMs?: number;
  /** The largest `/metrics` body read (default 2 MiB); larger is refused unread past the bound. */
  maxMetricsBytes?: number;
  now?: () => Date;
}

const DEFAULT_TIMEOUT_MS = 2_000;
const DEFAULT_MAX_METRICS_BYTES = 2 * 1024 * 1024;
const MAX_READY_BYTES = 16 * 1024;
const REUSE_MS = 1_000;
const APPS: ReadonlyArray<[PlatformApp, keyof PlatformTargets, string]> = [
  ['relay-gateway', 'relay', 'CONSOLE_RELAY_OPERATOR_URL'],
  ['shield-analyzer', 'shield', 'CONSOLE_SHIELD_OPERATOR_URL'],
  ['card-registry', 'registry', 'CONSOLE_REGISTRY_OPERATOR_URL'],
];
const FAMILIES = {
  relay: new Set(['relay_connections', 'relay_frames_total']),
  shield: new Set(['shield_consultations_total']),
  registry: new Set(['registry_card_revisions_published_total']),
} as const;

/** Why a request gave no usable answer, in words for the health page. */
class ScrapeFailed extends Error {}

/** GET `url` with a timeout, reading at most `maxBytes` of the body: its status and text. */
async function boundedGet(url: string, timeoutMs: number, maxBytes: number): Promise<{ status: number; text: string }> {
  const controller = new AbortController();
  const timer = setTimeout(() => controller.abort(), timeoutMs);
  try {
    let response: Response;
    try {
      response = await fetch(url, { signal: controller.signal, redirect: 'error', headers: { accept: 'text/plain' } });
    } catch {
      throw new ScrapeFailed(controller.signal.aborted ? `did not answer within ${timeoutMs / 1000} s` : 'cannot be reached');
    }
    const reader = response.body?.getReader();
    const chunks: Uint8Array[] = [];
    let size = 0;
    try {
      for (;;) {
        const chunk = reader ? await reader.read() : { done: true as const, value: undefined };
        if (chunk.done) break;
        size += chunk.value.byteLength;
        if (size > maxBytes) {
          controller.abort();
          throw new ScrapeFailed(`answered more than ${maxBytes} bytes`);
        }
        chunks.push(chunk.value);
      }
    } catch (error) {
      if (error instanceof ScrapeFailed) throw error;
      throw new ScrapeFailed(controller.signal.aborted ? `did not finish answering within ${timeoutMs / 1000} s` : 'stopped answering');
    }
    return { status: response.status, text: Buffer.concat(chunks).toString('utf8') };
  } finally {
    clearTimeout(timer);
  }
}

interface CounterReading {
  value: number;
  atMs: number;
}

export class ConsolePlatformService {
  private readonly timeoutMs: number;
  private readonly maxMetricsBytes: number;
  private readonly now: () => Date;
  private readonly previous = new Map<string, CounterReading>();
  private lastMetrics: { atMs: number; answer: Promise<PlatformMetrics> } | null = null;

  constructor(private readonly options: ConsolePlatformOptions) {
    this.timeoutMs = options.timeoutMs ?? DEFAULT_TIMEOUT_MS;
    this.maxMetricsBytes = options.maxMetricsBytes ?? DEFAULT_MAX_METRICS_BYTES;
    this.now = options.now ?? (() => new Date());
  }

  /** `GET /platform/health`: each app's readiness, checked now (in parallel); the console answers, so it is up. */
  async health(): Promise<ConsoleResult<{ apps: AppHealth[] }>> {
    const checks = APPS.map(async ([app, key, variable]): Promise<AppHealth> => {
      const url = this.options.targets[key];
      if (url === null) return { app, ready: false, checkedAt: this.now().toISOString(), detail: `not configured (${variable})` };
      try {
        const { status } = await boundedGet(`${url}/readyz`, this.timeoutMs, MAX_READY_BYTES);
        return { app, ready: status === 200, checkedAt: this.now().toISOString(), ...(status === 200 ? {} : { detail: `not ready (HTTP ${status})` }) };
      } catch (error) {
        return { app, ready: false, checkedAt: this.now().toISOString(), detail: error instanceof ScrapeFailed ? error.message : 'cannot be reached' };
      }
    });
    const apps = await Promise.all(checks);
    return answered({ apps: [...apps, { app: 'console', ready: true, checkedAt: this.now().toISOString() }] });
  }

  /** `GET /platform/metrics`: the series of the file header, scraped now (or reused within a second). */
  async metrics(): Promise<ConsoleResult<PlatformMetrics>> {
    const nowMs = this.now().getTime();
    if (!this.lastMetrics || nowMs - this.lastMetrics.atMs >= REUSE_MS) this.lastMetrics = { atMs: nowMs, answer: this.scrapeAll(nowMs) };
    return answered(await this.lastMetrics.answer);
  }

  private async scrapeAll(nowMs: number): Promise<PlatformMetrics> {
    const [relay, shield, registry] = await Promise.all([this.scrape('relay'), this.scrape('shield'), this.scrape('registry')]);
    return {
      at: new Date(nowMs).toISOString(),
      series: {
        // A gauge with no series yet (no socket ever opened) is 0 open connections, not unknown.
        connections: relay ? (sumOf(relay, 'relay_connections') ?? 0) : null,
        framesPerSecond: relay ? this.rate('relay_frames_total', sumOf(relay, 'relay_frames_total', { direction: 'outbound' }), nowMs) : null,
        consultsPerSecond: shield ? this.rate('shield_consultations_total', sumOf(shield, 'shield_consultations_total'), nowMs) : null,
        publishesPerSecond: registry ? this.rate('registry_card_revisions_published_total', sumOf(registry, 'registry_card_revisions_published_total'), nowMs) : null,
      },
    };
  }

  /** The samples of one app's families, or null when it is not configured or its scrape failed. */
  private async scrape(key: keyof PlatformTargets): Promise<Sample[] | null> {
    const url = this.options.targets[key];
    if (url === null) return null;
    try {
      const { status, text } = await boundedGet(`${url}/metrics`, this.timeoutMs, this.maxMetricsBytes);
      return status === 200 ? parseSamples(text, FAMILIES[key]) : null;
    } catch {
      return null;
    }
  }

  /**
   * Per second since the previous reading of `counter` (0 at the first; a counter with no series yet is 0). Rounded
   * to 3 decimals: the page charts it.
   */
  private rate(counter: string, value: number | null, nowMs: number): number {
    const current = value ?? 0;
    const before = this.previous.get(counter);
    this.previous.set(counter, { value: current, atMs: nowMs });
    if (!before || nowMs <= before.atMs) return 0;
    const increase = current >= before.value ? current - before.value : current;
    return Math.round((increase / ((nowMs - before.atMs) / 1000)) * 1000) / 1000;
  }
}
