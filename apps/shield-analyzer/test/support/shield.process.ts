/**
 * One Shield analyzer as its own process, as a Kubernetes pod runs it: `startShieldAnalyzer(process.env)`,
 * configured by nothing but the environment the test passes (DATABASE_URL, TRUSTMESH_BUS, KAFKA_BROKERS,
 * SHIELD_OPERATOR_CREDENTIALS, ...). Its Kafka connections go through a broker gate the test can close and
 * open over IPC (`ServiceChild.brokerGate`); log lines go to stderr, and one ready line with its addresses
 * to stdout. SIGTERM shuts it down gracefully; SIGKILL is a crash.
 */
import { announceReady, createBrokerGate, serveBrokerGateOverIpc } from '@trustmesh/platform-testing';

import { startShieldAnalyzer } from '../../src/shield-analyzer.bootstrap';

async function main(): Promise<void> {
  const gate = createBrokerGate();
  serveBrokerGateOverIpc(gate);
  const shield = await startShieldAnalyzer(process.env, {
    print: () => undefined,
    writeLog: (line) => process.stderr.write(`${line}\n`),
    kafkaSocketFactory: gate.socketFactory,
  });
  process.once('SIGTERM', () => {
    void shield.close().then(
      () => process.exit(0),
      (error: unknown) => {
        process.stderr.write(`shield close failed: ${error instanceof Error ? error.stack : String(error)}\n`);
        process.exit(1);
      },
    );
  });
  announceReady({ httpUrl: shield.httpUrl, grpcAddress: shield.grpcAddress, operatorUrl: shield.operatorUrl });
}

main().catch((error: unknown) => {
  process.stderr.write(`shield process failed: ${error instanceof Error ? error.stack : String(error)}\n`);
  process.exit(1);
});
