/**
 * The readiness every app on the event backbone answers on /readyz: the database answers a query and the
 * event bus reports ready, each within a bound (3 s). 200 `{status: "ready", checks}` or 503 with the
 * failing check named (`unavailable`, or the bus's own reason such as BROKER_UNREACHABLE), never
 * internal error text.
 */
import type { EventBus } from '@trustmesh/platform-bus';
import type { Database } from '@trustmesh/platform-database';

import type { ReadinessAnswer } from './operator.server';

const CHECK_TIMEOUT_MS = 3_000;

function withTimeout<T>(work: Promise<T>): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_resolve, reject) => (timer = setTimeout(() => reject(new Error('timeout')), CHECK_TIMEOUT_MS)));
  return Promise.race([work, timeout]).finally(() => clearTimeout(timer));
}

export async function backboneReadiness(backbone: { database: Pick<Database, 'withConnection'>; bus: Pick<EventBus, 'health'> }): Promise<ReadinessAnswer> {
  const [database, bus] = await Promise.all([
    withTimeout(backbone.database.withConnection((connection) => connection.query('SELECT 1'))).then(
      () => 'ok',
      () => 'unavailable',
    ),
    withTimeout(backbone.bus.health()).then(
      (health) => (health.ready ? 'ok' : (health.reason ?? 'not-ready')),
      () => 'unavailable',
    ),
  ]);
  const ready = database === 'ok' && bus === 'ok';
  return { status: ready ? 200 : 503, body: { status: ready ? 'ready' : 'not-ready', checks: { database, bus } } };
}
