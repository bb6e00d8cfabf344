/**
 * The Browser's interaction list (BEHAVIOUR.md §8, "Browser"): one entry per `interactionId` of the
 * session's Workspace, `pending` → `responding` (back to `pending` when a candidate fails) → `resolved` or
 * `cancelled`. Pure: frames in, outcomes out; the client turns outcomes into UI events.
 *
 * - an identical redelivery (the relay redelivers retained requests unchanged) is a duplicate;
 * - the same id with other metadata, a request after its terminal frame, and a terminal frame for an
 *   unknown interaction or with other identity are errors, reported and otherwise ignored;
 * - `approval.required` timeline events and snapshot `pendingApprovals` never create entries here: only
 *   an `interaction.request` carries an answerable `interactionId`;
 * - an interaction is no longer offered after its `expiresAt`.
 */
import { canonicalJson, type Wire12 } from '@trustmesh/relay-protocol';

export type InteractionRequestFrame = Wire12.InteractionRequestFrame;
export type InteractionTerminalFrame = Wire12.InteractionResolvedFrame | Wire12.InteractionCancelledFrame;
export type InteractionState = 'pending' | 'responding' | 'resolved' | 'cancelled';

export interface TrackedInteraction {
  interactionId: string;
  threadId: string;
  turnId: string;
  method: InteractionRequestFrame['method'];
  expiresAt: string;
  /** `expiresAt` in epoch milliseconds. */
  expiresAtMs: number;
  relaySequence: number;
  state: InteractionState;
  /** The request as received: the approval projection or the user-input form. */
  request: InteractionRequestFrame;
}

/** Interaction problems reported as events (never thrown at the frame's sender). */
export type InteractionProblemCode =
  | 'INTERACTION_METADATA_CONFLICT'
  | 'INTERACTION_AFTER_TERMINAL'
  | 'INTERACTION_TERMINAL_UNKNOWN'
  | 'INTERACTION_TERMINAL_MISMATCH';

export type RequestOutcome =
  | { outcome: 'pending'; interaction: TrackedInteraction }
  | { outcome: 'duplicate'; interaction: TrackedInteraction }
  | { outcome: 'problem'; code: InteractionProblemCode; interactionId: string };

export type TerminalOutcome =
  | { outcome: 'resolved' | 'cancelled'; interaction: TrackedInteraction }
  | { outcome: 'duplicate'; interaction: TrackedInteraction }
  | { outcome: 'problem'; code: InteractionProblemCode; interactionId: string };

export type RespondCheck =
  | { ok: true; interaction: TrackedInteraction }
  | { ok: false; code: 'INTERACTION_UNKNOWN' | 'INTERACTION_NOT_PENDING' | 'INTERACTION_EXPIRED' };

/** The identity a redelivery must repeat exactly (the relay redelivers requests unchanged). */
function requestIdentity(frame: InteractionRequestFrame): string {
  const { threadId, turnId, method, expiresAt, sensitivity, projection } = frame;
  return canonicalJson({ threadId, turnId, method, expiresAt, sensitivity, projection });
}

export interface InteractionTrackerOptions {
  /** Terminal entries kept to recognise late requests and duplicate terminals (default 1 000). */
  maxTerminal?: number;
  /** Open entries kept (default 1 000); beyond it the oldest is forgotten. */
  maxOpen?: number;
}

export class InteractionTracker {
  private readonly entries = new Map<string, TrackedInteraction & { identity: string }>();
  private readonly terminalOrder: string[] = [];
  private readonly maxTerminal: number;
  private readonly maxOpen: number;

  constructor(options: InteractionTrackerOptions = {}) {
    this.maxTerminal = options.maxTerminal ?? 1_000;
    this.maxOpen = options.maxOpen ?? 1_000;
  }

  onRequest(frame: InteractionRequestFrame): RequestOutcome {
    const identity = requestIdentity(frame);
    const known = this.entries.get(frame.interactionId);
    if (known) {
      if (known.state === 'resolved' || known.state === 'cancelled') {
        return { outcome: 'problem', code: 'INTERACTION_AFTER_TERMINAL', interactionId: frame.interactionId };
      }
      if (known.identity !== identity) return { outcome: 'problem', code: 'INTERACTION_METADATA_CONFLICT', interactionId: frame.interactionId };
      return { outcome: 'duplicate', interaction: publicView(known) };
    }
    const expiresAtMs = Date.parse(frame.expiresAt);
    const entry = {
      interactionId: frame.interactionId,
      threadId: frame.threadId,
      turnId: frame.turnId,
      method: frame.method,
      expiresAt: frame.expiresAt,
      expiresAtMs: Number.isNaN(expiresAtMs) ? 0 : expiresAtMs,
      relaySequence: frame.relaySequence,
      state: 'pending' as InteractionState,
      request: frame,
      identity,
    };
    this.entries.set(frame.interactionId, entry);
    this.boundOpen();
    return { outcome: 'pending', interaction: publicView(entry) };
  }

  onTerminal(frame: InteractionTerminalFrame): TerminalOutcome {
    const known = this.entries.get(frame.interactionId);
    if (!known) return { outcome: 'problem', code: 'INTERACTION_TERMINAL_UNKNOWN', interactionId: frame.interactionId };
    if (known.threadId !== frame.threadId || known.turnId !== frame.turnId || known.method !== frame.method) {
      return { outcome: 'problem', code: 'INTERACTION_TERMINAL_MISMATCH', interactionId: frame.interactionId };
    }
    const state: InteractionState = frame.type === 'interaction.resolved' ? 'resolved' : 'cancelled';
    if (known.state === 'resolved' || known.state === 'cancelled') {
      // The same terminal again (a re-applied frame after a reset) is a duplicate; the other one is a conflict.
      return known.state === state
        ? { outcome: 'duplicate', interaction: publicView(known) }
        : { outcome: 'problem', code: 'INTERACTION_TERMINAL_MISMATCH', interactionId: frame.interactionId };
    }
    known.state = state;
    this.terminalOrder.push(known.interactionId);
    while (this.terminalOrder.length > this.maxTerminal) {
      const oldest = this.terminalOrder.shift();
      if (oldest !== undefined) this.entries.delete(oldest);
    }
    return { outcome: state, interaction: publicView(known) };
  }

  /** Checks that a response may be offered now and marks the interaction `responding`. */
  beginResponse(interactionId: string, nowMs: number): RespondCheck {
    const check = this.canRespond(interactionId, nowMs);
    if (check.ok) {
      const entry = this.entries.get(interactionId);
      if (entry) entry.state = 'responding';
      return { ok: true, interaction: { ...check.interaction, state: 'responding' } };
    }
    return check;
  }

  /** Whether a response may be offered now (pending, not expired). */
  canRespond(interactionId: string, nowMs: number): RespondCheck {
    const entry = this.entries.get(interactionId);
    if (!entry) return { ok: false, code: 'INTERACTION_UNKNOWN' };
    if (entry.state !== 'pending') return { ok: false, code: 'INTERACTION_NOT_PENDING' };
    if (nowMs >= entry.expiresAtMs) return { ok: false, code: 'INTERACTION_EXPIRED' };
    return { ok: true, interaction: publicView(entry) };
  }

  /** A candidate failed: offer the interaction again (unless a terminal frame arrived meanwhile). */
  responseFailed(interactionId: string): TrackedInteraction | undefined {
    const entry = this.entries.get(interactionId);
    if (!entry || entry.state !== 'responding') return undefined;
    entry.state = 'pending';
    return publicView(entry);
  }

  get(interactionId: string): TrackedInteraction | undefined {
    const entry = this.entries.get(interactionId);
    return entry ? publicView(entry) : undefined;
  }

  /** Interactions a UI should offer now: pending or responding, and not expired. */
  offered(nowMs: number): TrackedInteraction[] {
    return [...this.entries.values()]
      .filter((entry) => (entry.state === 'pending' || entry.state === 'responding') && nowMs < entry.expiresAtMs)
      .sort((a, b) => a.relaySequence - b.relaySequence)
      .map(publicView);
  }

  private boundOpen(): void {
    const open = [...this.entries.values()].filter((entry) => entry.state === 'pending' || entry.state === 'responding');
    for (let index = 0; index < open.length - this.maxOpen; index += 1) {
      const oldest = open[index];
      if (oldest) this.entries.delete(oldest.interactionId);
    }
  }
}

function publicView(entry: TrackedInteraction & { identity?: string }): TrackedInteraction {
  const { identity: _identity, ...view } = entry;
  return view;
}
