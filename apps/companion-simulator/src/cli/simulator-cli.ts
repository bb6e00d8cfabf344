/**
 * `companion-simulator`: the simulator's command line (`nx serve companion-simulator` runs `run`).
 *
 * Flags only name non-secret settings and are folded into the environment variables of
 * config/simulator-config.ts before validation, so every error names the variable. Secrets (the pairing
 * code, control and service credentials, keys) are read from the environment only: a flag would show them
 * in the process list.
 *
 * Exit status: 0 success; 1 a failure to report (enrollment refused, scenario failed, load could not
 * start); 2 a usage error; 78 a configuration error.
 */
import { readFile } from 'node:fs/promises';

import { createPinoLogger } from '@trustmesh/platform-logging';
import { readTracingConfig, startTracing } from '@trustmesh/platform-tracing';
import { counterpartyRequestScenario, parseScenario, ScenarioError, type Scenario } from '@trustmesh/relay-companion-sim';

import { ConfigError, loadSimulatorConfig, type Env, type SimulatorMode } from '../config/simulator-config';
import { ensureEnrollment, enrollDevice, unenrollDevice } from '../enrollment/device-enrollment.service';
import { EnrollmentError } from '../enrollment/enrollment.errors';
import { LoadStartError, runLoad } from '../load/load-driver';
import { formatLoadReport } from '../load/load-report';
import { simulatorLoadStack } from '../load/load-stack';
import { startSimulatorHost } from '../simulator/simulator.host';

export const EXIT = { ok: 0, failed: 1, usage: 2, config: 78 } as const;

export interface CliIo {
  stdout(text: string): void;
  stderr(text: string): void;
  /** Resolves when the process is asked to stop (SIGTERM/SIGINT). */
  stopRequested(): Promise<void>;
}

export const USAGE = `Usage: companion-simulator <command> [options]

Commands:
  run                  Enroll if needed (SIMULATOR_PAIRING_CODE), connect to the gateway and serve until
                       SIGTERM; serves gRPC SimulatorControl when SIMULATOR_CONTROL_CREDENTIAL is set.
                       With --scenario FILE (or SIMULATOR_SCENARIO_FILE) it plays that scenario too.
  enroll               Redeem SIMULATOR_PAIRING_CODE and store the device credential (mode 0600).
  unenroll             Forget the stored device credential (revoke it at the gateway too).
  scenario FILE        Connect, play FILE (JSON or YAML), exit 0 when it completes, 1 when it fails.
  scenario --counterparty-request NAME
                       Play a built-in counterparty request (invoice-reminder, bank-detail-change): the
                       Shield (SIMULATOR_SHIELD_ADDRESS + SIMULATOR_SHIELD_CREDENTIAL) checks it and the
                       approval shows its verdict; exits once the person answers (or it expires).
  load                 N Companions and M browsers against the gateway; prints frames/s, latency
                       percentiles, errors, gaps and reconnects. Needs RELAY_CONTROL_ADDRESS and
                       RELAY_CONTROL_CREDENTIAL.
    --companions N       Companions, one workspace each (default 10)
    --browsers M         browser clients spread over the workspaces (default 2 per Companion)
    --duration S         measured seconds (default 10)
    --turn-interval MS   pause between generated turns (default: the generator's, 100 ms)
    --json               print the report as JSON

Options (each sets the variable in brackets; secrets are read from the environment only):
  --gateway-url URL            [RELAY_GATEWAY_URL] https:// or wss:// (plain only on loopback)
  --ca-file FILE               [RELAY_GATEWAY_CA_FILE] trust this certificate (the gateway's dev cert)
  --insecure-dev               [RELAY_GATEWAY_INSECURE_DEV=true] loopback gateways only
  --credential-file FILE       [SIMULATOR_CREDENTIAL_FILE]
  --wire-version 1.2|1.1       [SIMULATOR_WIRE_VERSION] default 1.2
  --scenario FILE              [SIMULATOR_SCENARIO_FILE]
  --counterparty-request NAME  [SIMULATOR_COUNTERPARTY_REQUEST] a built-in counterparty request instead of a file
  --shield-address HOST:PORT   [SIMULATOR_SHIELD_ADDRESS] the Shield's gRPC API (credential: SIMULATOR_SHIELD_CREDENTIAL)
  --control-address HOST:PORT  [SIMULATOR_CONTROL_ADDRESS]
  --relay-control-address HOST:PORT  [RELAY_CONTROL_ADDRESS]
  --approval-policy P          [SIMULATOR_APPROVAL_POLICY] allow | deny | require-local-confirmation
  --deny-methods LIST          [SIMULATOR_DENY_METHODS] e.g. thread.delete,thread.rename
`;

class UsageError extends Error {}

const VALUE_FLAGS: Readonly<Record<string, string>> = {
  '--gateway-url': 'RELAY_GATEWAY_URL',
  '--ca-file': 'RELAY_GATEWAY_CA_FILE',
  '--credential-file': 'SIMULATOR_CREDENTIAL_FILE',
  '--wire-version': 'SIMULATOR_WIRE_VERSION',
  '--scenario': 'SIMULATOR_SCENARIO_FILE',
  '--counterparty-request': 'SIMULATOR_COUNTERPARTY_REQUEST',
  '--shield-address': 'SIMULATOR_SHIELD_ADDRESS',
  '--control-address': 'SIMULATOR_CONTROL_ADDRESS',
  '--relay-control-address': 'RELAY_CONTROL_ADDRESS',
  '--approval-policy': 'SIMULATOR_APPROVAL_POLICY',
  '--deny-methods': 'SIMULATOR_DENY_METHODS',
};
const SECRET_FLAGS = ['--pairing-code', '--control-credential', '--relay-control-credential', '--credential', '--shield-credential'];
const LOAD_FLAGS = ['--companions', '--browsers', '--duration', '--turn-interval'];

interface Parsed {
  command: string;
  positional: string[];
  env: Record<string, string | undefined>;
  load: Record<string, number>;
  json: boolean;
}

function parse(argv: readonly string[], env: Env): Parsed {
  const [command = 'help', ...rest] = argv;
  const parsed: Parsed = { command, positional: [], env: { ...env }, load: {}, json: false };
  for (let i = 0; i < rest.length; i += 1) {
    const arg = rest[i] as string;
    const [flag, inline] = arg.startsWith('--') && arg.includes('=') ? [arg.slice(0, arg.indexOf('=')), arg.slice(arg.indexOf('=') + 1)] : [arg, undefined];
    const next = () => {
      if (inline !== undefined) return inline;
      const value = rest[i + 1];
      if (value === undefined || value.startsWith('--')) throw new UsageError(`${flag} needs a value`);
      i += 1;
      return value;
    };
    if (SECRET_FLAGS.includes(flag)) throw new UsageError(`${flag} is not accepted: secrets are read from the environment only (see --help)`);
    const variable = VALUE_FLAGS[flag];
    if (variable) parsed.env[variable] = next();
    else if (flag === '--insecure-dev') parsed.env['RELAY_GATEWAY_INSECURE_DEV'] = 'true';
    else if (flag === '--json') parsed.json = true;
    else if (LOAD_FLAGS.includes(flag)) {
      const raw = next();
      if (!/^\d{1,7}$/.test(raw)) throw new UsageError(`${flag} must be a whole number`);
      parsed.load[flag.slice(2)] = Number(raw);
    } else if (flag.startsWith('--')) throw new UsageError(`unknown option ${flag}`);
    else parsed.positional.push(arg);
  }
  return parsed;
}

/** Writes a failure the person can act on; internal errors are reported without their text. */
function report(io: CliIo, error: unknown): number {
  if (error instanceof ConfigError) {
    io.stderr(`companion-simulator: ${error.message}\n`);
    return EXIT.config;
  }
  if (error instanceof EnrollmentError) {
    io.stderr(`companion-simulator: ${error.code}: ${error.message}\n`);
    return EXIT.failed;
  }
  if (error instanceof ScenarioError || error instanceof LoadStartError) {
    io.stderr(`companion-simulator: ${error.message}\n`);
    return EXIT.failed;
  }
  if (error instanceof UsageError) {
    io.stderr(`companion-simulator: ${error.message}\n\n${USAGE}`);
    return EXIT.usage;
  }
  throw error;
}

async function readScenario(path: string): Promise<Scenario> {
  const text = await readFile(path, 'utf8');
  return parseScenario(text, { source: path });
}

export async function runSimulatorCli(argv: readonly string[], io: CliIo, env: Env): Promise<number> {
  try {
    const parsed = parse(argv, env);
    const config = (mode: SimulatorMode) => loadSimulatorConfig(parsed.env, mode);
    switch (parsed.command) {
      case 'help':
      case '--help':
      case '-h':
        io.stdout(USAGE);
        return EXIT.ok;
      case 'enroll': {
        const enrolled = await enrollDevice(config('enroll'));
        io.stdout(`companion-simulator: enrolled device ${enrolled.deviceId} in workspace ${enrolled.workspaceId}\n`);
        return EXIT.ok;
      }
      case 'unenroll': {
        const removed = await unenrollDevice(config('unenroll'));
        io.stdout(removed ? 'companion-simulator: forgot the stored device credential; revoke the device at the gateway too\n' : 'companion-simulator: no device was enrolled\n');
        return EXIT.ok;
      }
      case 'run':
      case 'scenario': {
        if (parsed.command === 'scenario') {
          const file = parsed.positional[0];
          if (file === undefined && parsed.env['SIMULATOR_COUNTERPARTY_REQUEST'] === undefined) throw new UsageError('scenario needs a FILE or --counterparty-request NAME');
          if (file !== undefined) parsed.env['SIMULATOR_SCENARIO_FILE'] = file;
        }
        const loaded = config(parsed.command);
        const tracingConfig = readTracingConfig(parsed.env, 'companion-simulator');
        const scenario = loaded.scenarioFile
          ? await readScenario(loaded.scenarioFile)
          : loaded.counterpartyRequest
            ? counterpartyRequestScenario(loaded.counterpartyRequest)
            : undefined;
        const enrollment = await ensureEnrollment(loaded);
        // Logs (the transport's and Nest's) in the platform's one line shape, on stdout as the gateway's are;
        // the lines below without JSON are this command's own output.
        const logger = createPinoLogger({ service: 'companion-simulator', replica: enrollment.deviceId, write: io.stdout });
        const tracing = startTracing(tracingConfig, { instanceId: enrollment.deviceId });
        const host = await startSimulatorHost(loaded, {
          enrollment,
          ...(scenario ? { scenario } : {}),
          log: (level, message) => logger.log(level === 'warn' ? 'warn' : 'info', message, { component: 'companion-transport' }),
          logger,
        });
        io.stdout(`companion-simulator: device ${enrollment.deviceId} of workspace ${enrollment.workspaceId} connecting to ${loaded.gateway.companionUrl} (Wire ${loaded.wireVersion})\n`);
        if (host.app.address) io.stdout(`companion-simulator: SimulatorControl on ${host.app.address}\n`);
        if (host.operatorUrl) io.stdout(`companion-simulator: operator port (/metrics, /healthz, /readyz) on ${host.operatorUrl}\n`);
        let code: number = EXIT.ok;
        if (parsed.command === 'scenario') {
          const finished = host.simulator.scenarioFinished();
          const outcome = await Promise.race([finished, io.stopRequested().then(() => null)]);
          if (outcome) {
            io.stdout(`companion-simulator: scenario ${JSON.stringify(outcome.name)} ${outcome.state} (${outcome.stepsCompleted}/${outcome.stepCount} steps)\n`);
            if (outcome.state !== 'completed') {
              io.stderr(`companion-simulator: ${outcome.errorCode}: ${outcome.errorMessage}\n`);
              code = EXIT.failed;
            }
          }
        } else {
          await io.stopRequested();
        }
        await host.close();
        await tracing.shutdown();
        return code;
      }
      case 'load': {
        const loaded = config('load');
        const tracing = startTracing(readTracingConfig(parsed.env, 'companion-simulator'));
        const companions = parsed.load['companions'] ?? 10;
        const abort = new AbortController();
        void io.stopRequested().then(() => abort.abort());
        const report = await runLoad({
          signal: abort.signal,
          gatewayUrl: loaded.gateway.httpBase,
          tls: loaded.tls,
          relayControl: loaded.relayControl ?? undefined,
          stack: simulatorLoadStack({ behaviour: loaded.companion }),
          companions,
          browsers: parsed.load['browsers'] ?? companions * 2,
          wireVersion: loaded.wireVersion,
          ...(parsed.load['turn-interval'] !== undefined ? { turnIntervalMs: parsed.load['turn-interval'] } : {}),
          durationMs: (parsed.load['duration'] ?? 10) * 1000,
        }).finally(() => tracing.shutdown());
        io.stdout(parsed.json ? `${JSON.stringify(report, null, 2)}\n` : formatLoadReport(report));
        return EXIT.ok;
      }
      default:
        throw new UsageError(`unknown command ${JSON.stringify(parsed.command)}`);
    }
  } catch (error) {
    return report(io, error);
  }
}
