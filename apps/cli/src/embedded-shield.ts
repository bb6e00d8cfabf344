/**
 * A private Shield analyzer for one command (`trustmesh shield analyze`): the app's own entry point as a child
 * process (an app never imports another) on a fresh temporary data directory (embedded PGlite, local bus),
 * loopback ports chosen by the system, no operator port, and an operator credential minted here and handed to
 * the child only as its SHA-256. The child's environment is built from scratch, so a `DATABASE_URL` or Kafka
 * setting meant for the real services never reaches it; the model settings (`SHIELD_MODEL_*`) pass through only
 * when the user configured a model, else the analysis is the deterministic one (`SHIELD_MODEL_PROVIDER=none`).
 *
 * `stop()` ends the child (SIGTERM, then SIGKILL after a grace period) and removes the directory: nothing of
 * the run is kept.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

import { mintSecret, sha256Hex } from '@trustmesh/platform-credentials';

import { ChildApp, describeExit, ROOT } from './child-app';
import { ShieldRestClient } from './shield-rest.client';

type Env = Readonly<Record<string, string | undefined>>;

const SHIELD_MAIN = join(ROOT, 'apps', 'shield-analyzer', 'src', 'main.ts');
const START_TIMEOUT_MS = 180_000;
/** The service's largest accepted body (SHIELD_MAX_BODY_BYTES' upper bound): the file bound decides first. */
export const EMBEDDED_MAX_BODY_BYTES = 4 * 1024 * 1024;
/** Variables of the user's environment a Node process needs to run at all (and to trust a model endpoint's CA). */
const PASSED = ['PATH', 'HOME', 'TMPDIR', 'TEMP', 'TMP', 'SystemRoot', 'LANG', 'TZ', 'NODE_EXTRA_CA_CERTS'];
/** The app's exit code for a refused configuration, whose stderr names each variable and never echoes values. */
const CONFIG_EXIT = 78;

export class EmbeddedShieldError extends Error {
  override readonly name = 'EmbeddedShieldError';
}

export interface EmbeddedShield {
  readonly client: ShieldRestClient;
  readonly running: boolean;
  stop(): Promise<void>;
}

/** Starts the child and resolves once it listens; throws `EmbeddedShieldError` (child stopped, directory removed). */
export async function startEmbeddedShield(env: Env, aborted: () => boolean): Promise<EmbeddedShield> {
  const dataDir = mkdtempSync(join(tmpdir(), 'trustmesh-shield-analyze-'));
  const credential = mintSecret();
  const configErrors: string[] = [];
  let child: ChildApp;
  try {
    child = new ChildApp({
      name: 'shield-analyzer',
      args: ['--import', 'tsx', SHIELD_MAIN],
      env: childEnv(env, dataDir, sha256Hex(credential)),
      logFile: join(dataDir, 'shield-analyzer.log'),
      // Kept (bounded) for a refused configuration only; any other stderr is internal and stays unshown.
      onStderrLine: (line) => {
        const text = line.replace(/^shield-analyzer: /, '').trim();
        if (text && configErrors.length < 20) configErrors.push(text.slice(0, 500));
      },
    });
  } catch {
    rmSync(dataDir, { recursive: true, force: true });
    throw new EmbeddedShieldError('could not start the shield analyzer process');
  }
  const stop = async () => {
    await child.stop();
    rmSync(dataDir, { recursive: true, force: true });
  };

  const deadline = Date.now() + START_TIMEOUT_MS;
  for (;;) {
    const listening = child.logRecord('shield analyzer listening');
    if (listening) {
      const client = new ShieldRestClient(String(listening['http']), credential);
      return {
        client,
        get running() {
          return child.running;
        },
        stop,
      };
    }
    let reason: string | null = null;
    if (!child.running) {
      reason =
        child.exit?.code === CONFIG_EXIT && configErrors.length > 0
          ? `the shield analyzer refused its configuration: ${configErrors.join(' ')}`
          : `the shield analyzer exited during start-up (${describeExit(child.exit)})`;
    } else if (aborted()) reason = 'interrupted';
    else if (Date.now() > deadline) reason = `the shield analyzer did not start within ${START_TIMEOUT_MS / 1000} s`;
    if (reason) {
      await stop();
      throw new EmbeddedShieldError(reason);
    }
    await new Promise((done) => setTimeout(done, 100));
  }
}

function childEnv(env: Env, dataDir: string, digest: string): Record<string, string | undefined> {
  const passed = Object.fromEntries(PASSED.filter((name) => env[name] !== undefined).map((name) => [name, env[name]]));
  const modelConfigured = env['SHIELD_MODEL_PROVIDER'] !== undefined || env['SHIELD_MODEL_API_KEY'] !== undefined;
  const model = modelConfigured ? Object.fromEntries(Object.entries(env).filter(([name]) => name.startsWith('SHIELD_MODEL_'))) : { SHIELD_MODEL_PROVIDER: 'none' };
  return {
    ...passed,
    ...model,
    TSX_TSCONFIG_PATH: join(ROOT, 'tsconfig.base.json'),
    TRUSTMESH_DATA_DIR: dataDir,
    SHIELD_HTTP_HOST: '127.0.0.1',
    SHIELD_HTTP_PORT: '0',
    SHIELD_GRPC_HOST: '127.0.0.1',
    SHIELD_GRPC_PORT: '0',
    SHIELD_OPERATOR_PORT: 'off',
    SHIELD_OPERATOR_CREDENTIALS: `cli:${digest}`,
    SHIELD_MAX_BODY_BYTES: String(EMBEDDED_MAX_BODY_BYTES),
    LOG_LEVEL: 'info',
  };
}
