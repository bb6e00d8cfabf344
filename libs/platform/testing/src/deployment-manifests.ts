/**
 * The deployment files under docker/ as the tools that apply them see them, for specs that check them
 * without a cluster or a Docker engine: Kubernetes overlays rendered by `kubectl kustomize`, the compose
 * file resolved by `docker-compose config`, and the environment a container would start with. A missing
 * tool fails the spec: a check that silently skips proves nothing.
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';

import { parseAllDocuments, parse } from 'yaml';

/** The repository's docker/ folder. */
export const DOCKER_DIR = resolve(__dirname, '../../../../docker');
/** The Kubernetes overlays docker/README.md deploys. */
export const KUBERNETES_OVERLAYS = ['dev', 'prod'] as const;

/** A rendered Kubernetes object, typed loosely: specs check its shape. */
export interface ManifestObject {
  apiVersion: string;
  kind: string;
  metadata: { name: string; namespace?: string; labels?: Record<string, string> };
  // eslint-disable-next-line @typescript-eslint/no-explicit-any -- any kind's fields; the specs check their shape
  [field: string]: any;
}

function run(command: string, args: string[], tool: string): string {
  const result = spawnSync(command, args, { encoding: 'utf8', maxBuffer: 16 * 1024 * 1024 });
  if (result.error) throw new Error(`${tool} is required to check the deployment files (${result.error.message}); .ci/run installs it`);
  if (result.status !== 0) throw new Error(`${command} ${args.join(' ')} failed (${result.status}):\n${result.stderr}`);
  return result.stdout;
}

/** `kubectl kustomize docker/kubernetes/<path>`, parsed (KUBECTL names another kubectl). */
export function renderKustomization(path: string): ManifestObject[] {
  const output = run(process.env['KUBECTL'] ?? 'kubectl', ['kustomize', join(DOCKER_DIR, 'kubernetes', path)], 'kubectl');
  return parseAllDocuments(output)
    .map((document) => document.toJS() as ManifestObject | null)
    .filter((object): object is ManifestObject => object !== null);
}

/** The one object of `kind` named `name`; throws naming both when there is none. */
export function manifestObject(objects: readonly ManifestObject[], kind: string, name: string): ManifestObject {
  const found = objects.find((object) => object.kind === kind && object.metadata.name === name);
  if (!found) throw new Error(`no ${kind} ${name} in the rendered manifests`);
  return found;
}

/**
 * The environment a container of a rendered workload starts with: its ConfigMaps (envFrom and
 * configMapKeyRef), its literal values, `metadata.name` field references (as `<workload>-pod`) and, for each
 * Secret reference, the value `secrets` gives for that variable (a spec's placeholder: manifests hold none).
 * An optional Secret key without a placeholder stays unset, as it would in a cluster without it.
 */
export function containerEnvironment(
  objects: readonly ManifestObject[],
  workload: ManifestObject,
  containerName: string,
  secrets: Readonly<Record<string, string>>,
): Record<string, string> {
  const pod = workload['spec'].template.spec;
  const container = [...(pod.initContainers ?? []), ...pod.containers].find((candidate: { name: string }) => candidate.name === containerName);
  if (!container) throw new Error(`${workload.kind} ${workload.metadata.name} has no container ${containerName}`);
  const env: Record<string, string> = {};
  for (const source of container.envFrom ?? []) {
    if (!source.configMapRef) throw new Error(`${containerName}: envFrom other than a ConfigMap is not expected`);
    Object.assign(env, manifestObject(objects, 'ConfigMap', source.configMapRef.name)['data']);
  }
  for (const entry of container.env ?? []) {
    const from = entry.valueFrom;
    if (from === undefined) env[entry.name] = entry.value;
    else if (from.configMapKeyRef) env[entry.name] = manifestObject(objects, 'ConfigMap', from.configMapKeyRef.name)['data'][from.configMapKeyRef.key];
    else if (from.fieldRef?.fieldPath === 'metadata.name') env[entry.name] = `${workload.metadata.name}-pod`;
    else if (from.secretKeyRef) {
      const placeholder = secrets[entry.name];
      if (placeholder !== undefined) env[entry.name] = placeholder;
      else if (!from.secretKeyRef.optional) throw new Error(`${containerName}: no placeholder for the Secret behind ${entry.name}`);
    } else throw new Error(`${containerName}: unexpected source of ${entry.name}`);
  }
  return env;
}

/** A service of the resolved compose file. */
export interface ComposeService {
  image?: string;
  command?: string[];
  environment?: Record<string, string | null>;
  depends_on?: Record<string, { condition: string }>;
  ports?: Array<{ target: number; published?: number } | string>;
  healthcheck?: { test: string[] };
  profiles?: string[];
  build?: { context: string; dockerfile: string; args?: Record<string, string> };
  [field: string]: unknown;
}

/**
 * `docker-compose -f docker/compose.yaml --env-file <file> config` with `variables` in that env file (the
 * README's docker/.env), parsed.
 */
export function renderCompose(variables: Readonly<Record<string, string>>): { services: Record<string, ComposeService>; volumes?: Record<string, unknown> } {
  const dir = mkdtempSync(join(tmpdir(), 'trustmesh-compose-'));
  try {
    const envFile = join(dir, '.env');
    writeFileSync(envFile, Object.entries(variables).map(([name, value]) => `${name}=${value}\n`).join(''));
    return parse(run(process.env['DOCKER_COMPOSE'] ?? 'docker-compose', ['-f', join(DOCKER_DIR, 'compose.yaml'), '--env-file', envFile, 'config'], 'docker-compose'));
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/** A compose service's environment with every variable set (blank ones as compose passes them: empty). */
export function composeEnvironment(service: ComposeService): Record<string, string> {
  return Object.fromEntries(Object.entries(service.environment ?? {}).map(([name, value]) => [name, value ?? '']));
}

/** The container ports a compose service publishes, in order (`host:published:target/tcp` or long form). */
export function composeTargetPorts(service: ComposeService): number[] {
  return (service.ports ?? []).map((port) => (typeof port === 'string' ? Number(/(\d+)(?:\/\w+)?$/.exec(port)?.[1]) : port.target));
}
