/**
 * The real relay gateway as a child process (`nx serve relay-gateway`'s command) on embedded defaults in a
 * temporary data directory, for end-to-end specs: free ports, its self-signed development certificate and
 * the development service credential it prints once.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

import { waitUntil } from '@trustmesh/platform-testing';

const ROOT = join(__dirname, '..', '..', '..');

export interface GatewayProcess {
  /** https://127.0.0.1:<port> */
  httpUrl: string;
  grpcAddress: string;
  serviceCredential: string;
  certFile: string;
  /** TRUSTMESH_DATA_DIR of the child (its embedded database), removed by `stop()` unless it keeps it. */
  dataDir: string;
  output: { stdout: string; stderr: string };
  /** SIGTERM, wait for the exit, remove the data directory (unless `keepDataDir`: the caller removes it). */
  stop(options?: { keepDataDir?: boolean }): Promise<void>;
}

export async function startGatewayProcess(env: Record<string, string> = {}): Promise<GatewayProcess> {
  const dataDir = mkdtempSync(join(tmpdir(), 'sim-e2e-gateway-'));
  const child: ChildProcess = spawn(process.execPath, ['--import', 'tsx', 'apps/relay-gateway/src/main.ts'], {
    cwd: ROOT,
    env: {
      PATH: process.env['PATH'] ?? '',
      TSX_TSCONFIG_PATH: 'tsconfig.base.json',
      RELAY_HTTP_PORT: '0',
      RELAY_GRPC_PORT: '0',
      TRUSTMESH_DATA_DIR: dataDir,
      LOG_LEVEL: 'info',
      ...env,
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const output = { stdout: '', stderr: '' };
  child.stdout?.on('data', (chunk: Buffer) => (output.stdout += chunk.toString('utf8')));
  child.stderr?.on('data', (chunk: Buffer) => (output.stderr += chunk.toString('utf8')));
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const stop = async (options: { keepDataDir?: boolean } = {}) => {
    if (child.exitCode === null) child.kill('SIGTERM');
    await exited;
    if (!options.keepDataDir) rmSync(dataDir, { recursive: true, force: true });
  };
  try {
    // The start-up lines (certificate, credential) are printed right after the "listening" log line.
    const ready = () => output.stdout.includes('"msg":"relay gateway listening"') && output.stdout.includes('development service credential') && output.stdout.includes('development certificate');
    await waitUntil(() => ready() || child.exitCode !== null, { timeoutMs: 90_000, what: 'the gateway to listen' });
    if (child.exitCode !== null) throw new Error(`the gateway exited: ${output.stderr.slice(0, 2000)}`);
    const listening = output.stdout.split('\n').find((line) => line.includes('"msg":"relay gateway listening"')) ?? '';
    const fields = JSON.parse(listening) as { http: string; grpc: string };
    const credential = /development service credential for gRPC \(this run only; never stored\): (\S+)/.exec(output.stdout)?.[1];
    const certFile = /development certificate (\S+) \(SHA-256/.exec(output.stdout)?.[1];
    if (!credential || !certFile) throw new Error('the gateway did not print its development credential and certificate');
    return { httpUrl: fields.http, grpcAddress: fields.grpc, serviceCredential: credential, certFile, dataDir, output, stop };
  } catch (error) {
    await stop();
    throw error;
  }
}
