/**
 * `trustmesh relay watch` (apps/cli) against a real gateway process, when the session ends for good: it must
 * exit 1 and say why on stderr, not hang or exit 0 as if stopped by the user. (Its exit 0 on SIGINT is covered
 * by apps/cli's trustmesh-dev e2e.)
 *
 * It lives with the gateway's tests because it needs their harness (a gateway child, enrollment, a scripted
 * Companion socket), which apps/cli may not import across Nx module boundaries (an app depends on no app); the
 * command itself runs as a user runs it, `node bin/trustmesh.js relay watch`, in a process of its own.
 *
 * The final close is the one a user meets after a Companion downgrade: a watch that accepts only Wire 1.2 is
 * ready on a 1.2 Companion; the Companion reconnects speaking 1.1, which the session's ticket does not accept,
 * so the gateway ends the session with a non-retryable `session.error RELAY_PROTOCOL_VERSION_UNSUPPORTED`
 * (a reconnect could not renegotiate) and the watch's RelayClient closes for good.
 */
import { spawn } from 'node:child_process';
import { join } from 'node:path';

import { createTempDataDir } from '@trustmesh/platform-database/testing';
import { waitUntil } from '@trustmesh/platform-testing';

import { childCredential, enrollThrough, startGatewayChild, statusFrom, type GatewayChild } from './support/gateway.child';
import { frames } from './support/frames';
import { companion, type TestPeer } from './support/peers';

const ROOT = join(__dirname, '..', '..', '..', '..');
const ORIGIN = 'https://app.example';

describe('trustmesh relay watch when the gateway ends the session for good', () => {
  const peers: TestPeer[] = [];
  let gateway: GatewayChild | undefined;
  let dir: Awaited<ReturnType<typeof createTempDataDir>>;

  beforeAll(async () => {
    dir = await createTempDataDir('relay-watch-final-close');
    // As `npm start` runs it: embedded, TLS with a self-signed development certificate (session descriptors are
    // always wss://), RelayControl in plaintext on loopback.
    gateway = await startGatewayChild({ TRUSTMESH_DATA_DIR: dir.dataDir, RELAY_TLS: 'self-signed' });
  }, 120_000);

  afterAll(async () => {
    for (const peer of peers) peer.close();
    await gateway?.kill();
    await dir?.remove();
  });

  it('exits 1 with "the session ended: session RELAY_PROTOCOL_VERSION_UNSUPPORTED" when its Companion comes back at a Wire version it does not accept', async () => {
    const relay = gateway as GatewayChild;
    const device = await enrollThrough(relay);
    const { workspaceId } = device;
    const ca = relay.certificate as Buffer;
    const first = await companion(relay.wsUrl, frames.deviceConnect(device.deviceId, device.credential, '1.2'), { ca });
    peers.push(first);
    await waitUntil(async () => (await statusFrom(relay, workspaceId)).status === 'online', { what: 'the workspace online at 1.2' });

    const watcher = spawn(
      process.execPath,
      [join(ROOT, 'bin', 'trustmesh.js'), 'relay', 'watch', '--workspace', workspaceId, '--origin', ORIGIN, '--wire', '1.2', '--relay-control-address', relay.grpcAddress],
      // The data directory is where it finds the development certificate to trust, as after `npm start`.
      { cwd: ROOT, env: { PATH: process.env['PATH'] ?? '', RELAY_CONTROL_CREDENTIAL: childCredential, TRUSTMESH_DATA_DIR: dir.dataDir }, stdio: ['ignore', 'pipe', 'pipe'] },
    );
    const watched = { stdout: '', stderr: '' };
    watcher.stdout.on('data', (chunk: Buffer) => (watched.stdout += chunk.toString('utf8')));
    watcher.stderr.on('data', (chunk: Buffer) => (watched.stderr += chunk.toString('utf8')));
    const exited = new Promise<number | null>((resolve) => watcher.once('exit', (code) => resolve(code)));
    const printed = () => `relay watch stdout:\n${watched.stdout}\nstderr:\n${watched.stderr}`;
    /** Waits on what the watch printed (or its exit); a timeout shows everything it printed. */
    const watchUntil = (condition: () => boolean, what: string, timeoutMs = 30_000) =>
      waitUntil(() => condition() || watcher.exitCode !== null, { what, timeoutMs }).catch((error: unknown) => {
        throw new Error(`${String(error)}\n${printed()}`);
      });
    try {
      await watchUntil(() => /session \S+ ready: workspace \S+ online, Wire 1\.2/.test(watched.stdout), 'relay watch ready on the 1.2 Companion', 60_000);
      if (watcher.exitCode !== null) throw new Error(`relay watch exited ${watcher.exitCode} before the Companion changed\n${printed()}`);

      // The Companion goes away and comes back speaking 1.1 (a downgraded Companion).
      first.close();
      await watchUntil(() => watched.stdout.includes('workspace offline'), 'relay watch to see the workspace offline');
      peers.push(await companion(relay.wsUrl, frames.deviceConnect(device.deviceId, device.credential, '1.1'), { ca }));
      await watchUntil(() => false, 'relay watch to exit on its own');
    } finally {
      if (watcher.exitCode === null) watcher.kill('SIGKILL');
    }
    expect({ code: await exited, stderr: watched.stderr }).toEqual({
      code: 1,
      stderr: 'trustmesh: relay watch: the session ended: session RELAY_PROTOCOL_VERSION_UNSUPPORTED\n',
    });
    expect(watched.stdout).toContain('error session RELAY_PROTOCOL_VERSION_UNSUPPORTED\n');
    // It never reconnected: the one session it had was the only one.
    expect(watched.stdout.match(/ ready: /g)).toHaveLength(1);
    expect(watched.stdout).not.toContain('stopped (');
  }, 180_000);
});
