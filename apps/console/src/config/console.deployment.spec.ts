/**
 * The console's deployment files (docker/) against its configuration reader: every overlay's and the compose
 * file's environment loads without a problem, sets only variables the console reads, and the ports the
 * container, Service and probes name are the ones it listens on (`describeServerAppDeployment`; the console
 * serves no gRPC). Then its own flows: RelayControl, the Shield and the registry at the gRPC Service and port
 * their NetworkPolicies allow it, each credential from the console's Secret, the Platform page at each app's
 * operator Service, and the origin browsers use.
 */
import {
  COMPOSE_TEST_VARIABLES,
  composeEnvironment,
  containerEnvironment,
  describeServerAppDeployment,
  KUBERNETES_OVERLAYS,
  manifestObject,
  renderCompose,
  renderKustomization,
  type ManifestObject,
} from '@trustmesh/platform-testing';

import { consoleVariables, loadConsoleConfig } from './console.config';

const SECRETS = {
  DATABASE_URL: 'postgres://console:placeholder@db:5432/console',
  CONSOLE_RELAY_CONTROL_CREDENTIAL: 'placeholder-relay-service-credential',
  CONSOLE_SHIELD_CREDENTIAL: 'placeholder-shield-service-credential',
  CONSOLE_REGISTRY_CREDENTIAL: 'placeholder-registry-service-credential',
};

describeServerAppDeployment({ app: 'console', load: loadConsoleConfig, variables: consoleVariables, secrets: SECRETS });

/** Each upstream: the app, its gRPC Service's port name, the console's config field and credential variable. */
const UPSTREAMS = [
  { app: 'relay-gateway', field: 'relayControl', credential: 'CONSOLE_RELAY_CONTROL_CREDENTIAL', key: 'relay-control-credential', operator: 'relay' },
  { app: 'shield-analyzer', field: 'shield', credential: 'CONSOLE_SHIELD_CREDENTIAL', key: 'shield-credential', operator: 'shield' },
  { app: 'card-registry', field: 'registry', credential: 'CONSOLE_REGISTRY_CREDENTIAL', key: 'registry-credential', operator: 'registry' },
] as const;

type Rule = { from?: Peer[]; to?: Peer[]; ports: Array<{ port: number }> };
type Peer = { podSelector?: { matchLabels: Record<string, string> } };

/** The ports `policy` opens to or from pods named `app` (egress or ingress). */
function portsFor(policy: ManifestObject, direction: 'ingress' | 'egress', app: string): number[] {
  return (policy['spec'][direction] as Rule[])
    .filter((rule) => (rule.from ?? rule.to ?? []).some((peer) => peer.podSelector?.matchLabels['app.kubernetes.io/name'] === app))
    .flatMap((rule) => rule.ports.map((entry) => entry.port));
}

describe.each(KUBERNETES_OVERLAYS)('console in the %s overlay', (overlay) => {
  const objects = renderKustomization(`overlays/${overlay}`);
  const deployment = manifestObject(objects, 'Deployment', 'console');
  const container = deployment['spec'].template.spec.containers[0];
  const config = loadConsoleConfig(containerEnvironment(objects, deployment, 'console', SECRETS));
  const policyOf = (app: string) => objects.find((object) => object.kind === 'NetworkPolicy' && object['spec'].podSelector.matchLabels?.['app.kubernetes.io/name'] === app)!;

  it.each(UPSTREAMS)('calls $app at its gRPC Service and port, both NetworkPolicies allowing exactly that hop, the credential from the console Secret', (upstream) => {
    const target = config[upstream.field];
    const service = manifestObject(objects, 'Service', `${upstream.app}-grpc`);
    expect(target).toMatchObject({ address: `${service.metadata.name}:${service['spec'].ports[0].port}`, tls: null });
    expect(target?.credential.reveal()).toBe(SECRETS[upstream.credential]);
    const entry = container.env.find((candidate: { name: string }) => candidate.name === upstream.credential);
    expect(entry.valueFrom.secretKeyRef).toEqual({ name: 'console', key: upstream.key });
    const operatorPort = manifestObject(objects, 'Service', upstream.app)['spec'].ports.find((port: { name: string }) => port.name === 'operator').port;
    expect(portsFor(policyOf('console'), 'egress', upstream.app).sort()).toEqual([service['spec'].ports[0].port, operatorPort].sort());
    // RelayControl admits its callers by a pod label; the Shield and the registry name the console.
    const grpcIn = upstream.app === 'relay-gateway' ? deployment['spec'].template.metadata.labels['trustmesh.io/relay-control-client'] : portsFor(policyOf(upstream.app), 'ingress', 'console');
    expect(grpcIn).toEqual(upstream.app === 'relay-gateway' ? 'true' : [service['spec'].ports[0].port, operatorPort]);
    if (upstream.app === 'relay-gateway') expect(portsFor(policyOf(upstream.app), 'ingress', 'console')).toEqual([operatorPort]);
  });

  it('reads each app\'s health and metrics from its operator Service for the Platform page', () => {
    for (const upstream of UPSTREAMS) {
      const service = manifestObject(objects, 'Service', upstream.app);
      const port = service['spec'].ports.find((candidate: { name: string }) => candidate.name === 'operator').port;
      expect(config.platformTargets[upstream.operator]).toBe(`http://${service.metadata.name}:${port}`);
    }
  });

  it('answers browsers at its https origin through the ingress only, and is scraped by Prometheus', () => {
    expect(config.publicOrigin).toBe(`https://console.${overlay === 'prod' ? '' : 'dev.'}trustmesh.example`);
    expect(config.relayWebSocketOrigin).toBe(`wss://relay.${overlay === 'prod' ? '' : 'dev.'}trustmesh.example`);
    const ingress = policyOf('console')['spec'].ingress as Array<{ from: Array<{ namespaceSelector?: { matchLabels: Record<string, string> } }>; ports: Array<{ port: number }> }>;
    const opened = ingress.map((rule) => [rule.from.map((peer) => peer.namespaceSelector?.matchLabels['kubernetes.io/metadata.name']), rule.ports.map((entry) => entry.port)]);
    expect(opened).toEqual([
      [['ingress-nginx'], [config.http.port]],
      [['monitoring'], [config.operator?.port]],
    ]);
  });
});

describe('console in the compose file', () => {
  const services = renderCompose(COMPOSE_TEST_VARIABLES).services;
  const config = loadConsoleConfig(composeEnvironment(services['console']!));

  it('calls the three apps at their compose gRPC ports in plaintext by choice, with the credentials of docker/.env', () => {
    expect([config.relayControl?.address, config.shield?.address, config.registry?.address]).toEqual(['relay-gateway:50051', 'shield-analyzer:50061', 'card-registry:50071']);
    expect([config.relayControl?.tls, config.shield?.tls, config.registry?.tls]).toEqual([null, null, null]);
    expect([config.relayControl?.credential.reveal(), config.shield?.credential.reveal(), config.registry?.credential.reveal()]).toEqual([
      COMPOSE_TEST_VARIABLES.CONSOLE_RELAY_CONTROL_CREDENTIAL,
      COMPOSE_TEST_VARIABLES.CONSOLE_SHIELD_CREDENTIAL,
      COMPOSE_TEST_VARIABLES.CONSOLE_REGISTRY_CREDENTIAL,
    ]);
    expect(config.platformTargets).toEqual({ relay: 'http://relay-gateway:9464', shield: 'http://shield-analyzer:9465', registry: 'http://card-registry:9470' });
  });

  it('publishes its page on loopback only, where a plain-http origin is allowed, and starts once the apps it fronts are healthy', () => {
    expect(config.publicOrigin).toBe('http://localhost:8400');
    expect(services['console']!.ports).toEqual([`127.0.0.1:${config.http.port}:${config.http.port}/tcp`, `127.0.0.1:${config.operator?.port}:${config.operator?.port}/tcp`]);
    for (const app of ['relay-gateway', 'shield-analyzer', 'card-registry']) expect(services['console']!.depends_on?.[app]).toEqual({ condition: 'service_healthy' });
  });

});
