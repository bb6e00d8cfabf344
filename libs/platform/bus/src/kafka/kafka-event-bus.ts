/**
 * The `kafka` adapter of the event bus port (kafkajs). It owns the Kafka client, one producer shared
 * by `publish` and the dead-letter writes, one admin client (topics, health, lag), and one consumer per
 * subscription (`kafka-subscription.ts`).
 *
 * - publish: envelopes are validated (an invalid one would only be dead-lettered by every consumer),
 *   then sent in one request per call, keyed by stream id with the envelope headers
 *   (`toEventMessage`), acks=-1, through the idempotent producer where the cluster allows it
 *   (`kafka-producer.ts`, which asks again for one after a fallback); it resolves once every message is
 *   acknowledged by the in-sync replicas.
 * - topics carry the configured prefix on the cluster; services and handlers see the plain names.
 *   They are created before first use where the cluster lets us (`kafka-topics.ts`).
 * - health: ready when a broker answers a metadata request within the health timeout; `degraded` says
 *   `PRODUCER_NOT_IDEMPOTENT` while the producer is the non-idempotent fallback.
 * - close: stops every subscription (each finishes its message in hand, commits and leaves its
 *   group, waiting for the cluster at most `consumer.disconnectTimeoutMs`, then warns
 *   `CONSUMER_LEAVE_TIMEOUT` and goes on), then disconnects the producer and the admin client.
 */
import { Kafka, type Admin, type ISocketFactory, type RetryOptions } from 'kafkajs';

import type { EventEnvelope } from '@trustmesh/platform-events';

import { OptionProblems } from '../adapter-options';
import { BusError } from '../bus.error';
import { deadLetterHeaders } from '../dead-letter';
import { within } from '../deadline';
import { deadLetterTopic, type BusHealth, type EventBus, type SubscribeOptions, type Subscription } from '../event-bus.port';
import { defaultAdapterLogger, type BusLogger, type BusLogLevel } from '../bus-log';
import { kafkaClientLog, toKafkaLogLevel, type KafkaClientLog } from './kafka-log';
import { BusProducer, type ProducerMode } from './kafka-producer';
import { KafkaSubscription, type ConsumerTuning, type DeadLetter, type SubscriptionPlan, type SubscriptionRuntime } from './kafka-subscription';
import { TopicProvisioner } from './kafka-topics';
import { publishableMessages } from '../publish-checks';
import { checkSubscribeOptions, MAX_ATTEMPTS_LIMIT } from '../subscribe-options';
import { serviceTopicName, storedGroupName, storedTopicName, subscribedTopicNames } from '../topic-name';

export interface KafkaEventBusOptions {
  brokers: readonly string[];
  clientId: string;
  /** Prepended to every topic name on the cluster (`TRUSTMESH_TOPIC_PREFIX`). */
  topicPrefix?: string;
  /** Tries per message before the DLQ, unless a subscription says otherwise (1–100). */
  maxAttempts: number;
  /** Delay after the first failed try; it doubles per try. */
  retryBackoffMs: number;
  /** Ceiling of the retry delay (default 30 s). */
  maxRetryBackoffMs?: number;
  /** Where the adapter's and kafkajs' log lines go (default: JSON lines on stderr, from `info`). */
  logger?: BusLogger;
  /** kafkajs' own threshold, before its lines reach `logger` (default `warn`). */
  clientLogLevel?: BusLogLevel | 'nothing';
  consumer?: Partial<ConsumerTuning>;
  /** Partitions of the topics this bus creates (default: the cluster's default). */
  topicPartitions?: number;
  /** Longest a health check waits for a broker (default 5 s). */
  healthTimeoutMs?: number;
  /** kafkajs connection timeout (default 3 s). */
  connectionTimeoutMs?: number;
  /** kafkajs retry policy for connections and requests (default kafkajs'). */
  retry?: RetryOptions;
  /**
   * After the cluster refused an idempotent producer, how long until the bus asks again (default 30 s); the
   * wait doubles per refusal, up to 10 minutes. Publishing goes on meanwhile, with acks=-1.
   */
  idempotenceRetryMs?: number;
  /**
   * How the client opens its connections to the brokers (default: kafkajs' own, plain TCP or TLS). For
   * tests that cut the cluster off (`createBrokerGate` of the testing library) and for custom transports.
   */
  socketFactory?: ISocketFactory;
}

export const DEFAULT_CONSUMER_TUNING: Readonly<ConsumerTuning> = {
  sessionTimeoutMs: 30_000,
  heartbeatIntervalMs: 3_000,
  rebalanceTimeoutMs: 60_000,
  maxWaitTimeMs: 5_000,
  joinTimeoutMs: 90_000,
  partitionsConsumedConcurrently: 1,
  disconnectTimeoutMs: 5_000,
};


function checkOptions(options: KafkaEventBusOptions, tuning: ConsumerTuning): void {
  const problems = new OptionProblems()
    .require(options.brokers.length > 0, 'brokers must name at least one host:port')
    .whole('maxAttempts', options.maxAttempts, 1, MAX_ATTEMPTS_LIMIT)
    .whole('retryBackoffMs', options.retryBackoffMs, 0, 3_600_000)
    .whole('maxRetryBackoffMs', options.maxRetryBackoffMs, 0, 3_600_000)
    .whole('topicPartitions', options.topicPartitions, 1, 10_000)
    .whole('healthTimeoutMs', options.healthTimeoutMs, 1, 600_000)
    .whole('idempotenceRetryMs', options.idempotenceRetryMs, 1, 3_600_000);
  for (const [name, value] of Object.entries(tuning)) problems.whole(`consumer.${name}`, value, 1, 3_600_000);
  problems.require(tuning.heartbeatIntervalMs < tuning.sessionTimeoutMs, 'consumer.heartbeatIntervalMs must be below consumer.sessionTimeoutMs');
  problems.throwIfAny('kafka');
}

export class KafkaEventBus implements EventBus {
  readonly adapter = 'kafka' as const;
  private readonly kafka: Kafka;
  private readonly logger: BusLogger;
  /** kafkajs' lines, with their repeats collapsed; told of each success so it can say the cluster is back. */
  private readonly clientLog: KafkaClientLog;
  private readonly prefix: string;
  private readonly provisioner: TopicProvisioner;
  private readonly runtime: SubscriptionRuntime;
  /** The running subscriptions (stopped on close, read by `subscriptions()`). */
  private readonly live = new Set<KafkaSubscription>();
  private producer?: Promise<BusProducer>;
  private connected?: BusProducer;
  private adminClient?: Promise<Admin>;
  /** The admin client behind `adminClient`, from before its connection completes (close disconnects it at once). */
  private adminInstance?: Admin;
  private adminConnected = false;
  private closing?: Promise<void>;

  constructor(private readonly options: KafkaEventBusOptions) {
    const tuning: ConsumerTuning = { ...DEFAULT_CONSUMER_TUNING, ...options.consumer };
    checkOptions(options, tuning);
    this.logger = options.logger ?? defaultAdapterLogger('kafka');
    this.prefix = options.topicPrefix ?? '';
    this.clientLog = kafkaClientLog(this.logger);
    this.kafka = new Kafka({
      clientId: options.clientId,
      brokers: [...options.brokers],
      logLevel: toKafkaLogLevel(options.clientLogLevel ?? 'warn'),
      logCreator: this.clientLog.logCreator,
      connectionTimeout: options.connectionTimeoutMs ?? 3_000,
      ...(options.retry ? { retry: options.retry } : {}),
      ...(options.socketFactory ? { socketFactory: options.socketFactory } : {}),
    });
    this.provisioner = new TopicProvisioner({ admin: () => this.admin(), logger: this.logger, partitions: options.topicPartitions });
    this.runtime = {
      kafka: this.kafka,
      admin: () => this.admin(),
      deadLetter: (letter) => this.writeDeadLetter(letter),
      logger: this.logger,
      answered: () => this.clientLog.answered(),
      tuning,
      retryBackoffMs: options.retryBackoffMs,
      maxRetryBackoffMs: options.maxRetryBackoffMs ?? 30_000,
      serviceTopic: (clusterTopic) => serviceTopicName(this.prefix, clusterTopic),
      clusterId: () => this.admin().then(async (admin) => (await admin.describeCluster()).clusterId),
    };
  }

  /** How the producer writes once connected: `idempotent`, or `acks-all` where the cluster refused idempotence. */
  get producerMode(): ProducerMode | undefined {
    return this.connected?.mode;
  }

  async publish(topic: string, envelopes: readonly EventEnvelope[]): Promise<void> {
    this.assertOpen();
    const clusterTopic = storedTopicName(this.prefix, topic);
    if (envelopes.length === 0) return;
    const messages = publishableMessages(topic, envelopes);
    const producer = await this.connectedProducer();
    await this.provisioner.ensure([clusterTopic]);
    await producer.send({ topic: clusterTopic, acks: -1, messages });
    this.clientLog.answered();
  }

  async subscribe(options: SubscribeOptions): Promise<KafkaSubscription> {
    this.assertOpen();
    const plan = this.plan(options);
    // The DLQ siblings too: a dead letter should never wait for a topic to appear.
    await this.provisioner.ensure(plan.topics.flatMap((topic) => [topic, deadLetterTopic(topic)]));
    this.assertOpen();
    return KafkaSubscription.start(this.runtime, plan, {
      added: (subscription) => this.live.add(subscription),
      removed: (subscription) => this.live.delete(subscription),
    });
  }

  subscriptions(): readonly Subscription[] {
    return [...this.live];
  }

  async health(): Promise<BusHealth> {
    if (this.closing) return { adapter: 'kafka', ready: false, reason: 'BUS_CLOSED' };
    try {
      await within(
        this.admin().then((admin) => admin.describeCluster()),
        this.options.healthTimeoutMs ?? 5_000,
      );
      this.clientLog.answered();
      return { adapter: 'kafka', ready: true, ...(this.producerMode === 'acks-all' ? { degraded: ['PRODUCER_NOT_IDEMPOTENT'] } : {}) };
    } catch {
      return { adapter: 'kafka', ready: false, reason: 'BROKER_UNREACHABLE' };
    }
  }

  close(): Promise<void> {
    this.closing ??= (async () => {
      await Promise.allSettled([...this.live].map((subscription) => subscription.stop()));
      // An admin client still connecting is told to disconnect but not waited for: kafkajs lets the request
      // in flight run to its timeout first (30 s against a broker that does not answer), and a close (a
      // SIGTERM during a start) must not sit that out. A connected one is waited for.
      const admin = this.adminInstance;
      const adminClosed = admin?.disconnect().catch(() => undefined);
      const [producer] = await Promise.allSettled([this.producer]);
      await Promise.allSettled([producer.status === 'fulfilled' ? producer.value?.close() : undefined, this.adminConnected ? adminClosed : undefined]);
    })();
    return this.closing;
  }

  private assertOpen(): void {
    if (this.closing) throw new BusError('BUS_CLOSED', 'The event bus is closed.');
  }

  private plan(options: SubscribeOptions): SubscriptionPlan {
    const { groupId, topics, handler, start = 'earliest', maxAttempts = this.options.maxAttempts } = options;
    checkSubscribeOptions(options, maxAttempts);
    return { groupId: storedGroupName(this.prefix, groupId), topics: subscribedTopicNames(this.prefix, topics), handler, start, maxAttempts };
  }

  private connectedProducer(): Promise<BusProducer> {
    if (!this.producer) {
      const connecting = BusProducer.connect({ kafka: this.kafka, logger: this.logger, idempotenceRetryMs: this.options.idempotenceRetryMs ?? 30_000 }).then((connected) => {
        this.connected = connected;
        return connected;
      });
      this.producer = connecting;
      // A failed connection is retried by the next call rather than remembered.
      connecting.catch(() => {
        if (this.producer === connecting) this.producer = undefined;
      });
    }
    return this.producer;
  }

  private admin(): Promise<Admin> {
    // After close, nothing may open a new connection (a late `lag()` would leak one).
    if (this.closing) return Promise.reject(new BusError('BUS_CLOSED', 'The event bus is closed.'));
    if (!this.adminClient) {
      const admin = this.kafka.admin();
      this.adminInstance = admin;
      const connecting = admin.connect().then(
        () => {
          this.adminConnected = true;
          return admin;
        },
        async (error: unknown) => {
          if (this.adminClient === connecting) {
            this.adminClient = undefined;
            this.adminInstance = undefined;
          }
          await admin.disconnect().catch(() => undefined);
          throw error;
        },
      );
      this.adminClient = connecting;
    }
    return this.adminClient;
  }

  private async writeDeadLetter({ originTopic, originPartition, message, attempts, code }: DeadLetter): Promise<void> {
    const producer = await this.connectedProducer();
    await producer.send({
      topic: deadLetterTopic(originTopic),
      acks: -1,
      messages: [
        {
          key: message.key,
          value: message.value,
          // The original headers as they came (bytes stay bytes), then the DLQ headers.
          headers: { ...message.headers, ...deadLetterHeaders({}, { topic: originTopic, partition: originPartition, offset: message.offset, attempts, code }) },
        },
      ],
    });
  }
}
