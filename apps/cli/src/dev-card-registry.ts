/**
 * The card registry under `trustmesh dev` (`npm start`): its environment and what a person needs to reach
 * it. Like the shield analyzer it gets a PGlite of its own under `<data dir>/card-registry` (one process
 * owns an embedded directory) unless DATABASE_URL is set, and its development operator credential only as
 * `development:<sha256>`; the plaintext is printed once by the launcher, never written.
 */
import { join } from 'node:path';

import { sha256Hex } from '@trustmesh/platform-credentials';

/** The registry's operator account for the development credential. */
export const REGISTRY_DEV_ACCOUNT = 'development';

export interface RegistryStarted {
  httpUrl: string;
  grpcAddress: string;
  operatorUrl: string | null;
}

export function registryEnv(baseEnv: Record<string, string | undefined>, dataDir: string, credential: string): Record<string, string | undefined> {
  const entry = `${REGISTRY_DEV_ACCOUNT}:${sha256Hex(credential)}`;
  const configured = baseEnv['REGISTRY_OPERATOR_CREDENTIALS']?.trim();
  return {
    ...baseEnv,
    TRUSTMESH_DATA_DIR: baseEnv['DATABASE_URL'] ? dataDir : join(dataDir, 'card-registry'),
    REGISTRY_OPERATOR_CREDENTIALS: configured ? `${configured},${entry}` : entry,
  };
}

/** The "listening" log record's addresses, or null when it is not one. */
export function registryStartedOf(record: Record<string, unknown> | null): RegistryStarted | null {
  if (!record) return null;
  return { httpUrl: String(record['http']), grpcAddress: String(record['grpc']), operatorUrl: typeof record['operator'] === 'string' ? record['operator'] : null };
}

/** What a person needs to reach the registry: the exports, first commands, each address. */
export function registryLines(started: RegistryStarted, mintedCredential: string | null): string[] {
  return [
    `Card registry is running (operator account "${REGISTRY_DEV_ACCOUNT}"):`,
    `    export TRUSTMESH_REGISTRY_URL=${started.httpUrl}`,
    mintedCredential ? `    export TRUSTMESH_REGISTRY_TOKEN=${mintedCredential}   (operator; this run only, shown once, never stored)` : '    (TRUSTMESH_REGISTRY_TOKEN: the one you set)',
    '    curl -s -H "Authorization: Bearer $TRUSTMESH_REGISTRY_TOKEN" -H "Content-Type: application/json" \\',
    '         -d \'{"publisherId":"acme","displayName":"Acme"}\' "$TRUSTMESH_REGISTRY_URL/v1/operator/publishers"',
    '    (then grant a namespace and issue a publisher credential: apps/card-registry/README.md)',
    '    npx trustmesh cards get https://acme.example/agents/name',
    `  Registry REST:              ${started.httpUrl}/v1, header  Authorization: Bearer <credential>`,
    `  Registry gRPC:              ${started.grpcAddress} (plaintext) trustmesh.registry.v1.CardRegistry, CardRegistryOperator`,
    `  Registry operator port:     ${started.operatorUrl ? `${started.operatorUrl} (/metrics, /healthz, /readyz)` : 'off'}`,
  ];
}
