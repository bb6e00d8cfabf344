/**
 * Errors the local adapter raises to its callers: a stable `code` to branch on and a message a person can
 * act on. The codes the kafka adapter also has (`BUS_CLOSED`, `TOPIC_INVALID`, `ENVELOPE_INVALID`,
 * `SUBSCRIPTION_INVALID`, `OPTIONS_INVALID`) mean the same here.
 */
export type LocalBusErrorCode =
  /** The bus was closed; nothing can be published or subscribed any more. */
  | 'BUS_CLOSED'
  /** A topic name the bus refuses (Kafka's naming rule, so topics move between adapters unchanged). */
  | 'TOPIC_INVALID'
  /** An envelope that consumers would dead-letter: refused before it reaches the log. */
  | 'ENVELOPE_INVALID'
  /** A message over the configured size limit (`maxMessageBytes`): refused, nothing of the call published. */
  | 'MESSAGE_TOO_LARGE'
  /** The subscription's options are unusable. */
  | 'SUBSCRIPTION_INVALID'
  /** The adapter's own options are unusable. */
  | 'OPTIONS_INVALID'
  /** The database lacks the bus tables: the `platform-bus` migrations were not applied. */
  | 'SCHEMA_MISSING';

export class LocalBusError extends Error {
  constructor(
    readonly code: LocalBusErrorCode,
    message: string,
    options?: { cause?: unknown },
  ) {
    super(message, options);
    this.name = 'LocalBusError';
  }
}

const UNDEFINED_TABLE = '42P01';

/** Turns "relation bus_… does not exist" into `SCHEMA_MISSING`; anything else passes unchanged. */
export function schemaMissingOr(error: unknown): unknown {
  if (typeof error === 'object' && error !== null && (error as { code?: unknown }).code === UNDEFINED_TABLE) {
    return new LocalBusError(
      'SCHEMA_MISSING',
      'The database has no local bus tables: apply the platform-bus migrations (`npx nx run platform-bus:migrate-deploy`, ' +
        'or let createLocalEventBus apply them in embedded mode).',
      { cause: error },
    );
  }
  return error;
}
