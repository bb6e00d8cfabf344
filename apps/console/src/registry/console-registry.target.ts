/**
 * Where the console reaches the card registry, read by the platform's one rule for a gRPC client
 * (`readGrpcClientTarget`): CONSOLE_REGISTRY_ADDRESS, CONSOLE_REGISTRY_CREDENTIAL or _CREDENTIAL_FILE (the
 * console's ONE delegated service credential, `REGISTRY_SERVICE_CREDENTIALS` on the registry's side, held as
 * `SecretText`), CONSOLE_REGISTRY_TLS and CONSOLE_REGISTRY_TLS_CA_FILE. The console's config composes it; null
 * when none is set (the registry routes then answer 503 CONSOLE_REGISTRY_NOT_CONFIGURED).
 */
import { grpcClientVariables, readGrpcClientTarget, type EnvReader, type GrpcClientTarget } from '@trustmesh/platform-config';

/** CONSOLE_REGISTRY_ADDRESS, _CREDENTIAL, _CREDENTIAL_FILE, _TLS, _TLS_CA_FILE. */
export const CONSOLE_REGISTRY_VARIABLES = grpcClientVariables('CONSOLE_REGISTRY');

export function readConsoleRegistryTarget(reader: EnvReader): GrpcClientTarget | null {
  return readGrpcClientTarget(reader, CONSOLE_REGISTRY_VARIABLES, { peer: 'the card registry' });
}
