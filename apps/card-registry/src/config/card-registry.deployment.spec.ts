/**
 * The card registry's deployment files (docker/) against its configuration reader: every overlay's and the
 * compose file's environment loads without a problem, sets only variables the app reads, and the ports
 * the containers, Services and probes name are the ones it listens on.
 */
import { composeEnvironment, composeTargetPorts, containerEnvironment, KUBERNETES_OVERLAYS, manifestObject, renderCompose, renderKustomization } from '@trustmesh/platform-testing';

import { loadCardRegistryConfig, cardRegistryVariables } from './card-registry.config';

const DIGEST = 'ab'.repeat(32);
const SECRETS = { DATABASE_URL: 'postgres://app:placeholder@db:5432/app', REGISTRY_OPERATOR_CREDENTIALS: `ops:${DIGEST}` };
const COMPOSE_VARIABLES = {
  TRUSTMESH_POSTGRES_PASSWORD: 'placeholder',
  RELAY_SERVICE_CREDENTIAL_SHA256: DIGEST,
  SHIELD_OPERATOR_CREDENTIALS: `ops:${DIGEST}`,
  REGISTRY_OPERATOR_CREDENTIALS: `ops:${DIGEST}`,
  SIMULATOR_CONTROL_CREDENTIAL: 'placeholder-control-credential',
  SIMULATOR_SHIELD_CREDENTIAL: 'placeholder-shield-credential',
};

const unread = (env: Record<string, string>) => Object.keys(env).filter((name) => !cardRegistryVariables(env).includes(name));

describe.each(KUBERNETES_OVERLAYS)('the %s overlay', (overlay) => {
  const objects = renderKustomization(`overlays/${overlay}`);
  const deployment = manifestObject(objects, 'Deployment', 'card-registry');
  const container = deployment['spec'].template.spec.containers[0];
  const env = containerEnvironment(objects, deployment, 'card-registry', SECRETS);
  const portOf = (name: string) => container.ports.find((port: { name: string }) => port.name === name)?.containerPort;

  it('starts the app in server mode on Kafka with no configuration problem, setting only variables it reads', () => {
    const config = loadCardRegistryConfig(env);
    expect(config.embedded).toBe(false);
    expect(config.platform.bus.adapter).toBe('kafka');
    expect(unread(env)).toEqual([]);
  });

  it('names the ports the app listens on, on all interfaces, in its container, Services and probes', () => {
    const config = loadCardRegistryConfig(env);
    expect([config.http.host, config.grpc.host, config.operator?.host]).toEqual(['0.0.0.0', '0.0.0.0', '0.0.0.0']);
    expect([portOf('http'), portOf('grpc'), portOf('operator')]).toEqual([config.http.port, config.grpc.port, config.operator?.port]);
    expect(container.livenessProbe.grpc.port).toBe(config.grpc.port);
    expect(container.readinessProbe.httpGet).toEqual({ path: '/readyz', port: 'operator' });
    const servicePorts = ['card-registry', 'card-registry-grpc'].flatMap((name) => manifestObject(objects, 'Service', name)['spec'].ports);
    for (const port of servicePorts) expect(port.port).toBe(portOf(port.targetPort));
  });
});

describe('the compose file', () => {
  const services = renderCompose(COMPOSE_VARIABLES).services;

  it('starts the app with no configuration problem, setting only variables it reads, on the ports it publishes', () => {
    const env = composeEnvironment(services['card-registry']!);
    const config = loadCardRegistryConfig(env);
    expect(unread(env)).toEqual([]);
    expect(composeTargetPorts(services['card-registry']!)).toEqual([config.http.port, config.grpc.port, config.operator?.port]);
    expect(services['card-registry']!.build?.args?.['HEALTHCHECK_URL']).toBe(`http://127.0.0.1:${config.operator?.port}/healthz`);
  });

  it('migrates with only a database URL', () => {
    expect(Object.keys(composeEnvironment(services['migrate-card-registry']!))).toEqual(['DATABASE_URL']);
    expect(services['migrate-card-registry']!.command).toEqual(['main.js', 'migrate']);
  });
});
