/**
 * Readiness of the analyzer: the database answers and the event bus is ready, each within two seconds.
 * The relay gateway has the same check (apps/relay-gateway/src/health/health.controller.ts); it belongs in a
 * platform library once both apps use it.
 */
import type { ShieldInfrastructure } from '../persistence/shield-infrastructure';

const TIMEOUT_MS = 2_000;

function withTimeout<T>(work: Promise<T>): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  return Promise.race([work, new Promise<never>((_resolve, reject) => (timer = setTimeout(() => reject(new Error('timeout')), TIMEOUT_MS)))]).finally(() => clearTimeout(timer));
}

export async function shieldReadiness(infrastructure: ShieldInfrastructure): Promise<{ ready: boolean; checks: { database: string; bus: string } }> {
  const [database, bus] = await Promise.all([
    withTimeout(infrastructure.database.withConnection((connection) => connection.query('SELECT 1'))).then(
      () => 'ok',
      () => 'unavailable',
    ),
    withTimeout(infrastructure.bus.health()).then(
      (health) => (health.ready ? 'ok' : (health.reason ?? 'not-ready')),
      () => 'unavailable',
    ),
  ]);
  return { ready: database === 'ok' && bus === 'ok', checks: { database, bus } };
}
