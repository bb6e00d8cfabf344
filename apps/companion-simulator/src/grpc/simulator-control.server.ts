/**
 * The simulator as a NestJS application: SimulatorControl's controller (when a credential is configured)
 * over the simulator's use cases, and a lifecycle hook that stops the load run and the Companion when Nest
 * shuts down (SIGTERM/SIGINT through `enableShutdownHooks`). With a control address it is a gRPC
 * microservice (port 0 picks a free port), loading the contract's .proto through the shared proto-loader
 * options so requests have the generated types' shape; without one, an application context. Beside
 * SimulatorControl the server answers gRPC health (SERVING while the simulator runs: it has no database or
 * bus to depend on) and reflection.
 */
import 'reflect-metadata';

import { createServer } from 'node:net';

import type { Server } from '@grpc/grpc-js';
import { Inject, Injectable, Module, type DynamicModule, type INestApplicationContext, type OnApplicationShutdown } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { Transport, type GrpcOptions } from '@nestjs/microservices';
import { PROTO_LOADER_OPTIONS, protoFilePath, serveHealthAndReflection, simulatorControlV1, simulatorControlV1GrpcJs, type GrpcHealth } from '@trustmesh/contracts';
import type { PinoPortLogger } from '@trustmesh/platform-logging';
import { nestLogger } from '@trustmesh/platform-logging/nest';

import { SimulatorControlController } from './simulator-control.controller';
import { SIMULATOR_CONTROL, SIMULATOR_CONTROL_CREDENTIAL, type SimulatorControlPort } from './simulator-control.port';

/** Something to stop when the application shuts down (the Companion, the load run). */
export interface Stoppable {
  stop(): Promise<void>;
}

const SIMULATOR_STOPPABLES = Symbol('SIMULATOR_STOPPABLES');

@Injectable()
class SimulatorLifecycle implements OnApplicationShutdown {
  constructor(@Inject(SIMULATOR_STOPPABLES) private readonly stoppables: Stoppable[]) {}

  async onApplicationShutdown(): Promise<void> {
    for (const stoppable of this.stoppables) await stoppable.stop().catch(() => undefined);
  }
}

@Module({})
export class SimulatorControlModule {
  static forPort(port: SimulatorControlPort, credential: string | null, stoppables: Stoppable[] = []): DynamicModule {
    return {
      module: SimulatorControlModule,
      controllers: credential === null ? [] : [SimulatorControlController],
      providers: [
        { provide: SIMULATOR_CONTROL, useValue: port },
        { provide: SIMULATOR_CONTROL_CREDENTIAL, useValue: credential ?? '' },
        { provide: SIMULATOR_STOPPABLES, useValue: stoppables },
        SimulatorLifecycle,
      ],
    };
  }
}

export interface SimulatorApp {
  /** host:port SimulatorControl listens on; null when it is not served. */
  address: string | null;
  app: INestApplicationContext;
  /** Stops the Companion and the load run, then Nest. */
  close(): Promise<void>;
}

/** NestJS binds port 0 without telling which port it got, so ask the OS for a free one first. */
async function resolvePort(host: string, port: number): Promise<number> {
  if (port !== 0) return port;
  return new Promise((resolve, reject) => {
    const probe = createServer();
    probe.once('error', reject);
    probe.listen(0, host, () => {
      const address = probe.address();
      const free = typeof address === 'object' && address ? address.port : 0;
      probe.close(() => (free ? resolve(free) : reject(new Error('no free port'))));
    });
  });
}

export async function startSimulatorApp(
  port: SimulatorControlPort,
  options: { control: { address: string; credential: string } | null; stoppables?: Stoppable[]; logger?: false | PinoPortLogger; shutdownHooks?: boolean },
): Promise<SimulatorApp> {
  const module = SimulatorControlModule.forPort(port, options.control?.credential ?? null, options.stoppables ?? []);
  // Nest's lines through the platform logger (the simulator's one line shape), none, or Nest's console.
  const logger = options.logger === false ? { logger: false as const } : options.logger ? { logger: nestLogger(options.logger) } : {};
  if (!options.control) {
    const app = await NestFactory.createApplicationContext(module, logger);
    if (options.shutdownHooks) app.enableShutdownHooks();
    return { address: null, app, close: () => app.close() };
  }
  const separator = options.control.address.lastIndexOf(':');
  const host = options.control.address.slice(0, separator);
  const bound = `${host}:${await resolvePort(host.replace(/^\[|\]$/g, ''), Number(options.control.address.slice(separator + 1)))}`;
  let health: GrpcHealth | undefined;
  const app = await NestFactory.createMicroservice<GrpcOptions>(module, {
    transport: Transport.GRPC,
    options: {
      url: bound,
      package: simulatorControlV1.TRUSTMESH_RELAY_V1_PACKAGE_NAME,
      protoPath: protoFilePath(simulatorControlV1.protobufFileName),
      loader: PROTO_LOADER_OPTIONS,
      onLoadPackageDefinition: (_definition: unknown, server: Server) => {
        health = serveHealthAndReflection(server, { services: [simulatorControlV1GrpcJs.SimulatorControlService], protoFiles: [simulatorControlV1.protobufFileName] });
      },
    },
    ...logger,
  });
  if (options.shutdownHooks) app.enableShutdownHooks();
  await app.listen();
  return {
    address: bound,
    app,
    close: () => {
      health?.close();
      return app.close();
    },
  };
}

export interface SimulatorControlServer {
  /** host:port actually bound. */
  address: string;
  close(): Promise<void>;
}

/** SimulatorControl alone over `port` (tests and tools). */
export async function startSimulatorControlServer(
  port: SimulatorControlPort,
  options: { address: string; credential: string; logger?: false },
): Promise<SimulatorControlServer> {
  const started = await startSimulatorApp(port, { control: { address: options.address, credential: options.credential }, ...(options.logger === false ? { logger: false as const } : {}) });
  return { address: started.address as string, close: started.close };
}
