/**
 * The data plane as a Nest module: builds the `DataPlane` from the directory (RELAY_DIRECTORY), the event
 * bus (EVENT_BUS), the gateway configuration (replica id, producer, log level) and its own variables
 * (`loadDataPlaneConfig(process.env)`, overridable with the DATA_PLANE_CONFIG token), takes the HTTP(S)
 * server's WebSocket upgrades once the application is bootstrapped, and shuts down before Nest closes
 * the server (close 1001, drain, leave consumer groups). Its metrics are served on the operator port
 * (src/health/operator.server.ts), never on the public data port.
 */
import { Module, type BeforeApplicationShutdown, type OnApplicationBootstrap } from '@nestjs/common';
import { HttpAdapterHost } from '@nestjs/core';
import type { Server } from 'node:http';

import { EVENT_BUS, type EventBus } from '@trustmesh/platform-bus';

import { RELAY_CONFIG, type RelayGatewayConfig } from '../config/relay-gateway.config';
import { RELAY_DIRECTORY, type RelayDirectory } from '../control/relay-directory.port';
import { securityHeaders } from '../http/security-headers';
import { RELAY_LOGGER, type JsonLogger } from '../logging/json-logger';
import { loadDataPlaneConfig, type DataPlaneConfig } from './data-plane.config';
import { DataPlane } from './data-plane';

/** DI token of the running `DataPlane`. */
export const DATA_PLANE = Symbol.for('trustmesh.relay-gateway.DataPlane');
/** DI token of the data plane's settings (default: read from process.env). */
export const DATA_PLANE_CONFIG = Symbol.for('trustmesh.relay-gateway.DataPlaneConfig');

class DataPlaneLifecycle implements OnApplicationBootstrap, BeforeApplicationShutdown {
  constructor(
    private readonly dataPlane: DataPlane,
    private readonly adapterHost: HttpAdapterHost,
  ) {}

  async onApplicationBootstrap(): Promise<void> {
    await this.dataPlane.start();
    this.dataPlane.attach(this.adapterHost.httpAdapter.getHttpServer() as Server);
  }

  async beforeApplicationShutdown(): Promise<void> {
    await this.dataPlane.shutdown();
  }
}

@Module({
  providers: [
    {
      provide: DATA_PLANE,
      inject: [RELAY_CONFIG, RELAY_DIRECTORY, EVENT_BUS, RELAY_LOGGER, { token: DATA_PLANE_CONFIG, optional: true }],
      useFactory: (gateway: RelayGatewayConfig, directory: RelayDirectory, bus: EventBus | null, logger: JsonLogger, config: DataPlaneConfig | undefined) =>
        new DataPlane({
          config: config ?? loadDataPlaneConfig(process.env),
          directory,
          bus: bus ?? undefined,
          singleReplica: gateway.embedded === true,
          replicaId: gateway.replicaId,
          producer: gateway.producer,
          // The gateway's logger as the platform's port: one line shape for the whole process.
          logger: logger.port,
          trustedProxies: gateway.trustedProxies,
          responseHeaders: securityHeaders(gateway),
        }),
    },
    {
      provide: DataPlaneLifecycle,
      inject: [DATA_PLANE, HttpAdapterHost],
      useFactory: (dataPlane: DataPlane, adapterHost: HttpAdapterHost) => new DataPlaneLifecycle(dataPlane, adapterHost),
    },
  ],
  exports: [DATA_PLANE],
})
export class DataPlaneModule {}
