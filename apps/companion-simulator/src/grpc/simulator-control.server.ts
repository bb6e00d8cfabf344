/**
 * Starts gRPC SimulatorControl as a NestJS microservice on `address` (port 0 picks a free port), loading the
 * contract's .proto through the shared proto-loader options so requests have the generated types' shape.
 */
import 'reflect-metadata';

import { createServer } from 'node:net';

import { Module, type DynamicModule, type INestMicroservice } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { Transport, type GrpcOptions } from '@nestjs/microservices';
import { PROTO_LOADER_OPTIONS, protoFilePath, simulatorControlV1 } from '@trustmesh/contracts';

import { SimulatorControlController } from './simulator-control.controller';
import { SIMULATOR_CONTROL, SIMULATOR_CONTROL_CREDENTIAL, type SimulatorControlPort } from './simulator-control.port';

@Module({})
export class SimulatorControlModule {
  static forPort(port: SimulatorControlPort, credential: string): DynamicModule {
    return {
      module: SimulatorControlModule,
      controllers: [SimulatorControlController],
      providers: [
        { provide: SIMULATOR_CONTROL, useValue: port },
        { provide: SIMULATOR_CONTROL_CREDENTIAL, useValue: credential },
      ],
    };
  }
}

export interface SimulatorControlServer {
  /** host:port actually bound. */
  address: string;
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

export async function startSimulatorControlServer(
  port: SimulatorControlPort,
  options: { address: string; credential: string; logger?: false },
): Promise<SimulatorControlServer> {
  const separator = options.address.lastIndexOf(':');
  const host = options.address.slice(0, separator);
  const bound = `${host}:${await resolvePort(host.replace(/^\[|\]$/g, ''), Number(options.address.slice(separator + 1)))}`;
  const app: INestMicroservice = await NestFactory.createMicroservice<GrpcOptions>(SimulatorControlModule.forPort(port, options.credential), {
    transport: Transport.GRPC,
    options: {
      url: bound,
      package: simulatorControlV1.TRUSTMESH_RELAY_V1_PACKAGE_NAME,
      protoPath: protoFilePath(simulatorControlV1.protobufFileName),
      loader: PROTO_LOADER_OPTIONS,
    },
    ...(options.logger === false ? { logger: false } : {}),
  });
  await app.listen();
  return { address: bound, close: () => app.close() };
}
