/**
 * Liveness and readiness for orchestrators, once the gateway has started: GET /healthz answers while the
 * process serves HTTP; GET /readyz answers 200 only when the database answers a query and the event bus
 * reports ready (else 503 with the failing check named, never internal error text). Before that, while the
 * database, the bus and its consumers are still being opened, the same paths are answered by the startup
 * probe (startup-probe.server.ts): /healthz 200, /readyz 503 `{"checks":{"startup":"<step>"}}`.
 */
import type { ServerResponse } from 'node:http';

import { Controller, Get, Inject, Module, Res } from '@nestjs/common';

import { RELAY_INFRASTRUCTURE, type RelayInfrastructure } from '../persistence/relay-infrastructure';

const CHECK_TIMEOUT_MS = 3_000;

function withTimeout<T>(work: Promise<T>): Promise<T> {
  return new Promise<T>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error('timeout')), CHECK_TIMEOUT_MS);
    work.then(
      (value) => {
        clearTimeout(timer);
        resolve(value);
      },
      (error: unknown) => {
        clearTimeout(timer);
        reject(error);
      },
    );
  });
}

@Controller()
export class HealthController {
  constructor(@Inject(RELAY_INFRASTRUCTURE) private readonly infra: RelayInfrastructure) {}

  @Get('healthz')
  healthz(@Res() response: ServerResponse): void {
    send(response, 200, { status: 'ok' });
  }

  @Get('readyz')
  async readyz(@Res() response: ServerResponse): Promise<void> {
    const { status, body } = await readiness(this.infra);
    send(response, status, body);
  }
}

/** The /readyz answer (data port and operator port alike). */
export async function readiness(infra: RelayInfrastructure): Promise<{ status: number; body: unknown }> {
  const [database, bus] = await Promise.all([
    withTimeout(infra.database.withConnection((connection) => connection.query('SELECT 1'))).then(
      () => 'ok',
      () => 'unavailable',
    ),
    withTimeout(infra.bus.health()).then(
      (health) => (health.ready ? 'ok' : (health.reason ?? 'not-ready')),
      () => 'unavailable',
    ),
  ]);
  const ready = database === 'ok' && bus === 'ok';
  return { status: ready ? 200 : 503, body: { status: ready ? 'ready' : 'not-ready', checks: { database, bus } } };
}

export function send(response: ServerResponse, status: number, body: unknown): void {
  const text = JSON.stringify(body);
  response.writeHead(status, { 'Content-Type': 'application/json; charset=utf-8', 'Content-Length': String(Buffer.byteLength(text)), 'Cache-Control': 'no-store' });
  response.end(text);
}

@Module({ controllers: [HealthController] })
export class HealthModule {}
