/**
 * The deployment files under docker/, checked without a cluster or a Docker engine: every Kubernetes overlay
 * renders with `kubectl kustomize`, every object matches the Kubernetes OpenAPI schema (kubernetes-models),
 * and the platform's rules hold (probes, requests and limits, non-root, read-only root filesystem, pinned
 * images, Secrets only by reference, PDBs, HPAs, NetworkPolicies, the migration Job, the Kafka topics).
 * The compose file resolves with `docker-compose config` and starts everything in the order it needs; the
 * Dockerfile runs the bundle commands. Each app's spec (apps/<app>/src/config/*.deployment.spec.ts) checks
 * the environments and ports against the app's own configuration reader.
 */
import { spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';

import { COMPOSE_TEST_VARIABLES, DOCKER_DIR, KUBERNETES_OVERLAYS, manifestObject, renderCompose, renderKustomization, type ManifestObject } from '@trustmesh/platform-testing';

const APPS = ['relay-gateway', 'shield-analyzer', 'card-registry', 'companion-simulator', 'console'] as const;
/** The apps that serve gRPC (the console only calls it). */
const GRPC_APPS = APPS.filter((app) => app !== 'console');
/** The apps that own tables, in the order their migrations run. */
const MIGRATED_APPS = ['relay-gateway', 'shield-analyzer', 'card-registry', 'console'];
/** Variables whose values are secrets: a manifest may only reference them. */
const SECRET_VARIABLE = /^DATABASE_URL$|_CREDENTIALS?$|_CREDENTIAL_SHA256$|_API_KEY$|_PAIRING_CODE$|PASSWORD$/;

type Container = Record<string, any>;
const podSpecOf = (object: ManifestObject) => object['spec'].template.spec;
const workloadsOf = (objects: readonly ManifestObject[]) => objects.filter((object) => object.kind === 'Deployment' || object.kind === 'Job');
const containersOf = (object: ManifestObject): Container[] => [...(podSpecOf(object).initContainers ?? []), ...podSpecOf(object).containers];
const ofKind = (objects: readonly ManifestObject[], kind: string) => objects.filter((object) => object.kind === kind);
const matches = (selector: Record<string, string>, labels: Record<string, string> = {}) => Object.entries(selector).every(([key, value]) => labels[key] === value);

/** The schema check of kubernetes-models for the object's apiVersion and kind; the problems, or []. */
function schemaProblems(object: ManifestObject): string[] {
  const models = require(`kubernetes-models/${object.apiVersion}/${object.kind}`) as Record<string, new (data: unknown) => { validate(): void }>;
  const Model = models[object.kind];
  if (!Model) return [`no schema for ${object.apiVersion} ${object.kind}`];
  try {
    new Model(object).validate();
    return [];
  } catch (error) {
    return [`${object.kind} ${object.metadata.name}: ${(error as Error).message}`];
  }
}

/** `image:tag` with a tag that names a release: never untagged, never `latest`. */
const pinned = (image: string) => /^[^:@]+(:[0-9A-Za-z][\w.-]*)(@sha256:[0-9a-f]{64})?$/.test(image) && !/:latest(@|$)/.test(image);

describe.each(KUBERNETES_OVERLAYS)('the %s overlay', (overlay) => {
  const objects = renderKustomization(`overlays/${overlay}`);
  const deployments = ofKind(objects, 'Deployment');

  it('renders objects that match the Kubernetes schemas, all in one namespace', () => {
    expect(objects.length).toBeGreaterThan(20);
    expect(objects.flatMap(schemaProblems)).toEqual([]);
    expect(new Set(objects.map((object) => object.metadata.namespace))).toEqual(new Set([overlay === 'prod' ? 'trustmesh' : 'trustmesh-dev']));
  });

  it('has a Deployment, a ConfigMap and a headless gRPC Service for every app (the console serves no gRPC)', () => {
    expect(deployments.map((deployment) => deployment.metadata.name).sort()).toEqual([...APPS].sort());
    for (const app of APPS) expect(manifestObject(objects, 'ConfigMap', app)).toBeDefined();
    for (const app of GRPC_APPS) expect(manifestObject(objects, 'Service', `${app}-grpc`)['spec'].clusterIP).toBe('None');
    expect(objects.filter((object) => object.kind === 'Service' && object.metadata.name === 'console-grpc')).toEqual([]);
  });

  it('runs every container as non-root on a read-only root filesystem, with requests and limits and a pinned image', () => {
    for (const workload of workloadsOf(objects)) {
      expect([workload.metadata.name, podSpecOf(workload).securityContext.runAsNonRoot]).toEqual([workload.metadata.name, true]);
      for (const container of containersOf(workload)) {
        const where = `${workload.metadata.name}/${container['name']}`;
        expect([where, container['securityContext']]).toEqual([where, expect.objectContaining({ readOnlyRootFilesystem: true, allowPrivilegeEscalation: false, capabilities: { drop: ['ALL'] } })]);
        for (const bound of ['requests', 'limits']) expect([where, bound, Object.keys(container['resources'][bound]).sort()]).toEqual([where, bound, ['cpu', 'memory']]);
        expect([where, pinned(container['image'])]).toEqual([where, true]);
      }
    }
  });

  it('probes every app: startup, liveness and readiness, with gRPC health on the gRPC port and HTTP on the operator port', () => {
    for (const deployment of deployments) {
      const [container] = podSpecOf(deployment).containers as Container[];
      const probes = ['startupProbe', 'livenessProbe', 'readinessProbe'].map((name) => container![name]);
      expect([deployment.metadata.name, probes.every(Boolean)]).toEqual([deployment.metadata.name, true]);
      const grpcPort = container!['ports'].find((port: { name: string }) => port.name === 'grpc')?.containerPort;
      // An app without gRPC (the console) is alive when its operator port answers /healthz.
      if (grpcPort === undefined) expect([deployment.metadata.name, container!['livenessProbe'].httpGet]).toEqual([deployment.metadata.name, { path: '/healthz', port: 'operator' }]);
      else expect(probes.filter((probe) => probe.grpc).map((probe) => probe.grpc.port)).toContain(grpcPort);
      if (container!['ports'].some((port: { name: string }) => port.name === 'operator')) {
        expect(container!['readinessProbe'].httpGet).toEqual({ path: '/readyz', port: 'operator' });
        expect(container!['startupProbe'].httpGet).toEqual({ path: '/healthz', port: 'operator' });
      }
    }
  });

  it('takes secret values only from Secret references, and renders no Secret', () => {
    expect(ofKind(objects, 'Secret')).toEqual([]);
    const literal = workloadsOf(objects).flatMap((workload) => containersOf(workload).flatMap((container) => (container['env'] ?? []).filter((entry: { name: string; value?: string }) => SECRET_VARIABLE.test(entry.name))));
    expect(literal.filter((entry: { valueFrom?: { secretKeyRef?: unknown } }) => !entry.valueFrom?.secretKeyRef).map((entry: { name: string }) => entry.name)).toEqual([]);
    const inConfigMaps = ofKind(objects, 'ConfigMap').flatMap((configMap) => Object.keys(configMap['data'] ?? {}).filter((name) => SECRET_VARIABLE.test(name)));
    expect(inConfigMaps).toEqual([]);
  });

  it('routes every Service port to a named port of the pods it selects', () => {
    for (const service of ofKind(objects, 'Service')) {
      const selected = deployments.filter((deployment) => matches(service['spec'].selector, podSpecOf(deployment) && deployment['spec'].template.metadata.labels));
      expect([service.metadata.name, selected.length]).toEqual([service.metadata.name, 1]);
      const ports = podSpecOf(selected[0]!).containers[0].ports as Array<{ name: string; containerPort: number }>;
      for (const port of service['spec'].ports) {
        expect([service.metadata.name, ports.find((candidate) => candidate.name === port.targetPort)?.containerPort]).toEqual([service.metadata.name, port.port]);
      }
    }
  });

  it('keeps a replica of every replicated app through disruptions, and scales the gateway and the registry on CPU', () => {
    const hpas = ofKind(objects, 'HorizontalPodAutoscaler');
    const autoscaled = hpas.map((hpa) => {
      const target = manifestObject(objects, 'Deployment', hpa['spec'].scaleTargetRef.name);
      expect(hpa['spec'].minReplicas).toBeLessThanOrEqual(hpa['spec'].maxReplicas);
      // The HPA owns the count: a replicas field would reset it on every apply.
      expect([target.metadata.name, target['spec'].replicas]).toEqual([target.metadata.name, undefined]);
      return target.metadata.name;
    });
    expect(autoscaled.sort()).toEqual(['card-registry', 'relay-gateway']);
    const replicated = deployments.filter((candidate) => candidate['spec'].replicas > 1 || autoscaled.includes(candidate.metadata.name));
    for (const deployment of replicated) {
      const budget = ofKind(objects, 'PodDisruptionBudget').find((candidate) => matches(candidate['spec'].selector.matchLabels, deployment['spec'].template.metadata.labels));
      expect([deployment.metadata.name, budget?.['spec'].minAvailable]).toEqual([deployment.metadata.name, 1]);
    }
    expect(replicated.length).toBeGreaterThanOrEqual(overlay === 'prod' ? 3 : 2);
  });

  it('denies all traffic but the flows the platform uses, each to a port its target listens on', () => {
    const policies = ofKind(objects, 'NetworkPolicy');
    const deny = manifestObject(objects, 'NetworkPolicy', 'default-deny');
    expect(deny['spec'].policyTypes).toEqual(['Ingress', 'Egress']);
    expect(deny['spec'].ingress ?? []).toEqual([]);
    expect(deny['spec'].egress ?? []).toEqual([]);
    for (const policy of policies) {
      for (const rule of [...(policy['spec'].ingress ?? []), ...(policy['spec'].egress ?? [])]) {
        expect([policy.metadata.name, (rule.ports ?? []).length > 0, (rule.from ?? rule.to ?? []).length > 0]).toEqual([policy.metadata.name, true, true]);
      }
    }
    const policyOf = (app: string) => policies.find((candidate) => candidate['spec'].podSelector.matchLabels?.['app.kubernetes.io/name'] === app)!;
    // Every port opened into an app is one its containers listen on, and every app's listeners are covered.
    for (const app of APPS) {
      const listening = podSpecOf(manifestObject(objects, 'Deployment', app)).containers[0].ports.map((port: { containerPort: number }) => port.containerPort);
      const opened = (policyOf(app)['spec'].ingress ?? []).flatMap((rule: { ports: Array<{ port: number }> }) => rule.ports.map((port) => port.port));
      expect([app, opened.filter((port: number) => !listening.includes(port))]).toEqual([app, []]);
    }
    // The platform's own flows (ARCHITECTURE.md): relay → registry gRPC, companion → shield gRPC, and the
    // console → each app's gRPC and operator ports (its Platform page); nothing else reaches those ports.
    const egressTo = (from: string, to: string) =>
      policyOf(from)['spec'].egress.filter((rule: { to: Array<{ podSelector?: { matchLabels: Record<string, string> } }> }) => rule.to.some((peer) => peer.podSelector?.matchLabels['app.kubernetes.io/name'] === to))
        .flatMap((rule: { ports: Array<{ port: number }> }) => rule.ports.map((port) => port.port));
    expect(egressTo('relay-gateway', 'card-registry')).toEqual([manifestObject(objects, 'Service', 'card-registry-grpc')['spec'].ports[0].port]);
    expect(egressTo('companion-simulator', 'shield-analyzer')).toEqual([manifestObject(objects, 'Service', 'shield-analyzer-grpc')['spec'].ports[0].port]);
    const servicePort = (name: string, port: string) => manifestObject(objects, 'Service', name)['spec'].ports.find((candidate: { name: string }) => candidate.name === port).port;
    for (const app of ['relay-gateway', 'shield-analyzer', 'card-registry']) {
      expect([app, egressTo('console', app)]).toEqual([app, [servicePort(`${app}-grpc`, 'grpc'), servicePort(app, 'operator')]]);
    }
    expect(policyOf('console')['spec'].egress.filter((rule: { to: Array<{ podSelector?: unknown }> }) => rule.to.some((peer) => peer.podSelector)).length).toBe(3);
  });

  it('configures every platform flow at the gRPC Service and port its NetworkPolicy allows, each credential from a Secret', () => {
    const flows = [
      { from: 'relay-gateway', to: 'card-registry', address: 'RELAY_REGISTRY_GRPC_ADDRESS', credential: 'RELAY_REGISTRY_PUBLISHER_CREDENTIAL' },
      { from: 'companion-simulator', to: 'shield-analyzer', address: 'SIMULATOR_SHIELD_ADDRESS', credential: 'SIMULATOR_SHIELD_CREDENTIAL' },
      { from: 'console', to: 'relay-gateway', address: 'CONSOLE_RELAY_CONTROL_ADDRESS', credential: 'CONSOLE_RELAY_CONTROL_CREDENTIAL' },
      { from: 'console', to: 'shield-analyzer', address: 'CONSOLE_SHIELD_ADDRESS', credential: 'CONSOLE_SHIELD_CREDENTIAL' },
      { from: 'console', to: 'card-registry', address: 'CONSOLE_REGISTRY_ADDRESS', credential: 'CONSOLE_REGISTRY_CREDENTIAL' },
    ];
    const policy = (app: string) => ofKind(objects, 'NetworkPolicy').find((candidate) => candidate['spec'].podSelector.matchLabels?.['app.kubernetes.io/name'] === app)!;
    for (const flow of flows) {
      const container = podSpecOf(manifestObject(objects, 'Deployment', flow.from)).containers[0];
      const configMaps = (container.envFrom ?? []).map((source: { configMapRef: { name: string } }) => manifestObject(objects, 'ConfigMap', source.configMapRef.name)['data']);
      const literal = (name: string) => container.env.find((entry: { name: string }) => entry.name === name)?.value ?? configMaps.map((data: Record<string, string>) => data[name]).find(Boolean);
      const [host, port] = String(literal(flow.address)).split(':');
      const service = manifestObject(objects, 'Service', host!);
      expect([flow.address, service['spec'].selector['app.kubernetes.io/name'], Number(port)]).toEqual([flow.address, flow.to, service['spec'].ports[0].port]);
      const allowed = policy(flow.from)['spec'].egress.filter((rule: { to: Array<{ podSelector?: { matchLabels: Record<string, string> } }> }) => rule.to.some((peer) => peer.podSelector?.matchLabels['app.kubernetes.io/name'] === flow.to));
      expect(allowed.flatMap((rule: { ports: Array<{ port: number }> }) => rule.ports.map((entry) => entry.port))).toContain(Number(port));
      expect(container.env.find((entry: { name: string }) => entry.name === flow.credential)?.valueFrom?.secretKeyRef?.name).toBe(flow.from);
    }
  });

  it('migrates every app that owns tables, in order, in a Job the README applies alone before the apps', () => {
    const job = manifestObject(objects, 'Job', 'trustmesh-migrate');
    const steps = containersOf(job);
    expect(steps.map((step) => step['name'])).toEqual(MIGRATED_APPS);
    for (const step of steps) {
      expect(step['args']).toEqual(['migrate.js']);
      expect(step['image']).toContain(`/${step['name']}:`);
      expect(step['env']).toEqual([{ name: 'DATABASE_URL', valueFrom: { secretKeyRef: { name: step['name'], key: 'database-url' } } }]);
    }
    // `kubectl apply -l app.kubernetes.io/component=migration` selects the Job and its NetworkPolicy only.
    const selected = objects.filter((object) => object.metadata.labels?.['app.kubernetes.io/component'] === 'migration');
    expect(selected.map((object) => `${object.kind}/${object.metadata.name}`).sort()).toEqual(['Job/trustmesh-migrate', 'NetworkPolicy/trustmesh-migrate']);
  });
});

describe('the Kafka topics', () => {
  const topics = renderKustomization('kafka');
  const script = readFileSync(join(DOCKER_DIR, 'kafka/create-topics.sh'), 'utf8');
  const scripted = [...script.matchAll(/^topic (\S+) (\d+) (-?\d+)$/gm)].map(([, name, partitions, retention]) => ({ name: name!, partitions: Number(partitions), retention: retention! }));
  const declared = topics.map((topic) => ({ name: topic['spec'].topicName as string, partitions: topic['spec'].partitions as number, retention: topic['spec'].config['retention.ms'] as string }));

  it('are Strimzi KafkaTopics of the trustmesh cluster, never compacted, and the same as the plain kafka-topics commands', () => {
    for (const topic of topics) {
      expect(topic.apiVersion).toBe('kafka.strimzi.io/v1beta2');
      expect(topic.kind).toBe('KafkaTopic');
      expect(topic.metadata.labels?.['strimzi.io/cluster']).toBe('trustmesh');
      expect(topic.metadata.name).toMatch(/^[a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?$/);
      expect(topic['spec'].config['cleanup.policy']).toBe('delete');
      expect(Number.isInteger(topic['spec'].partitions) && topic['spec'].partitions > 0).toBe(true);
    }
    expect(scripted.length).toBeGreaterThan(0);
    const byName = (a: { name: string }, b: { name: string }) => a.name.localeCompare(b.name);
    expect([...declared].sort(byName)).toEqual([...scripted].sort(byName));
  });

  it('include every topic an app or a shared contract names, each with its dead-letter sibling', () => {
    const names = new Set(declared.map((topic) => topic.name));
    const sources = ['../apps', '../libs'].flatMap((dir) => sourcesOf(resolve(DOCKER_DIR, dir)));
    const appTopics = [...new Set(sources.flatMap((source) => [...source.matchAll(/export const \w+_TOPIC = '([a-z0-9.-]+)'/g)].map((match) => match[1]!)))];
    expect(appTopics.length).toBeGreaterThanOrEqual(5);
    expect(appTopics.flatMap((topic) => [topic, `${topic}.dlq`]).filter((topic) => !names.has(topic))).toEqual([]);
  });

  it.each(KUBERNETES_OVERLAYS)('keep the relay frames at least as long as the %s overlay asks the gateway to', (overlay) => {
    const configured = Number(manifestObject(renderKustomization(`overlays/${overlay}`), 'ConfigMap', 'relay-gateway')['data'].RELAY_FRAMES_RETENTION_MS);
    const frames = declared.find((topic) => topic.name === 'relay.workspace-frames.v1')!;
    expect(configured).toBeGreaterThan(0);
    expect(Number(frames.retention)).toBeGreaterThanOrEqual(configured);
  });
});

/** The TypeScript sources under `dir` (no specs, no generated code), read. */
function sourcesOf(dir: string): string[] {
  return readdirSync(dir, { recursive: true, withFileTypes: true })
    .filter((entry) => entry.isFile() && entry.name.endsWith('.ts') && !entry.name.endsWith('.spec.ts') && !entry.parentPath.includes('generated'))
    .map((entry) => readFileSync(join(entry.parentPath, entry.name), 'utf8'));
}

describe('the compose file', () => {
  const { services } = renderCompose(COMPOSE_TEST_VARIABLES);

  it('refuses to start without the secrets it needs, naming them', () => {
    expect(() => renderCompose({ ...COMPOSE_TEST_VARIABLES, TRUSTMESH_POSTGRES_PASSWORD: '' })).toThrow(/TRUSTMESH_POSTGRES_PASSWORD/);
  });

  it('runs Postgres, Kafka in KRaft mode, the topics, the migrations and the five apps, on pinned images', () => {
    expect(Object.keys(services).sort()).toEqual(
      ['postgres', 'kafka', 'kafka-topics', ...MIGRATED_APPS.map((app) => `migrate-${app}`), ...APPS].sort(),
    );
    for (const [name, service] of Object.entries(services)) expect([name, pinned(service.image ?? '')]).toEqual([name, true]);
    const kafka = services['kafka']!.environment!;
    expect(kafka['KAFKA_PROCESS_ROLES']).toBe('broker,controller');
    expect(kafka['KAFKA_CONTROLLER_QUORUM_VOTERS']).toBeTruthy();
    expect(kafka['KAFKA_AUTO_CREATE_TOPICS_ENABLE']).toBe('false');
    expect(services['kafka-topics']!.command).toEqual(['sh', '/opt/trustmesh/create-topics.sh', 'kafka:9092', '1']);
  });

  it('starts each thing once what it needs is healthy or done: migrations in order, apps after the last', () => {
    const needs = (name: string) => services[name]!.depends_on ?? {};
    expect(needs('kafka-topics')).toEqual({ kafka: { condition: 'service_healthy' } });
    expect(needs('migrate-relay-gateway')).toEqual({ postgres: { condition: 'service_healthy' } });
    expect(needs('migrate-shield-analyzer')).toEqual({ 'migrate-relay-gateway': { condition: 'service_completed_successfully' } });
    expect(needs('migrate-card-registry')).toEqual({ 'migrate-shield-analyzer': { condition: 'service_completed_successfully' } });
    expect(needs('migrate-console')).toEqual({ 'migrate-card-registry': { condition: 'service_completed_successfully' } });
    const afterMigrations = {
      postgres: { condition: 'service_healthy' },
      'kafka-topics': { condition: 'service_completed_successfully' },
      'migrate-console': { condition: 'service_completed_successfully' },
    };
    for (const app of ['relay-gateway', 'shield-analyzer', 'card-registry']) expect(needs(app)).toEqual(afterMigrations);
    // The console's pages call the three apps from its first request.
    expect(needs('console')).toEqual({
      ...afterMigrations,
      'relay-gateway': { condition: 'service_healthy' },
      'shield-analyzer': { condition: 'service_healthy' },
      'card-registry': { condition: 'service_healthy' },
    });
    // The simulator consults the shield from its first counterparty request.
    expect(needs('companion-simulator')).toEqual({ 'relay-gateway': { condition: 'service_healthy' }, 'shield-analyzer': { condition: 'service_healthy' } });
    for (const name of ['postgres', 'kafka']) expect(services[name]!.healthcheck?.test.length).toBeGreaterThan(0);
  });

  it('builds every app from the one Dockerfile and runs it read-only without privileges', () => {
    for (const app of APPS) {
      const service = services[app]!;
      expect(service.build).toMatchObject({ context: resolve(DOCKER_DIR, '..'), dockerfile: 'docker/Dockerfile', args: { APP: app } });
      expect(service.build?.args?.['HEALTHCHECK_URL']).toMatch(/^(http:\/\/127\.0\.0\.1:\d+\/healthz|tcp:\/\/127\.0\.0\.1:\d+)$/);
      expect([app, service['read_only'], service['cap_drop']]).toEqual([app, true, ['ALL']]);
    }
  });
});

describe('the Dockerfile', () => {
  const dockerfile = readFileSync(join(DOCKER_DIR, 'Dockerfile'), 'utf8');
  const instructions = dockerfile.split('\n').filter((line) => line.trim() !== '' && !line.startsWith('#'));
  const stage = (name: string) => {
    const start = instructions.findIndex((line) => new RegExp(`^FROM \\S+ AS ${name}$`).test(line));
    const end = instructions.findIndex((line, index) => index > start && line.startsWith('FROM '));
    return instructions.slice(start, end === -1 ? undefined : end);
  };

  it('builds from a pinned Node image with exactly the bundle commands', () => {
    const base = /^ARG NODE_IMAGE=(\S+)$/m.exec(dockerfile)?.[1] ?? '';
    expect(pinned(base)).toBe(true);
    expect(base).toMatch(/^node:\d+\.\d+\.\d+-/);
    const build = stage('build');
    expect(build.filter((line) => line.startsWith('RUN np'))).toEqual(['RUN npm install --global npm@11.19.1', 'RUN npm ci', 'RUN npx nx build ${APP}']);
  });

  it('keeps only the bundle and its production dependencies, run by a non-root user, with a healthcheck', () => {
    const runtime = stage('runtime');
    expect(runtime).toContain('COPY --from=build /workspace/dist/apps/${APP}/ ./');
    expect(runtime).toContain('RUN npm ci --omit=dev --ignore-scripts && npm cache clean --force');
    expect(runtime.filter((line) => line.startsWith('COPY ')).every((line) => line.includes('--from=build') || line.includes('docker/healthcheck.js'))).toBe(true);
    expect(runtime).toContain('USER node');
    expect(runtime.some((line) => line.startsWith('HEALTHCHECK '))).toBe(true);
    expect(runtime.slice(-2)).toEqual(['ENTRYPOINT ["node"]', 'CMD ["main.js"]']);
  });

  it('leaves dependencies, build output, history and local data out of the build context', () => {
    const ignored = readFileSync(resolve(DOCKER_DIR, '../.dockerignore'), 'utf8').split('\n');
    expect(ignored).toEqual(expect.arrayContaining(['**/node_modules', 'dist', '.git', '**/.data', 'docker/.env']));
  });
});

describe('the README', () => {
  const readme = readFileSync(join(DOCKER_DIR, 'README.md'), 'utf8');
  const blocks = [...readme.matchAll(/```sh\n([\s\S]*?)```/g)].map((match) => match[1]!);

  it('gives the commands these specs run', () => {
    const commands = blocks.join('').split('\n').map((line) => line.trim());
    expect(commands).toContain('kubectl kustomize docker/kubernetes/overlays/prod');
    expect(commands).toContain('kubectl apply -k docker/kubernetes/overlays/prod -l app.kubernetes.io/component=migration');
    expect(commands).toContain('kubectl apply -k docker/kubernetes/kafka');
    expect(commands).toContain('docker-compose -f docker/compose.yaml --env-file docker/.env config');
  });

  it('makes a docker/.env that compose accepts, holding digests rather than the credentials it prints', () => {
    const recipe = blocks.find((block) => block.includes('> docker/.env'))!;
    const dir = mkdtempSync(join(tmpdir(), 'trustmesh-readme-'));
    try {
      mkdirSync(join(dir, 'docker'));
      const result = spawnSync('bash', ['-euo', 'pipefail', '-c', recipe], { cwd: dir, encoding: 'utf8' });
      expect(result.status).toBe(0);
      const variables = Object.fromEntries(
        readFileSync(join(dir, 'docker/.env'), 'utf8')
          .trim()
          .split('\n')
          .map((line) => [line.slice(0, line.indexOf('=')), line.slice(line.indexOf('=') + 1)]),
      );
      expect(Object.keys(variables).sort()).toEqual(Object.keys(COMPOSE_TEST_VARIABLES).sort());
      expect(variables['RELAY_SERVICE_CREDENTIAL_SHA256']).toMatch(/^[0-9a-f]{64},[0-9a-f]{64}$/);
      expect(variables['SHIELD_OPERATOR_CREDENTIALS']).toMatch(/^operator:[0-9a-f]{64},simulator:[0-9a-f]{64}$/);
      const printed = result.stdout.match(/[0-9a-f]{64}/g) ?? [];
      expect(printed).toHaveLength(3);
      expect(Object.values(variables).filter((value) => printed.some((credential) => value.includes(credential)) && value !== variables['SIMULATOR_CONTROL_CREDENTIAL'])).toEqual([]);
      // The simulator's shield credential is never printed, and the shield holds only its digest.
      expect(variables['SHIELD_OPERATOR_CREDENTIALS']).not.toContain(variables['SIMULATOR_SHIELD_CREDENTIAL']);
      // The console's three credentials are never printed either; each app holds only the digest of the one it is sent.
      const sha256 = (text: string) => createHash('sha256').update(text).digest('hex');
      expect(variables['RELAY_SERVICE_CREDENTIAL_SHA256']!.split(',')).toContain(sha256(variables['CONSOLE_RELAY_CONTROL_CREDENTIAL']!));
      expect(variables['SHIELD_SERVICE_CREDENTIALS']).toBe(`console:${sha256(variables['CONSOLE_SHIELD_CREDENTIAL']!)}`);
      expect(variables['REGISTRY_SERVICE_CREDENTIALS']).toBe(`console:${sha256(variables['CONSOLE_REGISTRY_CREDENTIAL']!)}`);
      expect(new Set(['CONSOLE_RELAY_CONTROL_CREDENTIAL', 'CONSOLE_SHIELD_CREDENTIAL', 'CONSOLE_REGISTRY_CREDENTIAL'].map((name) => variables[name])).size).toBe(3);
      expect(Object.keys(renderCompose(variables).services)).toContain('relay-gateway');
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
