/**
 * Liveness and readiness for orchestrators, once the gateway has started: GET /healthz answers while the
 * process serves HTTP; GET /readyz answers 200 only when the database answers a query and the event bus
 * reports ready (else 503 with the failing check named, never internal error text). Before that, while the
 * database, the bus and its consumers are still being opened, the same paths are answered by the startup
 * probe (startup-probe.server.ts): /healthz 200, /readyz 503 `{"checks":{"startup":"<step>"}}`.
 *
 * Both follow the platform's probe rules (`PublicProbes`): constant cost (one readiness check a second at
 * most, shared with the operator port), and a generous limit per source address on this public port only.
 */
import { Module } from '@nestjs/common';
import { backboneReadiness, cachedReadiness, PublicProbes } from '@trustmesh/platform-operator-http';
import { PUBLIC_PROBES, PublicProbesController } from '@trustmesh/platform-operator-http/nest';

import { RELAY_CONFIG, type RelayGatewayConfig } from '../config/relay-gateway.config';
import { RELAY_INFRASTRUCTURE, type RelayInfrastructure } from '../persistence/relay-infrastructure';

/** The probes' controller, and their `PublicProbes` (the bootstrap gives their readiness to the operator port). */
@Module({
  controllers: [PublicProbesController],
  providers: [
    {
      provide: PUBLIC_PROBES,
      inject: [RELAY_INFRASTRUCTURE, RELAY_CONFIG],
      useFactory: (infra: RelayInfrastructure, config: RelayGatewayConfig) =>
        new PublicProbes({ readiness: cachedReadiness(() => backboneReadiness(infra)), trustedProxies: config.trustedProxies }),
    },
  ],
  exports: [PUBLIC_PROBES],
})
export class HealthModule {}
