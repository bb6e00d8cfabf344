/**
 * Starts the data plane the way the gateway does (Nest, DataPlaneModule, a real HTTP server on an
 * ephemeral port) with a test double of the control plane's directory, for tests of the data plane alone.
 */
import 'reflect-metadata';

import type { AddressInfo } from 'node:net';

import { Global, Module, type INestApplication } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';

import { EVENT_BUS, type EventBus } from '@trustmesh/platform-bus';

import { RELAY_CONFIG } from '../../../src/config/relay-gateway.config';
import { RELAY_DIRECTORY } from '../../../src/control/relay-directory.port';
import { DEFAULT_DATA_PLANE_CONFIG, type DataPlaneConfig } from '../../../src/data-plane/data-plane.config';
import { DATA_PLANE, DATA_PLANE_CONFIG, DataPlaneModule } from '../../../src/data-plane/data-plane.module';
import type { DataPlane } from '../../../src/data-plane/data-plane';
import { JsonLogger, RELAY_LOGGER } from '../../../src/logging/json-logger';
import type { InMemoryDirectory } from './in-memory-directory';

export interface TestGateway {
  app: INestApplication;
  dataPlane: DataPlane;
  /** ws://127.0.0.1:<port> */
  wsUrl: string;
  httpUrl: string;
  close(): Promise<void>;
}

export async function startTestGateway(options: {
  directory: InMemoryDirectory;
  bus?: EventBus;
  config?: Partial<DataPlaneConfig>;
  replicaId?: string;
  /** Like the gateway on embedded PGlite: a single replica (the frames log is read once at start). */
  embedded?: boolean;
  logLevel?: 'debug' | 'info' | 'warn' | 'error';
  writeLog?: (line: string) => void;
}): Promise<TestGateway> {
  const replicaId = options.replicaId ?? 'test-replica';
  const logger = new JsonLogger({ level: options.logLevel ?? 'error', service: 'relay-gateway', replica: replicaId, write: options.writeLog ?? (() => undefined) });
  @Global()
  @Module({
    providers: [
      { provide: RELAY_CONFIG, useValue: { replicaId, producer: 'relay-gateway@test', logLevel: options.logLevel ?? 'error', embedded: options.embedded ?? false } },
      { provide: RELAY_DIRECTORY, useValue: options.directory },
      { provide: EVENT_BUS, useValue: options.bus ?? null },
      { provide: RELAY_LOGGER, useValue: logger },
      { provide: DATA_PLANE_CONFIG, useValue: { ...DEFAULT_DATA_PLANE_CONFIG, ...options.config } },
    ],
    exports: [RELAY_CONFIG, RELAY_DIRECTORY, EVENT_BUS, RELAY_LOGGER, DATA_PLANE_CONFIG],
  })
  class TestInfrastructureModule {}

  @Module({ imports: [TestInfrastructureModule, DataPlaneModule] })
  class TestGatewayModule {}

  const app = await NestFactory.create(TestGatewayModule, { logger: false, bodyParser: false });
  await app.listen(0, '127.0.0.1');
  const { port } = app.getHttpServer().address() as AddressInfo;
  return {
    app,
    dataPlane: app.get<DataPlane>(DATA_PLANE),
    wsUrl: `ws://127.0.0.1:${port}`,
    httpUrl: `http://127.0.0.1:${port}`,
    close: () => app.close(),
  };
}
