/**
 * The simulator's deployment files (docker/) against its configuration reader: the enrolling init container
 * and the running container of every overlay, and the compose service, load without a problem, set only
 * variables the simulator reads, and serve SimulatorControl on the port the probes and Service name; the
 * running simulator consults the Shield at its gRPC Service with a credential from a Secret.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

import { COMPOSE_TEST_VARIABLES, composeEnvironment, composeTargetPorts, containerEnvironment, KUBERNETES_OVERLAYS, manifestObject, renderCompose, renderKustomization } from '@trustmesh/platform-testing';

import { loadSimulatorConfig, simulatorVariables, type SimulatorMode } from './simulator-config';

const SECRETS = { SIMULATOR_PAIRING_CODE: 'placeholder-pairing-code', SIMULATOR_CONTROL_CREDENTIAL: 'placeholder-control-credential', SIMULATOR_SHIELD_CREDENTIAL: 'placeholder-shield-credential' };

let scratch: string;
beforeAll(() => {
  scratch = mkdtempSync(join(tmpdir(), 'simulator-deployment-'));
  writeFileSync(join(scratch, 'device-credential.json'), '{}');
  writeFileSync(join(scratch, 'cert.pem'), '-----BEGIN CERTIFICATE-----\n');
});
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

/** Loads `env` for `mode` with its files in the scratch folder (the pod's volumes are not here). */
function load(env: Record<string, string>, mode: SimulatorMode) {
  const files = { SIMULATOR_CREDENTIAL_FILE: join(scratch, 'device-credential.json'), ...(env['RELAY_GATEWAY_CA_FILE'] ? { RELAY_GATEWAY_CA_FILE: join(scratch, 'cert.pem') } : {}) };
  return loadSimulatorConfig({ ...env, ...files }, mode);
}
const unread = (env: Record<string, string>, mode: SimulatorMode) => Object.keys(env).filter((name) => !simulatorVariables(env, mode).includes(name));

describe.each(KUBERNETES_OVERLAYS)('the %s overlay', (overlay) => {
  const objects = renderKustomization(`overlays/${overlay}`);
  const deployment = manifestObject(objects, 'Deployment', 'companion-simulator');

  it('enrolls in its init container, then runs with the stored credential, setting only variables the simulator reads', () => {
    const enroll = containerEnvironment(objects, deployment, 'enroll', SECRETS);
    expect(load(enroll, 'enroll').pairingCode).toBe(SECRETS.SIMULATOR_PAIRING_CODE);
    expect(unread(enroll, 'enroll')).toEqual([]);
    const run = containerEnvironment(objects, deployment, 'companion-simulator', SECRETS);
    expect(run['SIMULATOR_PAIRING_CODE']).toBeUndefined();
    expect(load(run, 'run').gateway.secure).toBe(true);
    expect(unread(run, 'run')).toEqual([]);
  });

  it('serves SimulatorControl on the port its probes and Service name', () => {
    const run = containerEnvironment(objects, deployment, 'companion-simulator', SECRETS);
    const port = Number(load(run, 'run').control?.address.split(':').at(-1));
    const container = deployment['spec'].template.spec.containers[0];
    expect(container.ports).toEqual([{ name: 'grpc', containerPort: port }]);
    expect([container.startupProbe, container.livenessProbe, container.readinessProbe].map((probe) => probe.grpc.port)).toEqual([port, port, port]);
    expect(manifestObject(objects, 'Service', 'companion-simulator-grpc')['spec'].ports).toEqual([{ name: 'grpc', port, targetPort: 'grpc' }]);
  });

  it('consults the Shield at its gRPC Service, on the port the NetworkPolicy opens, with the credential from a Secret', () => {
    const run = containerEnvironment(objects, deployment, 'companion-simulator', SECRETS);
    const shield = load(run, 'run').shield;
    const service = manifestObject(objects, 'Service', 'shield-analyzer-grpc');
    expect(shield).toMatchObject({ address: `${service.metadata.name}:${service['spec'].ports[0].port}`, tls: null });
    expect(shield?.credential.reveal()).toBe(SECRETS.SIMULATOR_SHIELD_CREDENTIAL);
    const entry = deployment['spec'].template.spec.containers[0].env.find((candidate: { name: string }) => candidate.name === 'SIMULATOR_SHIELD_CREDENTIAL');
    expect(entry.valueFrom.secretKeyRef).toEqual({ name: 'companion-simulator', key: 'shield-credential' });
    // The enrolling init container consults nothing.
    expect(load(containerEnvironment(objects, deployment, 'enroll', SECRETS), 'enroll').shield).toBeNull();
  });
});

describe('the compose file', () => {
  it('runs the simulator against the gateway with its certificate, setting only variables it reads', () => {
    const service = renderCompose(COMPOSE_TEST_VARIABLES).services['companion-simulator']!;
    const env = composeEnvironment(service);
    const config = load(env, 'run');
    expect(config.tls.ca).toBeDefined();
    expect(config.shield).toMatchObject({ address: 'shield-analyzer:50061', tls: null });
    expect(config.shield?.credential.reveal()).toBe(COMPOSE_TEST_VARIABLES.SIMULATOR_SHIELD_CREDENTIAL);
    expect(unread(env, 'run')).toEqual([]);
    expect(composeTargetPorts(service)).toEqual([Number(config.control?.address.split(':').at(-1))]);
  });
});
