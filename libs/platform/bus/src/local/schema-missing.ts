/**
 * The local bus's one database failure with a code of its own: a database without the bus tables.
 */
import { BusError } from '../bus.error';

const UNDEFINED_TABLE = '42P01';

/** Turns "relation bus_… does not exist" into `SCHEMA_MISSING`; anything else passes unchanged. */
export function schemaMissingOr(error: unknown): unknown {
  if (typeof error === 'object' && error !== null && (error as { code?: unknown }).code === UNDEFINED_TABLE) {
    return new BusError(
      'SCHEMA_MISSING',
      'The database has no local bus tables: apply the pending migrations (`npx trustmesh db migrate deploy` applies ' +
        'every owner\'s, including platform-bus), or let createLocalEventBus apply them in embedded mode.',
      { cause: error },
    );
  }
  return error;
}
