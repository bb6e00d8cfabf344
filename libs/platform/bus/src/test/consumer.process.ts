/**
 * A consumer in a process of its own, for the specs that kill one (SIGKILL) or stop one the way
 * Kubernetes does (SIGTERM). It subscribes through the adapter named by BUS and reports on stdout, one
 * JSON object per line: `joined`, `handled` (after the handler's work, before the commit), `hanging`.
 *
 * Environment: BUS=kafka with KAFKA_BROKERS, or BUS=local with DATABASE_URL (a Postgres server: an
 * embedded database belongs to one process); TOPIC, GROUP; HANG_AT=`streamId:version` makes the handler
 * stop forever on that event; HANDLE_MS slows every handler; GRACEFUL=1 installs the SIGTERM handler.
 */
import { openDatabase } from '@trustmesh/platform-database';

import type { EventBus } from '../event-bus.port';
import { installGracefulShutdown } from '../graceful-shutdown';
import { testBus } from '../kafka/test/kafka-bus.harness';
import { localTestBus } from '../local/test/local-bus.harness';
import { eventKey } from './bus-events';

function report(event: Record<string, unknown>): void {
  process.stdout.write(`${JSON.stringify(event)}\n`);
}

function env(name: string): string {
  const value = process.env[name];
  if (!value) throw new Error(`${name} is required`);
  return value;
}

async function openBus(): Promise<EventBus> {
  if (env('BUS') === 'kafka') return testBus(env('KAFKA_BROKERS').split(',')).bus;
  const config = { mode: 'server', url: env('DATABASE_URL') } as const;
  return (await localTestBus(config, await openDatabase(config))).bus;
}

async function main(): Promise<void> {
  const bus = await openBus();
  const handleMs = Number(process.env['HANDLE_MS'] ?? 0);
  if (process.env['GRACEFUL'] === '1') installGracefulShutdown(bus, { logger: { log: () => undefined } });
  await bus.subscribe({
    groupId: env('GROUP'),
    topics: [env('TOPIC')],
    handler: async ({ envelope }) => {
      const id = eventKey(envelope);
      if (id === process.env['HANG_AT']) {
        report({ event: 'hanging', id });
        await new Promise(() => undefined);
      }
      if (handleMs > 0) await new Promise((resolve) => setTimeout(resolve, handleMs));
      report({ event: 'handled', id });
    },
  });
  report({ event: 'joined' });
}

main().catch((error: unknown) => {
  process.stderr.write(`consumer.process: ${error instanceof Error ? error.message : String(error)}\n`);
  process.exit(1);
});
