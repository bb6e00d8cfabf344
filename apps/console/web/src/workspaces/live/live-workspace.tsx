/**
 * The live workspace panel: connection and workspace state, threads, the selected thread's timeline
 * (history from its snapshot, then this session's turns streaming in with reasoning, tool calls and
 * interactions), stream notices, and a composer. Stable `data-testid`s name what the browser tests and the
 * render benchmark look for; `window.__trustmeshConsole.framesRendered` counts sequenced frames the page has
 * applied and painted.
 */
import { Alert, Badge, Button, Grid, Group, Loader, NavLink, Paper, ScrollArea, Stack, Text, Textarea, TextInput, Title } from '@mantine/core';
import type { ThreadSnapshot } from '@trustmesh/relay-client';
import { memo, useCallback, useEffect, useMemo, useRef, useState, useSyncExternalStore, type FormEvent } from 'react';

import type { Workspace } from '../../api/console-types';
import { InteractionCard } from './interaction-card';
import { LiveWorkspace, type InteractionView, type LiveView, type TurnView } from './live-workspace.store';
import { unsnapshotted } from './turn-history';

declare global {
  interface Window {
    __trustmeshConsole?: { framesRendered: number };
  }
}

const MAX_PROMPT = 4_000;

export function LiveWorkspacePanel({ workspace }: { workspace: Workspace }) {
  const [live, setLive] = useState<LiveWorkspace | null>(null);
  // A client that ended for good (a refused session, a fatal relay error) is replaced on request.
  const [generation, setGeneration] = useState(0);
  const reconnect = useCallback(() => setGeneration((value) => value + 1), []);
  useEffect(() => {
    const created = new LiveWorkspace(workspace.workspaceId);
    setLive(created);
    created.start();
    return () => created.stop();
  }, [workspace.workspaceId, generation]);

  if (workspace.endToEndEncrypted) {
    return (
      <Alert color="yellow" title="End-to-end encrypted workspace" data-testid="live-unavailable">
        This workspace encrypts everything between its Companion and its browsers, and the console does not hold the workspace key. Open it from a client that
        holds the key.
      </Alert>
    );
  }
  if (!live) return <Loader role="status" aria-label="Starting the live view" />;
  return <LiveWorkspaceView key={live.instance} live={live} reconnect={reconnect} />;
}

/** Adds the frames a committed view has applied to the page counter once the browser has painted them. */
function useFramesPainted(appliedFrames: number): void {
  const counted = useRef(0);
  useEffect(() => {
    const pending = appliedFrames - counted.current;
    if (pending <= 0) return;
    counted.current = appliedFrames;
    requestAnimationFrame(() =>
      setTimeout(() => {
        const page = (window.__trustmeshConsole ??= { framesRendered: 0 });
        page.framesRendered += pending;
      }, 0),
    );
  }, [appliedFrames]);
}

/** Interactions waiting for the person, per thread (a thread not on screen still shows it has some). */
function waitingByThread(interactions: ReadonlyMap<string, InteractionView>): Readonly<Record<string, number>> {
  const waiting: Record<string, number> = {};
  for (const { interaction, change } of interactions.values()) {
    if (change === 'pending' || change === 'offered-again' || change === 'responding') waiting[interaction.threadId] = (waiting[interaction.threadId] ?? 0) + 1;
  }
  return waiting;
}

function LiveWorkspaceView({ live, reconnect }: { live: LiveWorkspace; reconnect: () => void }) {
  const view = useSyncExternalStore(live.subscribe, live.getView);
  useFramesPainted(view.appliedFrames);
  const waiting = useMemo(() => waitingByThread(view.interactions), [view.interactions]);
  return (
    <Stack gap="md" data-testid="live-workspace">
      <ConnectionBar
        connection={view.connection}
        workspaceStatus={view.workspaceStatus}
        attempt={view.attempt}
        retryAt={view.retryAt}
        wireVersion={view.wireVersion}
        lastError={view.lastError}
        descriptorError={view.descriptorError}
        reconnect={reconnect}
      />
      <Grid>
        <Grid.Col span={{ base: 12, md: 4 }}>
          <ThreadList
            threads={view.threads}
            selectedThreadId={view.selectedThreadId}
            nextCursor={view.threadsNextCursor}
            loading={view.threadsLoading}
            error={view.threadsError}
            online={view.connection === 'ready' && view.workspaceStatus === 'online'}
            waiting={waiting}
            live={live}
          />
        </Grid.Col>
        <Grid.Col span={{ base: 12, md: 8 }}>
          <ThreadTimeline view={view} live={live} />
        </Grid.Col>
      </Grid>
    </Stack>
  );
}

const CONNECTION: Record<string, { label: string; color: string }> = {
  idle: { label: 'not connected', color: 'gray' },
  connecting: { label: 'connecting', color: 'blue' },
  ready: { label: 'connected', color: 'teal' },
  waiting: { label: 'reconnecting', color: 'orange' },
  closed: { label: 'closed', color: 'red' },
};

type ConnectionProps = Pick<LiveView, 'connection' | 'workspaceStatus' | 'attempt' | 'retryAt' | 'wireVersion' | 'lastError' | 'descriptorError'> & { reconnect: () => void };

/** Re-rendered only when the connection changes, not on every streamed frame. */
const ConnectionBar = memo(function ConnectionBar(view: ConnectionProps) {
  const [now, setNow] = useState(() => Date.now());
  useEffect(() => {
    if (view.connection !== 'waiting') return undefined;
    const timer = setInterval(() => setNow(Date.now()), 500);
    return () => clearInterval(timer);
  }, [view.connection]);
  const connection = CONNECTION[view.connection] ?? { label: view.connection, color: 'gray' };
  const retryIn = view.retryAt ? Math.max(0, Math.ceil((view.retryAt - now) / 1000)) : 0;
  return (
    <Paper withBorder p="sm" radius="md">
      <Group justify="space-between" wrap="wrap">
        <Group gap="sm" role="status" aria-live="polite">
          <Badge color={connection.color} variant="dot" size="lg" data-testid="connection-state" data-state={view.connection}>
            Relay: {connection.label}
          </Badge>
          <Badge
            color={view.workspaceStatus === 'online' ? 'teal' : 'gray'}
            variant="light"
            size="lg"
            data-testid="workspace-status"
            data-status={view.workspaceStatus}
          >
            Companion {view.workspaceStatus === 'unknown' ? 'status unknown' : view.workspaceStatus}
          </Badge>
          {view.connection === 'waiting' && (
            <Text size="sm" c="dimmed" data-testid="retry-countdown">
              attempt {view.attempt}; next try in {retryIn} s
            </Text>
          )}
          {view.connection === 'closed' && (
            <Button size="xs" variant="light" onClick={view.reconnect}>
              Connect again
            </Button>
          )}
          {view.wireVersion && view.connection === 'ready' && (
            <Text size="xs" c="dimmed">
              Wire {view.wireVersion}
            </Text>
          )}
        </Group>
      </Group>
      {view.workspaceStatus === 'offline' && view.connection === 'ready' && (
        <Text size="sm" mt="xs">
          The Companion is offline: start it (or the companion simulator) and pair it if needed. Threads and answers wait until it is back.
        </Text>
      )}
      {view.descriptorError && view.connection !== 'ready' && (
        <Alert color="red" variant="light" mt="xs" role="alert" data-testid="error-alert" data-code={view.descriptorError.code}>
          {view.descriptorError.message}
        </Alert>
      )}
      {view.lastError && view.connection !== 'ready' && !view.descriptorError && (
        <Text size="sm" c="red" mt="xs" data-testid="connection-error" data-code={view.lastError.code}>
          {view.lastError.text}
        </Text>
      )}
    </Paper>
  );
});

interface ThreadListProps {
  threads: LiveView['threads'];
  selectedThreadId: string | undefined;
  nextCursor: string | null;
  loading: boolean;
  error: string | undefined;
  online: boolean;
  waiting: Readonly<Record<string, number>>;
  live: LiveWorkspace;
}

/** Re-rendered only when the threads or the selection change (a workspace may list hundreds). */
const ThreadList = memo(function ThreadList({ threads, selectedThreadId, nextCursor, loading, error, online, waiting, live }: ThreadListProps) {
  const [title, setTitle] = useState('');
  const [creating, setCreating] = useState(false);
  const create = async (event: FormEvent) => {
    event.preventDefault();
    setCreating(true);
    const id = await live.createThread(title);
    setCreating(false);
    if (id) setTitle('');
  };
  return (
    <Paper withBorder p="sm" radius="md" component="section" aria-labelledby="threads-title">
      <Title order={2} size="h4" id="threads-title" mb="xs">
        Threads
      </Title>
      <form onSubmit={(event) => void create(event)}>
        <Group gap="xs" align="flex-end" mb="sm" wrap="nowrap">
          <TextInput label="New thread title" size="xs" maxLength={200} value={title} onChange={(event) => setTitle(event.currentTarget.value)} style={{ flex: 1 }} />
          <Button size="xs" type="submit" loading={creating} disabled={!online}>
            Create
          </Button>
        </Group>
      </form>
      {error && (
        <Alert color="red" variant="light" mb="xs" role="alert">
          {error}
        </Alert>
      )}
      {threads.length === 0 && !loading && (
        <Text size="sm" c="dimmed">
          {online ? 'No threads yet: create one to start.' : 'Threads appear once the Companion is online.'}
        </Text>
      )}
      <Stack gap={2} data-testid="thread-list">
        {threads.map((thread) => (
          <NavLink
            key={thread.id}
            component="button"
            type="button"
            label={thread.title ?? 'Untitled thread'}
            description={`${thread.messageCount} messages · ${new Date(thread.updatedAt).toLocaleString()}`}
            active={thread.id === selectedThreadId}
            aria-current={thread.id === selectedThreadId ? 'true' : undefined}
            onClick={() => void live.selectThread(thread.id)}
            rightSection={
              waiting[thread.id] ? (
                <Badge color="yellow" size="sm" circle aria-label={`${waiting[thread.id]} waiting for your answer`} data-testid="thread-waiting">
                  {waiting[thread.id]}
                </Badge>
              ) : undefined
            }
            data-testid="thread-item"
            data-thread-id={thread.id}
          />
        ))}
      </Stack>
      {loading && <Loader role="status" size="sm" mt="xs" aria-label="Loading threads" />}
      {nextCursor && !loading && (
        <Button size="xs" variant="subtle" mt="xs" onClick={() => void live.loadThreads(true)}>
          Load more threads
        </Button>
      )}
    </Paper>
  );
});

function ThreadTimeline({ view, live }: { view: LiveView; live: LiveWorkspace }) {
  const selected = view.selectedThreadId;
  const snapshot = view.snapshot;
  const turns = selected ? (view.turns.get(selected) ?? []) : [];
  const used = new Set<number>();
  const cards = turns.map((turn) => ({ turn, ...unsnapshotted(turn, snapshot, used) }));
  const pendingApprovals = snapshot?.pendingApprovals ?? [];
  // Follow the stream while the person is at the bottom; leave them where they are once they scroll up.
  const viewport = useRef<HTMLDivElement>(null);
  const following = useRef(true);
  useEffect(() => {
    const element = viewport.current;
    if (element && following.current) element.scrollTop = element.scrollHeight;
  });
  return (
    <Paper withBorder p="sm" radius="md" component="section" aria-labelledby="timeline-title">
      <Group justify="space-between" mb="xs">
        <Title order={2} size="h4" id="timeline-title">
          {snapshot?.thread.title ?? (selected ? 'Thread' : 'Timeline')}
        </Title>
        {snapshot?.activeTurn && (
          <Badge color="blue" variant="light" data-testid="active-turn">
            turn {snapshot.activeTurn.status}
          </Badge>
        )}
      </Group>
      {!selected && (
        <Text size="sm" c="dimmed">
          Choose a thread on the left, or create one.
        </Text>
      )}
      {selected && view.snapshotLoading && !snapshot && <Loader role="status" size="sm" aria-label="Loading the thread" />}
      {view.snapshotError && (
        <Alert color="red" variant="light" role="alert" mb="xs">
          {view.snapshotError}
        </Alert>
      )}
      {selected && (
        <ScrollArea.Autosize
          mah="60vh"
          type="auto"
          viewportRef={viewport}
          onScrollPositionChange={() => {
            const element = viewport.current;
            if (element) following.current = element.scrollHeight - element.scrollTop - element.clientHeight < 48;
          }}
          viewportProps={{ tabIndex: 0, role: 'region', 'aria-label': 'Thread timeline' }}
        >
          <Stack gap="xs" data-testid="timeline" aria-live="polite">
            {snapshot?.messages.nextBeforeSequence !== null && snapshot?.messages.nextBeforeSequence !== undefined && (
              <Text size="xs" c="dimmed">
                Older messages are not shown.
              </Text>
            )}
            {history(snapshot).map((item) =>
              item.kind === 'message' ? (
                <MessageBubble key={`s${item.message.sequence}`} role={item.message.role} text={item.message.parts.map((part) => part.text).join('')} sequence={item.message.sequence} />
              ) : (
                <ToolRow key={`o${item.operation.id}`} toolCallId={item.operation.toolCallId} agentName={item.operation.agentName} toolName={item.operation.toolName} status="completed" outcome={item.operation.outcome.kind} />
              ),
            )}
            {cards.map(({ turn, prompt, messages, tools }) => (
              <TurnCard key={turn.key} turn={turn} prompt={prompt} messages={messages} tools={tools} interactions={view.interactions} live={live} />
            ))}
            {pendingApprovals.length > 0 && (
              <Text size="xs" c="dimmed">
                {pendingApprovals.length} approval{pendingApprovals.length === 1 ? '' : 's'} pending in the runtime; the answerable request appears in its turn.
              </Text>
            )}
            <Notices view={view} />
          </Stack>
        </ScrollArea.Autosize>
      )}
      {selected && <Composer online={view.connection === 'ready' && view.workspaceStatus === 'online'} live={live} />}
    </Paper>
  );
}

const MessageBubble = memo(function MessageBubble({ role, text, streaming = false, sequence }: { role: 'user' | 'assistant'; text: string; streaming?: boolean; sequence?: number }) {
  return (
    <Paper
      p="xs"
      radius="md"
      bg={role === 'user' ? 'var(--mantine-color-default-hover)' : undefined}
      withBorder={role === 'assistant'}
      data-testid="message"
      data-role={role}
      data-streaming={streaming ? 'true' : 'false'}
      data-sequence={sequence}
    >
      <Text size="xs" c="dimmed" fw={500}>
        {role === 'user' ? 'You' : 'Agent'}
        {streaming ? ' · writing…' : ''}
      </Text>
      <Text size="sm" style={{ whiteSpace: 'pre-wrap', overflowWrap: 'anywhere' }}>
        {text}
      </Text>
    </Paper>
  );
});

type HistoryItem = { kind: 'message'; message: ThreadSnapshot['messages']['items'][number] } | { kind: 'operation'; operation: ThreadSnapshot['operations']['items'][number] };

/** The snapshot's messages and tool calls in the thread's own order. */
function history(snapshot: ThreadSnapshot | undefined): HistoryItem[] {
  if (!snapshot) return [];
  const items: HistoryItem[] = [
    ...snapshot.messages.items.map((message) => ({ kind: 'message' as const, message })),
    ...snapshot.operations.items.map((operation) => ({ kind: 'operation' as const, operation })),
  ];
  const sequence = (item: HistoryItem) => (item.kind === 'message' ? item.message.sequence : item.operation.sequence);
  return items.sort((a, b) => sequence(a) - sequence(b));
}

const ToolRow = memo(function ToolRow({
  toolCallId,
  agentName,
  toolName,
  status,
  outcome,
}: {
  toolCallId: string;
  agentName: string;
  toolName: string;
  status: 'started' | 'completed';
  outcome?: string | undefined;
}) {
  return (
    <Group gap="xs" data-testid="tool-call" data-tool-call-id={toolCallId} data-status={status} data-outcome={outcome}>
      {/* Outline text in the palette's default shade is under 4.5:1 on white (axe color-contrast): darker shades. */}
      <Badge size="sm" variant="outline" color={status === 'started' ? 'blue.9' : outcome === 'success' ? 'teal.9' : 'orange.9'}>
        {status === 'started' ? 'running' : (outcome ?? 'done').replaceAll('_', ' ')}
      </Badge>
      <Text size="sm">
        {agentName} · <code>{toolName}</code>
      </Text>
    </Group>
  );
});

const TURN_STATE: Record<string, { label: string; color: string }> = {
  started: { label: 'running', color: 'blue' },
  completed: { label: 'completed', color: 'teal' },
  cancelled: { label: 'cancelled', color: 'gray' },
  failed: { label: 'failed', color: 'red' },
  ended: { label: 'ended while away', color: 'gray' },
};

const TurnCard = memo(function TurnCard({
  turn,
  prompt,
  messages,
  tools,
  interactions,
  live,
}: {
  turn: TurnView;
  prompt: string | undefined;
  messages: TurnView['messages'];
  tools: TurnView['tools'];
  interactions: ReadonlyMap<string, InteractionView>;
  live: LiveWorkspace;
}) {
  const state = TURN_STATE[turn.state] ?? { label: turn.state, color: 'gray' };
  const [cancelError, setCancelError] = useState<string | undefined>();
  return (
    <Paper component="article" withBorder p="xs" radius="md" data-testid="turn" data-turn-id={turn.turnId} data-state={turn.state} aria-label={`Turn, ${state.label}`}>
      <Group justify="space-between" mb={4}>
        <Badge color={state.color} variant="light" size="sm" data-testid="turn-state">
          turn {state.label}
          {turn.stage ? ` (${turn.stage})` : ''}
        </Badge>
        {turn.state === 'started' && turn.turnId && (
          <Button size="compact-xs" variant="subtle" color="gray" onClick={() => void live.cancelTurn(turn.threadId, turn.turnId as string).then(setCancelError)}>
            Cancel turn
          </Button>
        )}
      </Group>
      {cancelError && (
        <Text size="xs" c="red">
          {cancelError}
        </Text>
      )}
      <Stack gap={6}>
        {prompt !== undefined && <MessageBubble role="user" text={prompt} />}
        {turn.reasoning.map((item) => (
          <Text key={item.reasoningId} size="xs" c="dimmed" fs="italic" data-testid="reasoning" style={{ whiteSpace: 'pre-wrap' }}>
            Thinking: {item.text}
          </Text>
        ))}
        {tools.map((tool) => (
          <ToolRow key={tool.toolCallId} {...tool} />
        ))}
        {turn.interactionIds.map((id) => {
          const view = interactions.get(id);
          return view ? <InteractionCard key={id} view={view} live={live} /> : null;
        })}
        {messages.map((message) => (
          <MessageBubble key={message.streamId} role="assistant" text={message.text} streaming={!message.completed} />
        ))}
      </Stack>
    </Paper>
  );
});

function Notices({ view }: { view: LiveView }) {
  if (view.notices.length === 0) return null;
  return (
    <Stack gap={4} data-testid="stream-notices">
      {view.notices.slice(-8).map((notice) => (
        <Alert
          key={notice.id}
          color={notice.kind === 'recovery' && notice.text.startsWith('Recovered') ? 'teal' : notice.kind === 'gap' || notice.kind === 'reset' ? 'yellow' : 'blue'}
          variant="light"
          p="xs"
          data-testid="stream-notice"
          data-kind={notice.kind}
        >
          <Text size="xs">
            {new Date(notice.at).toLocaleTimeString()} · {notice.text}
          </Text>
        </Alert>
      ))}
    </Stack>
  );
}

/** Typing re-renders only the composer; streamed frames do not re-render it. */
const Composer = memo(function Composer({ online, live }: { online: boolean; live: LiveWorkspace }) {
  const [text, setText] = useState('');
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | undefined>();
  const submit = async (event: FormEvent) => {
    event.preventDefault();
    if (!text.trim()) return;
    setBusy(true);
    setError(undefined);
    const failure = await live.startTurn(text.trim());
    setBusy(false);
    if (failure) setError(failure);
    else setText('');
  };
  return (
    <form onSubmit={(event) => void submit(event)} data-testid="composer">
      <Stack gap="xs" mt="sm">
        <Textarea
          label="Message to the agent"
          autosize
          minRows={2}
          maxRows={8}
          maxLength={MAX_PROMPT}
          value={text}
          onChange={(event) => setText(event.currentTarget.value)}
          onKeyDown={(event) => {
            if (event.key === 'Enter' && (event.metaKey || event.ctrlKey)) void submit(event);
          }}
          description={online ? 'Ctrl+Enter sends.' : 'Sending waits for the Companion to be online.'}
        />
        {error && (
          <Alert color="red" variant="light" role="alert">
            {error}
          </Alert>
        )}
        <Group justify="flex-end">
          <Button type="submit" loading={busy} disabled={!online || !text.trim()}>
            Send
          </Button>
        </Group>
      </Stack>
    </form>
  );
});
