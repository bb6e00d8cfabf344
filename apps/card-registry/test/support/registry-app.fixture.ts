/**
 * Starts the card registry in-process on embedded PGlite in a temporary directory (the single-machine
 * tier), with one operator account, every port on 0 and the log lines captured; `call` is a real HTTP
 * client. `onboard` registers a publisher, grants it namespaces and issues a credential, as an operator does.
 */
import { createHash } from 'node:crypto';

import { createSeededDataDir } from '@trustmesh/platform-database/testing';

import { startCardRegistry, type CardRegistryHandle } from '../../src/card-registry.bootstrap';
import { registryClient, type Call } from './registry-clients';

export const OPERATOR_TOKEN = 'registry-operator-credential-for-tests-0001';
const hex = (text: string) => createHash('sha256').update(text).digest('hex');
/** `REGISTRY_OPERATOR_CREDENTIALS` for the test operator account `ops`. */
export const OPERATOR_CREDENTIALS = `ops:${hex(OPERATOR_TOKEN)}`;

/** Limits far above what a suite sends from its one address; the limits suite sets its own. */
export const GENEROUS_LIMITS: Record<string, string> = {
  REGISTRY_RATE_READS_PER_MINUTE: '100000',
  REGISTRY_RATE_READS_PER_HOUR: '100000',
  REGISTRY_RATE_WRITES_PER_MINUTE: '100000',
  REGISTRY_RATE_WRITES_PER_HOUR: '100000',
  REGISTRY_RATE_CREDENTIAL_PER_MINUTE: '100000',
  REGISTRY_RATE_CREDENTIAL_PER_HOUR: '100000',
};

export interface RegistryApp {
  handle: CardRegistryHandle;
  logs: string[];
  call: Call;
  close(): Promise<void>;
}

export async function startRegistryApp(extraEnv: Record<string, string> = {}, options: { dir?: string; now?: () => Date } = {}): Promise<RegistryApp> {
  // A fresh directory already holds a cluster: the app opens it without an initdb of its own (10–15 s).
  const seeded = options.dir ? undefined : await createSeededDataDir('registry-e2e');
  const dir = options.dir ?? (seeded as { dataDir: string }).dataDir;
  const logs: string[] = [];
  const handle = await startCardRegistry(
    { TRUSTMESH_DATA_DIR: dir, REGISTRY_HTTP_PORT: '0', REGISTRY_GRPC_PORT: '0', REGISTRY_OPERATOR_PORT: '0', REGISTRY_OPERATOR_CREDENTIALS: OPERATOR_CREDENTIALS, LOG_LEVEL: 'debug', ...GENEROUS_LIMITS, ...extraEnv },
    { writeLog: (line) => logs.push(line), print: () => undefined, ...(options.now ? { now: options.now } : {}) },
  );
  return {
    handle,
    logs,
    call: registryClient(handle.httpUrl),
    async close() {
      await handle.close();
      await seeded?.remove();
    },
  };
}

/** Registers `publisherId`, grants it `namespaces`, and returns a fresh `tmrp_` credential of it. */
export async function onboard(call: Call, publisherId: string, namespaces: readonly string[]): Promise<string> {
  const registered = await call('POST', '/v1/operator/publishers', { token: OPERATOR_TOKEN, json: { publisherId, displayName: `Publisher ${publisherId}` } });
  if (registered.status !== 201) throw new Error(`register ${publisherId}: ${registered.status} ${registered.bytes.toString()}`);
  for (const namespace of namespaces) {
    const granted = await call('POST', '/v1/operator/namespaces', { token: OPERATOR_TOKEN, json: { namespace, publisherId } });
    if (granted.status !== 201) throw new Error(`grant ${namespace}: ${granted.status} ${granted.bytes.toString()}`);
  }
  const issued = await call('POST', `/v1/operator/publishers/${publisherId}/credentials`, { token: OPERATOR_TOKEN, json: { label: 'ci' } });
  if (issued.status !== 201) throw new Error(`credential ${publisherId}: ${issued.status}`);
  return issued.body.credential as string;
}
