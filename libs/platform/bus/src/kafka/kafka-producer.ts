/**
 * The producer behind `publish` and the dead-letter writes.
 *
 * It is idempotent where the cluster allows it (`idempotent: true`, one request in flight): a retried
 * send neither duplicates nor reorders a stream's events. kafkajs gets the producer id
 * (InitProducerId) from the broker the cluster names as its controller. librdkafka's mock cluster
 * names controller 0 while its brokers are 1..N, so kafkajs cannot find it ("Broker 0 not found in
 * the cached metadata"; the mock itself would grant the id); a real cluster may answer the same while a
 * rolling restart moves its controller. A broker may also refuse idempotence (no IdempotentWrite
 * permission, or too old). In those cases, and only those, the producer falls back to acks=-1 with one
 * request in flight, and says so once: order per partition is kept, and a send retried after a lost
 * response may be written twice, which consumers tolerate (they are idempotent).
 *
 * A fallback is not for the process's life: in the background the bus asks again for an idempotent
 * producer, after a doubling backoff from `idempotenceRetryMs` up to `MAX_IDEMPOTENCE_RETRY_MS` (a
 * permission may be granted, a broker upgraded, a controller elected). Once it gets one it swaps it in
 * (`BusProducer.swap`): new sends wait until the sends in flight on the fallback producer have settled,
 * so no send is lost, repeated or overtaken by the swap, and the fallback producer disconnects after them.
 *
 * kafkajs retries an idempotent producer's retriable failures without limit (a bounded retry would
 * break its sequence numbers), so there `publish` waits out a broker outage instead of failing; the
 * fallback producer gives up after kafkajs' default five retries.
 */
import { Partitioners, type Kafka, type Producer, type ProducerRecord, type RecordMetadata } from 'kafkajs';

import type { BusLogger } from '../bus-log';
import { pause, retryDelayMs } from '../retry-backoff';

export type ProducerMode = 'idempotent' | 'acks-all';

export interface ConnectedProducer {
  producer: Producer;
  mode: ProducerMode;
}

/** Longest wait between two requests for an idempotent producer after the cluster refused one. */
export const MAX_IDEMPOTENCE_RETRY_MS = 600_000;

// Protocol errors by which a broker refuses an idempotent producer id.
const REFUSALS = new Set(['CLUSTER_AUTHORIZATION_FAILED', 'TRANSACTIONAL_ID_AUTHORIZATION_FAILED', 'UNSUPPORTED_VERSION', 'UNSUPPORTED_FOR_MESSAGE_FORMAT']);

/** The stable name of the cluster's refusal of an idempotent producer (a protocol error type or kafkajs' error class), else undefined. */
function idempotenceRefusal(error: unknown): string | undefined {
  if (!(error instanceof Error)) return undefined;
  const type = (error as { type?: unknown }).type;
  if (typeof type === 'string' && REFUSALS.has(type)) return type;
  return error.name === 'KafkaJSBrokerNotFound' || error.name === 'KafkaJSServerDoesNotSupportApiKey' ? error.name : undefined;
}

export interface BusProducerOptions {
  kafka: Kafka;
  logger: BusLogger;
  /** First wait before asking again for an idempotent producer after a refusal; it doubles per refusal. */
  idempotenceRetryMs: number;
}

function newProducer(kafka: Kafka, idempotent: boolean): Producer {
  // Java's default partitioner (murmur2 of the key): a stream lands on the same partition whichever
  // client, in whichever language, publishes it.
  return kafka.producer({ idempotent, maxInFlightRequests: 1, createPartitioner: Partitioners.DefaultPartitioner });
}

/** An idempotent producer, connected; rejects (having disconnected it) when the cluster gives none. */
async function connectIdempotent(kafka: Kafka): Promise<Producer> {
  const producer = newProducer(kafka, true);
  try {
    await producer.connect();
    return producer;
  } catch (error) {
    await producer.disconnect().catch(() => undefined);
    throw error;
  }
}

export class BusProducer {
  /** Sends made on `active` that have not settled yet. */
  private readonly inFlight = new Set<Promise<unknown>>();
  /** Set while a swap waits for the sends in flight; new sends wait for it. */
  private swapping?: Promise<void>;
  private readonly closing = new AbortController();
  private regaining?: Promise<void>;

  constructor(
    private active: ConnectedProducer,
    private readonly logger: BusLogger,
  ) {}

  /** Connects the bus's producer: idempotent if the cluster allows it, else the fallback, which keeps asking again. */
  static async connect(options: BusProducerOptions): Promise<BusProducer> {
    const { kafka, logger } = options;
    try {
      return new BusProducer({ producer: await connectIdempotent(kafka), mode: 'idempotent' }, logger);
    } catch (error) {
      const reason = idempotenceRefusal(error);
      if (reason === undefined) throw error;
      // Codes only: the error's text may quote broker answers.
      logger.log('warn', 'kafka producer: the cluster gave no idempotent producer id; publishing with acks=-1 and one request in flight instead, and asking again later', {
        code: 'PRODUCER_NOT_IDEMPOTENT',
        reason,
        nextTryInMs: options.idempotenceRetryMs,
      });
    }
    const fallback = newProducer(kafka, false);
    await fallback.connect();
    const bus = new BusProducer({ producer: fallback, mode: 'acks-all' }, logger);
    bus.regaining = bus.regainIdempotence(options);
    return bus;
  }

  get mode(): ProducerMode {
    return this.active.mode;
  }

  async send(record: ProducerRecord): Promise<RecordMetadata[]> {
    while (this.swapping) await this.swapping;
    const sending = this.active.producer.send(record);
    this.inFlight.add(sending);
    const settled = () => this.inFlight.delete(sending);
    sending.then(settled, settled);
    return sending;
  }

  /**
   * Puts `next` in the place of the producer in use. Sends made before the swap stay on the old producer
   * and settle there; sends made during it wait for them, then go to `next`, so a stream's events keep
   * their order and none is sent twice. The old producer disconnects once its sends have settled.
   */
  async swap(next: ConnectedProducer): Promise<void> {
    while (this.swapping) await this.swapping;
    const previous = this.active;
    const swapped = (async () => {
      await Promise.allSettled([...this.inFlight]);
      this.active = next;
    })();
    this.swapping = swapped;
    await swapped;
    if (this.swapping === swapped) this.swapping = undefined;
    await previous.producer.disconnect().catch(() => undefined);
  }

  /** Stops asking for an idempotent producer and disconnects the producer in use. */
  async close(): Promise<void> {
    this.closing.abort();
    await this.regaining;
    while (this.swapping) await this.swapping;
    await this.active.producer.disconnect();
  }

  /** Asks again for an idempotent producer, with a doubling backoff, until it gets one or the bus closes. */
  private async regainIdempotence({ kafka, logger, idempotenceRetryMs }: BusProducerOptions): Promise<void> {
    for (let attempt = 1; ; attempt += 1) {
      if (!(await pause(retryDelayMs(attempt, idempotenceRetryMs, MAX_IDEMPOTENCE_RETRY_MS), this.closing.signal))) return;
      let producer: Producer;
      try {
        producer = await connectIdempotent(kafka);
      } catch (error) {
        logger.log('debug', 'kafka producer: still no idempotent producer id; asking again later', {
          code: 'PRODUCER_NOT_IDEMPOTENT',
          reason: idempotenceRefusal(error) ?? (error instanceof Error ? error.name : typeof error),
          attempt,
          nextTryInMs: retryDelayMs(attempt + 1, idempotenceRetryMs, MAX_IDEMPOTENCE_RETRY_MS),
        });
        continue;
      }
      if (this.closing.signal.aborted) {
        await producer.disconnect().catch(() => undefined);
        return;
      }
      await this.swap({ producer, mode: 'idempotent' });
      logger.log('info', 'kafka producer: the cluster gave an idempotent producer id; publishing idempotently again', { code: 'PRODUCER_IDEMPOTENT', attempt });
      return;
    }
  }
}
