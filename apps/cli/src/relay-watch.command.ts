/**
 * `trustmesh relay watch --workspace ID [--origin ORIGIN] [--wire 1.2,1.1] [--ca FILE] [--say TEXT]
 * [--relay-control-address HOST:PORT] [--relay-control-ca FILE]`: watch a workspace's live stream as a browser
 * would, one readable line per event, until Ctrl-C.
 *
 * Why it exists: the descriptor `npm start` prints is single use and lives 60 s, so a first try by hand
 * usually finds it spent or expired. This command mints a descriptor through RelayControl
 * CreateBrowserSession for every connection attempt (the first one before connecting, so a wrong address or
 * credential fails at once with exit 1), and connects with `@trustmesh/relay-client`'s `RelayClient` over
 * `ws`, with the Origin header set and the gateway's certificate trusted (`--ca`, else
 * `RELAY_GATEWAY_CA_FILE`, else the development certificate under `TRUSTMESH_DATA_DIR`, else the system
 * roots). It prints the session, the workspace's status, the threads, turns, completed messages, tools,
 * approvals and interactions, gaps, resets and recoveries. `--say TEXT` starts one turn with TEXT (in the
 * most recent thread, or a new one) once the workspace is online, so there is something to watch.
 *
 * Text from the peer is printed with control characters escaped: a Companion must not be able to drive the
 * terminal. Exit status: 0 stopped by SIGINT/SIGTERM, 1 the gateway refused or the session ended for good,
 * 2 usage.
 */
import { existsSync, readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';

import { RelayClient, type BrowserWireVersion, type RelayClientError } from '@trustmesh/relay-client';
import { WebSocket } from 'ws';

import { EXIT, UsageError, type CommandIo } from './command-io';
import { RelayControl, RelayControlError, type BrowserSessionDescriptor } from './relay-control.client';
import { readRelayControlTarget } from './relay-control.target';
import { parseCommandFlags, relaySessionOptionsFrom, type RelaySessionOptions } from './relay-session.command';

type Env = Readonly<Record<string, string | undefined>>;

const WATCH_USER = 'trustmesh-cli';
const MAX_PRINTED_TEXT = 2_000;

export interface RelayWatchOptions extends RelaySessionOptions {
  /** PEM of the gateway's HTTPS certificate (or CA) to trust; null = the system roots. */
  gatewayCaFile: string | null;
  /** Text of one turn to start once the workspace is online; null = watch only. */
  say: string | null;
}

export function parseRelayWatchArgs(args: readonly string[], env: Env): RelayWatchOptions {
  const flags = parseCommandFlags('relay watch', ['--workspace', '--origin', '--wire', '--relay-control-address', '--relay-control-ca', '--ca', '--say'], args);
  const session = relaySessionOptionsFrom('relay watch', flags, env);
  for (const version of session.wireVersions) {
    if (version !== '1.2' && version !== '1.1') throw new UsageError(`relay watch: --wire takes 1.2 and/or 1.1 (browsers never speak ${JSON.stringify(version.slice(0, 16))})`);
  }
  const say = flags['--say'] ?? null;
  if (say !== null && say.trim() === '') throw new UsageError('relay watch: --say needs some text');
  return { ...session, gatewayCaFile: flags['--ca'] ?? env['RELAY_GATEWAY_CA_FILE'] ?? developmentCertificate(env), say };
}

/** The certificate `npm start` generates, when it exists under the data directory. */
function developmentCertificate(env: Env): string | null {
  const file = join(resolve(env['TRUSTMESH_DATA_DIR'] ?? '.data'), 'relay-gateway', 'tls', 'cert.pem');
  return existsSync(file) ? file : null;
}

export async function runRelayWatch(args: readonly string[], io: CommandIo, env: Env = process.env): Promise<number> {
  const options = parseRelayWatchArgs(args, env);
  const target = readRelayControlTarget('relay watch', options, env);
  const read = (flag: string, file: string | null): Buffer | null | undefined => {
    if (file === null) return null;
    try {
      return readFileSync(file);
    } catch {
      io.stderr(`trustmesh: relay watch: cannot read ${flag} ${file}\n`);
      return undefined;
    }
  };
  const gatewayCa = read('--ca', options.gatewayCaFile);
  if (gatewayCa === undefined) return EXIT.failed;

  const control = new RelayControl(target);
  const mint = () => control.createBrowserSession(options.workspaceId, options.origin, options.wireVersions, WATCH_USER);
  let first: BrowserSessionDescriptor | null;
  try {
    first = await mint();
  } catch (error) {
    control.close();
    if (error instanceof RelayControlError) {
      io.stderr(`trustmesh: ${error.message}\n`);
      return EXIT.failed;
    }
    throw error;
  }

  const print = (line: string) => io.stdout(`${new Date().toISOString().slice(11, 23)} ${line}\n`);
  const client = new RelayClient({
    descriptor: async () => {
      const descriptor = first ?? (await mint());
      first = null;
      return descriptor;
    },
    createSocket: (url) => new WebSocket(url, { origin: options.origin, ...(gatewayCa ? { ca: gatewayCa } : {}) }),
    acceptedWireVersions: options.wireVersions as BrowserWireVersion[],
    // The library allows plain ws:// only to loopback hosts (a gateway started with TLS off).
    allowInsecureLoopback: true,
  });

  let stopped: string | null = null;
  let ended: RelayClientError | null = null;
  let wake: () => void = () => undefined;
  const finished = new Promise<void>((done) => (wake = done));
  const onSignal = (signal: NodeJS.Signals) => {
    stopped ??= signal;
    wake();
  };
  process.on('SIGINT', onSignal);
  process.on('SIGTERM', onSignal);

  let said = options.say === null;
  const sayOnce = async () => {
    if (said || options.say === null) return;
    said = true;
    try {
      const listed = await client.threads.list({ limit: 1 });
      const threadId = listed.items[0]?.id ?? (await client.threads.create({ title: 'relay watch' })).thread.id;
      const started = await client.turns.start({ threadId, text: options.say });
      print(`said ${shown(options.say)} in thread ${threadId} (turn ${started.turnId})`);
    } catch (error) {
      print(`could not start a turn: ${describeError(error)}`);
    }
  };

  client.on('ready', ({ sessionId, workspaceId, wireVersion, workspaceStatus }) => {
    print(`session ${sessionId} ready: workspace ${workspaceId} ${workspaceStatus}, Wire ${wireVersion}`);
    void listThreads(client, print);
    if (workspaceStatus === 'online') void sayOnce();
  });
  client.on('workspace', ({ status }) => {
    print(`workspace ${status}`);
    if (status === 'online') void sayOnce();
  });
  client.on('state', ({ state, attempt }) => {
    if (state === 'waiting') print(`connection lost; reconnecting (attempt ${attempt})`);
    if (state === 'closed') wake();
  });
  client.on('turn', ({ threadId, turnId, state, stage }) => print(`turn ${state}${stage ? ` (${stage})` : ''}: thread ${threadId}${turnId ? ` turn ${turnId}` : ''}`));
  client.on('message', ({ threadId, text, completed }) => (completed ? print(`message in thread ${threadId}: ${shown(text)}`) : undefined));
  client.on('tool', ({ threadId, agentName, toolName, status, outcome }) => print(`tool ${shown(agentName)}/${shown(toolName)} ${status}${outcome ? ` (${describeOutcome(outcome)})` : ''}: thread ${threadId}`));
  client.on('approval', ({ threadId, approvalId, status, toolName, explanation, decision }) =>
    print(`approval ${approvalId} ${status}${decision ? ` (${decision})` : ''}${toolName ? ` for ${shown(toolName)}` : ''}: thread ${threadId}${explanation ? `: ${shown(explanation)}` : ''}`),
  );
  client.on('interaction', ({ change, interaction }) =>
    print(`interaction ${interaction.interactionId} ${change}: ${interaction.method} in thread ${interaction.threadId}${change === 'pending' ? `, expires ${interaction.expiresAt}` : ''}`),
  );
  client.on('interaction-problem', ({ code, interactionId }) => print(`interaction ${interactionId}: ${code}`));
  client.on('gap', ({ from, through }) => print(`gap: frames ${from}..${through} are gone; recovering from snapshots`));
  client.on('reset', ({ epoch }) => print(`stream reset (epoch ${epoch})`));
  client.on('recovery', ({ phase, through }) => print(`recovery ${phase} (through ${through})`));
  client.on('error', (error) => {
    if (!error.retryable) ended ??= error;
    print(`error ${error.kind} ${error.code}${error.retryable ? ' (retrying)' : ''}`);
  });

  io.stdout(`trustmesh relay watch: workspace ${options.workspaceId} as origin ${options.origin}; Ctrl-C stops\n`);
  client.connect().catch(() => wake());
  try {
    await finished;
  } finally {
    process.off('SIGINT', onSignal);
    process.off('SIGTERM', onSignal);
    client.close();
    control.close();
  }
  if (stopped) {
    io.stdout(`trustmesh relay watch: stopped (${stopped})\n`);
    return EXIT.ok;
  }
  const reason = (ended as RelayClientError | null) ?? null;
  io.stderr(`trustmesh: relay watch: the session ended${reason ? `: ${reason.kind} ${reason.code}` : ''}\n`);
  return EXIT.failed;
}

async function listThreads(client: RelayClient, print: (line: string) => void): Promise<void> {
  try {
    const listed = await client.threads.list();
    print(`threads: ${listed.items.length}${listed.nextCursor ? '+' : ''}`);
    for (const item of listed.items) print(`  thread ${item.id} ${item.title === undefined ? '(untitled)' : shown(item.title)}, ${item.messageCount} messages, updated ${item.updatedAt}`);
  } catch (error) {
    print(`threads: could not list (${describeError(error)})`);
  }
}

function describeOutcome(outcome: { kind: string }): string {
  return shown(outcome.kind);
}

function describeError(error: unknown): string {
  if (error && typeof error === 'object' && 'code' in error && 'kind' in error) return `${String((error as RelayClientError).kind)} ${String((error as RelayClientError).code)}`;
  return 'failed';
}

/**
 * Peer text on one line, quoted, with every control character (C0, DEL, C1, line and paragraph separators,
 * bidirectional overrides) escaped, cut at MAX_PRINTED_TEXT characters.
 */
export function shown(text: string): string {
  const cut = text.length > MAX_PRINTED_TEXT ? `${text.slice(0, MAX_PRINTED_TEXT)}…` : text;
  // eslint-disable-next-line no-control-regex
  return `"${cut.replace(/[\u0000-\u001f\u007f-\u009f\u2028\u2029\u202a-\u202e\u2066-\u2069"\\]/g, (char) => (char === '"' || char === '\\' ? `\\${char}` : `\\u${char.charCodeAt(0).toString(16).padStart(4, '0')}`))}"`;
}
