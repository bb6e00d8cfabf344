/**
 * `trustmesh relay session --workspace ID [--origin ORIGIN] [--wire 1.2,1.1] [--relay-control-address HOST:PORT]
 * [--relay-control-ca FILE]`: mints one browser session descriptor through RelayControl CreateBrowserSession
 * and prints it as the JSON a browser receives, `{"connectUrl","expiresAt"}`, on one line.
 *
 * The service credential is read from `RELAY_CONTROL_CREDENTIAL` or `RELAY_CONTROL_CREDENTIAL_FILE` only (a flag
 * would land in shell history and process listings); the target follows the platform's gRPC client rule
 * (relay-control.target.ts). Exit status: 0 printed, 1 the gateway refused or could not be reached, 2 usage.
 */
import { UsageError, EXIT, type CommandIo } from './command-io';
import { RelayControl, RelayControlError } from './relay-control.client';
import { DEFAULT_RELAY_CONTROL_ADDRESS, readRelayControlTarget } from './relay-control.target';

export { DEFAULT_RELAY_CONTROL_ADDRESS };
/** The origin a development web app serves from unless told otherwise (Vite's default dev server). */
export const DEFAULT_DEV_ORIGIN = 'http://localhost:5173';
export const DEFAULT_WIRE_VERSIONS = ['1.2', '1.1'] as const;
const MAX_FLAG_LENGTH = 2048;

type Env = Readonly<Record<string, string | undefined>>;

export interface RelaySessionOptions {
  workspaceId: string;
  origin: string;
  wireVersions: string[];
  address: string;
  caFile: string | null;
}

export function parseRelaySessionArgs(args: readonly string[], env: Env): RelaySessionOptions {
  return relaySessionOptionsFrom('relay session', parseCommandFlags('relay session', ['--workspace', '--origin', '--wire', '--relay-control-address', '--relay-control-ca'], args), env);
}

/** `--flag value` pairs of `command`, only from `allowed`; each value present and bounded. */
export function parseCommandFlags(command: string, allowed: readonly string[], args: readonly string[]): Record<string, string> {
  const flags: Record<string, string> = {};
  for (let i = 0; i < args.length; i += 1) {
    const flag = args[i] ?? '';
    if (!allowed.includes(flag)) {
      throw new UsageError(flag.startsWith('--') ? `${command}: unknown option ${flag}` : `${command}: unexpected argument ${JSON.stringify(flag.slice(0, 64))}`);
    }
    const value = args[i + 1];
    if (value === undefined || value.startsWith('--')) throw new UsageError(`${command}: ${flag} needs a value`);
    if (value.length > MAX_FLAG_LENGTH) throw new UsageError(`${command}: ${flag} is longer than ${MAX_FLAG_LENGTH} characters`);
    flags[flag] = value;
    i += 1;
  }
  return flags;
}

/** What minting a descriptor needs, from parsed flags (shared by `relay session` and `relay watch`). */
export function relaySessionOptionsFrom(command: string, flags: Readonly<Record<string, string>>, env: Env): RelaySessionOptions {
  const workspaceId = flags['--workspace'];
  if (!workspaceId) throw new UsageError(`${command}: --workspace is required (the workspace id \`npm start\` printed)`);
  const wireVersions = (flags['--wire'] ?? DEFAULT_WIRE_VERSIONS.join(','))
    .split(',')
    .map((version) => version.trim())
    .filter(Boolean);
  if (wireVersions.length === 0) throw new UsageError(`${command}: --wire needs at least one version, e.g. 1.2,1.1`);
  return {
    workspaceId,
    origin: flags['--origin'] ?? DEFAULT_DEV_ORIGIN,
    wireVersions,
    address: flags['--relay-control-address'] ?? env['RELAY_CONTROL_ADDRESS'] ?? DEFAULT_RELAY_CONTROL_ADDRESS,
    caFile: flags['--relay-control-ca'] ?? null,
  };
}

export async function runRelaySession(args: readonly string[], io: CommandIo, env: Env = process.env): Promise<number> {
  const options = parseRelaySessionArgs(args, env);
  const control = new RelayControl(readRelayControlTarget('relay session', options, env));
  try {
    const descriptor = await control.createBrowserSession(options.workspaceId, options.origin, options.wireVersions, 'trustmesh-cli');
    io.stdout(`${JSON.stringify(descriptor)}\n`);
    return EXIT.ok;
  } catch (error) {
    if (error instanceof RelayControlError) {
      io.stderr(`trustmesh: ${error.message}\n`);
      return EXIT.failed;
    }
    throw error;
  } finally {
    control.close();
  }
}
