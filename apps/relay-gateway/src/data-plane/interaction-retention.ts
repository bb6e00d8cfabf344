/**
 * Interaction retention of one workspace (BEHAVIOUR.md §8, "Relay retention"): every forwarded
 * `interaction.request` is kept until an `interaction.resolved` or `interaction.cancelled` with the same
 * `interactionId` passes, and redelivered unchanged, in ascending `relaySequence`, right after `session.ready`
 * to every new session. Expired requests may be dropped (§8); the Companion cancels them on its own timer.
 *
 * Memory is bounded whatever a Companion sends (a schema-valid user-input request may be ~640 KiB, and its
 * `expiresAt` may be in 2099):
 * - by count and by bytes per workspace: past either, the oldest requests are given up (`workspace` bound);
 * - by bytes over the whole process (`ByteBudget`): the largest workspaces give up their oldest first
 *   (`process` bound, through `shrinkTo`);
 * - in time: a request is kept until its `expiresAt`, but never longer than `maxAgeMs` after it passed (the
 *   frame itself is forwarded unchanged; only its retention is clamped).
 * A request given up is no longer redelivered; sessions that were open when it passed have it.
 *
 * Pure: no I/O, no timers; the clock is passed in. The hub audits and counts what this reports.
 */
import type { BudgetHolder, ByteBudget } from './byte-budget';
import type { FrameHolder, LoggedFrame } from './workspace-frame-log';

export interface InteractionRetentionLimits {
  /** Requests kept at most per workspace. */
  maxCount: number;
  /** UTF-8 bytes of kept requests at most per workspace. */
  maxBytes: number;
  /** How long after it passed a request is kept at most, whatever its `expiresAt` says. */
  maxAgeMs: number;
}

/** What keeping one request did. */
export interface RetentionNote {
  /** Requests given up to stay within the workspace's bounds (possibly the new one itself). */
  evicted: number;
  /** The request's `expiresAt` lay beyond the time bound: it is kept only until the bound. */
  clamped: boolean;
}

interface Kept {
  entry: LoggedFrame;
  /** When it is dropped: its `expiresAt`, clamped to the time bound. */
  until: number;
}

const NOTHING: RetentionNote = { evicted: 0, clamped: false };

export class InteractionRetention implements BudgetHolder, FrameHolder {
  /** Unresolved requests by interactionId, in arrival order. */
  private readonly kept = new Map<string, Kept>();
  private keptBytes = 0;

  constructor(
    private readonly limits: InteractionRetentionLimits,
    /** The process's bound over every workspace's retention. */
    private readonly budget?: ByteBudget,
  ) {}

  get size(): number {
    return this.kept.size;
  }

  get bytes(): number {
    return this.keptBytes;
  }

  grow(entry: LoggedFrame, delta: number): void {
    if (entry.interactionId === undefined || this.kept.get(entry.interactionId)?.entry !== entry) return;
    this.keptBytes += delta;
    this.budget?.add(delta);
  }

  /** An interaction frame passed: a request is kept (within the bounds), a terminal frame settles its request. */
  note(entry: LoggedFrame): RetentionNote {
    if (!entry.interactionId) return NOTHING;
    this.forget(entry.interactionId);
    if (entry.type !== 'interaction.request') return NOTHING;
    const latest = entry.at + this.limits.maxAgeMs;
    const expiresAt = entry.expiresAt !== undefined && Number.isFinite(entry.expiresAt) ? entry.expiresAt : Number.POSITIVE_INFINITY;
    this.kept.set(entry.interactionId, { entry, until: Math.min(expiresAt, latest) });
    this.keptBytes += entry.bytes;
    this.budget?.add(entry.bytes);
    let evicted = 0;
    while (this.kept.size > this.limits.maxCount || this.keptBytes > this.limits.maxBytes) {
      this.forget(this.kept.keys().next().value as string);
      evicted += 1;
    }
    return { evicted, clamped: expiresAt > latest };
  }

  /** A new stream epoch: the interactions of the previous one died with the Companion that raised them. */
  clear(): void {
    for (const interactionId of [...this.kept.keys()]) this.forget(interactionId);
  }

  /** Gives up the requests whose retention ended, and returns them (for the audit). */
  expire(now: number): LoggedFrame[] {
    const expired: LoggedFrame[] = [];
    for (const [interactionId, kept] of this.kept) {
      if (kept.until >= now) continue;
      this.forget(interactionId);
      expired.push(kept.entry);
    }
    return expired;
  }

  /** What a new session gets: the unexpired requests in ascending `relaySequence`; the expired ones are given up and returned. */
  redeliverable(now: number): { live: LoggedFrame[]; expired: LoggedFrame[] } {
    const expired = this.expire(now);
    const live = [...this.kept.values()].map((kept) => kept.entry).sort((a, b) => a.relaySequence - b.relaySequence);
    return { live, expired };
  }

  /** Gives up the oldest requests until at most `bytes` are kept (the process's budget is over). */
  shrinkTo(bytes: number): void {
    while (this.keptBytes > bytes && this.kept.size > 0) this.forget(this.kept.keys().next().value as string);
  }

  private forget(interactionId: string): void {
    const kept = this.kept.get(interactionId);
    if (!kept) return;
    this.kept.delete(interactionId);
    this.keptBytes -= kept.entry.bytes;
    this.budget?.add(-kept.entry.bytes);
  }
}
