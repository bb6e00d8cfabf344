/**
 * GET /healthz (the process answers) and GET /readyz (database and bus ready) on the data port, where load
 * balancers look for them; the operator port serves copies beside /metrics.
 */
import type { ServerResponse } from 'node:http';

import { Controller, Get, Inject, Res } from '@nestjs/common';

import { send } from '../http/shield-http.edge';

/** DI token of the readiness check. */
export const SHIELD_READINESS = Symbol.for('trustmesh.shield-analyzer.Readiness');
export type ShieldReadinessCheck = () => Promise<{ ready: boolean; checks: Record<string, string> }>;

@Controller()
export class ShieldHealthController {
  constructor(@Inject(SHIELD_READINESS) private readonly readiness: ShieldReadinessCheck) {}

  @Get('healthz')
  health(@Res() response: ServerResponse): void {
    send(response, 200, { status: 'ok' });
  }

  @Get('readyz')
  async ready(@Res() response: ServerResponse): Promise<void> {
    const { ready, checks } = await this.readiness().catch(() => ({ ready: false, checks: {} }));
    send(response, ready ? 200 : 503, { status: ready ? 'ready' : 'not-ready', checks });
  }
}
