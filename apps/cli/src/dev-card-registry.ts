/**
 * The card registry under `trustmesh dev` (`npm start`): its environment, the gateway's onboarding as a
 * publisher, and what a person needs to reach it. Like the shield analyzer it gets a PGlite of its own under
 * `<data dir>/card-registry` (one process owns an embedded directory) unless DATABASE_URL is set, and its
 * development operator credential only as `development:<sha256>`; the plaintext is printed once by the
 * launcher, never written.
 *
 * The gateway publishes its workspaces' cards as the publisher `trustmesh-dev-relay` of the namespace
 * `relay.trustmesh.test`, onboarded here through the registry's operator REST API at every start (both
 * steps answer "already so" on a later start). The publisher credential the registry issues goes to the
 * gateway in a 0600 file under the data directory (`RELAY_REGISTRY_PUBLISHER_CREDENTIAL_FILE`), never to
 * the terminal; the previous start's credential is revoked, so one stays valid.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

import { mintSecret, sha256Hex } from '@trustmesh/platform-credentials';

import { jsonObjectOf, sendBoundedRequest } from './bounded-http.request';

/** The registry's operator account for the development credential. */
export const REGISTRY_DEV_ACCOUNT = 'development';
/** The registry publisher the development gateway publishes workspace cards as, and its namespace. */
export const DEV_CARD_PUBLISHER = 'trustmesh-dev-relay';
export const DEV_CARD_NAMESPACE = 'relay.trustmesh.test';
const ONBOARD_TIMEOUT_MS = 30_000;
/** Registry answers are small JSON records; anything longer is not one. */
const MAX_ANSWER_BYTES = 64 * 1024;

export class RegistryOnboardingError extends Error {
  override readonly name = 'RegistryOnboardingError';
}

export interface RegistryStarted {
  httpUrl: string;
  grpcAddress: string;
  operatorUrl: string | null;
}

/** The name the registry knows the Shield's feed credential by (REGISTRY_FEED_CREDENTIALS). */
export const SHIELD_FEED_FOLLOWER = 'shield';

/** The registry → Shield feed of one start: the credential's plaintext (Shield only) and digest entry (registry). */
export interface RegistryFeedWiring {
  readonly followerEntry: string;
  /** The Shield's SHIELD_REGISTRY_FEED_* once the registry's gRPC address is known. */
  shieldEnv(registryGrpcAddress: string): Record<string, string>;
}

/** The feed to wire, or null when the Shield sees the topic otherwise or the user configured its feed. */
export function registryFeedWiring(env: Readonly<Record<string, string | undefined>>): RegistryFeedWiring | null {
  if (env['DATABASE_URL'] || (env['TRUSTMESH_BUS'] ?? 'local').trim().toLowerCase() === 'kafka' || env['SHIELD_REGISTRY_FEED_ADDRESS']) return null;
  const credential = mintSecret('tmfd_');
  return {
    followerEntry: `${SHIELD_FEED_FOLLOWER}:${sha256Hex(credential)}`,
    shieldEnv: (address) => ({ SHIELD_REGISTRY_FEED_ADDRESS: reachable(address), SHIELD_REGISTRY_FEED_CREDENTIAL: credential }),
  };
}

export function registryEnv(baseEnv: Record<string, string | undefined>, dataDir: string, credential: string, feed: RegistryFeedWiring | null = null): Record<string, string | undefined> {
  const entry = `${REGISTRY_DEV_ACCOUNT}:${sha256Hex(credential)}`;
  const configured = baseEnv['REGISTRY_OPERATOR_CREDENTIALS']?.trim();
  const followers = baseEnv['REGISTRY_FEED_CREDENTIALS']?.trim();
  return {
    ...baseEnv,
    TRUSTMESH_DATA_DIR: baseEnv['DATABASE_URL'] ? dataDir : join(dataDir, 'card-registry'),
    REGISTRY_OPERATOR_CREDENTIALS: configured ? `${configured},${entry}` : entry,
    ...(feed ? { REGISTRY_FEED_CREDENTIALS: followers ? `${followers},${feed.followerEntry}` : feed.followerEntry } : {}),
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

/**
 * Onboards the development gateway on the registry (publisher, namespace, a fresh credential) and writes the
 * credential to `<data dir>/relay-gateway/registry-publisher.credential` (0600, the credential id beside it
 * so the next start revokes it). Resolves with the gateway's RELAY_REGISTRY_* variables.
 */
export async function onboardDevGateway(started: RegistryStarted, operatorCredential: string, dataDir: string): Promise<Record<string, string>> {
  const call = (method: 'POST' | 'DELETE', path: string, body?: unknown) => operatorCall(started.httpUrl, operatorCredential, method, path, body);
  const publisher = await call('POST', '/v1/operator/publishers', { publisherId: DEV_CARD_PUBLISHER, displayName: 'Trustmesh development relay' });
  if (publisher.status !== 201 && publisher.code !== 'PUBLISHER_EXISTS') throw refused('register the development publisher', publisher);
  const namespace = await call('POST', '/v1/operator/namespaces', { namespace: DEV_CARD_NAMESPACE, publisherId: DEV_CARD_PUBLISHER });
  if (namespace.status !== 201 && namespace.status !== 200) throw refused(`grant ${DEV_CARD_NAMESPACE}`, namespace);
  const credentialFile = join(dataDir, 'registry-publisher.credential');
  const idFile = `${credentialFile}.id`;
  const previousId = readOptional(idFile);
  const issued = await call('POST', `/v1/operator/publishers/${DEV_CARD_PUBLISHER}/credentials`, { label: 'trustmesh dev gateway' });
  const credential = typeof issued.body['credential'] === 'string' ? issued.body['credential'] : null;
  const credentialId = typeof issued.body['credentialId'] === 'string' ? issued.body['credentialId'] : null;
  if (issued.status !== 201 || credential === null || credentialId === null) throw refused('issue a publisher credential', issued);
  writeFileSync(credentialFile, `${credential}\n`, { mode: 0o600 });
  writeFileSync(idFile, `${credentialId}\n`, { mode: 0o600 });
  if (previousId && /^[A-Za-z0-9_-]{1,128}$/.test(previousId)) await call('DELETE', `/v1/operator/publishers/${DEV_CARD_PUBLISHER}/credentials/${previousId}`);
  return {
    RELAY_REGISTRY_GRPC_ADDRESS: reachable(started.grpcAddress),
    RELAY_REGISTRY_PUBLISHER_CREDENTIAL_FILE: credentialFile,
    RELAY_CARD_NAMESPACE: DEV_CARD_NAMESPACE,
  };
}

/** An address a client on this machine can dial: a wildcard listener is reached on loopback. */
export function reachable(address: string): string {
  return address.replace(/^(?:0\.0\.0\.0|\[::\]):/, '127.0.0.1:');
}

interface OperatorAnswer {
  status: number;
  code: string | null;
  body: Record<string, unknown>;
}

async function operatorCall(baseUrl: string, credential: string, method: 'POST' | 'DELETE', path: string, body?: unknown): Promise<OperatorAnswer> {
  const answer = await sendBoundedRequest({
    method,
    url: new URL(path, baseUrl),
    headers: { authorization: `Bearer ${credential}` },
    json: body,
    timeoutMs: ONBOARD_TIMEOUT_MS,
    maxAnswerBytes: MAX_ANSWER_BYTES,
    service: 'the card registry',
    unreachable: (message) => new RegistryOnboardingError(`${message} (${method} ${path})`),
  });
  const parsed = jsonObjectOf(answer.bytes);
  // The registry's problem documents carry a stable `code` (registry-http.edge.ts).
  const code = typeof parsed['code'] === 'string' ? parsed['code'] : null;
  return { status: answer.status, code, body: parsed };
}

function refused(what: string, answer: OperatorAnswer): RegistryOnboardingError {
  return new RegistryOnboardingError(`the card registry refused to ${what} (HTTP ${answer.status}${answer.code ? ` ${answer.code.slice(0, 64)}` : ''})`);
}

function readOptional(file: string): string | null {
  try {
    return readFileSync(file, 'utf8').trim();
  } catch {
    return null;
  }
}
