// ServiceInfo end to end over a real HTTP/2 socket: a plain @grpc/grpc-js server built from the generated
// service definition, called through the generated client class, both using ts-proto's codecs.
import { Metadata, Server, ServerCredentials, credentials, status, type ServiceError } from '@grpc/grpc-js';

import { relayControlV1, serviceInfoV1, serviceInfoV1GrpcJs } from './index';

const SERVICE_CREDENTIAL = 'test-service-credential-0123456789';

const INFO: serviceInfoV1GrpcJs.GetServiceInfoResponse = {
  serviceName: 'relay-gateway',
  version: '0.1.0',
  grpcPackages: [serviceInfoV1.TRUSTMESH_PLATFORM_V1_PACKAGE_NAME, relayControlV1.TRUSTMESH_RELAY_V1_PACKAGE_NAME],
  wireVersions: ['1.2', '1.1'],
  controlVersions: ['1.0'],
};

/** The server side of the documented contract: answer only callers with the bearer service credential. */
const serviceInfo: serviceInfoV1GrpcJs.ServiceInfoServer = {
  getServiceInfo(call, callback) {
    const [authorization] = call.metadata.get('authorization');
    if (authorization !== `Bearer ${SERVICE_CREDENTIAL}`) {
      callback({ code: status.UNAUTHENTICATED, details: 'a valid bearer service credential is required' });
      return;
    }
    callback(null, INFO);
  },
};

function bearer(credential: string): Metadata {
  const metadata = new Metadata();
  metadata.set('authorization', `Bearer ${credential}`);
  return metadata;
}

function getServiceInfo(
  client: serviceInfoV1GrpcJs.ServiceInfoClient,
  metadata: Metadata,
): Promise<serviceInfoV1GrpcJs.GetServiceInfoResponse> {
  return new Promise((resolve, reject) => {
    client.getServiceInfo({}, metadata, (error, response) => (error ? reject(error) : resolve(response)));
  });
}

describe('ServiceInfo over @grpc/grpc-js with the generated definition and client', () => {
  let server: Server;
  let client: serviceInfoV1GrpcJs.ServiceInfoClient;

  beforeAll(async () => {
    server = new Server();
    server.addService(serviceInfoV1GrpcJs.ServiceInfoService, serviceInfo);
    const port = await new Promise<number>((resolve, reject) => {
      server.bindAsync('127.0.0.1:0', ServerCredentials.createInsecure(), (error, boundPort) =>
        error ? reject(error) : resolve(boundPort),
      );
    });
    client = new serviceInfoV1GrpcJs.ServiceInfoClient(`127.0.0.1:${port}`, credentials.createInsecure());
  });

  afterAll(async () => {
    client?.close();
    await new Promise<void>((resolve) => (server ? server.tryShutdown(() => resolve()) : resolve()));
  });

  it('answers an authenticated caller with what the server reported', async () => {
    await expect(getServiceInfo(client, bearer(SERVICE_CREDENTIAL))).resolves.toEqual({
      serviceName: 'relay-gateway',
      version: '0.1.0',
      grpcPackages: ['trustmesh.platform.v1', 'trustmesh.relay.v1'],
      wireVersions: ['1.2', '1.1'],
      controlVersions: ['1.0'],
    });
  });

  it('refuses a caller without the service credential with UNAUTHENTICATED', async () => {
    const error = await getServiceInfo(client, bearer('wrong-credential')).then(
      () => undefined,
      (e: ServiceError) => e,
    );
    expect(error?.code).toBe(status.UNAUTHENTICATED);
    expect(error?.details).toBe('a valid bearer service credential is required');
  });

  it('calls the method path built from the proto package and service name', () => {
    expect(serviceInfoV1GrpcJs.ServiceInfoService.getServiceInfo.path).toBe(
      `/${serviceInfoV1.TRUSTMESH_PLATFORM_V1_PACKAGE_NAME}.${serviceInfoV1.SERVICE_INFO_SERVICE_NAME}/GetServiceInfo`,
    );
  });
});
