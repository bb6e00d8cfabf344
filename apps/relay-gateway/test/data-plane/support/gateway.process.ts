/**
 * One real gateway replica as a child process, for the two-replica test: `startRelayGateway` (control plane
 * and data plane, as `nx serve` runs it) in server mode on the test's Postgres database and Kafka cluster,
 * configured entirely by the environment the test passes (DATABASE_URL, TRUSTMESH_BUS=kafka, KAFKA_BROKERS,
 * RELAY_REPLICA_ID, RELAY_SERVICE_CREDENTIAL_SHA256, data plane variables, …).
 *
 * Its Kafka connections go through a broker gate the test can close and open over IPC (`ServiceChild.brokerGate`).
 * Prints one JSON line `{"event":"ready","httpUrl":…,"grpcAddress":…,"operatorUrl":…,"certFile":…}` on stdout (`certFile`:
 * the certificate it serves, null with TLS off), and stops on SIGTERM.
 */
import { announceReady, createBrokerGate, serveBrokerGateOverIpc } from '@trustmesh/platform-testing';

import { startRelayGateway } from '../../../src/relay-gateway.bootstrap';

async function main(): Promise<void> {
  const gate = createBrokerGate();
  serveBrokerGateOverIpc(gate);
  const gateway = await startRelayGateway(process.env, {
    print: () => undefined,
    writeLog: (line) => process.stderr.write(`${line}\n`),
    kafkaSocketFactory: gate.socketFactory,
  });
  process.once('SIGTERM', () => {
    void gateway.close().then(
      () => process.exit(0),
      (error: unknown) => {
        process.stderr.write(`gateway close failed: ${error instanceof Error ? error.stack : String(error)}\n`);
        process.exit(1);
      },
    );
  });
  announceReady({ httpUrl: gateway.httpUrl, grpcAddress: gateway.grpcAddress, operatorUrl: gateway.operatorUrl, certFile: gateway.tls?.certFile ?? null });
}

main().catch((error: unknown) => {
  process.stderr.write(`gateway process failed: ${error instanceof Error ? error.stack : String(error)}\n`);
  process.exit(1);
});
