/**
 * One companion simulator as its own process, as a pod or a person's machine runs it: `startSimulatorFromEnv`
 * (what `companion-simulator run` starts), configured by nothing but the environment the test passes
 * (RELAY_GATEWAY_URL, SIMULATOR_PAIRING_CODE, SIMULATOR_CREDENTIAL_FILE, SIMULATOR_CONTROL_*, SIMULATOR_SHIELD_*).
 * The simulator speaks WebSocket to the gateway and gRPC to the Shield, never Kafka, so it needs no broker
 * gate. Its log lines go to stderr, one ready line with its SimulatorControl address and enrolled identity to
 * stdout. SIGTERM shuts it down gracefully; SIGKILL is a crash.
 */
import { announceReady } from '@trustmesh/platform-testing';

import { startSimulatorFromEnv } from '../../src/simulator/simulator.host';

async function main(): Promise<void> {
  const host = await startSimulatorFromEnv(process.env, {
    logger: false,
    log: (level, message) => process.stderr.write(`${JSON.stringify({ level, msg: message })}\n`),
  });
  process.once('SIGTERM', () => {
    void host.close().then(
      () => process.exit(0),
      (error: unknown) => {
        process.stderr.write(`simulator close failed: ${error instanceof Error ? error.stack : String(error)}\n`);
        process.exit(1);
      },
    );
  });
  announceReady({ controlAddress: host.app.address ?? null, deviceId: host.enrollment.deviceId, workspaceId: host.enrollment.workspaceId });
}

main().catch((error: unknown) => {
  process.stderr.write(`simulator process failed: ${error instanceof Error ? error.stack : String(error)}\n`);
  process.exit(1);
});
