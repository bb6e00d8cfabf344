/**
 * The live workspace in a real browser: Vite builds the page, headless Chromium loads it, the page's
 * `RelayClient` connects with the browser's own WebSocket to a relay this test plays frame by frame, and the
 * test reads what a person sees: connection state, a streamed answer, an approval and a form answered and
 * settling, a gap recovered with a notice, no message shown twice, the frame counter, and a reconnect.
 *
 * The console backend is out of scope here (apps/console has its own tests): a stand-in answers the few API
 * routes the page calls, checking the CSRF token on the descriptor mint as the real one does.
 */
import { execFileSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import { tmpdir } from 'node:os';
import { extname, join } from 'node:path';

import type { Wire12 } from '@trustmesh/relay-protocol';
import { chromium, type BrowserContext, type Page } from 'playwright-core';
import { WebSocketServer, type WebSocket } from 'ws';

const workspaceRoot = join(__dirname, '..', '..', '..', '..');
const WORKSPACE = '0190c1d2-3e4f-7a5b-8c6d-7e8f9a0b1c2d';
const RUNTIME = '0190c1d2-3e4f-7a5b-8c6d-7e8f9a0b1c40';
const CSRF = 'csrf-token-of-this-session';
let counter = 0;
const uuid = () => `00000000-0000-4000-8000-${(counter += 1).toString(16).padStart(12, '0')}`;

/** The relay, played by the test: each connection hands the test the frames the page sends. */
class PlayedRelay {
  private readonly connections: Array<(socket: Connection) => void> = [];
  private readonly queued: Connection[] = [];
  constructor(readonly server: WebSocketServer) {
    server.on('connection', (socket) => {
      const connection = new Connection(socket);
      const waiter = this.connections.shift();
      if (waiter) waiter(connection);
      else this.queued.push(connection);
    });
  }
  get port(): number {
    const address = this.server.address();
    return typeof address === 'object' && address ? address.port : 0;
  }
  next(): Promise<Connection> {
    const queued = this.queued.shift();
    return queued ? Promise.resolve(queued) : new Promise((resolve) => this.connections.push(resolve));
  }
}

class Connection {
  private readonly inbox: Array<Record<string, unknown>> = [];
  private readonly waiters: Array<(frame: Record<string, unknown>) => void> = [];
  constructor(readonly socket: WebSocket) {
    socket.on('message', (data) => {
      const frame = JSON.parse(String(data)) as Record<string, unknown>;
      const waiter = this.waiters.shift();
      if (waiter) waiter(frame);
      else this.inbox.push(frame);
    });
  }
  send(frame: unknown): void {
    this.socket.send(JSON.stringify(frame));
  }
  private nextFrame(): Promise<Record<string, unknown>> {
    const queued = this.inbox.shift();
    return queued ? Promise.resolve(queued) : new Promise((resolve) => this.waiters.push(resolve));
  }
  /** The next request of `method` (ACKs in between skipped). */
  async request(method: string): Promise<{ requestId: string; params: Record<string, unknown> }> {
    for (;;) {
      const frame = await this.nextFrame();
      if (frame['type'] === 'runtime.request' && frame['method'] === method) return frame as never;
    }
  }
  respond(requestId: string, result: unknown): void {
    this.send({ type: 'runtime.response', requestId, workspaceId: WORKSPACE, result });
  }
}

type TimelineEvent = Wire12.RuntimeEventFrame['event']['event'];
const sessionReady = () => ({ type: 'session.ready', controlVersion: '1.0', relayProtocolVersion: '1.2', sessionId: uuid(), workspaceId: WORKSPACE, workspaceStatus: 'online' });
const thread = (id: string) => ({ id, title: 'Release notes', createdAt: '2026-01-01T00:00:00Z', updatedAt: '2026-01-01T00:00:00Z', messageCount: 0 });
const event = (relaySequence: number, threadId: string, turnId: string, timeline: TimelineEvent): Wire12.RuntimeEventFrame => ({
  type: 'runtime.event',
  workspaceId: WORKSPACE,
  relaySequence,
  event: { protocolVersion: '1.1', runtimeInstanceId: RUNTIME, sequence: relaySequence, timestamp: '2026-01-01T00:00:00Z', threadId, turnId, event: timeline },
});
const snapshot = (threadId: string, messages: Array<[number, 'user' | 'assistant', string]>): Wire12.ThreadSnapshotResult => ({
  thread: thread(threadId),
  messages: { items: messages.map(([sequence, role, text]) => ({ sequence, role, createdAt: '2026-01-01T00:00:00Z', parts: [{ type: 'text', text }] })), nextBeforeSequence: null },
  operations: { items: [], nextBeforeSequence: null },
  pendingApprovals: [],
  transcriptCompleteness: 'complete',
});
const terminal = (relaySequence: number, request: Wire12.InteractionRequestFrame) => ({
  type: 'interaction.resolved',
  workspaceId: WORKSPACE,
  relaySequence,
  interactionId: request.interactionId,
  threadId: request.threadId,
  turnId: request.turnId,
  method: request.method,
});

let outDir: string;
let relay: PlayedRelay;
let http: Server;
let context: BrowserContext;
let page: Page;
let profile: string;
const pageErrors: string[] = [];

beforeAll(async () => {
  outDir = mkdtempSync(join(tmpdir(), 'console-web-'));
  execFileSync(process.execPath, [join(workspaceRoot, 'node_modules/vite/bin/vite.js'), 'build', '--config', 'apps/console/web/vite.config.mts', '--outDir', outDir, '--emptyOutDir', '--logLevel', 'error'], {
    cwd: workspaceRoot,
    stdio: 'inherit',
  });
  relay = new PlayedRelay(new WebSocketServer({ host: '127.0.0.1', port: 0 }));
  await new Promise<void>((resolve) => relay.server.once('listening', () => resolve()));
  let tickets = 0;
  http = createServer((request, response) => {
    const url = new URL(request.url ?? '/', 'http://page');
    const json = (status: number, body: unknown): void => {
      response.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify(body));
    };
    if (url.pathname === '/api/v1/session') return json(200, { account: { accountId: 'a', username: 'ana' }, csrfToken: CSRF });
    if (url.pathname === `/api/v1/workspaces/${WORKSPACE}/session-descriptors`) {
      if (request.method !== 'POST' || request.headers['x-csrf-token'] !== CSRF) return json(403, { error: { code: 'CONSOLE_CSRF_INVALID', message: 'Reload the page.' } });
      tickets += 1;
      return json(200, { connectUrl: `ws://127.0.0.1:${relay.port}/v1/browser?ticket=t${tickets}`, expiresAt: '2999-01-01T00:00:00Z' });
    }
    if (url.pathname === `/api/v1/workspaces/${WORKSPACE}`) {
      return json(200, { workspaceId: WORKSPACE, displayName: 'Laptop', createdAt: '2026-01-01T00:00:00Z', endToEndEncrypted: false, status: { connectivity: 'online', browserSessionCount: 1 } });
    }
    if (url.pathname.startsWith('/api/')) return json(200, { items: [], nextCursor: null });
    let file = join(outDir, url.pathname);
    if (!file.startsWith(outDir) || !existsSync(file) || statSync(file).isDirectory()) file = join(outDir, 'index.html');
    response.writeHead(200, { 'content-type': ({ '.js': 'text/javascript', '.css': 'text/css' } as Record<string, string>)[extname(file)] ?? 'text/html' }).end(readFileSync(file));
  });
  await new Promise<void>((resolve) => http.listen(0, '127.0.0.1', () => resolve()));
  profile = mkdtempSync(join(tmpdir(), 'console-web-chromium-'));
  context = await chromium.launchPersistentContext(profile, {
    executablePath: '/usr/bin/chromium',
    headless: true,
    args: ['--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-component-update', '--no-first-run'],
  });
  page = context.pages()[0] ?? (await context.newPage());
  page.on('pageerror', (error) => pageErrors.push(error.message));
  page.on('console', (message) => {
    if (message.type() === 'error' && !message.text().startsWith('Failed to load resource')) pageErrors.push(message.text());
  });
}, 120_000);

afterAll(async () => {
  await context?.close();
  for (const client of relay?.server.clients ?? []) client.terminate();
  await new Promise<void>((resolve) => (relay ? relay.server.close(() => resolve()) : resolve()));
  await new Promise<void>((resolve) => (http ? http.close(() => resolve()) : resolve()));
  for (const dir of [outDir, profile]) if (dir) rmSync(dir, { recursive: true, force: true });
});

it('streams a turn, settles an approval and a form, recovers a gap and reconnects without showing anything twice', async () => {
  const address = http.address();
  await page.goto(`http://127.0.0.1:${typeof address === 'object' && address ? address.port : 0}/workspaces/${WORKSPACE}`);
  const relayed = await relay.next();
  relayed.send(sessionReady());
  const threadId = uuid();
  const list = await relayed.request('thread.list');
  relayed.respond(list.requestId, { items: [thread(threadId)], nextCursor: null });
  await page.waitForSelector('[data-testid=connection-state][data-state=ready]');
  await page.waitForSelector('[data-testid=workspace-status][data-status=online]');

  await page.locator(`[data-testid=thread-item][data-thread-id="${threadId}"]`).click();
  const open = await relayed.request('thread.open');
  relayed.respond(open.requestId, snapshot(threadId, [[1, 'user', 'Earlier question']]));
  await page.waitForSelector('[data-testid=message][data-sequence="1"]');

  await page.getByLabel('Message to the agent').fill('Prepare the notes');
  await page.getByRole('button', { name: 'Send' }).click();
  const start = await relayed.request('turn.start');
  expect(start.params['input']).toEqual({ text: 'Prepare the notes' });
  const turnId = start.params['turnId'] as string;
  relayed.respond(start.requestId, { accepted: true, turnId });

  let sequence = -1;
  const emit = (timeline: TimelineEvent) => relayed.send(event((sequence += 1), threadId, turnId, timeline));
  const stream = uuid();
  emit({ type: 'turn.started' });
  emit({ type: 'reasoning.summary.delta', reasoningId: uuid(), delta: 'Reading the commits' });
  emit({ type: 'message.started', streamId: stream });
  for (const word of ['Here ', 'are ', 'the ', 'notes']) emit({ type: 'message.delta', streamId: stream, delta: word });
  await page.locator('[data-testid=turn] [data-testid=message][data-streaming=true]', { hasText: 'Here are the notes' }).waitFor();
  await page.locator('[data-testid=reasoning]', { hasText: 'Reading the commits' }).waitFor();
  const toolCallId = uuid();
  emit({ type: 'tool.started', toolCallId, agentName: 'builder', toolName: 'git_log' });
  await page.locator(`[data-testid=tool-call][data-tool-call-id="${toolCallId}"][data-status=started]`).waitFor();
  emit({ type: 'tool.completed', toolCallId, agentName: 'builder', toolName: 'git_log', outcome: { kind: 'success' } });
  await page.locator(`[data-testid=tool-call][data-tool-call-id="${toolCallId}"][data-status=completed]`).waitFor();

  const approval: Wire12.InteractionRequestFrame = {
    type: 'interaction.request',
    workspaceId: WORKSPACE,
    relaySequence: (sequence += 1),
    interactionId: uuid(),
    threadId,
    turnId,
    expiresAt: '2999-01-01T00:00:00Z',
    sensitivity: 'normal',
    method: 'approval.request',
    projection: { approvalId: uuid(), agentName: 'builder', toolName: 'shell', explanation: 'Run the tests' },
  };
  relayed.send(approval);
  const card = page.locator(`[data-testid=approval][data-interaction-id="${approval.interactionId}"]`);
  await card.and(page.locator('[data-state=pending]')).waitFor();
  await card.getByRole('button', { name: 'Approve' }).click();
  const approved = await relayed.request('interaction.candidate');
  expect(approved.params).toMatchObject({ interactionId: approval.interactionId, method: 'approval.request', candidate: { decision: 'approve' } });
  relayed.respond(approved.requestId, { accepted: true });
  relayed.send(terminal((sequence += 1), approval));
  await card.and(page.locator('[data-state=resolved]')).waitFor();
  await expect(card.getByRole('button', { name: 'Approve' }).count()).resolves.toBe(0);

  const form: Wire12.InteractionRequestFrame = {
    type: 'interaction.request',
    workspaceId: WORKSPACE,
    relaySequence: (sequence += 1),
    interactionId: uuid(),
    threadId,
    turnId,
    expiresAt: '2999-01-01T00:00:00Z',
    sensitivity: 'normal',
    method: 'userInput.request',
    projection: {
      title: 'Deploy settings',
      controls: [
        { type: 'choice', id: 'region', label: 'Region', required: true, multiple: false, options: [{ id: 'eu', label: 'EU' }, { id: 'us', label: 'US' }] },
        { type: 'number', id: 'replicas', label: 'Replicas', required: true, min: 1, max: 5, integer: true },
      ],
    },
  };
  relayed.send(form);
  const formCard = page.locator(`[data-testid=form-request][data-interaction-id="${form.interactionId}"]`);
  await formCard.waitFor();
  await formCard.getByLabel('EU').check();
  await formCard.getByRole('textbox', { name: 'Replicas' }).fill('3');
  await formCard.getByRole('button', { name: 'Submit' }).click();
  const submitted = await relayed.request('interaction.candidate');
  expect(submitted.params['candidate']).toEqual({ status: 'submitted', values: [{ id: 'region', value: 'eu' }, { id: 'replicas', value: 3 }] });
  relayed.respond(submitted.requestId, { accepted: true });
  relayed.send(terminal((sequence += 1), form));
  await formCard.and(page.locator('[data-state=resolved]')).waitFor();

  emit({ type: 'message.completed', streamId: stream, text: 'Here are the notes.' });
  // Three frames are lost: the page recovers through a snapshot and says so.
  relayed.send({ type: 'runtime.gap', workspaceId: WORKSPACE, fromRelaySequence: sequence + 1, throughRelaySequence: sequence + 3, recovery: 'thread.snapshot' });
  const recovery = await relayed.request('thread.snapshot');
  relayed.respond(recovery.requestId, snapshot(threadId, [[1, 'user', 'Earlier question'], [2, 'user', 'Prepare the notes']]));
  sequence += 3;
  await page.waitForSelector('[data-testid=stream-notice][data-kind=gap]');
  await page.locator('[data-testid=stream-notice][data-kind=recovery]', { hasText: 'Recovered' }).waitFor();

  emit({ type: 'turn.completed' });
  const refreshed = await relayed.request('thread.snapshot');
  const final = snapshot(threadId, [[1, 'user', 'Earlier question'], [2, 'user', 'Prepare the notes'], [4, 'assistant', 'Here are the notes.']]);
  final.operations.items.push({ id: uuid(), sequence: 3, toolCallId, agentName: 'builder', toolName: 'git_log', createdAt: '2026-01-01T00:00:01Z', outcome: { kind: 'success' }, display: null });
  relayed.respond(refreshed.requestId, final);
  await page.waitForSelector('[data-testid=turn][data-state=completed]');
  await page.waitForSelector('[data-testid=message][data-sequence="4"]');
  await expect(page.locator(`[data-testid=tool-call][data-tool-call-id="${toolCallId}"]`).count()).resolves.toBe(1);
  const messages = await page.locator('[data-testid=message]').allInnerTexts();
  expect(messages.filter((text) => text.includes('Here are the notes.'))).toHaveLength(1);
  expect(messages.filter((text) => text.includes('Prepare the notes'))).toHaveLength(1);
  expect(messages.filter((text) => text.includes('Earlier question'))).toHaveLength(1);
  // Every applied sequenced frame (the three lost ones were never applied) is counted once painted.
  await page.waitForFunction((applied) => window.__trustmeshConsole?.framesRendered === applied, sequence + 1 - 3);

  relayed.socket.terminate();
  await page.waitForSelector('[data-testid=connection-state][data-state=waiting]');
  const again = await relay.next();
  again.send(sessionReady());
  await page.waitForSelector('[data-testid=connection-state][data-state=ready]');
  expect(pageErrors).toEqual([]);
});

it('has no serious accessibility violations with a turn, an approval and notices on screen', async () => {
  await page.addScriptTag({ content: readFileSync(require.resolve('axe-core/axe.min.js'), 'utf8') });
  const violations = await page.evaluate(async () => {
    const axe = (window as unknown as { axe: { run: (context: Document) => Promise<{ violations: Array<{ id: string; impact: string | null; nodes: unknown[] }> }> } }).axe;
    const result = await axe.run(document);
    return result.violations.filter((violation) => violation.impact === 'serious' || violation.impact === 'critical').map((violation) => `${violation.id} (${violation.nodes.length}) ${JSON.stringify(violation.nodes.map((node) => (node as { html: string }).html.slice(0, 160)))}`);
  });
  expect(violations).toEqual([]);
});

declare global {
  interface Window {
    __trustmeshConsole?: { framesRendered: number };
  }
}
