/**
 * Errors the Kafka adapter raises to its callers: a stable `code` to branch on and a message a person
 * can act on. Broker-side failures that kafkajs reports are passed through as they are.
 */
export type KafkaBusErrorCode =
  /** The bus was closed; nothing can be published or subscribed any more. */
  | 'BUS_CLOSED'
  /** A topic name that Kafka would refuse. */
  | 'TOPIC_INVALID'
  /** An envelope that consumers would dead-letter: refused before it reaches the log. */
  | 'ENVELOPE_INVALID'
  /** The subscription's options are unusable. */
  | 'SUBSCRIPTION_INVALID'
  /** The consumer did not get its partitions from the group in time. */
  | 'SUBSCRIBE_TIMEOUT'
  /** The topic does not exist and the cluster neither let us create it nor creates it on first use. */
  | 'TOPIC_MISSING'
  /** The configuration names no Kafka cluster. */
  | 'KAFKA_NOT_CONFIGURED'
  /** The adapter's own options are unusable. */
  | 'OPTIONS_INVALID';

export class KafkaBusError extends Error {
  constructor(
    readonly code: KafkaBusErrorCode,
    message: string,
  ) {
    super(message);
    this.name = 'KafkaBusError';
  }
}
