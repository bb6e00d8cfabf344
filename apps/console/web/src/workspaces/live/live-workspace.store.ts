/**
 * The live workspace as the page renders it: one `RelayClient` (a fresh descriptor from
 * `POST /workspaces/:id/session-descriptors` per connection attempt) and an immutable view of what it
 * reported: connection and workspace state, threads, the selected thread's snapshot, the turns this session
 * saw stream in (messages, reasoning summaries, tool calls, interactions), and stream notices (gaps,
 * recoveries, resets) as they happen.
 *
 * Rules it keeps:
 * - one source per message: history is the thread snapshot; a turn card shows only what the snapshot does
 *   not hold yet. A completed live message (or the person's own prompt) is hidden from its card once a
 *   snapshot newer than the card's start holds the same text, so a turn's end, a recovery or a reset never
 *   shows a message twice nor drops one;
 * - views change immutably (a changed turn is a new object, the others are kept), so React re-renders only
 *   what changed, and listeners are told at most once per animation frame however fast frames arrive;
 * - everything kept is bounded: turns per thread, notices, threads listed.
 */
import {
  reconnectDelayMs,
  RelayClient,
  type ConnectionState,
  type InteractionChange,
  type RelayClientError,
  type ThreadSnapshot,
  type WorkspaceStatus,
} from '@trustmesh/relay-client';
import type { Wire12 } from '@trustmesh/relay-protocol';

import { api, ApiError, segment } from '../../api/api-client';
import type { SessionDescriptor } from '../../api/console-types';
import { lastSequence, type LiveMessage, type LiveTool, type TurnView } from './turn-history';

export type { LiveMessage, LiveTool, TurnView };

export type ThreadItem = Wire12.ThreadListResult['items'][number];
type TrackedInteraction = InteractionChange['interaction'];

export interface InteractionView {
  interaction: TrackedInteraction;
  /** The last change the client reported. */
  change: InteractionChange['change'];
  /** A failed answer (the interaction is offered again). */
  error?: string;
}

export interface StreamNotice {
  id: number;
  at: number;
  kind: 'gap' | 'recovery' | 'reset' | 'snapshot-failed' | 'interaction-problem';
  text: string;
}

export interface LiveView {
  connection: ConnectionState;
  attempt: number;
  /** When `waiting`: epoch ms of the next attempt. */
  retryAt?: number;
  workspaceStatus: WorkspaceStatus;
  wireVersion?: string;
  lastError?: { code: string; text: string };
  descriptorError?: ApiError;
  threads: ThreadItem[];
  threadsNextCursor: string | null;
  threadsLoading: boolean;
  threadsError?: string;
  selectedThreadId?: string;
  snapshot?: ThreadSnapshot;
  snapshotLoading: boolean;
  snapshotError?: string;
  turns: ReadonlyMap<string, readonly TurnView[]>;
  interactions: ReadonlyMap<string, InteractionView>;
  notices: readonly StreamNotice[];
  /** Sequenced frames the client applied so far (the render benchmark compares painted ones against it). */
  appliedFrames: number;
}

const MAX_TURNS_PER_THREAD = 30;
const MAX_NOTICES = 50;
const MAX_THREADS = 500;
const NO_TURN = '(no turn)';

const ERROR_TEXT: Record<string, string> = {
  TRANSPORT_ERROR: 'The connection to the relay failed or was refused; the page retries with a fresh session.',
  REQUEST_TIMEOUT: 'The relay did not answer in time; the page retries.',
  PROTOCOL_ERROR: 'The relay sent something this page cannot accept; it reconnected to heal the stream.',
  INVALID_SESSION: 'The session the console minted was refused. Reload the page; if it persists, check the console and relay configuration.',
  WORKSPACE_OFFLINE: 'The workspace is offline: start or reconnect its Companion.',
  CLIENT_MISCONFIGURED: 'The page cannot talk to this workspace (its encryption does not match). Reload the page.',
  LISTENER_FAILED: 'The page hit a problem drawing an update; the connection kept running.',
};

export function describeClientError(error: RelayClientError): string {
  return ERROR_TEXT[error.code] ?? (error.kind === 'session' ? `The relay ended the session (${error.code}).` : `${error.message} (${error.code})`);
}

let instances = 0;

export class LiveWorkspace {
  /** Distinguishes stores of one page life (a view keyed by it starts its painted-frame count afresh). */
  readonly instance = (instances += 1);
  private view: LiveView = {
    connection: 'idle',
    attempt: 0,
    workspaceStatus: 'unknown',
    threads: [],
    threadsNextCursor: null,
    threadsLoading: false,
    snapshotLoading: false,
    turns: new Map(),
    interactions: new Map(),
    notices: [],
    appliedFrames: 0,
  };
  private readonly listeners = new Set<() => void>();
  private scheduled = false;
  private noticeId = 0;
  private readonly client: RelayClient;
  private readonly unsubscribe: Array<() => void> = [];

  constructor(private readonly workspaceId: string) {
    const loopback = ['127.0.0.1', 'localhost', '[::1]', '::1'].includes(window.location.hostname);
    this.client = new RelayClient({
      descriptor: () => this.mintDescriptor(),
      WebSocket: window.WebSocket,
      // Plain ws:// only where the page itself is plain HTTP on a loopback host (development).
      allowInsecureLoopback: window.location.protocol === 'http:' && loopback,
    });
    this.wire();
  }

  // ---- React side ---------------------------------------------------------------------------------------

  subscribe = (listener: () => void): (() => void) => {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  };

  getView = (): LiveView => this.view;

  start(): void {
    this.client.connect().catch(() => undefined); // failures arrive as `error` and `state` events
  }

  stop(): void {
    for (const off of this.unsubscribe.splice(0)) off();
    this.client.close();
    this.listeners.clear();
  }

  // ---- actions ------------------------------------------------------------------------------------------

  async loadThreads(more = false): Promise<void> {
    if (this.view.threadsLoading) return;
    this.update({ threadsLoading: true, threadsError: undefined });
    try {
      const cursor = more ? this.view.threadsNextCursor : null;
      const page = await this.client.threads.list(cursor ? { cursor, limit: 50 } : { limit: 50 });
      const known = more ? this.view.threads : [];
      const seen = new Set(known.map((thread) => thread.id));
      this.update({
        threads: [...known, ...page.items.filter((thread) => !seen.has(thread.id))].slice(0, MAX_THREADS),
        threadsNextCursor: page.nextCursor,
        threadsLoading: false,
      });
    } catch (error) {
      this.update({ threadsLoading: false, threadsError: this.requestFailure(error, 'list the threads') });
    }
  }

  async createThread(title: string): Promise<string | undefined> {
    try {
      const { thread } = await this.client.threads.create(title.trim() ? { title: title.trim() } : {});
      this.update({ threads: [thread, ...this.view.threads.filter((item) => item.id !== thread.id)] });
      await this.selectThread(thread.id);
      return thread.id;
    } catch (error) {
      this.update({ threadsError: this.requestFailure(error, 'create the thread') });
      return undefined;
    }
  }

  async selectThread(threadId: string): Promise<void> {
    const previous = this.view.selectedThreadId;
    if (previous && previous !== threadId) this.client.threads.close(previous);
    // Ended turns of the thread are in the snapshot about to arrive; running ones keep streaming into their cards.
    const kept = (this.view.turns.get(threadId) ?? []).filter((turn) => turn.state === 'started');
    const turns = new Map(this.view.turns);
    turns.set(threadId, kept);
    this.update({
      turns, selectedThreadId: threadId, snapshot: previous === threadId ? this.view.snapshot : undefined, snapshotLoading: true, snapshotError: undefined });
    try {
      await this.client.threads.open(threadId); // the snapshot arrives as a `snapshot` event
    } catch (error) {
      if (this.view.selectedThreadId === threadId) this.update({ snapshotLoading: false, snapshotError: this.requestFailure(error, 'open the thread') });
    }
  }

  /** Starts a turn in the selected thread; returns a message for the person when it could not. */
  async startTurn(text: string): Promise<string | undefined> {
    const threadId = this.view.selectedThreadId;
    if (!threadId) return 'Choose or create a thread first.';
    try {
      const { turnId } = await this.client.turns.start({ threadId, text });
      this.patchTurn(threadId, turnId, (turn) => ({ ...turn, prompt: text }));
      return undefined;
    } catch (error) {
      return this.requestFailure(error, 'start the turn');
    }
  }

  async cancelTurn(threadId: string, turnId: string): Promise<string | undefined> {
    try {
      await this.client.turns.cancel({ threadId, turnId });
      return undefined;
    } catch (error) {
      return this.requestFailure(error, 'cancel the turn');
    }
  }

  async answer(interactionId: string, answer: { approve: true } | { reject: true; reason?: string } | { submit: Record<string, unknown> } | { cancel: true; reason?: string }): Promise<void> {
    this.patchInteraction(interactionId, (view) => ({ ...view, error: undefined }));
    try {
      if ('approve' in answer) await this.client.interactions.approve(interactionId);
      else if ('reject' in answer) await this.client.interactions.reject(interactionId, answer.reason);
      else if ('submit' in answer) await this.client.interactions.submit(interactionId, answer.submit as never);
      else await this.client.interactions.cancel(interactionId, answer.reason);
    } catch (error) {
      this.patchInteraction(interactionId, (view) => ({ ...view, error: this.requestFailure(error, 'send the answer') }));
    }
  }

  // ---- the client's events ------------------------------------------------------------------------------

  private wire(): void {
    const on = this.unsubscribe;
    const client = this.client;
    on.push(
      client.on('state', ({ state, workspaceStatus, attempt }) => {
        this.update({
          connection: state,
          workspaceStatus,
          attempt,
          retryAt: state === 'waiting' ? Date.now() + reconnectDelayMs(attempt) : undefined,
          ...(state === 'ready' ? { lastError: undefined, descriptorError: undefined } : {}),
        });
      }),
      client.on('ready', ({ wireVersion, workspaceStatus }) => {
        this.update({ wireVersion });
        if (workspaceStatus === 'online') this.onOnline();
      }),
      client.on('workspace', ({ status }) => {
        if (status === 'online') this.onOnline();
      }),
      client.on('error', (error) => this.update({ lastError: { code: error.code, text: describeClientError(error) } })),
      client.on('frame', () => {
        this.view = { ...this.view, appliedFrames: this.view.appliedFrames + 1 };
        this.schedule();
      }),
      client.on('message', (update) =>
        this.patchTurn(update.threadId, update.turnId, (turn) => {
          const index = turn.messages.findIndex((message) => message.streamId === update.streamId);
          const message = { streamId: update.streamId, text: update.text, completed: update.completed };
          const messages = index < 0 ? [...turn.messages, message] : turn.messages.map((item, at) => (at === index ? message : item));
          return { ...turn, messages };
        }),
      ),
      client.on('reasoning', (update) =>
        this.patchTurn(update.threadId, update.turnId, (turn) => {
          const index = turn.reasoning.findIndex((item) => item.reasoningId === update.reasoningId);
          const item = { reasoningId: update.reasoningId, text: update.text };
          return { ...turn, reasoning: index < 0 ? [...turn.reasoning, item] : turn.reasoning.map((old, at) => (at === index ? item : old)) };
        }),
      ),
      client.on('tool', (update) =>
        this.patchTurn(update.threadId, update.turnId, (turn) => {
          const tool: LiveTool = { toolCallId: update.toolCallId, agentName: update.agentName, toolName: update.toolName, status: update.status, ...(update.outcome ? { outcome: update.outcome.kind } : {}) };
          const index = turn.tools.findIndex((item) => item.toolCallId === update.toolCallId);
          return { ...turn, tools: index < 0 ? [...turn.tools, tool] : turn.tools.map((old, at) => (at === index ? tool : old)) };
        }),
      ),
      client.on('turn', (update) => this.patchTurn(update.threadId, update.turnId, (turn) => ({ ...turn, state: update.state, ...(update.stage ? { stage: update.stage } : {}) }))),
      client.on('interaction', ({ change, interaction }) => {
        const interactions = new Map(this.view.interactions);
        interactions.set(interaction.interactionId, { interaction, change });
        this.view = { ...this.view, interactions };
        this.patchTurn(interaction.threadId, interaction.turnId, (turn) =>
          turn.interactionIds.includes(interaction.interactionId) ? turn : { ...turn, interactionIds: [...turn.interactionIds, interaction.interactionId] },
        );
      }),
      client.on('interaction-problem', ({ code, interactionId }) => this.notice('interaction-problem', `Interaction ${interactionId.slice(0, 8)}…: ${code.toLowerCase().replaceAll('_', ' ')}.`)),
      client.on('snapshot', ({ threadId, snapshot, reason }) => {
        if (reason === 'recovery' || reason === 'reset') this.settleMissedTurns(threadId, snapshot);
        if (threadId !== this.view.selectedThreadId) return;
        const threads = this.view.threads.map((thread) => (thread.id === threadId ? snapshot.thread : thread));
        this.update({ snapshot, snapshotLoading: false, snapshotError: undefined, threads });
      }),
      client.on('snapshot-failed', ({ threadId, error }) => {
        this.notice('snapshot-failed', `Could not refresh thread ${this.threadTitle(threadId)}: ${describeClientError(error)}`);
        if (threadId === this.view.selectedThreadId) this.update({ snapshotLoading: false, snapshotError: describeClientError(error) });
      }),
      client.on('gap', ({ from, through, inverted }) =>
        this.notice('gap', inverted ? `The relay reported an unusual gap (${from}–${through}); the page checks its threads.` : `Frames ${from}–${through} were missed; recovering from a fresh snapshot.`),
      ),
      client.on('recovery', ({ phase, through }) =>
        this.notice('recovery', phase === 'started' ? `Recovering the stream up to frame ${through}…` : phase === 'completed' ? `Recovered: the stream is complete through frame ${through}.` : 'Recovery failed; reconnecting to try again.'),
      ),
      client.on('reset', ({ epoch }) => {
        // A new stream: partial live text of the old one is meaningless; the refreshed snapshot holds what was said.
        const turns = new Map<string, readonly TurnView[]>();
        for (const [threadId, list] of this.view.turns) turns.set(threadId, list.map((turn) => ({ ...turn, messages: turn.messages.filter((message) => message.completed) })));
        this.view = { ...this.view, turns };
        this.notice('reset', `The workspace's stream restarted (epoch ${epoch}); threads were refreshed from snapshots.`);
      }),
    );
  }

  private onOnline(): void {
    void this.loadThreads();
    // A thread that was open before a reconnect stays open in the client; refresh it here only if the page never got it.
    const selected = this.view.selectedThreadId;
    if (selected && !this.view.snapshot) void this.selectThread(selected);
  }

  private async mintDescriptor(): Promise<SessionDescriptor> {
    try {
      const descriptor = await api.post<SessionDescriptor>(`/workspaces/${segment(this.workspaceId)}/session-descriptors`);
      if (this.view.descriptorError) this.update({ descriptorError: undefined });
      return descriptor;
    } catch (error) {
      if (error instanceof ApiError) this.update({ descriptorError: error });
      throw error;
    }
  }

  // ---- view updates -------------------------------------------------------------------------------------

  /**
   * A snapshot that stands in for frames the page never got (a gap, a reset): a turn still running here that
   * the snapshot no longer has running ended in those frames. Its end will not arrive, so it is shown as ended,
   * and its half-streamed messages are dropped: the snapshot's history holds what was said, once.
   */
  private settleMissedTurns(threadId: string, snapshot: ThreadSnapshot): void {
    const list = this.view.turns.get(threadId);
    const active = snapshot.activeTurn?.id;
    if (!list?.some((turn) => turn.state === 'started' && turn.turnId !== undefined && turn.turnId !== active)) return;
    const turns = new Map(this.view.turns);
    turns.set(
      threadId,
      list.map((turn) =>
        turn.state === 'started' && turn.turnId !== undefined && turn.turnId !== active ? { ...turn, state: 'ended', messages: turn.messages.filter((message) => message.completed) } : turn,
      ),
    );
    this.view = { ...this.view, turns };
    this.schedule();
  }

  private patchTurn(threadId: string, turnId: string | undefined, change: (turn: TurnView) => TurnView): void {
    const key = turnId ?? NO_TURN;
    const list = this.view.turns.get(threadId) ?? [];
    const index = list.findIndex((turn) => turn.key === key);
    const current: TurnView =
      index >= 0
        ? (list[index] as TurnView)
        : {
            key,
            threadId,
            ...(turnId === undefined ? {} : { turnId }),
            state: 'started',
            messages: [],
            reasoning: [],
            tools: [],
            interactionIds: [],
            // A thread not on screen has no snapshot here: any message of its next snapshot may stand in.
            baseSequence: threadId === this.view.selectedThreadId ? lastSequence(this.view.snapshot) : -1,
          };
    const next = change(current);
    const updated = index >= 0 ? list.map((turn, at) => (at === index ? next : turn)) : [...list, next].slice(-MAX_TURNS_PER_THREAD);
    const turns = new Map(this.view.turns);
    turns.set(threadId, updated);
    this.view = { ...this.view, turns };
    this.schedule();
  }

  private patchInteraction(interactionId: string, change: (view: InteractionView) => InteractionView): void {
    const current = this.view.interactions.get(interactionId);
    if (!current) return;
    const interactions = new Map(this.view.interactions);
    interactions.set(interactionId, change(current));
    this.update({ interactions });
  }

  private notice(kind: StreamNotice['kind'], text: string): void {
    this.noticeId += 1;
    this.update({ notices: [...this.view.notices, { id: this.noticeId, at: Date.now(), kind, text }].slice(-MAX_NOTICES) });
  }

  private threadTitle(threadId: string): string {
    const thread = this.view.threads.find((item) => item.id === threadId);
    return thread?.title ? `“${thread.title}”` : threadId.slice(0, 8);
  }

  private requestFailure(error: unknown, what: string): string {
    if (error && typeof error === 'object' && 'code' in error && 'kind' in error) {
      const failure = error as RelayClientError;
      if (failure.kind === 'remote') return `The workspace refused to ${what} (${failure.code}).`;
      if (failure.code === 'OUTCOME_UNKNOWN') return `The connection dropped before the workspace confirmed; it may or may not have gone through. Check the thread before trying to ${what} again.`;
      return `Could not ${what}: ${describeClientError(failure)}`;
    }
    return `Could not ${what}.`;
  }

  private update(patch: Partial<LiveView>): void {
    this.view = { ...this.view, ...patch };
    this.schedule();
  }

  /** Tells listeners once per animation frame (or after 100 ms when frames are not drawn, e.g. a hidden tab). */
  private schedule(): void {
    if (this.scheduled) return;
    this.scheduled = true;
    let done = false;
    const flush = () => {
      if (done) return;
      done = true;
      this.scheduled = false;
      for (const listener of this.listeners) listener();
    };
    requestAnimationFrame(flush);
    setTimeout(flush, 100);
  }
}
