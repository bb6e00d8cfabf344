/**
 * Consumer groups through the Kafka adapter: members share partitions, a stopped or killed member's
 * successor resumes from the committed offsets (nothing lost, only the message in hand again), a
 * closing member leaves its group so its partitions move at once, and lag tells what is unconsumed.
 * Killed and SIGTERM'd members run in processes of their own (`test/consumer.process.ts`).
 */
import { spawn } from 'node:child_process';
import { join } from 'node:path';

import { uniqueName, useKafkaCluster, waitUntil } from '@trustmesh/platform-testing';

import { eventKey, interleavedEvents, range, recorder, streamIds, TEST_TUNING, testBus } from './test/kafka-bus.harness';

const cluster = useKafkaCluster();
const SESSION_TIMEOUT_MS = TEST_TUNING.sessionTimeoutMs!;
const workspaceRoot = join(__dirname, '..', '..', '..', '..', '..');

interface ConsumerProcess {
  handled(): string[];
  hanging(): string | undefined;
  joined(): boolean;
  kill(signal: NodeJS.Signals): void;
  exit: Promise<{ code: number | null; signal: NodeJS.Signals | null; at: number }>;
  stderr(): string;
}

function consumerProcess(env: Record<string, string>): ConsumerProcess {
  const child = spawn(process.execPath, ['--import', 'tsx', join(__dirname, 'test', 'consumer.process.ts')], {
    cwd: workspaceRoot,
    env: { ...process.env, TSX_TSCONFIG_PATH: join(workspaceRoot, 'tsconfig.base.json'), KAFKA_BROKERS: cluster.brokers.join(','), ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const events: Array<{ event: string; id?: string }> = [];
  let partial = '';
  let stderr = '';
  child.stdout.on('data', (chunk: Buffer) => {
    const lines = (partial + chunk.toString()).split('\n');
    partial = lines.pop() ?? '';
    for (const line of lines) if (line.trim()) events.push(JSON.parse(line) as { event: string; id?: string });
  });
  child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  const exit = new Promise<{ code: number | null; signal: NodeJS.Signals | null; at: number }>((resolve) =>
    child.once('exit', (code, signal) => resolve({ code, signal, at: Date.now() })),
  );
  return {
    handled: () => events.filter(({ event }) => event === 'handled').map(({ id }) => id!),
    hanging: () => events.find(({ event }) => event === 'hanging')?.id,
    joined: () => events.some(({ event }) => event === 'joined'),
    kill: (signal) => child.kill(signal),
    exit,
    stderr: () => stderr,
  };
}

/** Versions of each stream, in the order the keys list them. */
function versionsByStream(keys: readonly string[]): Map<string, number[]> {
  const byStream = new Map<string, number[]>();
  for (const key of keys) {
    const [stream, version] = key.split(':') as [string, string];
    byStream.set(stream, [...(byStream.get(stream) ?? []), Number(version)]);
  }
  return byStream;
}

/** What the first member finished and what its successor got: together every event, once, in order per stream. */
function expectSeamlessHandover(first: readonly string[], second: readonly string[], streams: readonly string[], perStream: number): void {
  expect(second.filter((key) => first.includes(key))).toEqual([]);
  const before = versionsByStream(first);
  const after = versionsByStream(second);
  for (const stream of streams) expect([...(before.get(stream) ?? []), ...(after.get(stream) ?? [])]).toEqual(range(1, perStream));
}

describe('consumer groups on the Kafka bus', () => {
  it('resume after a stop where the stopped member left off: the message in hand finishes, nothing is lost or repeated', async () => {
    const topic = uniqueName('resume.counters');
    const groupId = uniqueName('resume');
    const streams = streamIds('resume', 5);
    const first = testBus(cluster.brokers);
    const second = testBus(cluster.brokers);
    let release!: () => void;
    const gate = new Promise<void>((resolve) => (release = resolve));
    let inHand: string | undefined;
    const before = recorder(async (record) => {
      if (before.records.length === 14) {
        inHand = eventKey(record.envelope);
        await gate;
      }
    });
    const after = recorder();
    try {
      await first.bus.publish(topic, interleavedEvents(streams, 8));
      const subscription = await first.bus.subscribe({ groupId, topics: [topic], handler: before.handler });
      await waitUntil(() => inHand !== undefined, { what: 'the 15th message in hand' });

      let stopped = false;
      const stopping = subscription.stop().then(() => (stopped = true));
      await new Promise((resolve) => setTimeout(resolve, 300));
      expect(stopped).toBe(false); // it waits for the handler
      release();
      await stopping;
      expect(before.keys()).toHaveLength(15);
      expect(before.keys()).toContain(inHand);

      await second.bus.subscribe({ groupId, topics: [topic], handler: after.handler });
      await waitUntil(() => after.records.length >= 40 - 15, { timeoutMs: 15_000, what: 'the rest of the stream' });
      await new Promise((resolve) => setTimeout(resolve, 300)); // room for a duplicate to show up
      expectSeamlessHandover(before.keys(), after.keys(), streams, 8);
    } finally {
      await Promise.all([first.bus.close(), second.bus.close()]);
    }
  }, 120_000);

  it('resume after a member is killed outright: only the message that was in hand is delivered again', async () => {
    const topic = uniqueName('killed.counters');
    const groupId = uniqueName('killed');
    const streams = streamIds('victim', 6);
    const successor = testBus(cluster.brokers);
    const after = recorder();
    const victim = consumerProcess({ TOPIC: topic, GROUP: groupId, HANG_AT: 'victim-3:6' });
    try {
      await successor.bus.publish(topic, interleavedEvents(streams, 10));
      await waitUntil(() => victim.hanging() !== undefined || victim.stderr() !== '', { timeoutMs: 30_000, what: 'the victim to hang on victim-3:6' });
      expect(victim.stderr()).toBe('');
      victim.kill('SIGKILL');
      await victim.exit;
      const finished = victim.handled();
      expect(finished.length).toBeGreaterThan(0);

      await successor.bus.subscribe({ groupId, topics: [topic], handler: after.handler });
      await waitUntil(() => finished.length + after.records.length >= 60, { timeoutMs: 30_000, what: 'the successor to catch up' });
      await new Promise((resolve) => setTimeout(resolve, 300));
      expect(after.keys()).toContain('victim-3:6');
      expectSeamlessHandover(finished, after.keys(), streams, 10);
    } finally {
      victim.kill('SIGKILL');
      await successor.bus.close();
    }
  }, 120_000);

  it('leave their group on SIGTERM, so a successor takes over within the session timeout, seamlessly', async () => {
    const topic = uniqueName('sigterm.counters');
    const groupId = uniqueName('sigterm');
    const streams = streamIds('graceful', 4);
    const successor = testBus(cluster.brokers);
    const after = recorder();
    const member = consumerProcess({ TOPIC: topic, GROUP: groupId, GRACEFUL: '1', HANDLE_MS: '40' });
    try {
      await successor.bus.publish(topic, interleavedEvents(streams, 15));
      await waitUntil(() => member.handled().length >= 10 || member.stderr() !== '', { timeoutMs: 30_000, what: 'the member to be mid-stream' });
      member.kill('SIGTERM');
      const { code, at } = await member.exit;
      expect(code).toBe(0);
      const finished = member.handled();
      expect(finished.length).toBeLessThan(60);

      const subscription = await successor.bus.subscribe({ groupId, topics: [topic], handler: after.handler });
      // A member that did not leave would hold its partitions for its whole session timeout first
      // (librdkafka's mock then adds another rebalance of the same length).
      expect(Date.now() - at).toBeLessThan(SESSION_TIMEOUT_MS * 1.5);
      expect(subscription.assignedPartitions()[0]?.partitions.length).toBeGreaterThan(0);
      await waitUntil(() => finished.length + after.records.length >= 60, { timeoutMs: 15_000, what: 'the successor to catch up' });
      await new Promise((resolve) => setTimeout(resolve, 300));
      expectSeamlessHandover(finished, after.keys(), streams, 15);
    } finally {
      member.kill('SIGKILL');
      await successor.bus.close();
    }
  }, 120_000);

  it('share the partitions between members, and hand them all to the survivor promptly when one closes', async () => {
    const topic = uniqueName('shared.counters');
    const groupId = uniqueName('shared');
    const one = testBus(cluster.brokers);
    const two = testBus(cluster.brokers);
    const byOne = recorder();
    const byTwo = recorder();
    const covered = (assignments: Array<Array<{ topic: string; partitions: number[] }>>) =>
      assignments.flatMap((assignment) => assignment.flatMap(({ partitions }) => partitions)).sort((a, b) => a - b);
    try {
      const first = await one.bus.subscribe({ groupId, topics: [topic], handler: byOne.handler });
      const everything = covered([first.assignedPartitions()]);
      expect(everything.length).toBeGreaterThan(1);
      const second = await two.bus.subscribe({ groupId, topics: [topic], handler: byTwo.handler });
      await waitUntil(() => JSON.stringify(covered([first.assignedPartitions(), second.assignedPartitions()])) === JSON.stringify(everything), {
        timeoutMs: 30_000,
        what: 'both members to hold a disjoint share of the partitions',
      });
      const ofOne = new Set(covered([first.assignedPartitions()]));
      const ofTwo = new Set(covered([second.assignedPartitions()]));
      expect(ofOne.size).toBeGreaterThan(0);
      expect(ofTwo.size).toBeGreaterThan(0);

      const events = interleavedEvents(streamIds('shared', 16), 3);
      await one.bus.publish(topic, events);
      await waitUntil(() => byOne.records.length + byTwo.records.length >= events.length, { timeoutMs: 15_000, what: 'every event' });
      expect(byOne.records.every(({ partition }) => ofOne.has(partition))).toBe(true);
      expect(byTwo.records.every(({ partition }) => ofTwo.has(partition))).toBe(true);
      expect(byOne.records.length).toBeGreaterThan(0);
      expect(byTwo.records.length).toBeGreaterThan(0);
      expect([...byOne.keys(), ...byTwo.keys()].sort()).toEqual(events.map(eventKey).sort());

      await one.bus.close();
      const closedAt = Date.now();
      await waitUntil(() => JSON.stringify(covered([second.assignedPartitions()])) === JSON.stringify(everything), {
        timeoutMs: SESSION_TIMEOUT_MS * 3,
        what: 'the survivor to hold every partition',
      });
      expect(Date.now() - closedAt).toBeLessThan(SESSION_TIMEOUT_MS * 1.5);

      const more = interleavedEvents(streamIds('after-close', 8), 2);
      await two.bus.publish(topic, more);
      await waitUntil(() => byTwo.records.length >= (events.length - byOne.records.length) + more.length, { timeoutMs: 15_000, what: 'the survivor to take everything' });
    } finally {
      await Promise.all([one.bus.close(), two.bus.close()]);
    }
  }, 120_000);

  it('report the lag: what is published and not yet consumed, per partition', async () => {
    const topic = uniqueName('lag.counters');
    const { bus } = testBus(cluster.brokers);
    const received = recorder();
    try {
      await bus.publish(topic, interleavedEvents(streamIds('lag', 4), 3));
      const subscription = await bus.subscribe({ groupId: uniqueName('lag'), topics: [topic], handler: received.handler });
      await waitUntil(() => received.records.length === 12, { what: 'every event' });
      await waitUntil(async () => (await subscription.lag()).every(({ lag }) => lag === 0), { what: 'every offset committed' });
      const caughtUp = await subscription.lag();
      expect(caughtUp.reduce((sum, { endOffset }) => sum + Number(endOffset), 0)).toBe(12);
      expect(caughtUp.every((entry) => entry.topic === topic && entry.committedOffset === entry.endOffset)).toBe(true);

      await subscription.stop();
      await bus.publish(topic, interleavedEvents(streamIds('late', 5), 1));
      const behind = await subscription.lag();
      expect(behind.reduce((sum, { lag }) => sum + lag, 0)).toBe(5);
      for (const entry of behind) expect(entry.lag).toBe(Number(entry.endOffset) - Number(entry.committedOffset));
    } finally {
      await bus.close();
    }
  }, 120_000);
});
