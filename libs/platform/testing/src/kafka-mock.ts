/**
 * librdkafka's mock cluster as the Kafka broker of tests and development (ARCHITECTURE.md
 * "Environment facts"): Debian's `kcat` links librdkafka, and a librdkafka client configured with
 * `test.mock.num.brokers=N` starts N in-process mock brokers that speak the Kafka protocol on
 * 127.0.0.1. This module starts one kcat per cluster, reads the bootstrap address librdkafka prints,
 * waits until a real client (kafkajs) gets metadata from every broker, and stops it again.
 *
 * Why kcat runs as a producer (`-P`), not a consumer: a producer reads messages from stdin and exits
 * when stdin closes. We hold the write end of that pipe, so `stop()` is "close stdin" (kcat is gone
 * in milliseconds), and if this process dies in any way, even by SIGKILL, the kernel closes the pipe
 * and the mock cluster goes with it: no orphan brokers. kcat ignores SIGTERM while it waits on
 * stdin, so SIGKILL is the only fallback. kcat runs in its own process group so that a terminal's
 * Ctrl-C reaches our process only, and our `stop()` decides when the cluster goes.
 *
 * The address comes from librdkafka's notice (log level 5, printed even with `-q`):
 * "Mock cluster enabled: original bootstrap.servers ... replaced with 127.0.0.1:P1,...". With
 * `-d mock` librdkafka also prints "bootstrap.servers=..." but then logs every request, so we do not
 * ask for it; both forms are recognised. stderr is drained for the cluster's whole life: a full pipe
 * would block kcat, and with it the brokers.
 */
import { spawn, type ChildProcess } from 'node:child_process';

import { Kafka, logLevel } from 'kafkajs';

export interface KafkaMockOptions {
  /** Brokers in the cluster (default 3, like the architecture document's invocation). */
  brokers?: number;
  /** How long to wait for the address and for every broker to answer (default 15 s). */
  startTimeoutMs?: number;
  /** The kcat executable (default `kcat` from PATH). */
  kcatPath?: string;
}

export interface KafkaMock {
  /** `host:port` of every broker of the cluster, ready for a client's bootstrap list. */
  readonly bootstrapServers: string[];
  /** Resolves when kcat has exited, whoever ended it. */
  readonly exited: Promise<void>;
  /** Stops the cluster; resolves once kcat has exited and its ports are closed. Idempotent. */
  stop(): Promise<void>;
}

export type KafkaMockErrorCode = 'KCAT_MISSING' | 'KCAT_EXITED' | 'KAFKA_MOCK_TIMEOUT' | 'KAFKA_MOCK_OPTIONS_INVALID';

export class KafkaMockError extends Error {
  constructor(
    readonly code: KafkaMockErrorCode,
    message: string,
  ) {
    super(message);
    this.name = 'KafkaMockError';
  }
}

const ADDRESS = /(?:bootstrap\.servers=|replaced with )([^\s,]+:\d+(?:,[^\s,]+:\d+)*)/;
const STDERR_KEPT = 16_384;
const STOP_GRACE_MS = 3_000;

const live = new Set<ChildProcess>();
let exitHookInstalled = false;

function killAllOnExit(): void {
  if (exitHookInstalled) return;
  exitHookInstalled = true;
  // Belt and braces next to the stdin pipe: a normal exit kills what is still running, synchronously.
  process.once('exit', () => {
    for (const child of live) child.kill('SIGKILL');
  });
}

/** Starts a mock cluster and resolves once every broker answers; rejects with a `KafkaMockError`. */
export async function startKafkaMock(options: KafkaMockOptions = {}): Promise<KafkaMock> {
  const brokerCount = options.brokers ?? 3;
  const timeoutMs = options.startTimeoutMs ?? 15_000;
  const kcat = options.kcatPath ?? 'kcat';
  if (!Number.isInteger(brokerCount) || brokerCount < 1 || brokerCount > 16) {
    throw new KafkaMockError('KAFKA_MOCK_OPTIONS_INVALID', `brokers must be a whole number from 1 to 16 (got ${brokerCount}).`);
  }

  killAllOnExit();
  const child = spawn(kcat, ['-q', '-X', `test.mock.num.brokers=${brokerCount}`, '-b', 'localhost:1', '-P', '-t', 'kafka-mock.stdin'], {
    stdio: ['pipe', 'ignore', 'pipe'],
    detached: true,
  });
  live.add(child);

  let stderr = '';
  let spawnError: NodeJS.ErrnoException | undefined;
  const exited = new Promise<void>((resolve) => {
    child.once('close', () => {
      live.delete(child);
      resolve();
    });
    child.once('error', (error: NodeJS.ErrnoException) => {
      spawnError = error;
      live.delete(child);
      resolve();
    });
  });
  // An EPIPE on stdin (kcat already gone) is reported through `exited`; it must not crash the process.
  child.stdin?.on('error', () => undefined);

  const address = new Promise<string[]>((resolve) => {
    child.stderr?.setEncoding('utf8');
    child.stderr?.on('data', (chunk: string) => {
      stderr = (stderr + chunk).slice(-STDERR_KEPT);
      const match = ADDRESS.exec(stderr);
      if (match?.[1]) resolve(match[1].split(','));
    });
  });

  const stop = once(async () => {
    if (child.exitCode !== null || child.signalCode !== null || spawnError) return exited;
    child.stdin?.end();
    const timer = setTimeout(() => child.kill('SIGKILL'), STOP_GRACE_MS);
    await exited;
    clearTimeout(timer);
  });

  const failure = (): KafkaMockError => {
    if (spawnError?.code === 'ENOENT') {
      return new KafkaMockError(
        'KCAT_MISSING',
        `kcat was not found (${kcat}): the Kafka mock cluster needs it; install Debian's kcat package (apt-get install kcat).`,
      );
    }
    if (spawnError) return new KafkaMockError('KCAT_EXITED', `kcat could not be started (${spawnError.code ?? spawnError.message}).`);
    return new KafkaMockError('KCAT_EXITED', `kcat exited before the mock cluster was ready (exit ${child.exitCode ?? child.signalCode}):\n${lastLines(stderr)}`);
  };

  let timer: NodeJS.Timeout | undefined;
  const deadline = Date.now() + timeoutMs;
  const timedOut = new Promise<never>((_, reject) => {
    timer = setTimeout(
      () => reject(new KafkaMockError('KAFKA_MOCK_TIMEOUT', `The Kafka mock cluster was not ready within ${timeoutMs} ms:\n${lastLines(stderr)}`)),
      timeoutMs,
    );
  });
  const died = exited.then(() => Promise.reject(failure()));
  died.catch(() => undefined); // it only matters while we start; later exits are reported by `exited`
  try {
    const bootstrapServers = await Promise.race([address, died, timedOut]);
    await Promise.race([waitForBrokers(bootstrapServers, brokerCount, deadline, () => live.has(child)), died, timedOut]);
    return { bootstrapServers, exited, stop };
  } catch (error) {
    await stop();
    throw error;
  } finally {
    clearTimeout(timer);
  }
}

/** Asks the cluster for its metadata until it lists every broker: the address alone proves nothing yet. */
async function waitForBrokers(bootstrapServers: string[], expected: number, deadline: number, alive: () => boolean): Promise<void> {
  const kafka = new Kafka({
    clientId: 'kafka-mock-probe',
    brokers: bootstrapServers,
    logLevel: logLevel.NOTHING,
    connectionTimeout: 1_000,
    retry: { retries: 0 },
  });
  while (alive() && Date.now() < deadline) {
    const admin = kafka.admin();
    try {
      await admin.connect();
      const { brokers } = await admin.describeCluster();
      if (brokers.length >= expected) return;
    } catch {
      // not up yet
    } finally {
      await admin.disconnect().catch(() => undefined);
    }
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  throw new KafkaMockError('KAFKA_MOCK_TIMEOUT', `The Kafka mock cluster did not list its ${expected} broker(s) in time.`);
}

function once<T>(run: () => Promise<T>): () => Promise<T> {
  let pending: Promise<T> | undefined;
  return () => (pending ??= run());
}

function lastLines(text: string, count = 10): string {
  return text.trim().split('\n').slice(-count).join('\n') || '(kcat printed nothing)';
}
