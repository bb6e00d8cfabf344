/**
 * Proof that the library runs in a real browser: esbuild bundles `browser-entry.ts` (the client and the
 * encryption profile, no Node built-ins), a local HTTP server serves it, headless Chromium loads the page,
 * and the page's RelayClient talks to a scripted relay over the browser's own WebSocket and WebCrypto.
 */
import { createServer, type Server } from 'node:http';
import { join } from 'node:path';

import { createWorkspaceCipher, exportPrivateKey, exportPublicKey, generateRelayKeyPair } from '@trustmesh/relay-encryption';
import { build } from 'esbuild';
import { chromium, type Browser, type Page } from 'playwright-core';

import { approvalRequest, interactionTerminal, runtimeEvent, sessionReady, snapshotResult, uuid, WORKSPACE } from '../test/frames';
import { ScriptedRelay } from '../test/scripted-relay';

const workspaceRoot = join(__dirname, '..', '..', '..', '..');

let relay: ScriptedRelay;
let http: Server;
let pageUrl: string;
let browser: Browser;
let page: Page;

/** What the page keeps on `window` for the test to read. */
interface PageState {
  relayTest: { RelayClient: new (options: unknown) => PageClient; createWorkspaceCipher: (options: unknown) => Promise<unknown> };
  client: PageClient;
  seen: Array<{ event: string; payload: unknown }>;
  results: Record<string, unknown>;
}
interface PageClient {
  connect(): Promise<void>;
  close(): void;
  on(event: string, listener: (payload: unknown) => void): () => void;
  cursor: number;
  threads: { open(threadId: string): Promise<unknown>; list(): Promise<unknown> };
  interactions: { approve(interactionId: string): Promise<unknown> };
  pendingInteractions(): Array<{ interactionId: string }>;
}

beforeAll(async () => {
  const bundle = await build({
    entryPoints: [join(__dirname, 'browser-entry.ts')],
    bundle: true,
    write: false,
    format: 'iife',
    platform: 'browser',
    target: 'es2022',
    tsconfig: join(workspaceRoot, 'tsconfig.base.json'),
    logLevel: 'silent',
  });
  const script = bundle.outputFiles[0]?.text ?? '';
  http = createServer((request, response) => {
    if (request.url === '/bundle.js') {
      response.writeHead(200, { 'content-type': 'text/javascript' }).end(script);
      return;
    }
    response.writeHead(200, { 'content-type': 'text/html' }).end('<!doctype html><title>relay client</title><script src="/bundle.js"></script>');
  });
  await new Promise<void>((resolve) => http.listen(0, '127.0.0.1', () => resolve()));
  const address = http.address();
  pageUrl = `http://127.0.0.1:${typeof address === 'object' && address ? address.port : 0}/`;
  relay = await ScriptedRelay.start();
  browser = await chromium.launch({
    executablePath: '/usr/bin/chromium',
    args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-component-update', '--no-first-run'],
  });
  page = await browser.newPage();
  await page.goto(pageUrl);
  await page.waitForFunction(() => 'relayTest' in globalThis);
});

afterAll(async () => {
  await browser?.close();
  await relay?.stop();
  await new Promise<void>((resolve) => (http ? http.close(() => resolve()) : resolve()));
});

/** Starts a RelayClient in the page with the browser's own WebSocket; `cipherKeys` makes it encrypted. */
async function startPageClient(cipherKeys?: { privateKey: string; peerPublicKey: string }): Promise<void> {
  await page.evaluate(
    async ({ port, workspaceId, keys }) => {
      const state = globalThis as unknown as PageState;
      const cipher = keys ? await state.relayTest.createWorkspaceCipher({ workspaceId, ...keys }) : undefined;
      state.seen = [];
      state.results = {};
      state.client = new state.relayTest.RelayClient({
        descriptor: async () => ({ connectUrl: `ws://127.0.0.1:${port}/v1/browser?ticket=${crypto.randomUUID()}`, expiresAt: '2999-01-01T00:00:00Z' }),
        WebSocket,
        allowInsecureLoopback: true,
        ...(cipher ? { cipher } : {}),
      });
      for (const event of ['message', 'interaction', 'snapshot', 'error']) {
        state.client.on(event, (payload) => state.seen.push({ event, payload: JSON.parse(JSON.stringify(payload)) }));
      }
      void state.client.connect().then(() => (state.results['connected'] = true));
    },
    { port: relay.port, workspaceId: WORKSPACE, keys: cipherKeys },
  );
}

describe('RelayClient in headless Chromium', () => {
  it('connects, streams a message, answers an approval and recovers a hole through a snapshot', async () => {
    await startPageClient();
    const connection = await relay.nextConnection();
    expect(connection.url).toMatch(/^\/v1\/browser\?ticket=/);
    connection.send(sessionReady());
    expect((await connection.nextAck()).throughRelaySequence).toBe(-1);

    const threadId = uuid();
    const turnId = uuid();
    const streamId = uuid();
    await page.evaluate((id) => void (globalThis as unknown as PageState).client.threads.open(id), threadId);
    const open = await connection.nextRequest('thread.open');
    connection.send({ type: 'runtime.response', requestId: open.requestId, workspaceId: WORKSPACE, result: snapshotResult(threadId) });

    connection.send(runtimeEvent(0, threadId, { type: 'message.started', streamId }, turnId));
    connection.send(runtimeEvent(1, threadId, { type: 'message.delta', streamId, delta: 'Hello from ' }, turnId));
    connection.send(runtimeEvent(2, threadId, { type: 'message.delta', streamId, delta: 'the relay' }, turnId));
    expect((await connection.acksThrough(2)).at(-1)).toBe(2);
    const text = await page.evaluate(() => {
      const messages = (globalThis as unknown as PageState).seen.filter((entry) => entry.event === 'message');
      return (messages.at(-1)?.payload as { text: string }).text;
    });
    expect(text).toBe('Hello from the relay');

    const ids = { interactionId: uuid(), threadId, turnId };
    const request = approvalRequest(3, ids);
    connection.send(request);
    expect((await connection.nextAck()).throughRelaySequence).toBe(3);
    expect(await page.evaluate(() => (globalThis as unknown as PageState).client.pendingInteractions().length)).toBe(1);
    await page.evaluate((interactionId) => {
      const state = globalThis as unknown as PageState;
      void state.client.interactions.approve(interactionId).then((result) => (state.results['approved'] = result));
    }, ids.interactionId);
    const candidate = await connection.nextRequest('interaction.candidate');
    expect(candidate.params).toEqual({ ...ids, method: 'approval.request', candidate: { decision: 'approve' } });
    connection.send({ type: 'runtime.response', requestId: candidate.requestId, workspaceId: WORKSPACE, result: { accepted: true } });
    await page.waitForFunction(() => (globalThis as unknown as PageState).results['approved'] !== undefined);
    connection.send(interactionTerminal('interaction.resolved', 4, request));
    expect((await connection.nextAck()).throughRelaySequence).toBe(4);
    expect(await page.evaluate(() => (globalThis as unknown as PageState).client.pendingInteractions().length)).toBe(0);

    // A hole: 5 never arrives, 6 does. The page snapshots the open thread, then applies 6.
    connection.send(runtimeEvent(6, threadId, { type: 'turn.completed' }, turnId));
    const snapshot = await connection.nextRequest('thread.snapshot');
    expect(snapshot.params).toEqual({ threadId, limit: 100 });
    connection.send({ type: 'runtime.response', requestId: snapshot.requestId, workspaceId: WORKSPACE, result: snapshotResult(threadId) });
    // The recovery (cursor 5) and the buffered 6 are applied in one turn: one ACK of 6.
    expect((await connection.nextAck()).throughRelaySequence).toBe(6);
    expect(await page.evaluate(() => (globalThis as unknown as PageState).client.cursor)).toBe(6);
    expect(await page.evaluate(() => (globalThis as unknown as PageState).seen.filter((entry) => entry.event === 'error'))).toEqual([]);
    await page.evaluate(() => (globalThis as unknown as PageState).client.close());
    expect(await connection.closed).toEqual({ code: 1000 });
  });

  it("runs an encrypted session with the browser's WebCrypto (X25519, HKDF, AES-GCM)", async () => {
    const browserKeys = await generateRelayKeyPair();
    const companionKeys = await generateRelayKeyPair();
    const companion = await createWorkspaceCipher({ workspaceId: WORKSPACE, privateKey: companionKeys.privateKey, peerPublicKey: browserKeys.publicKey });
    await startPageClient({ privateKey: await exportPrivateKey(browserKeys.privateKey, 'pkcs8'), peerPublicKey: await exportPublicKey(companionKeys.publicKey) });
    const connection = await relay.nextConnection();
    connection.send(sessionReady());
    await connection.nextAck();
    await page.evaluate(() => {
      const state = globalThis as unknown as PageState;
      void state.client.threads.list().then((result) => (state.results['listed'] = result));
    });
    const envelope = await connection.nextOf('runtime.encrypted');
    const inner = (await companion.open(envelope)) as { requestId: string; method: string };
    expect(inner.method).toBe('thread.list');
    connection.send(await companion.seal({ type: 'runtime.response', requestId: inner.requestId, workspaceId: WORKSPACE, result: { items: [], nextCursor: null } }));
    await page.waitForFunction(() => (globalThis as unknown as PageState).results['listed'] !== undefined);
    expect(await page.evaluate(() => (globalThis as unknown as PageState).results['listed'])).toEqual({ items: [], nextCursor: null });

    connection.send(await companion.seal(runtimeEvent(0, uuid(), { type: 'turn.started' }, uuid())));
    expect((await connection.nextAck()).throughRelaySequence).toBe(0);
    await page.evaluate(() => (globalThis as unknown as PageState).client.close());
  });
});
