/**
 * The console under `trustmesh dev` (`npm start`): its build, its development account, its environment, the
 * development workspace it owns, and what a person needs to open it. Like the other apps it gets a PGlite of
 * its own under `<data dir>/console` (one process owns an embedded directory) unless DATABASE_URL is set.
 *
 * - **Credentials.** The console acts for its accounts at the Shield (`console:<accountId>`) and at the registry
 *   (publisher `console-<accountId>`) with one delegated service credential each, minted per start: the Shield
 *   and the registry get `console:<sha256>` (SHIELD_SERVICE_CREDENTIALS, REGISTRY_SERVICE_CREDENTIALS) and
 *   the console the plaintexts, in its environment only. At the relay it is the calling service, with the
 *   launcher's development service credential. None of them is printed.
 * - **The account.** `developer`, created on the first start, with a password minted per start (set again on
 *   later starts, which ends the previous start's sessions). The password is printed once, with the URL, and
 *   never written: the console keeps only its scrypt hash.
 * - **The workspace.** The development workspace is created and paired through the console's own API, signed
 *   in as `developer`, so the person finds it in the console with the simulator paired. A stored device whose
 *   workspace the console does not know (its data directory was wiped) is paired afresh.
 * - **The page.** Built with Vite into `dist/apps/console/web-dev` when it is missing or older than its
 *   sources: a folder of its own, which `nx build console-web` (the bundle's page, `dist/apps/console/web`) never
 *   empties under a running console. Two launchers never build it at once (a lock beside it), and a build is
 *   moved into place whole, so a console never serves half a page.
 */
import { spawn } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, readFileSync, renameSync, rmSync, statSync, writeFileSync } from 'node:fs';
import type { IncomingHttpHeaders } from 'node:http';
import { join } from 'node:path';

import { mintSecret, sha256Hex } from '@trustmesh/platform-credentials';

import { jsonObjectOf, sendBoundedRequest } from './bounded-http.request';
import { ROOT } from './child-app';

/** The console account `npm start` creates and signs in as. */
export const CONSOLE_DEV_USERNAME = 'developer';
/** The service name the console's delegated credentials carry at the Shield and the registry. */
export const CONSOLE_SERVICE = 'console';
export const CONSOLE_MAIN = join(ROOT, 'apps', 'console', 'src', 'main.ts');
const ACCOUNTS_MAIN = join(ROOT, 'apps', 'console', 'src', 'accounts', 'console-accounts.main.ts');
const WEB_ROOT = join(ROOT, 'apps', 'console', 'web');
/** The page `npm start`'s console serves (CONSOLE_WEB_DIR). */
export const DEV_WEB_DIR = join(ROOT, 'dist', 'apps', 'console', 'web-dev');
const BUILD_LOCK = `${DEV_WEB_DIR}.lock`;
/** A lock whose holder is not known yet after this long (it writes its pid at once) was left by a crash. */
const UNCLAIMED_LOCK_MS = 30_000;
/** What the page is built from besides its own folder: the libraries it bundles. */
const WEB_SOURCES = [WEB_ROOT, join(ROOT, 'libs', 'relay', 'client', 'src'), join(ROOT, 'libs', 'relay', 'protocol', 'src')];
const API_TIMEOUT_MS = 30_000;
/** The console's answers here are small JSON records. */
const MAX_ANSWER_BYTES = 64 * 1024;

export class ConsoleStartError extends Error {
  override readonly name = 'ConsoleStartError';
}

/** One start's console credentials: plaintexts for the console, `console:<sha256>` entries for the others. */
export interface ConsoleWiring {
  readonly password: string;
  readonly shieldCredential: string;
  readonly registryCredential: string;
  readonly shieldEntry: string;
  readonly registryEntry: string;
}

export function consoleWiring(): ConsoleWiring {
  const shieldCredential = mintSecret('tmcs_');
  const registryCredential = mintSecret('tmcr_');
  return {
    password: mintSecret('tmpw_'),
    shieldCredential,
    registryCredential,
    shieldEntry: `${CONSOLE_SERVICE}:${sha256Hex(shieldCredential)}`,
    registryEntry: `${CONSOLE_SERVICE}:${sha256Hex(registryCredential)}`,
  };
}

/** `entry` beside any the user configured in `variable` (a comma-separated list). */
export function withEntry(env: Record<string, string | undefined>, variable: string, entry: string): Record<string, string> {
  const configured = env[variable]?.trim();
  return { [variable]: configured ? `${configured},${entry}` : entry };
}

export interface ConsoleUpstreams {
  relay: { grpcAddress: string; grpcTls: boolean; certFile: string | null; publicBaseUrl: string; operatorUrl: string | null };
  shield: { grpcAddress: string; operatorUrl: string | null };
  registry: { grpcAddress: string; operatorUrl: string | null };
}

/** The console's environment: its database, its upstreams and the credentials to reach them. */
export function consoleEnv(baseEnv: Record<string, string | undefined>, dataDir: string, upstreams: ConsoleUpstreams, relayCredential: string, wiring: ConsoleWiring): Record<string, string | undefined> {
  const { relay, shield, registry } = upstreams;
  return {
    ...baseEnv,
    // Embedded, the console keeps its PGlite in `<TRUSTMESH_DATA_DIR>/console` itself.
    TRUSTMESH_DATA_DIR: dataDir,
    CONSOLE_WEB_DIR: baseEnv['CONSOLE_WEB_DIR'] ?? DEV_WEB_DIR,
    CONSOLE_RELAY_PUBLIC_URL: relay.publicBaseUrl,
    CONSOLE_RELAY_CONTROL_ADDRESS: relay.grpcAddress,
    CONSOLE_RELAY_CONTROL_CREDENTIAL: relayCredential,
    CONSOLE_RELAY_CONTROL_CREDENTIAL_FILE: undefined,
    CONSOLE_RELAY_CONTROL_TLS: relay.grpcTls ? 'true' : 'false',
    CONSOLE_RELAY_CONTROL_TLS_CA_FILE: relay.grpcTls && relay.certFile ? relay.certFile : undefined,
    CONSOLE_SHIELD_ADDRESS: shield.grpcAddress,
    CONSOLE_SHIELD_CREDENTIAL: wiring.shieldCredential,
    CONSOLE_SHIELD_CREDENTIAL_FILE: undefined,
    CONSOLE_REGISTRY_ADDRESS: registry.grpcAddress,
    CONSOLE_REGISTRY_CREDENTIAL: wiring.registryCredential,
    CONSOLE_REGISTRY_CREDENTIAL_FILE: undefined,
    CONSOLE_RELAY_OPERATOR_URL: relay.operatorUrl ?? undefined,
    CONSOLE_SHIELD_OPERATOR_URL: shield.operatorUrl ?? undefined,
    CONSOLE_REGISTRY_OPERATOR_URL: registry.operatorUrl ?? undefined,
  };
}

/**
 * Creates the development account with `password`, or sets it as the account's password when it exists
 * (which ends the previous start's sessions). Runs the console's account command as the CLI does, before the
 * console starts: embedded, the database is the console's once it runs. The password goes through a pipe.
 */
export async function ensureDevAccount(env: Record<string, string | undefined>, password: string): Promise<'created' | 'password set'> {
  const created = await accountCommand(env, ['account', 'create', '--username', CONSOLE_DEV_USERNAME], password);
  if (created.code === 0) return 'created';
  if (!created.stderr.includes('CONSOLE_ACCOUNT_EXISTS')) throw new ConsoleStartError(`could not create the console's development account: ${firstLine(created.stderr)}`);
  const set = await accountCommand(env, ['account', 'set-password', '--username', CONSOLE_DEV_USERNAME], password);
  if (set.code !== 0) throw new ConsoleStartError(`could not set the console's development password: ${firstLine(set.stderr)}`);
  return 'password set';
}

function accountCommand(env: Record<string, string | undefined>, args: string[], password: string): Promise<{ code: number | null; stderr: string }> {
  const child = spawn(process.execPath, ['--import', 'tsx', ACCOUNTS_MAIN, ...args], { cwd: ROOT, env, stdio: ['pipe', 'ignore', 'pipe'] });
  let stderr = '';
  child.stderr?.on('data', (chunk: Buffer) => {
    if (stderr.length < 16 * 1024) stderr += chunk.toString('utf8');
  });
  child.stdin?.end(`${password}\n`);
  return new Promise((resolve) => {
    child.once('error', () => resolve({ code: null, stderr: 'the console account command did not start' }));
    child.once('close', (code) => resolve({ code, stderr }));
  });
}

function firstLine(text: string): string {
  return (text.split('\n').find((line) => line.trim()) ?? 'no reason given').slice(0, 300);
}

/** Whether the built page is missing or older than a file it is built from. */
export function consolePageStale(): boolean {
  const built = join(DEV_WEB_DIR, 'index.html');
  if (!existsSync(built)) return true;
  const builtAt = statSync(built).mtimeMs;
  return WEB_SOURCES.some((dir) => newerThan(dir, builtAt));
}

function newerThan(path: string, time: number): boolean {
  let stat;
  try {
    stat = statSync(path);
  } catch {
    return false;
  }
  if (!stat.isDirectory()) return stat.mtimeMs > time;
  for (const entry of readdirSync(path)) {
    if (entry === 'node_modules' || entry.startsWith('.')) continue;
    if (newerThan(join(path, entry), time)) return true;
  }
  return false;
}

/**
 * Builds the page with Vite (the `console-web` project's configuration) into DEV_WEB_DIR, unless another
 * launcher is building it: then waits for that build and uses it. Resolves with the build's exit and output
 * (code 0 and no output when another launcher built it).
 */
export async function buildConsolePage(): Promise<{ code: number | null; output: string }> {
  mkdirSync(join(DEV_WEB_DIR, '..'), { recursive: true });
  while (!takeLock()) {
    await new Promise((done) => setTimeout(done, 500));
    if (!existsSync(BUILD_LOCK) && !consolePageStale()) return { code: 0, output: '' };
  }
  try {
    if (!consolePageStale()) return { code: 0, output: '' };
    const building = `${DEV_WEB_DIR}.building-${process.pid}`;
    rmSync(building, { recursive: true, force: true });
    const built = await runVite(building);
    if (built.code !== 0) {
      rmSync(building, { recursive: true, force: true });
      return built;
    }
    // Moved into place whole: the old page aside, the new one in, the old one removed.
    const old = `${DEV_WEB_DIR}.old-${process.pid}`;
    if (existsSync(DEV_WEB_DIR)) renameSync(DEV_WEB_DIR, old);
    renameSync(building, DEV_WEB_DIR);
    rmSync(old, { recursive: true, force: true });
    return built;
  } finally {
    rmSync(BUILD_LOCK, { recursive: true, force: true });
  }
}

/**
 * Takes the build lock: a directory (`mkdir` is atomic) holding the launcher's pid. A lock whose launcher is
 * gone (killed mid-build) is broken, so a later start never waits for a build nobody runs.
 */
function takeLock(): boolean {
  try {
    mkdirSync(BUILD_LOCK);
    writeFileSync(join(BUILD_LOCK, 'pid'), `${process.pid}\n`);
    return true;
  } catch {
    if (lockAbandoned()) rmSync(BUILD_LOCK, { recursive: true, force: true });
    return false;
  }
}

function lockAbandoned(): boolean {
  try {
    const holder = Number(readFileSync(join(BUILD_LOCK, 'pid'), 'utf8').trim());
    if (!Number.isSafeInteger(holder) || holder <= 0) return true;
    process.kill(holder, 0);
    return false;
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'ESRCH') return true;
    if (code === 'EPERM') return false; // alive, another user's
    // No pid yet: the holder is between mkdir and writing it, unless that was long ago.
    try {
      return Date.now() - statSync(BUILD_LOCK).mtimeMs > UNCLAIMED_LOCK_MS;
    } catch {
      return false;
    }
  }
}

function runVite(outDir: string): Promise<{ code: number | null; output: string }> {
  const vite = join(ROOT, 'node_modules', 'vite', 'bin', 'vite.js');
  const args = [vite, 'build', '--config', join(WEB_ROOT, 'vite.config.mts'), '--outDir', outDir, '--emptyOutDir', '--logLevel', 'warn'];
  const child = spawn(process.execPath, args, { cwd: ROOT, env: process.env, stdio: ['ignore', 'pipe', 'pipe'] });
  let output = '';
  const keep = (chunk: Buffer) => (output = (output + chunk.toString('utf8')).slice(-8 * 1024));
  child.stdout?.on('data', keep);
  child.stderr?.on('data', keep);
  return new Promise((resolve) => {
    child.once('error', () => resolve({ code: null, output: 'vite did not start' }));
    child.once('close', (code) => resolve({ code, output }));
  });
}

/** The console's "listening" log record, or null when it is not one. */
export function consoleStartedOf(record: Record<string, unknown> | null): { httpUrl: string; origin: string; operatorUrl: string | null } | null {
  if (!record || typeof record['origin'] !== 'string') return null;
  return { httpUrl: String(record['http']), origin: record['origin'], operatorUrl: typeof record['operator'] === 'string' ? record['operator'] : null };
}

interface ApiAnswer {
  status: number;
  body: Record<string, unknown>;
}

/**
 * The console's own API signed in as an account, as its page uses it: the session cookie, the CSRF token and
 * the console's origin on every state-changing request.
 */
export class ConsoleApiSession {
  private constructor(
    /** The signed-in account's id: the relay knows it as the owner of the workspaces this account creates. */
    readonly accountId: string,
    private readonly baseUrl: string,
    private readonly origin: string,
    private readonly cookie: string,
    private readonly csrfToken: string,
  ) {}

  static async signIn(baseUrl: string, origin: string, username: string, password: string): Promise<ConsoleApiSession> {
    const response = await call(baseUrl, 'POST', '/api/v1/session', { origin }, { username, password });
    const cookie = (response.headers['set-cookie'] ?? []).map((line) => /^(tm_console_session=[^;]+)/.exec(line)?.[1]).find(Boolean);
    const token = response.answer.body['csrfToken'];
    const accountId = (response.answer.body['account'] as { accountId?: unknown } | undefined)?.accountId;
    if (response.answer.status !== 200 || !cookie || typeof token !== 'string' || typeof accountId !== 'string') throw refusal('sign in as the development account', response.answer);
    return new ConsoleApiSession(accountId, baseUrl, origin, cookie, token);
  }

  /** The workspace, or null when this account has none of that id. */
  async workspace(workspaceId: string): Promise<Record<string, unknown> | null> {
    const { answer } = await this.request('GET', `/api/v1/workspaces/${encodeURIComponent(workspaceId)}`);
    if (answer.status === 404) return null;
    if (answer.status !== 200) throw refusal('read the development workspace', answer);
    return answer.body;
  }

  async createWorkspace(displayName: string): Promise<string> {
    const { answer } = await this.request('POST', '/api/v1/workspaces', { displayName });
    const id = answer.body['workspaceId'];
    if (answer.status !== 201 || typeof id !== 'string') throw refusal('create the development workspace', answer);
    return id;
  }

  async pairingCode(workspaceId: string): Promise<string> {
    const { answer } = await this.request('POST', `/api/v1/workspaces/${encodeURIComponent(workspaceId)}/pairing-codes`, {});
    const code = answer.body['pairingCode'];
    if (answer.status !== 201 || typeof code !== 'string') throw refusal('mint a pairing code', answer);
    return code;
  }

  async signOut(): Promise<void> {
    await this.request('DELETE', '/api/v1/session').catch(() => undefined);
  }

  private request(method: 'GET' | 'POST' | 'DELETE', path: string, body?: unknown) {
    const headers: Record<string, string> = { cookie: this.cookie };
    if (method !== 'GET') Object.assign(headers, { origin: this.origin, 'x-csrf-token': this.csrfToken });
    return call(this.baseUrl, method, path, headers, body);
  }
}

async function call(baseUrl: string, method: 'GET' | 'POST' | 'DELETE', path: string, headers: Record<string, string>, body?: unknown): Promise<{ answer: ApiAnswer; headers: IncomingHttpHeaders }> {
  const answer = await sendBoundedRequest({
    method,
    url: new URL(path, baseUrl),
    headers,
    json: body,
    timeoutMs: API_TIMEOUT_MS,
    maxAnswerBytes: MAX_ANSWER_BYTES,
    service: 'the console',
    unreachable: (message) => new ConsoleStartError(`${message} (${method} ${path})`),
  });
  return { answer: { status: answer.status, body: jsonObjectOf(answer.bytes) }, headers: answer.headers };
}

function refusal(what: string, answer: ApiAnswer): ConsoleStartError {
  const error = answer.body['error'] as { code?: unknown } | undefined;
  const code = typeof error?.code === 'string' ? ` ${error.code.slice(0, 64)}` : '';
  return new ConsoleStartError(`the console refused to ${what} (HTTP ${answer.status}${code})`);
}

/** What a person needs first: the console's URL, the account and its password of this start. */
export function consoleLines(started: { origin: string; operatorUrl: string | null }, password: string, relay: { httpUrl: string; certFile: string | null }): string[] {
  return [
    `Trustmesh console: ${started.origin}`,
    `  Sign in as "${CONSOLE_DEV_USERNAME}" with password ${password}   (this run only, shown once, never stored)`,
    '  The development workspace is there with the simulator paired; the Shield, the registry and the platform',
    '  pages show the apps below.',
    ...(relay.certFile
      ? [
          `  The relay's development certificate is self-signed: open ${relay.httpUrl}/healthz once in the same browser`,
          '  and accept it (or trust the certificate below), so that the page can reach the relay over WSS.',
        ]
      : []),
    `  Console operator port:      ${started.operatorUrl ? `${started.operatorUrl} (/metrics, /healthz, /readyz)` : 'off'}`,
  ];
}
