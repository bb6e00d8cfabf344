/**
 * Interaction retention of one workspace (BEHAVIOUR.md §8, "Relay retention"): every forwarded
 * `interaction.request` is kept until an `interaction.resolved` or `interaction.cancelled` with the same
 * `interactionId` passes, and redelivered unchanged, in ascending `relaySequence`, right after `session.ready`
 * to every new session. Expired requests may be dropped (§8); the Companion cancels them on its own timer.
 *
 * Pure: no I/O, no timers; the clock is passed in. The hub audits what this reports.
 */
import type { LoggedFrame } from './workspace-frame-log';

export interface InteractionRetentionLimits {
  /** Requests kept at most; past it the oldest is given up. */
  maxCount: number;
}

export class InteractionRetention {
  /** Unresolved requests by interactionId, in arrival order. */
  private readonly kept = new Map<string, LoggedFrame>();

  constructor(private readonly limits: InteractionRetentionLimits) {}

  get size(): number {
    return this.kept.size;
  }

  /** An interaction frame passed: a request is kept, a terminal frame settles its request. */
  note(entry: LoggedFrame): void {
    if (!entry.interactionId) return;
    if (entry.type !== 'interaction.request') {
      this.kept.delete(entry.interactionId);
      return;
    }
    this.kept.set(entry.interactionId, entry);
    if (this.kept.size > this.limits.maxCount) {
      const oldest = this.kept.keys().next().value as string;
      this.kept.delete(oldest);
    }
  }

  /** A new stream epoch: the interactions of the previous one died with the Companion that raised them. */
  clear(): void {
    this.kept.clear();
  }

  /** What a new session gets: the unexpired requests in ascending `relaySequence`; the expired ones are given up and returned. */
  redeliverable(now: number): { live: LoggedFrame[]; expired: LoggedFrame[] } {
    const live: LoggedFrame[] = [];
    const expired: LoggedFrame[] = [];
    for (const [interactionId, entry] of this.kept) {
      if (entry.expiresAt !== undefined && entry.expiresAt < now) {
        this.kept.delete(interactionId);
        expired.push(entry);
      } else {
        live.push(entry);
      }
    }
    live.sort((a, b) => a.relaySequence - b.relaySequence);
    return { live, expired };
  }
}
