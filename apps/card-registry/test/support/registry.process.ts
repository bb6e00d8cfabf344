/**
 * One card registry as its own process, as a Kubernetes pod runs it: `startCardRegistry(process.env)`,
 * configured by nothing but the environment the test passes (DATABASE_URL, TRUSTMESH_BUS, KAFKA_BROKERS,
 * REGISTRY_OPERATOR_CREDENTIALS, ...). Its Kafka connections go through a broker gate the test can close
 * and open over IPC; log lines go to stderr, and one ready line with its addresses to stdout. SIGTERM
 * shuts it down gracefully; SIGKILL is a crash.
 */
import { announceReady, createBrokerGate, serveBrokerGateOverIpc } from '@trustmesh/platform-testing';

import { startCardRegistry } from '../../src/card-registry.bootstrap';

async function main(): Promise<void> {
  const gate = createBrokerGate();
  serveBrokerGateOverIpc(gate);
  const registry = await startCardRegistry(process.env, {
    print: () => undefined,
    writeLog: (line) => process.stderr.write(`${line}\n`),
    kafkaSocketFactory: gate.socketFactory,
  });
  process.once('SIGTERM', () => {
    void registry.close().then(
      () => process.exit(0),
      (error: unknown) => {
        process.stderr.write(`registry close failed: ${error instanceof Error ? error.stack : String(error)}\n`);
        process.exit(1);
      },
    );
  });
  announceReady({ httpUrl: registry.httpUrl, grpcAddress: registry.grpcAddress, operatorUrl: registry.operatorUrl });
}

main().catch((error: unknown) => {
  process.stderr.write(`registry process failed: ${error instanceof Error ? error.stack : String(error)}\n`);
  process.exit(1);
});
