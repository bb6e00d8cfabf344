// gRPC health and reflection as a probe or an operator sees them over a real HTTP/2 socket: a grpc-js server
// with the app's service and `serveHealthAndReflection`, asked by grpc-js clients built from the standard
// health and reflection protos (not from our helper's code).
import { credentials, loadPackageDefinition, Server, status, type Client, type ClientDuplexStream, type ClientReadableStream, type ServiceClientConstructor, type ServiceError } from '@grpc/grpc-js';
import { loadSync } from '@grpc/proto-loader';
import { protoPath as HEALTH_PROTO_PATH } from 'grpc-health-check';

import { serveHealthAndReflection, serviceNameOf, type GrpcHealth } from './grpc-health';
import { bindPlaintext, shutdownGracefully } from './grpc-server.lifecycle';
import { cardRegistryV1GrpcJs, serviceInfoV1GrpcJs } from './index';

const REFLECTION_PROTO = require.resolve('@grpc/reflection/build/proto/grpc/reflection/v1/reflection.proto');
const packages = loadPackageDefinition(loadSync([HEALTH_PROTO_PATH, REFLECTION_PROTO], { enums: String, defaults: true })) as unknown as {
  grpc: { health: { v1: { Health: ServiceClientConstructor } }; reflection: { v1: { ServerReflection: ServiceClientConstructor } } };
};

interface HealthClient extends Client {
  Check(request: { service: string }, callback: (error: ServiceError | null, response: { status: string }) => void): void;
  Watch(request: { service: string }): ClientReadableStream<{ status: string }>;
}
interface ReflectionResponse {
  listServicesResponse?: { service: { name: string }[] };
}
interface ReflectionClient extends Client {
  ServerReflectionInfo(): ClientDuplexStream<{ listServices: string }, ReflectionResponse>;
}

const SERVICE_INFO = 'trustmesh.platform.v1.ServiceInfo';

/** A Watch stream's statuses: `next(status)` resolves when that status next arrives. */
function watchStatuses(stream: ClientReadableStream<{ status: string }>): { next(wanted: string): Promise<void> } {
  const waiting: { wanted: string; resolve: () => void }[] = [];
  // The stream ends CANCELLED when the test closes its client: that is no failure of the server.
  stream.on('error', () => undefined);
  stream.on('data', ({ status: value }: { status: string }) => {
    for (const waiter of [...waiting]) {
      if (waiter.wanted !== value) continue;
      waiting.splice(waiting.indexOf(waiter), 1);
      waiter.resolve();
    }
  });
  return {
    next: (wanted) =>
      new Promise((resolve) => {
        waiting.push({ wanted, resolve });
      }),
  };
}

describe('serveHealthAndReflection', () => {
  let server: Server;
  let health: GrpcHealth;
  let client: HealthClient;
  let address: string;
  let ready: () => Promise<boolean>;

  beforeEach(async () => {
    ready = async () => true;
    server = new Server();
    const unimplemented: serviceInfoV1GrpcJs.ServiceInfoServer = { getServiceInfo: (_call, callback) => callback({ code: status.UNIMPLEMENTED }) };
    server.addService(serviceInfoV1GrpcJs.ServiceInfoService, unimplemented);
    health = serveHealthAndReflection(server, {
      services: [serviceInfoV1GrpcJs.ServiceInfoService],
      protoFiles: [serviceInfoV1GrpcJs.protobufFileName],
      ready: () => ready(),
      refreshMs: 20,
    });
    address = `127.0.0.1:${await bindPlaintext(server, '127.0.0.1', 0)}`;
    client = new packages.grpc.health.v1.Health(address, credentials.createInsecure()) as unknown as HealthClient;
  });

  afterEach(async () => {
    health.close();
    client.close();
    await shutdownGracefully(server, 500);
  });

  const check = (service: string) =>
    new Promise<string>((resolve, reject) => client.Check({ service }, (error, response) => (error ? reject(error) : resolve(response.status))));

  it('reports SERVING overall and per service while the readiness passes; NOT_FOUND for a service the server lacks', async () => {
    const watch = watchStatuses(client.Watch({ service: '' }));
    await watch.next('SERVING');
    await expect(check('')).resolves.toBe('SERVING');
    await expect(check(SERVICE_INFO)).resolves.toBe('SERVING');
    await expect(check('trustmesh.no.v1.Such')).rejects.toMatchObject({ code: status.NOT_FOUND });
  });

  it('follows the readiness: NOT_SERVING while it fails or throws, SERVING again once it passes', async () => {
    const overall = watchStatuses(client.Watch({ service: '' }));
    const service = watchStatuses(client.Watch({ service: SERVICE_INFO }));
    await overall.next('SERVING');

    ready = async () => false;
    await Promise.all([overall.next('NOT_SERVING'), service.next('NOT_SERVING')]);
    await expect(check(SERVICE_INFO)).resolves.toBe('NOT_SERVING');

    ready = async () => true;
    await Promise.all([overall.next('SERVING'), service.next('SERVING')]);

    ready = () => Promise.reject(new Error('connection refused by 10.0.0.7'));
    await overall.next('NOT_SERVING');
    await expect(check('')).resolves.toBe('NOT_SERVING');
  });

  it('tells watchers NOT_SERVING on close, and stays so whatever the readiness says', async () => {
    const overall = watchStatuses(client.Watch({ service: '' }));
    await overall.next('SERVING');
    health.close();
    await overall.next('NOT_SERVING');
    await expect(check('')).resolves.toBe('NOT_SERVING');
    await expect(check(SERVICE_INFO)).resolves.toBe('NOT_SERVING');
  });

  it('lists the services through reflection, v1', async () => {
    const reflection = new packages.grpc.reflection.v1.ServerReflection(address, credentials.createInsecure()) as unknown as ReflectionClient;
    const names = await new Promise<string[]>((resolve, reject) => {
      const stream = reflection.ServerReflectionInfo();
      stream.once('data', (response: ReflectionResponse) => {
        resolve((response.listServicesResponse?.service ?? []).map((entry) => entry.name).sort());
        stream.end();
      });
      stream.once('error', reject);
      stream.write({ listServices: '' });
    });
    reflection.close();
    expect(names).toEqual(['grpc.health.v1.Health', SERVICE_INFO]);
  });
});

describe('serviceNameOf', () => {
  it('names a generated service by its fully qualified proto name', () => {
    expect(serviceNameOf(cardRegistryV1GrpcJs.CardRegistryOperatorService)).toBe('trustmesh.registry.v1.CardRegistryOperator');
  });
});
