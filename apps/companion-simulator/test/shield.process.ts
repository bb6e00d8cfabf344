/**
 * The real Shield analyzer as a child process (`nx serve shield-analyzer`'s command) on embedded PGlite in a
 * temporary data directory, for end-to-end specs: free ports, one operator account whose credential the
 * test holds, and the deterministic analyzer (no model provider is reachable here).
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { createHash } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

import { waitUntil } from '@trustmesh/platform-testing';

const ROOT = join(__dirname, '..', '..', '..');

export interface ShieldProcess {
  /** http://127.0.0.1:<port> (REST /v0.1) */
  httpUrl: string;
  grpcAddress: string;
  /** The operator credential of account `acme`. */
  operatorCredential: string;
  output: { stdout: string; stderr: string };
  /** SIGTERM, wait for the exit, remove the data directory. */
  stop(): Promise<void>;
}

export async function startShieldProcess(operatorCredential: string): Promise<ShieldProcess> {
  const dataDir = mkdtempSync(join(tmpdir(), 'sim-e2e-shield-'));
  const digest = createHash('sha256').update(operatorCredential).digest('hex');
  const child: ChildProcess = spawn(process.execPath, ['--import', 'tsx', 'apps/shield-analyzer/src/main.ts'], {
    cwd: ROOT,
    env: {
      PATH: process.env['PATH'] ?? '',
      TSX_TSCONFIG_PATH: 'tsconfig.base.json',
      TRUSTMESH_DATA_DIR: dataDir,
      SHIELD_HTTP_PORT: '0',
      SHIELD_GRPC_PORT: '0',
      SHIELD_OPERATOR_PORT: '0',
      SHIELD_OPERATOR_CREDENTIALS: `acme:${digest}`,
      SHIELD_MODEL_PROVIDER: 'none',
      LOG_LEVEL: 'info',
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const output = { stdout: '', stderr: '' };
  child.stdout?.on('data', (chunk: Buffer) => (output.stdout += chunk.toString('utf8')));
  child.stderr?.on('data', (chunk: Buffer) => (output.stderr += chunk.toString('utf8')));
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const stop = async () => {
    if (child.exitCode === null) child.kill('SIGTERM');
    await exited;
    rmSync(dataDir, { recursive: true, force: true });
  };
  try {
    const listening = () => output.stdout.split('\n').find((line) => line.includes('"msg":"shield analyzer listening"'));
    await waitUntil(() => listening() !== undefined || child.exitCode !== null, { timeoutMs: 90_000, what: 'the Shield to listen' });
    if (child.exitCode !== null) throw new Error(`the Shield exited: ${output.stderr.slice(0, 2000)}`);
    const fields = JSON.parse(listening()!) as { http: string; grpc: string };
    return { httpUrl: fields.http, grpcAddress: fields.grpc, operatorCredential, output, stop };
  } catch (error) {
    await stop();
    throw error;
  }
}
