/**
 * `startServiceChild` against a real child process (`test/echo-service.process.ts`): its ready line, its
 * stderr line by line, a start that fails, SIGTERM and SIGKILL, the broker gate driven over IPC, and the
 * child leaving when its IPC channel to the test process closes.
 */
import { join } from 'node:path';

import { startServiceChild, type ServiceChild } from './service-child';
import { waitUntil } from './wait-until';

const workspaceRoot = join(__dirname, '../../../..');
const script = join(__dirname, 'test', 'echo-service.process.ts');

describe('a service as a child process', () => {
  const started: Array<ServiceChild<{ name: string }>> = [];
  const start = async (env: Record<string, string>, lines: string[] = []) => {
    const child = await startServiceChild<{ name: string }>(script, { workspaceRoot, env, onStderrLine: (line) => lines.push(line) });
    started.push(child);
    return child;
  };
  afterEach(async () => {
    for (const child of started.splice(0)) await child.kill();
  });

  it('resolves with the ready line, hands over stderr line by line, and stops gracefully on SIGTERM', async () => {
    const lines: string[] = [];
    const child = await start({ ECHO_NAME: 'echo-1' }, lines);
    expect(child.ready).toEqual({ name: 'echo-1' });
    await child.stop();
    expect(child.process.exitCode).toBe(0);
    await waitUntil(() => lines.includes('stopping'), { what: 'the goodbye line' });
  }, 30_000);

  it('rejects with the child’s last words when it exits before it is ready', async () => {
    await expect(startServiceChild(script, { workspaceRoot, env: { ECHO_FAIL: 'no database' } })).rejects.toThrow(/exited \(3\) before it was ready:\s+cannot start: no database/);
  }, 30_000);

  it('kills with SIGKILL', async () => {
    const child = await start({});
    await child.kill();
    expect(child.process.signalCode).toBe('SIGKILL');
  }, 30_000);

  it('drives the child’s broker gate over IPC, each change applied when the call resolves', async () => {
    const lines: string[] = [];
    const child = await start({}, lines);
    await child.brokerGate.down();
    await waitUntil(() => lines.includes('gate down'), { what: 'the gate down in the child' });
    await child.brokerGate.up();
    await waitUntil(() => lines.includes('gate up'), { what: 'the gate up in the child' });
  }, 30_000);

  it('exits when its IPC channel to the test process closes, instead of serving on as an orphan', async () => {
    const child = await start({});
    child.process.disconnect();
    await waitUntil(() => child.process.exitCode !== null, { what: 'the child to exit' });
    expect(child.process.exitCode).toBe(1);
  }, 30_000);
});
