/**
 * The producer behind `publish` and the dead-letter writes.
 *
 * It is idempotent where the cluster allows it (`idempotent: true`, one request in flight): a retried
 * send neither duplicates nor reorders a stream's events. kafkajs gets the producer id
 * (InitProducerId) from the broker the cluster names as its controller. librdkafka's mock cluster
 * names controller 0 while its brokers are 1..N, so kafkajs cannot find it ("Broker 0 not found in
 * the cached metadata"; the mock itself would grant the id). A broker may also refuse idempotence
 * (no IdempotentWrite permission, or too old). In those cases, and only those, the producer falls back
 * to acks=-1 with one request in flight, and says so once: order per partition is kept, and a send
 * retried after a lost response may be written twice, which consumers tolerate (they are idempotent).
 *
 * kafkajs retries an idempotent producer's retriable failures without limit (a bounded retry would
 * break its sequence numbers), so there `publish` waits out a broker outage instead of failing; the
 * fallback producer gives up after kafkajs' default five retries.
 */
import { Partitioners, type Kafka, type Producer } from 'kafkajs';

import { describeError, type BusLogger } from '../bus-log';

export type ProducerMode = 'idempotent' | 'acks-all';

export interface ConnectedProducer {
  producer: Producer;
  mode: ProducerMode;
}

// Protocol errors by which a broker refuses an idempotent producer id.
const REFUSALS = new Set(['CLUSTER_AUTHORIZATION_FAILED', 'TRANSACTIONAL_ID_AUTHORIZATION_FAILED', 'UNSUPPORTED_VERSION', 'UNSUPPORTED_FOR_MESSAGE_FORMAT']);

function idempotenceRefused(error: unknown): boolean {
  if (!(error instanceof Error)) return false;
  const type = (error as { type?: unknown }).type;
  return error.name === 'KafkaJSBrokerNotFound' || error.name === 'KafkaJSServerDoesNotSupportApiKey' || (typeof type === 'string' && REFUSALS.has(type));
}

export async function connectProducer(kafka: Kafka, logger: BusLogger): Promise<ConnectedProducer> {
  // Java's default partitioner (murmur2 of the key): a stream lands on the same partition whichever
  // client, in whichever language, publishes it.
  const createPartitioner = Partitioners.DefaultPartitioner;
  const idempotent = kafka.producer({ idempotent: true, maxInFlightRequests: 1, createPartitioner });
  try {
    await idempotent.connect();
    return { producer: idempotent, mode: 'idempotent' };
  } catch (error) {
    await idempotent.disconnect().catch(() => undefined);
    if (!idempotenceRefused(error)) throw error;
    logger.log('warn', 'kafka producer: the cluster gave no idempotent producer id; publishing with acks=-1 and one request in flight instead', {
      error: describeError(error),
    });
  }
  const plain = kafka.producer({ idempotent: false, maxInFlightRequests: 1, createPartitioner });
  await plain.connect();
  return { producer: plain, mode: 'acks-all' };
}
