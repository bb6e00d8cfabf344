/**
 * Load-mode measurements. End-to-end latency of a sequenced frame runs from the moment a Companion's
 * transport wrote it to the moment a browser's socket received it: the sender side stamps the write time in
 * a side table keyed by (workspace, relaySequence), the browser side looks it up. Both ends run in this
 * process, so one monotonic clock (performance.now) serves both.
 *
 * Frames are recognised by their top-level `"type"` and `"relaySequence"` members without a full parse: in
 * JSON text an unescaped `"relaySequence":` can only be a member name, and the sequenced frame types carry
 * exactly one at top level (the timeline envelope's own counter is named `sequence`).
 */
import { performance } from 'node:perf_hooks';

const SEQUENCE = /(?<!\\)"relaySequence":(\d+)/;
const SEQUENCED_TYPE = /(?<!\\)"type":"(runtime\.event|interaction\.request|interaction\.resolved|interaction\.cancelled|runtime\.encrypted)"/;
const GAP_TYPE = /(?<!\\)"type":"runtime\.gap"/;
/** Most stamps kept per workspace; older ones are dropped (their frames count as delivered without latency). */
const MAX_PENDING_STAMPS = 200_000;
/** Most latency samples kept; past it, reservoir sampling keeps an unbiased subset. */
const MAX_SAMPLES = 1_000_000;

export type FrameKind = { kind: 'sequenced'; relaySequence: number } | { kind: 'gap' } | { kind: 'other' };

export function classifyFrameText(text: string): FrameKind {
  if (GAP_TYPE.test(text)) return { kind: 'gap' };
  if (!SEQUENCED_TYPE.test(text)) return { kind: 'other' };
  const match = SEQUENCE.exec(text);
  return match?.[1] === undefined ? { kind: 'other' } : { kind: 'sequenced', relaySequence: Number(match[1]) };
}

export interface LatencySummary {
  count: number;
  p50: number;
  p95: number;
  p99: number;
  max: number;
}

/** Nearest-rank percentiles over latency samples (milliseconds). */
export class LatencySamples {
  private samples: number[] = [];
  private seen = 0;

  add(ms: number): void {
    this.seen += 1;
    if (this.samples.length < MAX_SAMPLES) {
      this.samples.push(ms);
      return;
    }
    const slot = Math.floor(Math.random() * this.seen);
    if (slot < MAX_SAMPLES) this.samples[slot] = ms;
  }

  get count(): number {
    return this.seen;
  }

  summary(): LatencySummary {
    if (this.samples.length === 0) return { count: 0, p50: 0, p95: 0, p99: 0, max: 0 };
    const sorted = Float64Array.from(this.samples).sort();
    const at = (p: number) => sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1))] ?? 0;
    return { count: this.seen, p50: at(50), p95: at(95), p99: at(99), max: sorted[sorted.length - 1] ?? 0 };
  }

  reset(): void {
    this.samples = [];
    this.seen = 0;
  }
}

/** Send stamps of one workspace's frames, each waiting for every browser of the workspace. */
export class WorkspaceStamps {
  private readonly pending = new Map<number, { at: number; remaining: number }>();

  constructor(private readonly browsers: () => number) {}

  /** The Companion's transport wrote `text`. Returns whether it was a sequenced frame. */
  sent(text: string, at = performance.now()): boolean {
    const kind = classifyFrameText(text);
    if (kind.kind !== 'sequenced') return false;
    const remaining = this.browsers();
    if (remaining > 0) {
      // A replayed frame is stamped again: latency counts from its latest write.
      this.pending.delete(kind.relaySequence);
      this.pending.set(kind.relaySequence, { at, remaining });
      if (this.pending.size > MAX_PENDING_STAMPS) {
        const oldest = this.pending.keys().next();
        if (!oldest.done) this.pending.delete(oldest.value);
      }
    }
    return true;
  }

  /** A browser received a frame with `relaySequence`; returns its latency in ms, or null when unknown. */
  received(relaySequence: number, at = performance.now()): number | null {
    const stamp = this.pending.get(relaySequence);
    if (!stamp) return null;
    stamp.remaining -= 1;
    if (stamp.remaining <= 0) this.pending.delete(relaySequence);
    return at - stamp.at;
  }

  clear(): void {
    this.pending.clear();
  }
}
