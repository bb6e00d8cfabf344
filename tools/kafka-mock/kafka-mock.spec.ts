/**
 * The `kafka-mock` command as a developer uses it: a real process, real signals, real ports.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { createConnection } from 'node:net';
import { join } from 'node:path';

import { Kafka, logLevel } from 'kafkajs';

import { waitUntil } from '@trustmesh/platform-testing';

const workspaceRoot = join(__dirname, '..', '..');
const cli = join(__dirname, 'kafka-mock.ts');

function runCli(args: string[]): { child: ChildProcess; stdout: () => string; stderr: () => string; status: Promise<number | null> } {
  const child = spawn(process.execPath, ['--import', 'tsx', cli, ...args], {
    cwd: workspaceRoot,
    env: { ...process.env, TSX_TSCONFIG_PATH: 'tsconfig.base.json', KAFKA_BROKERS: '', TRUSTMESH_BUS: '' },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stdout = '';
  let stderr = '';
  child.stdout?.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
  child.stderr?.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  const status = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  return { child, stdout: () => stdout, stderr: () => stderr, status };
}

async function brokersOf(run: ReturnType<typeof runCli>): Promise<string[]> {
  await waitUntil(() => /KAFKA_BROKERS=\S+\n/.test(run.stdout()) || run.child.exitCode !== null, { timeoutMs: 20_000, what: 'KAFKA_BROKERS' });
  const match = /KAFKA_BROKERS=(\S+)\n/.exec(run.stdout());
  if (!match?.[1]) throw new Error(`no KAFKA_BROKERS line; stderr:\n${run.stderr()}`);
  return match[1].split(',');
}

function listening(address: string): Promise<boolean> {
  const separator = address.lastIndexOf(':');
  return new Promise((resolve) => {
    const socket = createConnection({ host: address.slice(0, separator), port: Number(address.slice(separator + 1)) });
    socket.once('connect', () => {
      socket.destroy();
      resolve(true);
    });
    socket.once('error', () => resolve(false));
  });
}

async function allClosed(brokers: string[]): Promise<boolean> {
  return (await Promise.all(brokers.map(listening))).every((open) => !open);
}

describe('kafka-mock start', () => {
  it('prints KAFKA_BROKERS of a cluster that answers, and stops it on SIGTERM', async () => {
    const run = runCli(['start', '--brokers', '2']);
    const brokers = await brokersOf(run);
    expect(brokers).toHaveLength(2);
    const admin = new Kafka({ clientId: 'kafka-mock-cli-spec', brokers, logLevel: logLevel.NOTHING }).admin();
    await admin.connect();
    expect((await admin.describeCluster()).brokers).toHaveLength(2);
    await admin.disconnect();

    run.child.kill('SIGTERM');
    expect(await run.status).toBe(0);
    expect(await allClosed(brokers)).toBe(true);
  }, 30_000);

  it('takes the cluster down with it when it is killed outright', async () => {
    const run = runCli(['start']);
    const brokers = await brokersOf(run);
    run.child.kill('SIGKILL');
    await run.status;
    await waitUntil(() => allClosed(brokers), { timeoutMs: 5_000, what: 'the orphaned brokers to close' });
  }, 30_000);
});

describe('kafka-mock run', () => {
  it('runs a command against the cluster and exits with its status', async () => {
    const script = "console.log('seen', process.env.KAFKA_BROKERS, process.env.TRUSTMESH_BUS); process.exit(3)";
    const run = runCli(['run', '--', process.execPath, '-e', script]);
    expect(await run.status).toBe(3);
    const match = /seen (\S+) kafka/.exec(run.stdout());
    expect(match).not.toBeNull();
    expect(await allClosed(match![1]!.split(','))).toBe(true);
  }, 30_000);

  it('refuses a usage error with status 2', async () => {
    const run = runCli(['serve']);
    expect(await run.status).toBe(2);
    expect(run.stderr()).toContain('usage: kafka-mock start');
  }, 30_000);
});
