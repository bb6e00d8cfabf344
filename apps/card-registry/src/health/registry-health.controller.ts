/**
 * GET /healthz (the process answers) and GET /readyz (database and bus ready) on the data port, where load
 * balancers look for them; the operator port serves copies beside /metrics.
 */
import type { ServerResponse } from 'node:http';

import { Controller, Get, Inject, Res } from '@nestjs/common';
import type { ReadinessAnswer } from '@trustmesh/platform-operator-http';

import { REGISTRY_READINESS } from '../card-registry.tokens';
import { sendJson } from '../http/registry-http.edge';

export type RegistryReadinessCheck = () => Promise<ReadinessAnswer>;

@Controller()
export class RegistryHealthController {
  constructor(@Inject(REGISTRY_READINESS) private readonly readiness: RegistryReadinessCheck) {}

  @Get('healthz')
  health(@Res() response: ServerResponse): void {
    sendJson(response, 200, { status: 'ok' });
  }

  @Get('readyz')
  async ready(@Res() response: ServerResponse): Promise<void> {
    const { status, body } = await this.readiness().catch(() => ({ status: 503, body: { status: 'not-ready' } }));
    sendJson(response, status, body);
  }
}
