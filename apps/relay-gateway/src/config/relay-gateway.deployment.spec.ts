/**
 * The gateway's deployment files (docker/) against its configuration reader: every overlay's and the compose
 * file's environment loads without a problem, sets only variables the gateway reads, and the ports the
 * containers, Services and probes name are the ones the gateway listens on; the gateway publishes workspace
 * cards to the registry's gRPC Service with a publisher credential from a Secret.
 */
import { composeEnvironment, composeTargetPorts, containerEnvironment, KUBERNETES_OVERLAYS, manifestObject, renderCompose, renderKustomization } from '@trustmesh/platform-testing';

import { loadRelayGatewayConfig, relayGatewayVariables } from './relay-gateway.config';

const DIGEST = 'ab'.repeat(32);
const SECRETS = { DATABASE_URL: 'postgres://relay:placeholder@db:5432/relay', RELAY_SERVICE_CREDENTIAL_SHA256: DIGEST, RELAY_REGISTRY_PUBLISHER_CREDENTIAL: 'tmrp_placeholder.publisher-credential' };
const COMPOSE_VARIABLES = {
  TRUSTMESH_POSTGRES_PASSWORD: 'placeholder',
  RELAY_SERVICE_CREDENTIAL_SHA256: DIGEST,
  SHIELD_OPERATOR_CREDENTIALS: `ops:${DIGEST}`,
  REGISTRY_OPERATOR_CREDENTIALS: `ops:${DIGEST}`,
  SIMULATOR_CONTROL_CREDENTIAL: 'placeholder-control-credential',
  SIMULATOR_SHIELD_CREDENTIAL: 'placeholder-shield-credential',
};

const unread = (env: Record<string, string>) => Object.keys(env).filter((name) => !relayGatewayVariables(env).includes(name));

describe.each(KUBERNETES_OVERLAYS)('the %s overlay', (overlay) => {
  const objects = renderKustomization(`overlays/${overlay}`);
  const deployment = manifestObject(objects, 'Deployment', 'relay-gateway');
  const container = deployment['spec'].template.spec.containers[0];
  const env = containerEnvironment(objects, deployment, 'relay-gateway', SECRETS);
  const portOf = (name: string) => container.ports.find((port: { name: string }) => port.name === name)?.containerPort;

  it('starts the gateway in server mode on Kafka with no configuration problem, setting only variables it reads', () => {
    const config = loadRelayGatewayConfig(env);
    expect(config.embedded).toBe(false);
    expect(config.platform.bus.adapter).toBe('kafka');
    expect(unread(env)).toEqual([]);
  });

  it('names the ports the gateway listens on, on all interfaces, in its container, Services and probes', () => {
    const config = loadRelayGatewayConfig(env);
    expect([config.http.host, config.grpc.host, config.operator?.host]).toEqual(['0.0.0.0', '0.0.0.0', '0.0.0.0']);
    expect([portOf('http'), portOf('grpc'), portOf('operator')]).toEqual([config.http.port, config.grpc.port, config.operator?.port]);
    expect(container.livenessProbe.grpc.port).toBe(config.grpc.port);
    expect(container.readinessProbe.httpGet).toEqual({ path: '/readyz', port: 'operator' });
    const servicePorts = ['relay-gateway', 'relay-gateway-grpc'].flatMap((name) => manifestObject(objects, 'Service', name)['spec'].ports);
    for (const port of servicePorts) expect(port.port).toBe(portOf(port.targetPort));
  });

  it('publishes workspace cards to the registry\'s gRPC Service under the ConfigMap\'s namespace, the credential from a Secret', () => {
    const cards = loadRelayGatewayConfig(env).workspaceCards;
    const service = manifestObject(objects, 'Service', 'card-registry-grpc');
    expect(cards?.registry).toMatchObject({ address: `${service.metadata.name}:${service['spec'].ports[0].port}`, tls: null });
    expect(cards?.registry.credential.reveal()).toBe(SECRETS.RELAY_REGISTRY_PUBLISHER_CREDENTIAL);
    expect(cards?.namespace).toBe(manifestObject(objects, 'ConfigMap', 'relay-gateway')['data']['RELAY_CARD_NAMESPACE']);
    const entry = container.env.find((candidate: { name: string }) => candidate.name === 'RELAY_REGISTRY_PUBLISHER_CREDENTIAL');
    expect(entry.valueFrom.secretKeyRef).toEqual({ name: 'relay-gateway', key: 'registry-publisher-credential' });
  });
});

describe('the compose file', () => {
  const services = renderCompose(COMPOSE_VARIABLES).services;

  it('starts the gateway with no configuration problem, setting only variables it reads, on the ports it publishes', () => {
    const env = composeEnvironment(services['relay-gateway']!);
    const config = loadRelayGatewayConfig(env);
    expect(unread(env)).toEqual([]);
    expect(composeTargetPorts(services['relay-gateway']!)).toEqual([config.http.port, config.grpc.port, config.operator?.port]);
    expect(services['relay-gateway']!.build?.args?.['HEALTHCHECK_URL']).toBe(`http://127.0.0.1:${config.operator?.port}/healthz`);
    expect(config.workspaceCards).toBeNull();
  });

  it('publishes workspace cards to the registry once the README\'s four variables are in docker/.env', () => {
    const publishing = { RELAY_REGISTRY_GRPC_ADDRESS: 'card-registry:50071', RELAY_REGISTRY_TLS: 'false', RELAY_REGISTRY_PUBLISHER_CREDENTIAL: 'tmrp_placeholder.publisher-credential', RELAY_CARD_NAMESPACE: 'relay.localhost.example' };
    const env = composeEnvironment(renderCompose({ ...COMPOSE_VARIABLES, ...publishing }).services['relay-gateway']!);
    const cards = loadRelayGatewayConfig(env).workspaceCards;
    expect(cards?.registry).toMatchObject({ address: 'card-registry:50071', tls: null });
    expect(composeTargetPorts(services['card-registry']!)).toContain(50071);
    expect(cards?.namespace).toBe('relay.localhost.example');
  });

  it('migrates with a database URL the gateway accepts, and nothing else', () => {
    const env = composeEnvironment(services['migrate-relay-gateway']!);
    expect(Object.keys(env)).toEqual(['DATABASE_URL']);
    expect(loadRelayGatewayConfig({ ...env, RELAY_TLS: 'terminated-by-proxy', RELAY_PUBLIC_BASE_URL: 'https://relay.example', RELAY_SERVICE_CREDENTIAL_SHA256: DIGEST }).platform.database.mode).toBe('server');
  });
});
