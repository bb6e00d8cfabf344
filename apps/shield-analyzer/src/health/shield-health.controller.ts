/**
 * GET /healthz (the process answers) and GET /readyz (database and bus ready) on the data port, where load
 * balancers look for them; the operator port serves copies beside /metrics.
 */
import type { ServerResponse } from 'node:http';

import { Controller, Get, Inject, Res } from '@nestjs/common';
import type { ReadinessAnswer } from '@trustmesh/platform-operator-http';

import { send } from '../http/shield-http.edge';

/** DI token of the readiness check. */
export const SHIELD_READINESS = Symbol.for('trustmesh.shield-analyzer.Readiness');
export type ShieldReadinessCheck = () => Promise<ReadinessAnswer>;

@Controller()
export class ShieldHealthController {
  constructor(@Inject(SHIELD_READINESS) private readonly readiness: ShieldReadinessCheck) {}

  @Get('healthz')
  health(@Res() response: ServerResponse): void {
    send(response, 200, { status: 'ok' });
  }

  @Get('readyz')
  async ready(@Res() response: ServerResponse): Promise<void> {
    const { status, body } = await this.readiness().catch(() => ({ status: 503, body: { status: 'not-ready' } }));
    send(response, status, body);
  }
}
