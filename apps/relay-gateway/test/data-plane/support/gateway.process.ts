/**
 * One gateway replica as a child process, for the two-replica test: the data plane (DataPlaneModule on a
 * real HTTP server) on the Kafka adapter, with the in-memory directory test double whose status views
 * travel between the processes over a test topic (as the real control plane's do over relay.control.v1).
 *
 * Environment: KAFKA_BROKERS, TOPIC_PREFIX, REPLICA_ID, STATUS_TOPIC, FIXTURE (JSON {devices, tickets}).
 * Prints one JSON line `{"event":"ready","wsUrl":…}` on stdout, and stops on SIGTERM.
 */
import { KafkaEventBus } from '@trustmesh/platform-bus';
import { createEnvelope } from '@trustmesh/platform-events';

import type { WorkspaceStatusView } from '../../../src/control/relay-directory.port';
import { startTestGateway } from './data-plane.harness';
import { InMemoryDirectory, type TestDevice, type TestTicket } from './in-memory-directory';

async function main(): Promise<void> {
  const env = process.env;
  const replicaId = env['REPLICA_ID'] ?? 'replica';
  const statusTopic = env['STATUS_TOPIC'] ?? 'test.relay-status.v1';
  const fixture = JSON.parse(env['FIXTURE'] ?? '{}') as { devices?: TestDevice[]; tickets?: Array<[string, TestTicket]> };
  const bus = new KafkaEventBus({
    brokers: (env['KAFKA_BROKERS'] ?? '').split(','),
    clientId: `gateway-${replicaId}`,
    topicPrefix: env['TOPIC_PREFIX'] ?? '',
    maxAttempts: 1,
    retryBackoffMs: 20,
    logger: { log: () => undefined },
    consumer: { sessionTimeoutMs: 6_000, heartbeatIntervalMs: 500, rebalanceTimeoutMs: 10_000, maxWaitTimeMs: 50, joinTimeoutMs: 60_000 },
  });
  const directory = new InMemoryDirectory();
  for (const device of fixture.devices ?? []) directory.devices.set(device.deviceId, device);
  for (const [value, ticket] of fixture.tickets ?? []) directory.tickets.set(value, ticket);
  let version = 0;
  directory.publishStatus = (view) => {
    version += 1;
    void bus.publish(statusTopic, [createEnvelope({ eventType: 'TestStatusChanged', data: view }, { streamId: view.workspaceId, streamVersion: version, producer: replicaId })]);
  };
  const statusSubscription = await bus.subscribe({
    groupId: `status-${replicaId}-${process.pid}`,
    topics: [statusTopic],
    start: 'earliest',
    handler: async (record) => {
      const view = record.envelope.data as WorkspaceStatusView & { changedAt: string | null };
      directory.applyView({ ...view, changedAt: view.changedAt ? new Date(view.changedAt) : null });
    },
  });
  const gateway = await startTestGateway({ directory, bus, replicaId, config: { publishLingerMs: 2, firstAckTimeoutMs: 60_000 } });
  process.stdout.write(`${JSON.stringify({ event: 'ready', wsUrl: gateway.wsUrl })}\n`);
  process.once('SIGTERM', () => {
    void (async () => {
      const step = (what: string) => env['DEBUG_SHUTDOWN'] && process.stderr.write(`${Date.now()} ${what}\n`);
      step('close gateway');
      await gateway.close();
      step('stop status');
      await statusSubscription.stop();
      step('close bus');
      await bus.close();
      step('done');
      process.exit(0);
    })();
  });
}

main().catch((error: unknown) => {
  process.stderr.write(`gateway process failed: ${error instanceof Error ? error.stack : String(error)}\n`);
  process.exit(1);
});
