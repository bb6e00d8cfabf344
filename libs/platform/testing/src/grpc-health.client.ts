/**
 * A gRPC port as a probe or an operator sees it, for tests of running apps: the standard health service
 * (`grpc.health.v1.Health`, Check and Watch) and server reflection (v1 `list services`), through grpc-js
 * clients built from the standard protos, not from the code under test.
 */
import * as grpc from '@grpc/grpc-js';
import { loadSync } from '@grpc/proto-loader';
import { protoPath as HEALTH_PROTO_PATH } from 'grpc-health-check';

const REFLECTION_PROTO = require.resolve('@grpc/reflection/build/proto/grpc/reflection/v1/reflection.proto');

interface StandardPackages {
  grpc: {
    health: { v1: { Health: grpc.ServiceClientConstructor } };
    reflection: { v1: { ServerReflection: grpc.ServiceClientConstructor } };
  };
}
interface HealthStub extends grpc.Client {
  Check(request: { service: string }, callback: (error: grpc.ServiceError | null, response: { status: string }) => void): void;
  Watch(request: { service: string }): grpc.ClientReadableStream<{ status: string }>;
}
interface ReflectionResponse {
  listServicesResponse?: { service: { name: string }[] };
}
interface ReflectionStub extends grpc.Client {
  ServerReflectionInfo(): grpc.ClientDuplexStream<{ listServices: string }, ReflectionResponse>;
}

let packages: StandardPackages | undefined;
function standardPackages(): StandardPackages {
  packages ??= grpc.loadPackageDefinition(loadSync([HEALTH_PROTO_PATH, REFLECTION_PROTO], { enums: String, defaults: true })) as unknown as StandardPackages;
  return packages;
}

/** Health statuses as the protocol names them. */
export type HealthStatus = 'UNKNOWN' | 'SERVING' | 'NOT_SERVING' | 'SERVICE_UNKNOWN';

export interface HealthWatch {
  /** Resolves when the stream next reports `status` (at once if it is the last status reported). */
  next(status: HealthStatus): Promise<void>;
  cancel(): void;
}

export interface GrpcHealthClient {
  /** Check; rejects with the call's error (NOT_FOUND for a service the server does not know). */
  check(service: string): Promise<HealthStatus>;
  watch(service: string): HealthWatch;
  /** The services reflection lists, sorted. */
  listServices(): Promise<string[]>;
  close(): void;
}

export function grpcHealthClient(address: string): GrpcHealthClient {
  const { health, reflection } = standardPackages().grpc;
  const healthStub = new health.v1.Health(address, grpc.credentials.createInsecure()) as unknown as HealthStub;
  const reflectionStub = new reflection.v1.ServerReflection(address, grpc.credentials.createInsecure()) as unknown as ReflectionStub;
  return {
    check: (service) =>
      new Promise((resolve, reject) => healthStub.Check({ service }, (error, response) => (error ? reject(error) : resolve(response.status as HealthStatus)))),
    watch: (service) => watchHealth(healthStub.Watch({ service })),
    listServices: () =>
      new Promise((resolve, reject) => {
        const stream = reflectionStub.ServerReflectionInfo();
        stream.once('data', (response: ReflectionResponse) => {
          resolve((response.listServicesResponse?.service ?? []).map((entry) => entry.name).sort());
          stream.end();
        });
        stream.once('error', reject);
        stream.write({ listServices: '' });
      }),
    close: () => {
      healthStub.close();
      reflectionStub.close();
    },
  };
}

function watchHealth(stream: grpc.ClientReadableStream<{ status: string }>): HealthWatch {
  let last: string | undefined;
  const waiting: { status: HealthStatus; resolve: () => void }[] = [];
  // The stream ends with CANCELLED or UNAVAILABLE when the test or the server closes it: the awaited
  // status then never comes, and the test's own timeout names what was awaited.
  stream.on('error', () => undefined);
  stream.on('data', ({ status }: { status: string }) => {
    last = status;
    for (const waiter of waiting.filter((entry) => entry.status === status)) {
      waiting.splice(waiting.indexOf(waiter), 1);
      waiter.resolve();
    }
  });
  return {
    next: (status) => (last === status ? Promise.resolve() : new Promise((resolve) => waiting.push({ status, resolve }))),
    cancel: () => stream.cancel(),
  };
}
