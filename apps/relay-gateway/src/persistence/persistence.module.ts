/**
 * Makes the process's configuration, logger, endpoints, TLS material and open infrastructure (database,
 * event store, bus, Prisma) injectable everywhere (global module). They are opened by the bootstrap
 * (main.ts) before Nest builds its modules and closed after Nest has stopped, so shutdown hooks of other
 * modules (the data plane closing its sockets) can still record presence and audit.
 */
import { Global, Module, type DynamicModule } from '@nestjs/common';
import { EVENT_BUS } from '@trustmesh/platform-bus';

import { RELAY_ENDPOINTS, type RelayEndpoints } from '../config/relay-endpoints';
import { RELAY_CONFIG, type RelayGatewayConfig } from '../config/relay-gateway.config';
import type { DataPlaneConfig } from '../data-plane/data-plane.config';
import { DATA_PLANE_CONFIG } from '../data-plane/data-plane.module';
import { RELAY_LOGGER, type JsonLogger } from '../logging/json-logger';
import type { TlsMaterial } from '../tls/tls-material';
import { RELAY_INFRASTRUCTURE, type RelayInfrastructure } from './relay-infrastructure';

/** DI token of the `TlsMaterial` the HTTP server serves (null when TLS is off). */
export const RELAY_TLS = Symbol.for('trustmesh.relay-gateway.Tls');
/** DI token of the accepted service credential digests (`Buffer[]`). */
export const RELAY_SERVICE_CREDENTIAL_DIGESTS = Symbol.for('trustmesh.relay-gateway.ServiceCredentialDigests');

export interface RelayGatewayRuntime {
  config: RelayGatewayConfig;
  logger: JsonLogger;
  infrastructure: RelayInfrastructure;
  endpoints: RelayEndpoints;
  tls: TlsMaterial | null;
  serviceCredentialDigests: Buffer[];
  /** The data plane's settings, validated with the rest at start (else the data plane reads process.env). */
  dataPlaneConfig?: DataPlaneConfig;
}

@Global()
@Module({})
export class PersistenceModule {
  static forRoot(runtime: RelayGatewayRuntime): DynamicModule {
    const providers = [
      { provide: RELAY_CONFIG, useValue: runtime.config },
      { provide: RELAY_LOGGER, useValue: runtime.logger },
      { provide: RELAY_INFRASTRUCTURE, useValue: runtime.infrastructure },
      { provide: EVENT_BUS, useValue: runtime.infrastructure.bus },
      { provide: RELAY_ENDPOINTS, useValue: runtime.endpoints },
      { provide: RELAY_TLS, useValue: runtime.tls },
      { provide: RELAY_SERVICE_CREDENTIAL_DIGESTS, useValue: runtime.serviceCredentialDigests },
      ...(runtime.dataPlaneConfig ? [{ provide: DATA_PLANE_CONFIG, useValue: runtime.dataPlaneConfig }] : []),
    ];
    return { module: PersistenceModule, providers, exports: providers.map((provider) => provider.provide) };
  }
}
