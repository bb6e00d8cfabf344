/**
 * `kafka-mock`: librdkafka's mock cluster (through Debian's kcat) as the Kafka of a workstation, for
 * `nx serve` of apps with `TRUSTMESH_BUS=kafka`. See README.md next to this file.
 *
 *   npx tsx --tsconfig tsconfig.base.json tools/kafka-mock/kafka-mock.ts start [--brokers N]
 *     prints `KAFKA_BROKERS=host:port,...` and keeps the cluster up until SIGINT or SIGTERM.
 *   npx tsx --tsconfig tsconfig.base.json tools/kafka-mock/kafka-mock.ts run [--brokers N] -- <command...>
 *     runs <command> with KAFKA_BROKERS and TRUSTMESH_BUS=kafka set, then stops the cluster and exits
 *     with the command's status.
 *
 * Exit status: 0 after a requested stop (or the command's own status for `run`), 1 when the cluster
 * cannot start or dies, 2 on a usage error. The starting and stopping itself lives in
 * `@trustmesh/platform-testing` (`startKafkaMock`), which the Kafka tests use too.
 */
import { spawn } from 'node:child_process';
import { constants } from 'node:os';

import { KafkaMockError, startKafkaMock, type KafkaMock } from '@trustmesh/platform-testing';

const USAGE = `usage: kafka-mock start [--brokers N]
       kafka-mock run [--brokers N] -- <command> [args...]`;

interface Invocation {
  command: 'start' | 'run';
  brokers: number;
  argv: string[];
}

function parse(args: string[]): Invocation | string {
  const [command, ...rest] = args;
  if (command !== 'start' && command !== 'run') return `unknown command ${JSON.stringify(command ?? '')}`;
  let brokers = 3;
  let index = 0;
  for (; index < rest.length && rest[index] !== '--'; index += 1) {
    const flag = rest[index];
    if (flag === '--brokers' && /^\d+$/.test(rest[index + 1] ?? '')) {
      brokers = Number(rest[index + 1]);
      index += 1;
    } else {
      return `unexpected argument ${JSON.stringify(flag)}`;
    }
  }
  const argv = rest.slice(index + 1);
  if (command === 'run' && argv.length === 0) return 'run needs a command after --';
  if (command === 'start' && argv.length > 0) return 'start takes no command; use run';
  return { command, brokers, argv };
}

async function main(args: string[]): Promise<number> {
  const invocation = parse(args);
  if (typeof invocation === 'string') {
    process.stderr.write(`kafka-mock: ${invocation}\n${USAGE}\n`);
    return 2;
  }

  let mock: KafkaMock;
  try {
    mock = await startKafkaMock({ brokers: invocation.brokers });
  } catch (error) {
    process.stderr.write(`kafka-mock: ${error instanceof KafkaMockError ? error.message : String(error)}\n`);
    return 1;
  }
  const brokers = mock.bootstrapServers.join(',');

  let stopping = false;
  const stopOn = (signals: NodeJS.Signals[], onSignal: (signal: NodeJS.Signals) => void) => {
    for (const signal of signals) process.on(signal, () => onSignal(signal));
  };

  if (invocation.command === 'start') {
    process.stdout.write(`KAFKA_BROKERS=${brokers}\n`);
    process.stderr.write(`kafka-mock: ${invocation.brokers} broker(s) up; Ctrl-C stops them\n`);
    return new Promise<number>((resolve) => {
      stopOn(['SIGINT', 'SIGTERM', 'SIGHUP'], () => {
        stopping = true;
        void mock.stop().then(() => resolve(0));
      });
      void mock.exited.then(() => {
        if (stopping) return;
        process.stderr.write('kafka-mock: kcat exited unexpectedly; the cluster is gone\n');
        resolve(1);
      });
    });
  }

  const [program, ...programArgs] = invocation.argv as [string, ...string[]];
  const child = spawn(program, programArgs, {
    stdio: 'inherit',
    env: { ...process.env, KAFKA_BROKERS: brokers, TRUSTMESH_BUS: 'kafka' },
  });
  // The command shares our terminal: it gets Ctrl-C itself; SIGTERM sent to us is passed on.
  stopOn(['SIGTERM', 'SIGHUP'], (signal) => child.kill(signal));
  stopOn(['SIGINT'], () => undefined);
  const status = await new Promise<number>((resolve) => {
    child.once('error', (error) => {
      process.stderr.write(`kafka-mock: cannot run ${JSON.stringify(program)}: ${error.message}\n`);
      resolve(127);
    });
    child.once('exit', (code, signal) => resolve(code ?? 128 + (signal ? constants.signals[signal] : 0)));
  });
  await mock.stop();
  return status;
}

main(process.argv.slice(2)).then(
  (status) => process.exit(status),
  (error: unknown) => {
    process.stderr.write(`kafka-mock: ${error instanceof Error ? error.message : String(error)}\n`);
    process.exit(1);
  },
);
