/**
 * Where the console reaches the Shield, read by the platform's one rule for a gRPC client
 * (`readGrpcClientTarget`): CONSOLE_SHIELD_ADDRESS, CONSOLE_SHIELD_CREDENTIAL or _CREDENTIAL_FILE (the console's
 * ONE delegated service credential, `SHIELD_SERVICE_CREDENTIALS` on the Shield's side, held as `SecretText`),
 * CONSOLE_SHIELD_TLS and CONSOLE_SHIELD_TLS_CA_FILE. The console's config composes it; null when none is set
 * (the Shield routes then answer 503 CONSOLE_SHIELD_NOT_CONFIGURED).
 */
import { grpcClientVariables, readGrpcClientTarget, type EnvReader, type GrpcClientTarget } from '@trustmesh/platform-config';

/** CONSOLE_SHIELD_ADDRESS, _CREDENTIAL, _CREDENTIAL_FILE, _TLS, _TLS_CA_FILE. */
export const CONSOLE_SHIELD_VARIABLES = grpcClientVariables('CONSOLE_SHIELD');

export function readConsoleShieldTarget(reader: EnvReader): GrpcClientTarget | null {
  return readGrpcClientTarget(reader, CONSOLE_SHIELD_VARIABLES, { peer: 'the Shield analyzer' });
}
