/**
 * The buses the contract suite (`../event-bus.contract.spec.ts`) runs against, behind one interface:
 * `kafka` on a real Kafka-protocol cluster (librdkafka's mock, or KAFKA_BROKERS), and `local` on a fresh
 * PGlite directory and on a fresh database of the Postgres server. What a scenario needs below the port
 * (the raw log, a foreign producer, a consumer killed outright) each fixture does with its adapter's own
 * means, so the scenarios themselves never ask which adapter runs.
 */
import { Kafka, logLevel, Partitioners } from 'kafkajs';

import type { Database } from '@trustmesh/platform-database';
import { readTopic, waitUntil, type KafkaCluster, type TopicMessage } from '@trustmesh/platform-testing';

import type { EventBus, SubscribeOptions, Subscription } from '../event-bus.port';
import { testBus as kafkaTestBus, withAdmin } from '../kafka/test/kafka-bus.harness';
import { appendRaw, busDatabase, freezable, storedMessages, testBus as localTestBus, TEST_TUNING as LOCAL_TUNING } from '../local/test/local-bus.harness';
import { KAFKA_TEST_TUNING as KAFKA_TUNING } from '../testing/test-buses';
import { eventKey, latch, type RecordingLogger } from './bus-events';
import { startConsumerProcess } from './consumer-process';

export const BUS_FIXTURES = ['kafka', 'local on pglite', 'local on postgres'] as const;
export type BusFixtureKind = (typeof BUS_FIXTURES)[number];

/** A subscription as both adapters return it: the port's, and the partitions the member holds now. */
export interface MemberSubscription extends Subscription {
  assignedPartitions(): Array<{ topic: string; partitions: number[] }>;
}

export interface FixtureBus extends EventBus {
  subscribe(options: SubscribeOptions): Promise<MemberSubscription>;
}

export interface OpenedBus {
  bus: FixtureBus;
  logger: RecordingLogger;
}

export interface BusOptions {
  topicPrefix?: string;
  maxAttempts?: number;
  retryBackoffMs?: number;
  /** Ceiling of the retry delay (default: the adapter's). */
  maxRetryBackoffMs?: number;
  /** Session timeout of the bus's group members (default: the fixture's `sessionTimeoutMs`). */
  sessionTimeoutMs?: number;
  /** Let the client library log everything it can (kafkajs at debug), for checks of what logs may hold. */
  debugLogs?: boolean;
}

/** A message as the log holds it, below the port (the topic reader's shape, for either adapter). */
export type StoredRecord = TopicMessage;

/** A message written below the bus's checks, as a foreign or broken producer would. Bytes only where the log keeps bytes (Kafka). */
export interface RawMessage {
  key: string;
  value: string | Uint8Array;
  headers?: Record<string, string>;
}

/** A consumer-group member somewhere else (another process, where the database allows one) that a test ends without warning. */
export interface DoomedConsumer {
  /** Events its handler finished (before their commit), in order. */
  handled(): string[];
  /** The event its handler hangs on, once it does. */
  hanging(): string | undefined;
  /** What went wrong before it could hang, if anything ('' when nothing). */
  failure(): string;
  /** Ends it outright: no stop, no commit, no goodbye to the group. */
  kill(): Promise<void>;
  dispose(): Promise<void>;
}

export interface BusFixture {
  readonly kind: BusFixtureKind;
  readonly adapter: 'kafka' | 'local';
  /** How long the group waits for a member that vanished before its partitions move. */
  readonly sessionTimeoutMs: number;
  /**
   * For the scenario where a member leaves: the session timeout its members get, and how soon the leaver's
   * partitions must be someone else's. Sooner than a vanished member's would be (its session timeout,
   * plus a rebalance on Kafka), so a takeover in time shows the leaver gave them back.
   */
  readonly handover: { sessionTimeoutMs: number; withinMs: number };
  /** A bus as another process of the service would have it: its own clients or database handle. `closeAll` closes it. */
  openBus(options?: BusOptions): Promise<OpenedBus>;
  /** A bus that cannot reach its broker or database, and the reason its health then gives. */
  unreachableBus(): Promise<{ bus: EventBus; reason: string }>;
  partitionCount(storedTopic: string): Promise<number>;
  /** How many messages the log holds for a topic (as stored); 0 for a topic it does not have. */
  count(storedTopic: string): Promise<number>;
  /** Every message of a topic (as stored, with any prefix) once it holds `minMessages`, by partition then offset. */
  read(storedTopic: string, minMessages: number): Promise<StoredRecord[]>;
  appendRaw(storedTopic: string, messages: readonly RawMessage[]): Promise<void>;
  /** A member of `groupId` on `topic` (no prefix) whose handler hangs forever on the event `hangAt` (`streamId:version`). */
  startDoomedConsumer(subscription: { topic: string; groupId: string; hangAt: string }): Promise<DoomedConsumer>;
  /** Ends every consumer and closes every bus (and its database handle) opened so far: after each test. */
  closeAll(): Promise<void>;
  /** `closeAll`, then the database or cluster goes. */
  dispose(): Promise<void>;
}

/** Opens the fixture of `kind`; `cluster` is read only by the kafka one. */
export function openBusFixture(kind: BusFixtureKind, cluster: KafkaCluster): Promise<BusFixture> {
  switch (kind) {
    case 'kafka':
      return Promise.resolve(kafkaFixture(cluster));
    case 'local on pglite':
      return localFixture('pglite');
    case 'local on postgres':
      return localFixture('postgres');
  }
}

function kafkaFixture(cluster: KafkaCluster): BusFixture {
  let opened: EventBus[] = [];
  let doomed: DoomedConsumer[] = [];
  const closeAll = async () => {
    const [consumers, buses] = [doomed, opened];
    [doomed, opened] = [[], []];
    await Promise.all(consumers.map((consumer) => consumer.dispose()));
    await Promise.all(buses.map((bus) => bus.close()));
  };
  const brokers = () => cluster.brokers;
  return {
    kind: 'kafka',
    adapter: 'kafka',
    sessionTimeoutMs: KAFKA_TUNING.sessionTimeoutMs,
    // librdkafka's mock holds a rebalance for the session timeout less a second: a member that vanished
    // holds its partitions for about twice the session timeout, one that left for one rebalance.
    handover: { sessionTimeoutMs: KAFKA_TUNING.sessionTimeoutMs, withinMs: KAFKA_TUNING.sessionTimeoutMs * 1.5 },
    async openBus({ sessionTimeoutMs, debugLogs, ...options } = {}) {
      const opening = kafkaTestBus(brokers(), {
        ...options,
        ...(debugLogs ? { clientLogLevel: 'debug' as const } : {}),
        ...(sessionTimeoutMs ? { consumer: { sessionTimeoutMs } } : {}),
      });
      opened.push(opening.bus);
      return opening;
    },
    async unreachableBus() {
      // Nothing listens on port 1.
      const { bus } = kafkaTestBus(['127.0.0.1:1'], { healthTimeoutMs: 1_500, retry: { retries: 1, initialRetryTime: 100 }, clientLogLevel: 'nothing' });
      opened.push(bus);
      return { bus, reason: 'BROKER_UNREACHABLE' };
    },
    partitionCount: (topic) => withAdmin(brokers(), async (admin) => (await admin.fetchTopicOffsets(topic)).length),
    count: (topic) =>
      withAdmin(brokers(), async (admin) => {
        try {
          return (await admin.fetchTopicOffsets(topic)).reduce((sum, { high, low }) => sum + Number(high) - Number(low), 0);
        } catch (error) {
          if ((error as { type?: string }).type === 'UNKNOWN_TOPIC_OR_PARTITION') return 0;
          throw error;
        }
      }),
    async read(topic, minMessages) {
      if (minMessages > 0) return readTopic(brokers(), topic, { minMessages });
      const held = await this.count(topic);
      return held === 0 ? [] : readTopic(brokers(), topic, { minMessages: held });
    },
    async appendRaw(topic, messages) {
      const producer = new Kafka({ clientId: 'bus-spec-raw', brokers: brokers(), logLevel: logLevel.NOTHING }).producer({ createPartitioner: Partitioners.DefaultPartitioner });
      await producer.connect();
      try {
        await producer.send({ topic, acks: -1, messages: messages.map(({ key, value, headers }) => ({ key, value: typeof value === 'string' ? value : Buffer.from(value), headers })) });
      } finally {
        await producer.disconnect();
      }
    },
    async startDoomedConsumer({ topic, groupId, hangAt }) {
      const consumer = processConsumer({ BUS: 'kafka', KAFKA_BROKERS: brokers().join(','), TOPIC: topic, GROUP: groupId, HANG_AT: hangAt });
      doomed.push(consumer);
      return consumer;
    },
    closeAll,
    dispose: closeAll,
  };
}

async function localFixture(kind: 'pglite' | 'postgres'): Promise<BusFixture> {
  const db = await busDatabase(kind, 'bus-contract');
  let opened: Array<{ bus?: EventBus; handle: Database }> = [];
  let doomed: DoomedConsumer[] = [];
  const closeAll = async () => {
    const [consumers, buses] = [doomed, opened];
    [doomed, opened] = [[], []];
    await Promise.all(consumers.map((consumer) => consumer.dispose()));
    await Promise.all(buses.map(async ({ bus, handle }) => {
      await bus?.close();
      await handle.close();
    }));
  };
  /** A bus on a handle of its own, as a process of the service has (a small pool: many are open at once). */
  const openBus = async ({ sessionTimeoutMs, debugLogs: _everythingIsLoggedAnyway, ...options }: BusOptions = {}) => {
    const entry: { bus?: EventBus; handle: Database } = { handle: await db.testDb.open({ poolSize: 4 }) };
    opened.push(entry);
    const opening = await localTestBus(db, { database: entry.handle, ...options, ...(sessionTimeoutMs ? { consumer: { sessionTimeoutMs } } : {}) });
    entry.bus = opening.bus;
    return { opening, handle: entry.handle };
  };
  return {
    kind: `local on ${kind}`,
    adapter: 'local',
    sessionTimeoutMs: LOCAL_TUNING.sessionTimeoutMs,
    // A member that vanished holds its leases for the whole session; one that left releases them at once.
    handover: { sessionTimeoutMs: 10_000, withinMs: 5_000 },
    openBus: async (options) => (await openBus(options)).opening,
    async unreachableBus() {
      const { opening, handle } = await openBus();
      await handle.close();
      return { bus: opening.bus, reason: 'DATABASE_UNREACHABLE' };
    },
    partitionCount: async (topic) => {
      const [row] = await db.database.withConnection((sql) => sql.query<{ partitions: number }>('SELECT partitions FROM bus_topics WHERE topic = $1', [topic]));
      if (!row) throw new Error(`The local bus has no topic ${topic}.`);
      return Number(row.partitions);
    },
    count: async (topic) => {
      const [row] = await db.database.withConnection((sql) => sql.query<{ held: number }>('SELECT count(*)::integer AS held FROM bus_messages WHERE topic = $1', [topic]));
      return Number(row?.held ?? 0);
    },
    async read(topic, minMessages) {
      let stored = await storedMessages(db.database, topic);
      await waitUntil(async () => (stored = await storedMessages(db.database, topic)).length >= minMessages, { timeoutMs: 30_000, what: `${minMessages} message(s) on ${topic}` });
      return stored;
    },
    async appendRaw(topic, messages) {
      await appendRaw(
        db.database,
        topic,
        messages.map(({ key, value, headers = {} }) => {
          if (typeof value !== 'string') throw new Error('The local log stores text: a raw message value must be a string.');
          return { key, value, headers };
        }),
      );
    },
    async startDoomedConsumer(subscription) {
      const consumer =
        db.testDb.config.mode === 'server'
          ? processConsumer({ BUS: 'local', DATABASE_URL: db.testDb.config.url, TOPIC: subscription.topic, GROUP: subscription.groupId, HANG_AT: subscription.hangAt })
          : await frozenConsumer(subscription);
      doomed.push(consumer);
      return consumer;
    },
    closeAll,
    async dispose() {
      await closeAll();
      await db.testDb.dispose();
    },
  };

  /**
   * Embedded PGlite belongs to one process, so the member that dies is a bus in this process whose
   * database is frozen: from then on it neither heartbeats nor commits, exactly what the group sees of a
   * killed process. At dispose it is thawed and let go; the commits it then tries are refused (its
   * leases moved on) and it closes.
   */
  async function frozenConsumer({ topic, groupId, hangAt }: { topic: string; groupId: string; hangAt: string }): Promise<DoomedConsumer> {
    const stalling = freezable(await db.testDb.open({ poolSize: 4 }));
    const { bus } = await localTestBus(db, { database: stalling.database });
    const handled: string[] = [];
    const letGo = latch();
    let hanging: string | undefined;
    let failure = '';
    bus
      .subscribe({
        groupId,
        topics: [topic],
        handler: async ({ envelope }) => {
          const id = eventKey(envelope);
          if (id === hangAt) {
            hanging = id;
            await letGo.promise;
          }
          handled.push(id);
        },
      })
      .catch((error: unknown) => (failure = error instanceof Error ? error.message : String(error)));
    let disposed: Promise<void> | undefined;
    return {
      handled: () => [...handled],
      hanging: () => hanging,
      failure: () => failure,
      kill: async () => stalling.freeze(),
      dispose: () =>
        (disposed ??= (async () => {
          stalling.thaw();
          letGo.open();
          await bus.close();
          await stalling.database.close();
        })()),
    };
  }
}

function processConsumer(env: Record<string, string>): DoomedConsumer {
  const child = startConsumerProcess(env);
  const kill = async () => {
    child.kill('SIGKILL');
    await child.exit;
  };
  return { handled: child.handled, hanging: child.hanging, failure: child.stderr, kill, dispose: kill };
}
