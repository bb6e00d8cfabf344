/**
 * The gateway's deployment files (docker/) against its configuration reader: every overlay's and the compose
 * file's environment loads without a problem, sets only variables the gateway reads, and the ports the
 * containers, Services and probes name are the ones the gateway listens on (`describeServerAppDeployment`);
 * the gateway publishes workspace cards to the registry's gRPC Service with a publisher credential from a
 * Secret.
 */
import {
  COMPOSE_TEST_VARIABLES,
  composeEnvironment,
  composeTargetPorts,
  containerEnvironment,
  describeServerAppDeployment,
  KUBERNETES_OVERLAYS,
  manifestObject,
  PLACEHOLDER_DIGEST,
  renderCompose,
  renderKustomization,
} from '@trustmesh/platform-testing';

import { loadRelayGatewayConfig, relayGatewayVariables } from './relay-gateway.config';

const SECRETS = { DATABASE_URL: 'postgres://relay:placeholder@db:5432/relay', RELAY_SERVICE_CREDENTIAL_SHA256: `${PLACEHOLDER_DIGEST},${'cd'.repeat(32)}`, RELAY_REGISTRY_PUBLISHER_CREDENTIAL: 'tmrp_placeholder.publisher-credential' };

describeServerAppDeployment({ app: 'relay-gateway', load: loadRelayGatewayConfig, variables: relayGatewayVariables, secrets: SECRETS });

describe.each(KUBERNETES_OVERLAYS)('relay-gateway in the %s overlay', (overlay) => {
  const objects = renderKustomization(`overlays/${overlay}`);
  const deployment = manifestObject(objects, 'Deployment', 'relay-gateway');
  const container = deployment['spec'].template.spec.containers[0];
  const env = containerEnvironment(objects, deployment, 'relay-gateway', SECRETS);

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

describe('relay-gateway in the compose file', () => {
  const services = renderCompose(COMPOSE_TEST_VARIABLES).services;

  it('publishes no workspace card until docker/.env names the registry', () => {
    expect(loadRelayGatewayConfig(composeEnvironment(services['relay-gateway']!)).workspaceCards).toBeNull();
  });

  it('publishes workspace cards to the registry once the README\'s four variables are in docker/.env', () => {
    const publishing = { RELAY_REGISTRY_GRPC_ADDRESS: 'card-registry:50071', RELAY_REGISTRY_TLS: 'false', RELAY_REGISTRY_PUBLISHER_CREDENTIAL: 'tmrp_placeholder.publisher-credential', RELAY_CARD_NAMESPACE: 'relay.localhost.example' };
    const env = composeEnvironment(renderCompose({ ...COMPOSE_TEST_VARIABLES, ...publishing }).services['relay-gateway']!);
    const cards = loadRelayGatewayConfig(env).workspaceCards;
    expect(cards?.registry).toMatchObject({ address: 'card-registry:50071', tls: null });
    expect(composeTargetPorts(services['card-registry']!)).toContain(50071);
    expect(cards?.namespace).toBe('relay.localhost.example');
  });

  it('migrates with a database URL the gateway accepts', () => {
    const env = composeEnvironment(services['migrate-relay-gateway']!);
    expect(loadRelayGatewayConfig({ ...env, RELAY_TLS: 'terminated-by-proxy', RELAY_PUBLIC_BASE_URL: 'https://relay.example', RELAY_SERVICE_CREDENTIAL_SHA256: PLACEHOLDER_DIGEST }).platform.database.mode).toBe('server');
  });
});
