/**
 * One consumer-group member of the Kafka adapter: delivers each message to the handler in partition
 * order, commits its offset only once the handler succeeded (or the message was dead-lettered), and
 * reports the group's lag.
 *
 * Commit strategy: `eachBatch` with auto-resolve off. After a message is done we resolve its offset
 * and call `commitOffsetsIfNecessary()` with an auto-commit threshold of 1, so kafkajs commits that
 * offset right away, and commits whatever is resolved when a rebalance or a stop takes the partition.
 * Nothing unresolved is ever committed, and after a crash only the message in hand is delivered again
 * (per partition consumed at once; one by default). `eachBatch` rather than `eachMessage` because the member
 * leaves a batch unresolved when it parks a partition (below), and resolves and commits each message itself.
 *
 * Retries: a failing handler gets `maxAttempts` tries with a doubling, capped backoff in between. The
 * backoff parks the partition like a transient wait (below), so it holds no other partition; the next
 * try's number is kept with the parked partition.
 * Then the message goes to `<topic>.dlq` with its key, value and headers plus the DLQ headers of the
 * port (origin, attempts, a stable code: the handler's own, else HANDLER_FAILED; `../dead-letter.ts`
 * holds these rules for both adapters), and its offset is committed so the partition moves on. A DLQ
 * write that fails (the broker refuses or is away) parks the partition too: the message is written again
 * after the capped backoff, counted by failed writes, without running the handler again, and its offset is
 * committed only once the DLQ has it; the member's other partitions go on meanwhile. A
 * value that is not a valid envelope goes to the DLQ at once (`ENVELOPE_INVALID`, 0 attempts): no
 * try can fix it. Tries are counted in memory: a message abandoned by a stop or a rebalance starts
 * again at attempt 1 on its next delivery. The DLQ's origin headers name the topic as it is on the
 * cluster (with its prefix), like the partition and offset beside them.
 *
 * A transient failure (the handler's error is marked `transient`, see the port) uses up no try, and
 * only its own partition waits: the member pauses that partition (the batch's `pause()`), leaves the batch
 * unresolved and returns, so kafkajs goes on fetching and handling the member's other partitions (its
 * fetch loop waits for every batch of a fetch, so waiting inside the batch would hold them all). A timer
 * resumes the partition after the same capped backoff; kafkajs then fetches again from the last resolved
 * offset, i.e. the failed message, which is tried again at the same attempt, until it succeeds or the
 * partition is let go (`../transient-retries.ts` keeps the count, the log lines and `retrying()`). A stop
 * or a rebalance that takes the partition drops the timer; nothing past the message was resolved, so
 * order per partition and commit-after-handle hold.
 *
 * A member cannot heartbeat while its handler runs: a handler must finish well within the session
 * timeout, or the group drops the member and its partitions move on without it.
 *
 * Stop: the handler calls in progress finish first, however long the broker takes; then the member commits,
 * leaves its group and disconnects, waiting at most `disconnectTimeoutMs` for that. kafkajs' disconnect waits
 * for the cluster to answer (its retries, a request in flight up to its 30 s timeout), and a cluster that is
 * away or mid-rebalance would hold the whole shutdown of an app. Past the bound the member warns
 * (`CONSUMER_LEAVE_TIMEOUT`) and the stop resolves; kafkajs goes on disconnecting in the background. Nothing
 * is lost: each message's offset is committed right after it was handled (above), so what a member that
 * did not leave leaves behind is at most an offset whose commit was still in flight, and that message is
 * delivered again; its partitions move on after the session timeout.
 */
import type { Admin, Consumer, EachBatchPayload, Kafka, KafkaMessage } from 'kafkajs';

import { fromEventMessage, headersAsText } from '@trustmesh/platform-events';

import { BusError } from '../bus.error';
import { DEAD_LETTER_CODES, failureCode } from '../dead-letter';
import { isTransientFailure, type BusRecord, type PartitionLag, type RecordHandler, type RetryingPartition, type Subscription } from '../event-bus.port';
import { describeError, type BusLogger } from '../bus-log';
import { pause, retryDelayMs } from '../retry-backoff';
import { TransientRetries } from '../transient-retries';

export interface ConsumerTuning {
  /** A member that has not heartbeated for this long is dropped from its group (kafkajs default 30 s). */
  sessionTimeoutMs: number;
  heartbeatIntervalMs: number;
  /** How long the group waits for members to rejoin during a rebalance (kafkajs default 60 s). */
  rebalanceTimeoutMs: number;
  /**
   * Longest a fetch waits for data (kafkajs default 5 s). librdkafka's mock cluster holds an empty
   * fetch for this whole time even when data arrives, so tests and development lower it.
   */
  maxWaitTimeMs: number;
  /** How long `subscribe` waits for the member's first partition assignment. */
  joinTimeoutMs: number;
  /** Partitions whose batches are handled at once; 1 keeps at most one message in hand. */
  partitionsConsumedConcurrently: number;
  /**
   * On stop, how long a member waits for its commit, its leave and its disconnect once its handlers are done
   * (default 5 s); past it, the stop goes on without them (`CONSUMER_LEAVE_TIMEOUT`).
   */
  disconnectTimeoutMs: number;
}

/** What a dead-lettered message carries, from where it came. */
export interface DeadLetter {
  originTopic: string;
  originPartition: number;
  message: KafkaMessage;
  attempts: number;
  code: string;
}

export interface SubscriptionRuntime {
  kafka: Kafka;
  admin: () => Promise<Admin>;
  deadLetter: (letter: DeadLetter) => Promise<void>;
  logger: BusLogger;
  /** The cluster answered (a group join): kafkajs' log says so once after connection failures (`kafka-log.ts`). */
  answered: () => void;
  tuning: ConsumerTuning;
  retryBackoffMs: number;
  maxRetryBackoffMs: number;
  /** The topic name services use for a topic name on the cluster. */
  serviceTopic: (clusterTopic: string) => string;
  /** The id of the cluster the admin client reaches now (`BusRecord.log`). */
  clusterId: () => Promise<string>;
}

export interface SubscriptionPlan {
  groupId: string;
  /** Topic names on the cluster. */
  topics: string[];
  handler: RecordHandler;
  start: 'earliest' | 'latest';
  maxAttempts: number;
}

/** `parked`: the partition is paused on a failing message and resumes by timer after the backoff. */
type Outcome = 'done' | 'abandoned' | 'parked';

/** A partition paused on a failing message (a backoff before its next try), until its timer resumes it. */
interface ParkedPartition {
  /** Resumes the partition in the consumer group run that paused it (kafkajs' `pause()` of the batch). */
  resume: () => void;
  topic: string;
  partition: number;
  offset: string;
  /** The try the message's next delivery makes: the same after a transient failure, the next after a counted one. */
  attempt: number;
  /** Set when the message is done with its tries and only its DLQ write is left to do again. */
  deadLetter?: PendingDeadLetter;
  timer?: NodeJS.Timeout;
}

/** What `deliver` may do to the partition of the batch in hand. */
interface PartitionControl {
  /** True when the message should be left for redelivery (stop, rebalance, a stale batch). */
  abandoned: () => boolean;
  /** Pauses the partition in this group run; returns what resumes it. */
  pausePartition: () => () => void;
}

/** A dead letter whose write failed: what it says, and how many writes failed so far (its backoff). */
interface PendingDeadLetter {
  attempts: number;
  code: string;
  failedWrites: number;
}

/** How the bus keeps track of its subscriptions, from creation (a close during the join stops it too). */
export interface SubscriptionRegistry {
  added(subscription: KafkaSubscription): void;
  removed(subscription: KafkaSubscription): void;
}

export class KafkaSubscription implements Subscription {
  private readonly stopping = new AbortController();
  private stopped?: Promise<void>;
  private assignment: Array<{ topic: string; partitions: number[] }> = [];
  private readonly transient: TransientRetries;
  /** By `topic#partition` (the topic as on the cluster). */
  private readonly parked = new Map<string, ParkedPartition>();

  private consumer: Consumer;
  /** The recreation of a consumer that crashed for good, while it runs (`stop` waits for it). */
  private recovering?: Promise<void>;
  /**
   * Consumers kafkajs gave up on. kafkajs reports a crash in a member's first join before that member's
   * `run` resolves, so a member a recreation starts can be given up while the recreation still runs.
   */
  private readonly givenUp = new WeakSet<Consumer>();
  private markJoined: () => void = () => undefined;
  /**
   * The cluster's id, asked again at every group join: a member that rejoins after its brokers came back
   * may be talking to another cluster (a restarted mock), whose offsets are another log's.
   */
  private clusterId?: Promise<string>;
  private markPositioned: () => void = () => undefined;
  /** The handler calls in progress: the messages in hand, which `stop` lets finish. */
  private readonly handling = new Set<Promise<void>>();

  private constructor(
    private readonly runtime: SubscriptionRuntime,
    private readonly plan: SubscriptionPlan,
    private readonly registry: SubscriptionRegistry,
  ) {
    this.transient = new TransientRetries({
      logger: runtime.logger,
      logPrefix: 'kafka consumer',
      groupId: plan.groupId,
      retryBackoffMs: runtime.retryBackoffMs,
      maxRetryBackoffMs: runtime.maxRetryBackoffMs,
      serviceTopic: runtime.serviceTopic,
    });
    this.consumer = this.createConsumer();
  }

  /** Joins the group and resolves once the member has its first assignment. */
  static async start(runtime: SubscriptionRuntime, plan: SubscriptionPlan, registry: SubscriptionRegistry): Promise<KafkaSubscription> {
    const { tuning } = runtime;
    const subscription = new KafkaSubscription(runtime, plan, registry);
    registry.added(subscription);
    // A consumer recreated after a crash before the first join resolves these too.
    const joined = new Promise<void>((resolve) => {
      subscription.markJoined = resolve;
    });
    // kafkajs positions a member without a committed offset at its first fetch; for `latest`, waiting
    // for that fetch means everything published after `subscribe` resolves is delivered.
    const positioned = new Promise<void>((resolve) => {
      subscription.markPositioned = resolve;
    });
    let timer: NodeJS.Timeout | undefined;
    const givenUp = new Promise<never>((_, reject) => {
      timer = setTimeout(
        () => reject(new BusError('SUBSCRIBE_TIMEOUT', `Group ${plan.groupId} gave this member no partitions within ${tuning.joinTimeoutMs} ms.`)),
        tuning.joinTimeoutMs,
      );
      subscription.stopping.signal.addEventListener('abort', () => reject(new BusError('BUS_CLOSED', 'The subscription was stopped before it joined its group.')), {
        once: true,
      });
    });
    givenUp.catch(() => undefined); // raced below; a rejection before that must not go unhandled
    try {
      await subscription.runConsumer(subscription.consumer);
      await Promise.race([joined, givenUp]);
      if (plan.start === 'latest') await Promise.race([positioned, givenUp]);
      return subscription;
    } catch (error) {
      await subscription.stop();
      throw error;
    } finally {
      clearTimeout(timer);
    }
  }

  /** A new group member with this subscription's listeners; `runConsumer` connects it. */
  private createConsumer(): Consumer {
    const { runtime, plan } = this;
    const { tuning } = runtime;
    const consumer = runtime.kafka.consumer({
      groupId: plan.groupId,
      sessionTimeout: tuning.sessionTimeoutMs,
      heartbeatInterval: tuning.heartbeatIntervalMs,
      rebalanceTimeout: tuning.rebalanceTimeoutMs,
      maxWaitTimeInMs: tuning.maxWaitTimeMs,
      allowAutoTopicCreation: true,
    });
    consumer.on(consumer.events.GROUP_JOIN, ({ payload }) => {
      if (consumer !== this.consumer) return;
      this.assignment = Object.entries(payload.memberAssignment).map(([topic, partitions]) => ({
        topic: runtime.serviceTopic(topic),
        partitions: [...partitions].sort((a, b) => a - b),
      }));
      // A parked partition the rebalance took is let go: its new owner starts the message afresh.
      for (const parked of [...this.parked.values()]) {
        if (!(payload.memberAssignment[parked.topic] ?? []).includes(parked.partition)) this.unpark(parked);
      }
      runtime.logger.log('info', 'kafka consumer: joined group', {
        groupId: plan.groupId,
        memberId: payload.memberId,
        partitions: this.assignment.reduce((sum, { partitions }) => sum + partitions.length, 0),
      });
      this.markJoined();
      runtime.answered();
    });
    consumer.on(consumer.events.GROUP_JOIN, () => {
      if (consumer === this.consumer) this.clusterId = undefined;
    });
    const removeFetchListener = consumer.on(consumer.events.FETCH, () => {
      removeFetchListener();
      if (consumer === this.consumer) this.markPositioned();
    });
    consumer.on(consumer.events.CRASH, ({ payload }) => {
      if (consumer !== this.consumer || this.stopping.signal.aborted) return;
      if (payload.restart) {
        // kafkajs restarts this consumer itself.
        runtime.logger.log('warn', 'kafka consumer: crashed; kafkajs restarts it', { groupId: plan.groupId, code: 'CONSUMER_CRASHED_RESTARTING' });
        return;
      }
      // kafkajs gave this consumer up (an error it does not retry): a new member takes its place.
      this.givenUp.add(consumer);
      this.recover();
    });
    return consumer;
  }

  private async runConsumer(consumer: Consumer): Promise<void> {
    await consumer.connect();
    await consumer.subscribe({ topics: this.plan.topics, fromBeginning: this.plan.start === 'earliest' });
    await consumer.run({
      autoCommit: true,
      autoCommitInterval: null,
      autoCommitThreshold: 1,
      eachBatchAutoResolve: false,
      partitionsConsumedConcurrently: this.runtime.tuning.partitionsConsumedConcurrently,
      eachBatch: (payload) => this.onBatch(payload),
    });
  }

  /** Starts a recreation unless one runs; `stop` waits for it. */
  private recover(): void {
    this.recovering ??= this.recreate().finally(() => {
      this.recovering = undefined;
      // A crash between the recreation's last check and now found it still running.
      if (this.givenUp.has(this.consumer) && !this.stopping.signal.aborted) this.recover();
    });
  }

  /**
   * Replaces a consumer kafkajs gave up on: waits the bus's capped backoff, disconnects the old one,
   * and joins the same group with a new one, until one runs or the subscription stops. Logs a stable
   * code only: a crash's error text may quote broker answers.
   */
  private async recreate(): Promise<void> {
    const { runtime, plan } = this;
    for (let attempt = 1; ; attempt += 1) {
      runtime.logger.log('warn', 'kafka consumer: crashed for good; recreating it', { groupId: plan.groupId, code: 'CONSUMER_RECREATING', attempt });
      if (!(await pause(retryDelayMs(attempt, runtime.retryBackoffMs, runtime.maxRetryBackoffMs), this.stopping.signal))) return;
      const previous = this.consumer;
      await previous.disconnect().catch(() => undefined);
      if (this.stopping.signal.aborted) return;
      const next = this.createConsumer();
      this.consumer = next;
      try {
        await this.runConsumer(next);
      } catch {
        runtime.logger.log('warn', 'kafka consumer: recreation failed; retrying', { groupId: plan.groupId, code: 'CONSUMER_RECREATE_FAILED', attempt });
        if (this.stopping.signal.aborted) return;
        continue;
      }
      // The new member's first join can fail for good too (librdkafka's mock sometimes answers a SyncGroup
      // with an error kafkajs does not retry): then it is replaced in turn, after a longer wait.
      if (!this.givenUp.has(next)) {
        runtime.logger.log('info', 'kafka consumer: recreated', { groupId: plan.groupId, attempt });
        return;
      }
      if (this.stopping.signal.aborted) return;
    }
  }

  get groupId(): string {
    return this.plan.groupId;
  }

  /** The partitions this member holds since its last (re)join. Kafka-specific, for operations and tests. */
  assignedPartitions(): Array<{ topic: string; partitions: number[] }> {
    return this.assignment.map(({ topic, partitions }) => ({ topic, partitions: [...partitions] }));
  }

  /**
   * Finishes the message in hand, commits, leaves the group and disconnects; the commit, the leave and the
   * disconnect get `disconnectTimeoutMs` (see the file's comment). Idempotent.
   */
  stop(): Promise<void> {
    this.stopped ??= (async () => {
      this.stopping.abort();
      for (const parked of [...this.parked.values()]) this.unpark(parked);
      try {
        // A recreation in progress ends at the abort; then the consumer it left is the one to disconnect.
        const left = (async () => {
          await this.recovering;
          await this.consumer.disconnect();
        })();
        await Promise.allSettled([...this.handling]);
        await this.boundedLeave(left);
      } finally {
        this.registry.removed(this);
      }
    })();
    return this.stopped;
  }

  /** Waits for `left` up to `disconnectTimeoutMs`; past it, warns and resolves (`left` settles unobserved). */
  private async boundedLeave(left: Promise<void>): Promise<void> {
    const timeoutMs = this.runtime.tuning.disconnectTimeoutMs;
    let timer: NodeJS.Timeout | undefined;
    const expired = new Promise<'expired'>((resolve) => {
      timer = setTimeout(() => resolve('expired'), timeoutMs);
    });
    try {
      if ((await Promise.race([left.then(() => 'left' as const), expired])) === 'left') return;
    } finally {
      clearTimeout(timer);
    }
    left.catch(() => undefined);
    this.runtime.logger.log('warn', 'kafka consumer: the cluster did not let the member leave its group in time; stopping without it', {
      groupId: this.plan.groupId,
      code: 'CONSUMER_LEAVE_TIMEOUT',
      timeoutMs,
    });
  }

  retrying(): RetryingPartition[] {
    return this.transient.retrying();
  }

  async lag(): Promise<PartitionLag[]> {
    const admin = await this.runtime.admin();
    const committed = await admin.fetchOffsets({ groupId: this.plan.groupId, topics: this.plan.topics });
    const lags: PartitionLag[] = [];
    for (const topic of this.plan.topics) {
      const groupOffsets = new Map((committed.find((entry) => entry.topic === topic)?.partitions ?? []).map(({ partition, offset }) => [partition, BigInt(offset)]));
      const ends = (await admin.fetchTopicOffsets(topic)).sort((a, b) => a.partition - b.partition);
      for (const { partition, high, low } of ends) {
        const end = BigInt(high);
        const offset = groupOffsets.get(partition) ?? -1n;
        // No commit yet: the group will start where `start` says.
        const next = offset >= 0n ? offset : this.plan.start === 'earliest' ? BigInt(low) : end;
        lags.push({
          topic: this.runtime.serviceTopic(topic),
          partition,
          committedOffset: next.toString(),
          endOffset: end.toString(),
          lag: end > next ? Number(end - next) : 0,
        });
      }
    }
    return lags;
  }

  private async onBatch({ batch, resolveOffset, commitOffsetsIfNecessary, isRunning, isStale, pause: pausePartition }: EachBatchPayload): Promise<void> {
    const abandoned = () => this.stopping.signal.aborted || !isRunning() || isStale();
    const log = await this.logOf(batch.topic);
    // Without the cluster's id no record can say which log it is from: leave the batch unresolved, so
    // kafkajs fetches it again.
    if (log === undefined) return;
    for (const message of batch.messages) {
      if (abandoned()) return;
      const outcome = await this.deliver(batch.topic, batch.partition, log, message, { abandoned, pausePartition });
      // Parked: the rest of the batch is fetched again, from this message, once the partition resumes.
      if (outcome !== 'done') return;
      resolveOffset(message.offset);
      await commitOffsetsIfNecessary();
    }
  }

  /** `BusRecord.log` for a topic on the cluster, or undefined when the cluster's id cannot be had now. */
  private async logOf(topic: string): Promise<string | undefined> {
    const asking = (this.clusterId ??= this.runtime.clusterId());
    try {
      return `kafka:${await asking}:${topic}`;
    } catch {
      if (this.clusterId === asking) this.clusterId = undefined;
      return undefined;
    }
  }

  private async deliver(
    topic: string,
    partition: number,
    log: string,
    message: KafkaMessage,
    partitionControl: PartitionControl,
  ): Promise<Outcome> {
    const where = { groupId: this.plan.groupId, topic, partition, offset: message.offset };
    const key = `${topic}#${partition}`;
    const parkedHere = this.parked.get(key);
    this.parked.delete(key);
    if (parkedHere?.timer) clearTimeout(parkedHere.timer);
    const resumed = parkedHere?.offset === message.offset ? parkedHere : undefined;
    // Done with its tries already: only the DLQ write that failed is made again, never the handler.
    if (resumed?.deadLetter) return this.deadLetter({ originTopic: topic, originPartition: partition, message, ...resumed.deadLetter }, partitionControl);

    const verdict = fromEventMessage(message.value);
    if (!verdict.ok) {
      return this.deadLetter({ originTopic: topic, originPartition: partition, message, attempts: 0, code: DEAD_LETTER_CODES.envelopeInvalid, failedWrites: 0 }, partitionControl);
    }

    const record: Omit<BusRecord, 'attempt'> = {
      topic: this.runtime.serviceTopic(topic),
      partition,
      offset: message.offset,
      log,
      key: message.key?.toString('utf8') ?? verdict.envelope.streamId,
      envelope: verdict.envelope,
      headers: headersAsText(message.headers),
    };
    const position = { topic, partition, offset: message.offset };
    const { abandoned, pausePartition } = partitionControl;
    let code: string = DEAD_LETTER_CODES.handlerFailed;
    let succeeded = false;
    let parked = false;
    try {
      for (let attempt = resumed?.attempt ?? 1; ; ) {
        let failure: unknown;
        try {
          await this.handle({ ...record, attempt });
          succeeded = true;
          return 'done';
        } catch (error) {
          failure = error;
        }
        if (isTransientFailure(failure)) {
          // The world failed, not the message: no try is used up, however long it takes.
          if (abandoned()) return 'abandoned';
          this.park({ resume: pausePartition(), topic, partition, offset: message.offset, attempt }, this.transient.failed(position, failure));
          parked = true;
          return 'parked';
        }
        this.transient.settled(position, false);
        code = failureCode(failure);
        // The code and the position only: an error's message may quote the event's data.
        this.runtime.logger.log('warn', 'kafka consumer: handler failed', { ...where, attempt, maxAttempts: this.plan.maxAttempts, code });
        if (attempt >= this.plan.maxAttempts) break;
        // The backoff before the next try holds only this partition too; the try is remembered with it.
        if (abandoned()) return 'abandoned';
        this.park({ resume: pausePartition(), topic, partition, offset: message.offset, attempt: attempt + 1 }, this.backoffMs(attempt));
        parked = true;
        return 'parked';
      }
    } finally {
      if (!parked) this.transient.settled(position, succeeded);
    }
    return this.deadLetter({ originTopic: topic, originPartition: partition, message, attempts: this.plan.maxAttempts, code, failedWrites: 0 }, partitionControl);
  }

  /** Runs the handler, known to `stop` while it runs. */
  private async handle(record: BusRecord): Promise<void> {
    const call = (async () => this.plan.handler(record))();
    const settled = call.then(
      () => undefined,
      () => undefined,
    );
    this.handling.add(settled);
    try {
      await call;
    } finally {
      this.handling.delete(settled);
    }
  }

  private backoffMs(failures: number): number {
    return retryDelayMs(failures, this.runtime.retryBackoffMs, this.runtime.maxRetryBackoffMs);
  }

  /** Keeps a paused partition's failing message and resumes the partition after `delayMs`, unless it is let go first. */
  private park(parked: ParkedPartition, delayMs: number): void {
    const key = `${parked.topic}#${parked.partition}`;
    parked.timer = setTimeout(() => {
      parked.timer = undefined;
      // The entry stays (without a timer) so the next delivery goes on at the same try.
      if (this.parked.get(key) === parked) this.resume(parked);
    }, delayMs);
    this.parked.set(key, parked);
  }

  /**
   * Resumes a parked partition in the group run that paused it. A run kafkajs restarted, or a consumer
   * replaced by `recreate`, starts with nothing paused; resuming in the old one changes nothing.
   */
  private resume(parked: ParkedPartition): void {
    if (!this.stopping.signal.aborted) parked.resume();
  }

  /** Lets a parked partition go (stop, rebalance): no timer, not paused, no longer reported as retrying; its tries start again. */
  private unpark(parked: ParkedPartition): void {
    const key = `${parked.topic}#${parked.partition}`;
    if (this.parked.get(key) !== parked) return;
    this.parked.delete(key);
    if (parked.timer) clearTimeout(parked.timer);
    this.resume(parked);
    this.transient.settled({ topic: parked.topic, partition: parked.partition, offset: parked.offset }, false);
  }

  /**
   * Writes the message to the DLQ. A failed write parks the partition like a failed try: the write is made
   * again after the backoff (by failed writes), and nothing after the message is resolved until it lands.
   */
  private async deadLetter(letter: DeadLetter & { failedWrites: number }, { abandoned, pausePartition }: PartitionControl): Promise<Outcome> {
    const { failedWrites, ...content } = letter;
    const { originTopic: topic, originPartition: partition, message, attempts, code } = content;
    const where = { groupId: this.plan.groupId, topic, partition, offset: message.offset };
    try {
      await this.runtime.deadLetter(content);
      this.runtime.logger.log('warn', 'kafka consumer: message dead-lettered', { ...where, attempts, code, ...(failedWrites > 0 ? { failedWrites } : {}) });
      return 'done';
    } catch (error) {
      const failed = failedWrites + 1;
      const delayMs = this.backoffMs(failed);
      this.runtime.logger.log('error', 'kafka consumer: dead-letter write failed; the partition waits and writes it again', {
        ...where,
        code: 'DEAD_LETTER_WRITE_FAILED',
        error: describeError(error),
        failedWrites: failed,
        nextWriteInMs: delayMs,
      });
      if (abandoned()) return 'abandoned';
      this.park({ resume: pausePartition(), topic, partition, offset: message.offset, attempt: attempts, deadLetter: { attempts, code, failedWrites: failed } }, delayMs);
      return 'parked';
    }
  }
}
