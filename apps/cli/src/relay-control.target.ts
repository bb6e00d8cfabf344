/**
 * Where the command line's RelayControl calls go (`relay session`, `relay watch`, `relay publish-card`), read by
 * the platform's one rule for a gRPC client to another app (`readGrpcClientTarget`), so TLS, plaintext, the CA
 * and the credential behave here as in every app, with the same `GRPC_TARGET_*` codes. The commands' flags
 * are names for the rule's variables:
 *
 * | flag | variable | default |
 * |---|---|---|
 * | `--relay-control-address` | `RELAY_CONTROL_ADDRESS` | `127.0.0.1:50051` (the embedded gateway of `npm start`) |
 * | — | `RELAY_CONTROL_CREDENTIAL` / `RELAY_CONTROL_CREDENTIAL_FILE` | required; never a flag (shell history, process lists) |
 * | — | `RELAY_CONTROL_TLS` | `false` on a loopback address, else `true` |
 * | `--relay-control-ca` | `RELAY_CONTROL_TLS_CA_FILE` | the system's CAs |
 *
 * A flag wins over its variable. A refusal is a usage error (exit 2) naming the variable, its flag and its
 * code; it never repeats the credential.
 */
import { envReader, grpcClientVariables, readGrpcClientTarget, type ConfigProblem, type GrpcClientTarget } from '@trustmesh/platform-config';

import { UsageError } from './command-io';

type Env = Readonly<Record<string, string | undefined>>;

export const DEFAULT_RELAY_CONTROL_ADDRESS = '127.0.0.1:50051';
const VARIABLES = grpcClientVariables('RELAY_CONTROL');
const FLAG_OF: Readonly<Record<string, string>> = { [VARIABLES.address]: '--relay-control-address', [VARIABLES.caFile]: '--relay-control-ca' };

/** What the commands' flags say of the target (null: the flag was not given). */
export interface RelayControlFlags {
  address: string | null;
  caFile: string | null;
}

/** RelayControl's target from the flags and the environment, or a `UsageError` naming every problem. */
export function readRelayControlTarget(command: string, flags: RelayControlFlags, env: Env): GrpcClientTarget {
  const problems: ConfigProblem[] = [];
  const overlaid: Env = {
    ...env,
    [VARIABLES.address]: flags.address ?? env[VARIABLES.address] ?? DEFAULT_RELAY_CONTROL_ADDRESS,
    ...(flags.caFile !== null ? { [VARIABLES.caFile]: flags.caFile } : {}),
  };
  const target = readGrpcClientTarget(envReader(overlaid, problems), VARIABLES, { peer: "the relay gateway's RelayControl", required: true });
  if (target === null || problems.length > 0) throw new UsageError(problems.map((problem) => `${command}: ${describe(problem)}`).join('\n'));
  return target;
}

function describe(problem: ConfigProblem): string {
  const flag = FLAG_OF[problem.variable];
  const hint = problem.code === 'GRPC_TARGET_CREDENTIAL_REQUIRED' ? ' (`npm start` prints the service credential once as an export line)' : '';
  return `${problem.code ? `${problem.code}: ` : ''}${problem.variable}${flag ? ` (${flag})` : ''} ${problem.message}${hint}`;
}
