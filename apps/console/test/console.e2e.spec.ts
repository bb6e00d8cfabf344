/**
 * The console end to end, as a person's browser and an operator use it: a real relay gateway, accounts made
 * with the real CLI, the console as its own process on embedded PGlite, and real HTTP requests carrying what
 * a browser sends (the session cookie, the Origin header, the CSRF header). A Companion's side of pairing is
 * the gateway's real enrollment endpoint over HTTPS with its development certificate, or the companion
 * simulator as its own process; the page's side of a workspace is a real `RelayClient` on descriptors the
 * console mints.
 */
import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { request as httpsRequest } from 'node:https';
import { join } from 'node:path';

import { waitUntil } from '@trustmesh/platform-testing';
import { RelayClient, type WebSocketLike } from '@trustmesh/relay-client';
import WebSocket from 'ws';

import {
  ConsoleBrowser,
  createConsoleDataDir,
  createWebDir,
  randomCredential,
  ROOT,
  startConsoleProcess,
  startRelayGateway,
  trustmeshConsoleAccount,
  type ConsoleChild,
  type RelayGatewayChild,
  type Reply,
} from './support/console-world';

const ALICE = { username: 'alice', password: 'alice has a long passphrase' };
const BOB = { username: 'bob', password: 'bob has another passphrase' };

const errorOf = (reply: Reply) => (reply.json as { error: { code: string; message: string; issues?: { code: string; path: string }[] } }).error;

function redeem(gateway: RelayGatewayChild, code: string): Promise<{ status: number; json: { deviceId: string; deviceCredential: string } }> {
  const url = new URL('/v1/device-enrollments/redeem', gateway.http);
  const body = JSON.stringify({ code });
  return new Promise((resolve, reject) => {
    const request = httpsRequest(
      {
        host: url.hostname,
        port: url.port,
        path: url.pathname,
        method: 'POST',
        ca: readFileSync(join(gateway.dataDir, 'relay-gateway', 'tls', 'cert.pem')),
        servername: 'localhost',
        headers: { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) },
      },
      (response) => {
        let text = '';
        response.on('data', (chunk: Buffer) => (text += chunk.toString('utf8')));
        response.on('end', () => resolve({ status: response.statusCode ?? 0, json: JSON.parse(text) as { deviceId: string; deviceCredential: string } }));
      },
    );
    request.on('error', reject);
    request.end(body);
  });
}

describe('console (real relay gateway, embedded PGlite, real CLI)', () => {
  const credential = randomCredential();
  let gateway: RelayGatewayChild;
  let data: { dataDir: string; remove(): Promise<void> };
  let web: Awaited<ReturnType<typeof createWebDir>>;
  let consoleApp: ConsoleChild;
  let alice: ConsoleBrowser;
  let bob: ConsoleBrowser;
  /** Secrets the suite saw: none may appear in the console's logs. */
  const secrets: string[] = [ALICE.password, BOB.password, credential];

  beforeAll(async () => {
    [gateway, data, web] = await Promise.all([startRelayGateway(credential), createConsoleDataDir(), createWebDir()]);
    for (const account of [ALICE, BOB]) {
      const created = trustmeshConsoleAccount(['create', '--username', account.username], data.dataDir, `${account.password}\n`);
      expect(created.code).toBe(0);
    }
    consoleApp = await startConsoleProcess({
      TRUSTMESH_DATA_DIR: data.dataDir,
      CONSOLE_HTTP_PORT: '0',
      CONSOLE_RELAY_CONTROL_ADDRESS: gateway.grpc,
      CONSOLE_RELAY_CONTROL_CREDENTIAL: credential,
      CONSOLE_RELAY_PUBLIC_URL: gateway.http,
      CONSOLE_WEB_DIR: web.dir,
    });
    const { httpUrl, publicOrigin } = consoleApp.child.ready;
    alice = new ConsoleBrowser(httpUrl, publicOrigin);
    bob = new ConsoleBrowser(httpUrl, publicOrigin);
  }, 240_000);

  afterAll(async () => {
    await consoleApp?.child.stop();
    await gateway?.stop();
    await data?.remove();
    await web?.remove();
  }, 60_000);

  describe('signing in', () => {
    it('answers signed out with 401 CONSOLE_SIGNED_OUT, with the security headers on every answer', async () => {
      const anonymous = new ConsoleBrowser(alice.baseUrl, alice.origin);
      for (const path of ['/api/v1/session', '/api/v1/workspaces']) {
        const reply = await anonymous.send('GET', path);
        expect(reply.status).toBe(401);
        expect(errorOf(reply).code).toBe('CONSOLE_SIGNED_OUT');
        expect(reply.headers['cache-control']).toBe('no-store');
        expect(reply.headers['content-security-policy']).toContain("default-src 'self'");
        expect(reply.headers['content-security-policy']).toContain(`connect-src 'self' ${gateway.http.replace('https:', 'wss:')}`);
        expect(reply.headers['content-security-policy']).toContain("frame-ancestors 'none'");
        expect(reply.headers['x-content-type-options']).toBe('nosniff');
        expect(reply.headers['referrer-policy']).toBe('no-referrer');
      }
    });

    it('refuses a wrong password and an unknown name with the same answer', async () => {
      const anonymous = new ConsoleBrowser(alice.baseUrl, alice.origin);
      const wrong = await anonymous.signIn(ALICE.username, 'not the right passphrase');
      const unknown = await anonymous.signIn('nobody-here', 'not the right passphrase');
      expect(wrong.status).toBe(401);
      expect(unknown.status).toBe(401);
      expect(wrong.text).toBe(unknown.text);
      expect(errorOf(wrong).code).toBe('CONSOLE_LOGIN_FAILED');
      expect(anonymous.cookie).toBeNull();
    });

    it('signs in with an HttpOnly SameSite=Strict cookie and a CSRF token, case-folding the name', async () => {
      const reply = await alice.signIn('ALICE', ALICE.password);
      expect(reply.status).toBe(200);
      const body = reply.json as { account: { accountId: string; username: string }; csrfToken: string };
      expect(body.account.username).toBe('alice');
      expect(body.csrfToken).toMatch(/^[A-Za-z0-9_-]{43}$/);
      const [cookie, device, ...others] = reply.headers['set-cookie'] ?? [];
      expect(cookie).toMatch(/^tm_console_session=[A-Za-z0-9_-]{43}; Path=\/; HttpOnly; SameSite=Strict; Max-Age=604800$/);
      // The browser is trusted for alice from now on, on the session route only (console-trusted-devices.ts).
      expect(device).toMatch(/^tm_console_device=[A-Za-z0-9_-]{43}; Path=\/api\/v1\/session; HttpOnly; SameSite=Strict; Max-Age=7776000$/);
      expect(others).toEqual([]);
      const session = await alice.send('GET', '/api/v1/session');
      expect(session.json).toEqual({ account: body.account, csrfToken: body.csrfToken });
      expect((await bob.signIn(BOB.username, BOB.password)).status).toBe(200);
      secrets.push(alice.cookie!.split('=')[1]!, alice.deviceCookie!.split('=')[1]!, alice.csrfToken!);
    });
  });

  describe('CSRF and Origin', () => {
    it('refuses a change without the CSRF token, with a wrong one, and from another origin', async () => {
      const none = await alice.json('POST', '/api/v1/workspaces', { displayName: 'x' }, { csrf: false });
      expect(none.status).toBe(403);
      expect(errorOf(none).code).toBe('CONSOLE_CSRF_INVALID');
      const wrong = await alice.json('POST', '/api/v1/workspaces', { displayName: 'x' }, { csrf: false, headers: { 'x-csrf-token': 'A'.repeat(43) } });
      expect(errorOf(wrong).code).toBe('CONSOLE_CSRF_INVALID');
      const bobs = await alice.json('POST', '/api/v1/workspaces', { displayName: 'x' }, { csrf: false, headers: { 'x-csrf-token': bob.csrfToken! } });
      expect(errorOf(bobs).code).toBe('CONSOLE_CSRF_INVALID');
      const elsewhere = await alice.json('POST', '/api/v1/workspaces', { displayName: 'x' }, { origin: 'https://evil.example' });
      expect(elsewhere.status).toBe(403);
      expect(errorOf(elsewhere).code).toBe('CONSOLE_ORIGIN_REFUSED');
      const signInElsewhere = await new ConsoleBrowser(alice.baseUrl, 'https://evil.example').signIn(ALICE.username, ALICE.password);
      expect(errorOf(signInElsewhere).code).toBe('CONSOLE_ORIGIN_REFUSED');
      expect(((await alice.send('GET', '/api/v1/workspaces')).json as { items: unknown[] }).items).toEqual([]);
    });
  });

  describe('workspaces', () => {
    let workspaceId: string;
    let deviceId: string;

    it('creates a workspace that is its owner’s, offline until a Companion pairs', async () => {
      const created = await alice.json('POST', '/api/v1/workspaces', { displayName: '  Laptop  ' });
      expect(created.status).toBe(201);
      const workspace = created.json as { workspaceId: string; displayName: string; createdAt: string; endToEndEncrypted: boolean; status: { connectivity: string; browserSessionCount: number } };
      expect(workspace).toMatchObject({ displayName: 'Laptop', endToEndEncrypted: false, status: { connectivity: 'offline', browserSessionCount: 0 } });
      workspaceId = workspace.workspaceId;
      const listed = await alice.send('GET', '/api/v1/workspaces');
      expect(listed.json).toEqual({ items: [workspace], nextCursor: null });
      expect((await alice.send('GET', `/api/v1/workspaces/${workspaceId}`)).json).toEqual(workspace);
    });

    it('hands out a pairing code a Companion enrolls with, then lists and revokes the device', async () => {
      const issued = await alice.send('POST', `/api/v1/workspaces/${workspaceId}/pairing-codes`);
      expect(issued.status).toBe(201);
      const { pairingCode, expiresAt } = issued.json as { pairingCode: string; expiresAt: string };
      expect(Date.parse(expiresAt)).toBeGreaterThan(Date.now());
      secrets.push(pairingCode);
      const enrolled = await redeem(gateway, pairingCode);
      expect(enrolled.status).toBe(200);
      deviceId = enrolled.json.deviceId;
      secrets.push(enrolled.json.deviceCredential);

      // The relay lists devices from its read model, a moment behind the enrollment.
      let devices = await alice.send('GET', `/api/v1/workspaces/${workspaceId}/devices?limit=10`);
      await waitUntil(async () => {
        devices = await alice.send('GET', `/api/v1/workspaces/${workspaceId}/devices?limit=10`);
        return (devices.json as { items: unknown[] }).items.length > 0;
      }, { what: 'the enrolled device in the list' });
      expect(devices.status).toBe(200);
      expect(devices.json).toEqual({ items: [{ deviceId, enrolledAt: expect.any(String), connected: false }], nextCursor: null });

      const revoked = await alice.json('POST', `/api/v1/workspaces/${workspaceId}/devices/${deviceId}/revoke`, { reason: 'lost laptop' });
      expect(revoked.status).toBe(200);
      expect(revoked.json).toEqual({ revokedAt: expect.any(String), disconnected: false });
      await waitUntil(async () => ((await alice.send('GET', `/api/v1/workspaces/${workspaceId}/devices`)).json as { items: unknown[] }).items.length === 0, { what: 'the revoked device to leave the list' });
      const unknownDevice = await alice.send('POST', `/api/v1/workspaces/${workspaceId}/devices/${crypto.randomUUID()}/revoke`);
      expect(unknownDevice.status).toBe(404);
      expect(errorOf(unknownDevice).code).toBe('CONSOLE_DEVICE_NOT_FOUND');
    });

    it('mints a fresh single-use relay descriptor bound to the console’s origin and the account', async () => {
      const first = await alice.send('POST', `/api/v1/workspaces/${workspaceId}/session-descriptors`);
      const second = await alice.send('POST', `/api/v1/workspaces/${workspaceId}/session-descriptors`);
      expect(first.status).toBe(200);
      const descriptor = first.json as { connectUrl: string; expiresAt: string };
      expect(Object.keys(descriptor).sort()).toEqual(['connectUrl', 'expiresAt']);
      const url = new URL(descriptor.connectUrl);
      expect(url.protocol).toBe('wss:');
      expect(url.pathname).toBe('/v1/browser');
      expect(url.searchParams.get('ticket')).toBeTruthy();
      expect(descriptor.connectUrl).not.toBe((second.json as { connectUrl: string }).connectUrl);
      secrets.push(url.searchParams.get('ticket')!, new URL((second.json as { connectUrl: string }).connectUrl).searchParams.get('ticket')!);
    });

    it('lets a RelayClient open the workspace with descriptors from the console, from the console’s origin only', async () => {
      const ca = readFileSync(join(gateway.dataDir, 'relay-gateway', 'tls', 'cert.pem'));
      const descriptor = async () => {
        const reply = await alice.send('POST', `/api/v1/workspaces/${workspaceId}/session-descriptors`);
        expect(reply.status).toBe(200);
        return reply.json as { connectUrl: string; expiresAt: string };
      };
      const client = new RelayClient({ descriptor, createSocket: (url) => new WebSocket(url, { origin: alice.origin, ca }) as unknown as WebSocketLike });
      try {
        await client.connect();
        expect(client.workspaceStatus).toBe('offline');
      } finally {
        client.close();
      }
      // The same kind of descriptor presented from another origin is refused by the relay at the upgrade.
      const elsewhere = await descriptor();
      const refused = await new Promise<number>((resolve) => {
        const socket = new WebSocket(elsewhere.connectUrl, { origin: 'https://evil.example', ca });
        socket.on('unexpected-response', (_request, response) => resolve(response.statusCode ?? 0));
        socket.on('open', () => {
          socket.close();
          resolve(101);
        });
        socket.on('error', () => resolve(-1));
      });
      expect(refused).toBeGreaterThanOrEqual(400);
    });

    it('reads the workspace’s audit trail through RelayControl ListWorkspaceAudit', async () => {
      const audit = await alice.send('GET', `/api/v1/workspaces/${workspaceId}/audit?limit=5`);
      expect(audit.status).toBe(200);
      expect(audit.json).toEqual({ items: [], nextCursor: null });
    });

    it('shows who answered an approval in the audit trail: the signed-in account', async () => {
      // A Companion (the simulator, its own process) pairs with a new workspace and raises an approval.
      const created = (await alice.json('POST', '/api/v1/workspaces', { displayName: 'Audited' })).json as { workspaceId: string };
      const { pairingCode } = (await alice.send('POST', `/api/v1/workspaces/${created.workspaceId}/pairing-codes`)).json as { pairingCode: string };
      secrets.push(pairingCode);
      const simulator = spawn(process.execPath, ['--import', 'tsx', join(ROOT, 'apps', 'companion-simulator', 'src', 'main.ts'), 'scenario', '--counterparty-request', 'invoice-reminder'], {
        cwd: ROOT,
        env: {
          PATH: process.env['PATH'] ?? '',
          TSX_TSCONFIG_PATH: join(ROOT, 'tsconfig.base.json'),
          RELAY_GATEWAY_URL: gateway.http,
          RELAY_GATEWAY_CA_FILE: join(gateway.dataDir, 'relay-gateway', 'tls', 'cert.pem'),
          SIMULATOR_PAIRING_CODE: pairingCode,
          SIMULATOR_CREDENTIAL_FILE: join(data.dataDir, 'simulator', 'device-credential.json'),
        },
        stdio: ['ignore', 'pipe', 'pipe'],
      });
      let simulatorOutput = '';
      simulator.stdout?.on('data', (chunk: Buffer) => (simulatorOutput += chunk.toString('utf8')));
      simulator.stderr?.on('data', (chunk: Buffer) => (simulatorOutput += chunk.toString('utf8')));
      const simulatorExited = new Promise<number | null>((resolve) => simulator.once('exit', (code) => resolve(code)));

      const ca = readFileSync(join(gateway.dataDir, 'relay-gateway', 'tls', 'cert.pem'));
      const client = new RelayClient({
        descriptor: async () => (await alice.send('POST', `/api/v1/workspaces/${created.workspaceId}/session-descriptors`)).json as { connectUrl: string; expiresAt: string },
        createSocket: (url) => new WebSocket(url, { origin: alice.origin, ca }) as unknown as WebSocketLike,
      });
      try {
        await client.connect();
        await waitUntil(() => client.pendingInteractions().length > 0 || simulator.exitCode !== null, { timeoutMs: 60_000, what: 'the approval to reach the browser' });
        const [pending] = client.pendingInteractions();
        expect(pending).toBeDefined();
        await client.interactions.approve(pending!.interactionId);
        expect(await simulatorExited).toBe(0);
      } finally {
        client.close();
        if (simulator.exitCode === null) simulator.kill('SIGTERM');
      }

      const account = ((await alice.send('GET', '/api/v1/session')).json as { account: { accountId: string } }).account;
      let entries: { at: string; action: string; actor?: string; detail: string }[] = [];
      await waitUntil(
        async () => {
          entries = ((await alice.send('GET', `/api/v1/workspaces/${created.workspaceId}/audit`)).json as { items: typeof entries }).items;
          return entries.some((entry) => entry.actor === account.accountId) && entries.some((entry) => entry.action.endsWith(' resolved'));
        },
        { what: `the approval in the audit trail (simulator: ${simulatorOutput.slice(-500)})` },
      );
      // Newest first; the answer names the person who gave it, nothing of the request's content.
      expect(entries.map((entry) => entry.at)).toEqual(entries.map((entry) => entry.at).sort().reverse());
      expect(entries.map((entry) => entry.action).sort()).toEqual(['approval.request candidate', 'approval.request requested', 'approval.request resolved']);
      expect(entries.find((entry) => entry.actor)).toMatchObject({ action: 'approval.request candidate', actor: account.accountId, detail: expect.stringContaining('outcome approve') });
      expect(entries.at(-1)!.action).toBe('approval.request requested');
      expect(JSON.stringify(entries)).not.toContain('invoice');
    });

    it('answers another account exactly as for an unknown workspace, without asking the relay', async () => {
      const unknownId = crypto.randomUUID();
      for (const [method, suffix] of [
        ['GET', ''],
        ['POST', '/pairing-codes'],
        ['GET', '/devices'],
        ['POST', '/session-descriptors'],
        ['GET', '/audit'],
      ] as const) {
        const theirs = await bob.send(method, `/api/v1/workspaces/${workspaceId}${suffix}`);
        const unknown = await bob.send(method, `/api/v1/workspaces/${unknownId}${suffix}`);
        expect(theirs.status).toBe(404);
        expect(errorOf(theirs).code).toBe('CONSOLE_WORKSPACE_NOT_FOUND');
        expect(theirs.text).toBe(unknown.text);
      }
      const revoke = await bob.send('POST', `/api/v1/workspaces/${workspaceId}/devices/${deviceId}/revoke`);
      expect(errorOf(revoke).code).toBe('CONSOLE_WORKSPACE_NOT_FOUND');
      expect((await bob.send('GET', '/api/v1/workspaces')).json).toEqual({ items: [], nextCursor: null });
    });

    it('pages the list with an opaque cursor', async () => {
      for (const name of ['Second', 'Third']) expect((await alice.json('POST', '/api/v1/workspaces', { displayName: name })).status).toBe(201);
      const first = (await alice.send('GET', '/api/v1/workspaces?limit=2')).json as { items: { displayName: string }[]; nextCursor: string };
      expect(first.items.map((item) => item.displayName)).toEqual(['Third', 'Second']);
      const second = (await alice.send('GET', `/api/v1/workspaces?limit=2&cursor=${first.nextCursor}`)).json as { items: { displayName: string }[]; nextCursor: string | null };
      expect(second.items.map((item) => item.displayName)).toEqual(['Audited', 'Laptop']);
      expect(second.nextCursor).toBeNull();
    });
  });

  describe('bad input', () => {
    const marker = 'ECHO-MARKER-7f3a';

    it('refuses oversized, nested, duplicate-key, non-JSON and mistyped bodies with stable codes, echoing nothing', async () => {
      const cases: { body: string; contentType?: string; status: number; code: string; issue?: string }[] = [
        { body: JSON.stringify({ displayName: marker.repeat(10_000) }), status: 413, code: 'CONSOLE_BODY_TOO_LARGE' },
        { body: `${'['.repeat(70)}"${marker}"${']'.repeat(70)}`, status: 400, code: 'CONSOLE_BODY_INVALID', issue: 'JSON_TOO_DEEP' },
        { body: `{"displayName":"a","displayName":"${marker}"}`, status: 400, code: 'CONSOLE_BODY_INVALID', issue: 'JSON_DUPLICATE_KEY' },
        { body: `{"displayName":"\\ud800${marker}"}`, status: 400, code: 'CONSOLE_BODY_INVALID', issue: 'JSON_LONE_SURROGATE' },
        { body: `{"displayName": ${marker}`, status: 400, code: 'CONSOLE_BODY_INVALID' },
        { body: `displayName=${marker}`, contentType: 'application/x-www-form-urlencoded', status: 415, code: 'CONSOLE_CONTENT_TYPE_UNSUPPORTED' },
        { body: JSON.stringify({ displayName: 42 }), status: 422, code: 'CONSOLE_INVALID_INPUT', issue: 'CONSOLE_DISPLAY_NAME_INVALID' },
        { body: JSON.stringify({ displayName: 'ok', [marker]: true }), status: 422, code: 'CONSOLE_INVALID_INPUT', issue: 'CONSOLE_FIELD_UNKNOWN' },
        { body: JSON.stringify([marker]), status: 422, code: 'CONSOLE_INVALID_INPUT', issue: 'CONSOLE_BODY_NOT_OBJECT' },
      ];
      for (const entry of cases) {
        const reply = await alice.send('POST', '/api/v1/workspaces', { body: entry.body, headers: { 'content-type': entry.contentType ?? 'application/json' } });
        expect({ status: reply.status, code: errorOf(reply).code }).toEqual({ status: entry.status, code: entry.code });
        if (entry.issue) expect(errorOf(reply).issues?.[0]?.code).toBe(entry.issue);
        expect(reply.text).not.toContain(marker);
      }
    });

    it('validates identifiers and list parameters before asking the relay', async () => {
      const badId = await alice.send('GET', `/api/v1/workspaces/${marker}`);
      expect(badId.status).toBe(404);
      expect(errorOf(badId).code).toBe('CONSOLE_WORKSPACE_NOT_FOUND');
      expect(badId.text).not.toContain(marker);
      for (const query of ['limit=0', 'limit=101', 'limit=abc', 'limit=1&limit=2', 'cursor=%00', `cursor=${Buffer.from('{"c":"x","w":"y"}').toString('base64url')}`]) {
        const reply = await alice.send('GET', `/api/v1/workspaces?${query}`);
        expect(reply.status).toBe(422);
        expect(errorOf(reply).code).toBe('CONSOLE_INVALID_INPUT');
      }
      const unknownRoute = await alice.send('POST', `/api/v1/${marker}`);
      expect(unknownRoute.status).toBe(404);
      expect(errorOf(unknownRoute).code).toBe('CONSOLE_NOT_FOUND');
      expect(unknownRoute.text).not.toContain(marker);
    });
  });

  describe('the page', () => {
    it('serves index.html for client routes, hashed assets as immutable, and nothing outside its folder', async () => {
      const root = await alice.send('GET', '/');
      expect(root.status).toBe(200);
      expect(root.headers['content-type']).toBe('text/html; charset=utf-8');
      expect(root.text).toContain('Trustmesh console');
      expect(root.headers['content-security-policy']).toContain("default-src 'self'");
      const clientRoute = await alice.send('GET', '/workspaces/123/threads');
      expect(clientRoute.text).toBe(root.text);
      const asset = await alice.send('GET', web.asset);
      expect(asset.headers['cache-control']).toBe('public, max-age=31536000, immutable');
      expect(asset.headers['content-type']).toBe('text/javascript; charset=utf-8');
      for (const path of ['/../../../../etc/passwd', '/..%2f..%2f..%2f..%2fetc%2fpasswd', '/assets/..%2f..%2f..%2fetc/hostname', '/missing.js']) {
        const reply = await alice.send('GET', path);
        // A path without an extension that names no file is a client route: the page, never the file.
        if (reply.status === 200) expect(reply.text).toBe(root.text);
        else expect([400, 404]).toContain(reply.status);
        expect(reply.text).not.toContain('root:');
      }
    });
  });

  describe('sign-in limits and signing out', () => {
    it('rate limits sign-in attempts on one username with 429 and Retry-After', async () => {
      const attacker = new ConsoleBrowser(alice.baseUrl, alice.origin);
      const statuses: number[] = [];
      let last: Reply | undefined;
      for (let attempt = 0; attempt < 11; attempt += 1) {
        last = await attacker.signIn(BOB.username, `wrong passphrase ${attempt}`);
        statuses.push(last.status);
      }
      expect(statuses.slice(0, 9).every((status) => status === 401)).toBe(true);
      expect(statuses.at(-1)).toBe(429);
      expect(errorOf(last!).code).toBe('CONSOLE_LOGIN_RATE_LIMITED');
      expect(Number(last!.headers['retry-after'])).toBeGreaterThan(0);
      // The right password is refused too while the name is limited: guessing gains nothing.
      expect((await attacker.signIn(BOB.username, BOB.password)).status).toBe(429);
      // Bob's own browser signed in before: its device cookie keeps it out of the lockout.
      expect(bob.deviceCookie).toMatch(/^tm_console_device=[A-Za-z0-9_-]{43}$/);
      const own = await bob.signIn(BOB.username, BOB.password);
      expect(own.status).toBe(200);
      expect(String(own.headers['set-cookie'])).not.toContain('tm_console_device=');
    });

    it('signs out: the session ends and the cookie is cleared', async () => {
      const cookie = alice.cookie;
      const out = await alice.send('DELETE', '/api/v1/session');
      expect(out.status).toBe(204);
      expect(String(out.headers['set-cookie'])).toContain('tm_console_session=; Path=/; HttpOnly; SameSite=Strict; Max-Age=0');
      alice.cookie = cookie;
      expect((await alice.send('GET', '/api/v1/session')).status).toBe(401);
    });
  });

  it('answers the Shield and registry routes 503 *_NOT_CONFIGURED, saying what to set, and shows them unconfigured', async () => {
    // Bob's session from the start is still live (the limits above refused new sign-ins, not his session).
    const bobs = bob;
    for (const [method, path, code, variable] of [
      ['GET', '/api/v1/shield/cases', 'CONSOLE_SHIELD_NOT_CONFIGURED', 'CONSOLE_SHIELD_ADDRESS'],
      ['POST', '/api/v1/shield/cases', 'CONSOLE_SHIELD_NOT_CONFIGURED', 'CONSOLE_SHIELD_ADDRESS'],
      ['GET', '/api/v1/registry/search?q=x', 'CONSOLE_REGISTRY_NOT_CONFIGURED', 'CONSOLE_REGISTRY_ADDRESS'],
      ['POST', '/api/v1/registry/cards', 'CONSOLE_REGISTRY_NOT_CONFIGURED', 'CONSOLE_REGISTRY_ADDRESS'],
    ] as const) {
      const reply = method === 'GET' ? await bobs.send('GET', path) : await bobs.json('POST', path, path.endsWith('cards') ? { card: {} } : { title: 'x' });
      expect({ path, status: reply.status, code: errorOf(reply).code }).toEqual({ path, status: 503, code });
      expect(errorOf(reply).message).toContain(variable);
    }
    const health = (await bobs.send('GET', '/api/v1/platform/health')).json as { apps: { app: string; ready: boolean; detail?: string }[] };
    expect(health.apps.map(({ app, ready, detail }) => ({ app, ready, detail }))).toEqual([
      { app: 'relay-gateway', ready: false, detail: 'not configured (CONSOLE_RELAY_OPERATOR_URL)' },
      { app: 'shield-analyzer', ready: false, detail: 'not configured (CONSOLE_SHIELD_OPERATOR_URL)' },
      { app: 'card-registry', ready: false, detail: 'not configured (CONSOLE_REGISTRY_OPERATOR_URL)' },
      { app: 'console', ready: true, detail: undefined },
    ]);
    expect(((await bobs.send('GET', '/api/v1/platform/metrics')).json as { series: unknown }).series).toEqual({ connections: null, framesPerSecond: null, consultsPerSecond: null, publishesPerSecond: null });
  });

  it('serves /metrics and the probes on its operator port', async () => {
    const operator = consoleApp.child.ready.operatorUrl!;
    const metrics = await (await fetch(new URL('/metrics', operator))).text();
    expect(metrics).toMatch(/console_sign_ins_total\{outcome="signed_in"\} [1-9]/);
    expect(metrics).toMatch(/console_sign_ins_total\{outcome="rate_limited"\} [1-9]/);
    expect(metrics).toContain('console_http_requests_total{method="POST",route="/api/v1/workspaces",status="201"}');
    expect((await fetch(new URL('/readyz', operator))).status).toBe(200);
    expect((await fetch(new URL('/healthz', consoleApp.child.ready.httpUrl))).status).toBe(200);
  });

  it('never wrote a password, cookie, CSRF token, pairing code, ticket or credential to its log', () => {
    const log = consoleApp.logs.join('\n');
    expect(log).toContain('console listening');
    for (const secret of secrets) expect(log).not.toContain(secret);
  });

  it('shuts down gracefully on SIGTERM', async () => {
    await consoleApp.child.stop();
    expect(consoleApp.child.process.exitCode).toBe(0);
  });
});
