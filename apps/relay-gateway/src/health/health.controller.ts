/**
 * Liveness and readiness for orchestrators, once the gateway has started: GET /healthz answers while the
 * process serves HTTP; GET /readyz answers 200 only when the database answers a query and the event bus
 * reports ready (else 503 with the failing check named, never internal error text). Before that, while the
 * database, the bus and its consumers are still being opened, the same paths are answered by the startup
 * probe (startup-probe.server.ts): /healthz 200, /readyz 503 `{"checks":{"startup":"<step>"}}`.
 */
import type { ServerResponse } from 'node:http';

import { Controller, Get, Inject, Module, Res } from '@nestjs/common';
import { backboneReadiness, sendJson } from '@trustmesh/platform-operator-http';

import { RELAY_INFRASTRUCTURE, type RelayInfrastructure } from '../persistence/relay-infrastructure';

@Controller()
export class HealthController {
  constructor(@Inject(RELAY_INFRASTRUCTURE) private readonly infra: RelayInfrastructure) {}

  @Get('healthz')
  healthz(@Res() response: ServerResponse): void {
    sendJson(response, 200, { status: 'ok' });
  }

  @Get('readyz')
  async readyz(@Res() response: ServerResponse): Promise<void> {
    const { status, body } = await backboneReadiness(this.infra);
    sendJson(response, status, body);
  }
}

@Module({ controllers: [HealthController] })
export class HealthModule {}
