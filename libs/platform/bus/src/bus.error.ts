/**
 * The one error type of the event bus, whichever adapter raised it: a stable `code` to branch on and a
 * message a person can act on. Neither ever carries an event's data or another library's error text
 * (a database error stays reachable as `cause`, for the logs of whoever owns the process). Broker-side
 * failures that kafkajs reports while publishing are passed through as kafkajs raised them.
 */
export type BusErrorCode =
  /** The bus was closed; nothing can be published or subscribed any more. */
  | 'BUS_CLOSED'
  /** A topic name the bus refuses (Kafka's naming rule under both adapters, so topics move between them unchanged). */
  | 'TOPIC_INVALID'
  /** An envelope that consumers would dead-letter: refused before it reaches the log. */
  | 'ENVELOPE_INVALID'
  /** local: a message over the configured size limit (`maxMessageBytes`); nothing of the call was published. */
  | 'MESSAGE_TOO_LARGE'
  /** The subscription's options are unusable. */
  | 'SUBSCRIPTION_INVALID'
  /** kafka: the consumer did not get its partitions from the group in time. */
  | 'SUBSCRIBE_TIMEOUT'
  /** kafka: the topic does not exist and the cluster neither let us create it nor creates it on first use. */
  | 'TOPIC_MISSING'
  /** kafka: the configuration names no Kafka cluster. */
  | 'KAFKA_NOT_CONFIGURED'
  /** The adapter's own options are unusable. */
  | 'OPTIONS_INVALID'
  /** local: the database lacks the bus tables (the `platform-bus` migrations were not applied). */
  | 'SCHEMA_MISSING';

export class BusError extends Error {
  constructor(
    readonly code: BusErrorCode,
    message: string,
    options?: { cause?: unknown },
  ) {
    super(message, options);
    this.name = 'BusError';
  }
}
