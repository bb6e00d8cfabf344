/**
 * Composes a running simulator from its configuration: the enrolled Companion (core + simulated runtime +
 * transport, optional cipher), the Shield client that checks counterparty requests when one is configured,
 * the load mode when the gateway's RelayControl is configured, and the NestJS application serving
 * SimulatorControl. Used by `run` and `scenario`, and by tests.
 */
import type { Logger } from '@trustmesh/platform-logging';
import type { DiagnosticSink } from '@trustmesh/relay-companion';
import type { Scenario } from '@trustmesh/relay-companion-sim';

import { loadSimulatorConfig, type Env, type SimulatorConfig } from '../config/simulator-config';
import type { StoredEnrollment } from '../enrollment/credential.store';
import { ensureEnrollment } from '../enrollment/device-enrollment.service';
import { startSimulatorApp, type SimulatorApp } from '../grpc/simulator-control.server';
import { startLoad } from '../load/load-driver';
import { createShieldAssessor } from '../shield/counterparty.assessor';
import { ShieldClient } from '../shield/shield.client';
import { simulatorLoadStack } from '../load/load-stack';
import type { TransportLog } from '../transport/companion.transport';
import { CompanionSimulator } from './companion-simulator';
import { createCompanionCore, createRuntime, loadCompanionCipher } from './companion.factory';
import { SimulatorControlService } from './simulator-control.service';

export interface SimulatorHost {
  simulator: CompanionSimulator;
  control: SimulatorControlService;
  app: SimulatorApp;
  close(): Promise<void>;
}

export interface SimulatorHostOptions {
  enrollment: Pick<StoredEnrollment, 'deviceId' | 'workspaceId' | 'deviceCredential'>;
  scenario?: Scenario;
  log?: TransportLog;
  /** Where Nest's lines go: the platform logger (one line shape with the transport's), `false` for none (default: Nest's console). */
  logger?: false | Logger;
  /** The Companion core's diagnostics (dropped frames with their codes, e.g. `ENVELOPE_REPLAYED`). */
  onDiagnostic?: DiagnosticSink;
  /** Stop on SIGTERM/SIGINT (the CLI sets it). */
  shutdownHooks?: boolean;
}

export async function startSimulatorHost(config: SimulatorConfig, options: SimulatorHostOptions): Promise<SimulatorHost> {
  const { deviceId, workspaceId, deviceCredential } = options.enrollment;
  const cipher = await loadCompanionCipher(config.encryption, workspaceId);
  const shield = config.shield ? new ShieldClient(config.shield) : null;
  const simulator = new CompanionSimulator({
    identity: { deviceId, workspaceId, deviceCredential },
    companionUrl: config.gateway.companionUrl,
    tls: config.tls,
    wireVersion: config.wireVersion,
    heartbeatTimeoutMs: config.heartbeatTimeoutMs,
    createRuntime: (scenario) => createRuntime(config.companion, scenario),
    createCore: (runtime) =>
      createCompanionCore(runtime, {
        workspaceId,
        wireVersion: config.wireVersion,
        behaviour: config.companion,
        ...(cipher ? { cipher } : {}),
        ...(options.onDiagnostic ? { onDiagnostic: options.onDiagnostic } : {}),
      }),
    ...(shield ? { assessCounterparty: createShieldAssessor({ client: shield, agentId: config.shield?.agentId ?? deviceId, ...(options.log ? { log: options.log } : {}) }) } : {}),
    ...(options.log ? { log: options.log } : {}),
  });
  const load = config.relayControl
    ? {
        defaults: {
          gatewayUrl: config.gateway.httpBase,
          tls: config.tls,
          relayControl: config.relayControl,
          stack: simulatorLoadStack({ behaviour: config.companion }),
          wireVersion: config.wireVersion,
        },
        start: startLoad,
      }
    : null;
  const control = new SimulatorControlService(simulator, load);
  await simulator.start(options.scenario);
  let app: SimulatorApp;
  try {
    app = await startSimulatorApp(control, {
      control: config.control,
      stoppables: [{ stop: () => control.close() }, simulator, { stop: async () => shield?.close() }],
      ...(options.logger !== undefined ? { logger: options.logger } : {}),
      ...(options.shutdownHooks ? { shutdownHooks: true } : {}),
    });
  } catch (error) {
    await simulator.stop();
    shield?.close();
    throw error;
  }
  return { simulator, control, app, close: () => app.close() };
}

/**
 * `run` as a function (for `npm start`-style compositions): validates the configuration in `env`, uses the
 * stored device or enrolls with `SIMULATOR_PAIRING_CODE`, and starts the host. Throws `ConfigError`,
 * `EnrollmentError` (ALREADY_ENROLLED when a code is given but a device is stored) or a start failure.
 */
export async function startSimulatorFromEnv(
  env: Env,
  options: Omit<SimulatorHostOptions, 'enrollment'> = {},
): Promise<SimulatorHost & { config: SimulatorConfig; enrollment: StoredEnrollment }> {
  const config = loadSimulatorConfig(env, 'run');
  const enrollment = await ensureEnrollment(config);
  const host = await startSimulatorHost(config, { ...options, enrollment });
  return { ...host, config, enrollment };
}
