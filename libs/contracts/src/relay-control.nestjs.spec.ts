// The NestJS flavour in a real NestJS gRPC microservice: a controller typed by the generated
// RelayControlController and bound by RelayControlControllerMethods(), loaded from PROTO_ROOT with
// PROTO_LOADER_OPTIONS, called both by a NestJS ClientGrpc (generated RelayControlClient interface) and by
// the generated grpc-js client (ts-proto codecs). Both flavours must agree on the wire.
import 'reflect-metadata';

import { createServer } from 'node:net';

import { Metadata, credentials, status, type ServiceError } from '@grpc/grpc-js';
import { Controller, type INestMicroservice } from '@nestjs/common';
import {
  ClientProxyFactory,
  RpcException,
  Transport,
  type ClientGrpcProxy,
  type GrpcOptions,
} from '@nestjs/microservices';
import { Test } from '@nestjs/testing';
import { firstValueFrom, from, toArray, type Observable } from 'rxjs';

import { PROTO_LOADER_OPTIONS, protoFilePath, relayControlV1, relayControlV1GrpcJs } from './index';

const { WorkspaceConnectivity } = relayControlV1;
const SERVICE_CREDENTIAL = 'test-service-credential-0123456789';
const WORKSPACE_ID = '0190a5e4-7c1e-7b3a-9f00-5d2c7e8a1b42';

function requireServiceCredential(metadata: Metadata | undefined): void {
  const [authorization] = metadata?.get('authorization') ?? [];
  if (authorization !== `Bearer ${SERVICE_CREDENTIAL}`) {
    throw new RpcException({ code: status.UNAUTHENTICATED, message: 'a valid bearer service credential is required' });
  }
}

function notInThisTest(): never {
  throw new RpcException({ code: status.UNIMPLEMENTED, message: 'not implemented by this test double' });
}

@Controller()
@relayControlV1.RelayControlControllerMethods()
class RelayControlTestController implements relayControlV1.RelayControlController {
  createBrowserSession(
    request: relayControlV1.CreateBrowserSessionRequest,
    metadata?: Metadata,
  ): relayControlV1.CreateBrowserSessionResponse {
    requireServiceCredential(metadata);
    // Echo what arrived, so the test sees the request exactly as proto-loader decoded it.
    const ticket = [request.workspaceId, request.origin, ...request.acceptedWireVersions, request.userId].join('|');
    return {
      descriptor: {
        connectUrl: `wss://relay.trustmesh.example/v1/browser?ticket=${encodeURIComponent(ticket)}`,
        expiresAt: { seconds: 1_767_225_660, nanos: 0 },
      },
    };
  }

  getWorkspaceStatus(
    request: relayControlV1.GetWorkspaceStatusRequest,
    metadata?: Metadata,
  ): relayControlV1.GetWorkspaceStatusResponse {
    requireServiceCredential(metadata);
    if (request.workspaceId !== WORKSPACE_ID) {
      throw new RpcException({ code: status.NOT_FOUND, message: 'workspace not found' });
    }
    return {
      status: {
        workspaceId: WORKSPACE_ID,
        connectivity: WorkspaceConnectivity.OFFLINE,
        deviceId: '',
        wireVersion: '',
        browserSessionCount: 0,
      },
    };
  }

  watchWorkspaceStatus(
    request: relayControlV1.WatchWorkspaceStatusRequest,
    metadata?: Metadata,
  ): Observable<relayControlV1.WatchWorkspaceStatusResponse> {
    requireServiceCredential(metadata);
    const status = (connectivity: relayControlV1.WorkspaceConnectivity, seconds: number) => ({
      status: {
        workspaceId: request.workspaceId,
        connectivity,
        deviceId: connectivity === WorkspaceConnectivity.ONLINE ? '0190a5e4-9d2f-7c4b-8a11-6e3d8f9b2c53' : '',
        wireVersion: connectivity === WorkspaceConnectivity.ONLINE ? '1.2' : '',
        browserSessionCount: 1,
        changedAt: { seconds, nanos: 0 },
      },
    });
    return from([status(WorkspaceConnectivity.OFFLINE, 100), status(WorkspaceConnectivity.ONLINE, 200)]);
  }

  createWorkspace(): relayControlV1.CreateWorkspaceResponse {
    return notInThisTest();
  }
  createPairingCode(): relayControlV1.CreatePairingCodeResponse {
    return notInThisTest();
  }
  listDevices(): relayControlV1.ListDevicesResponse {
    return notInThisTest();
  }
  revokeDevice(): relayControlV1.RevokeDeviceResponse {
    return notInThisTest();
  }
  endBrowserSessions(): relayControlV1.EndBrowserSessionsResponse {
    return notInThisTest();
  }
  publishWorkspaceCard(): relayControlV1.PublishWorkspaceCardResponse {
    return notInThisTest();
  }
  listWorkspaceAudit(): relayControlV1.ListWorkspaceAuditResponse {
    return notInThisTest();
  }
}

/** NestJS binds port 0 but does not tell us the port it got, so ask the OS for a free one first. */
async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const probe = createServer();
    probe.once('error', reject);
    probe.listen(0, '127.0.0.1', () => {
      const address = probe.address();
      const port = typeof address === 'object' && address ? address.port : undefined;
      probe.close(() => (port ? resolve(port) : reject(new Error('no free port'))));
    });
  });
}

function bearer(credential: string): Metadata {
  const metadata = new Metadata();
  metadata.set('authorization', `Bearer ${credential}`);
  return metadata;
}

describe('RelayControl in a NestJS gRPC microservice', () => {
  let app: INestMicroservice;
  let nestClient: ClientGrpcProxy;
  let relayControl: relayControlV1.RelayControlClient;
  let grpcJsClient: relayControlV1GrpcJs.RelayControlClient;

  beforeAll(async () => {
    const url = `127.0.0.1:${await freePort()}`;
    const grpcOptions: GrpcOptions['options'] = {
      url,
      package: relayControlV1.TRUSTMESH_RELAY_V1_PACKAGE_NAME,
      protoPath: protoFilePath(relayControlV1.protobufFileName),
      loader: PROTO_LOADER_OPTIONS,
    };
    const moduleRef = await Test.createTestingModule({ controllers: [RelayControlTestController] }).compile();
    app = moduleRef.createNestMicroservice<GrpcOptions>({ transport: Transport.GRPC, options: grpcOptions });
    app.useLogger(false);
    await app.listen();

    nestClient = ClientProxyFactory.create({ transport: Transport.GRPC, options: grpcOptions }) as ClientGrpcProxy;
    relayControl = nestClient.getService<relayControlV1.RelayControlClient>(relayControlV1.RELAY_CONTROL_SERVICE_NAME);
    grpcJsClient = new relayControlV1GrpcJs.RelayControlClient(url, credentials.createInsecure());
  });

  afterAll(async () => {
    grpcJsClient?.close();
    nestClient?.close();
    await app?.close();
  });

  it('serves a unary call from the NestJS client, with the request decoded as the generated types say', async () => {
    const response = await firstValueFrom(
      relayControl.createBrowserSession(
        {
          workspaceId: WORKSPACE_ID,
          origin: 'https://app.trustmesh.example',
          acceptedWireVersions: ['1.2', '1.1'],
          userId: 'user-42',
        },
        bearer(SERVICE_CREDENTIAL),
      ),
    );
    expect(response).toEqual({
      descriptor: {
        connectUrl: `wss://relay.trustmesh.example/v1/browser?ticket=${encodeURIComponent(
          `${WORKSPACE_ID}|https://app.trustmesh.example|1.2|1.1|user-42`,
        )}`,
        expiresAt: { seconds: 1_767_225_660, nanos: 0 },
      },
    });
  });

  it('answers the generated grpc-js client with the same shapes, unset timestamp as null', async () => {
    const response = await new Promise<relayControlV1GrpcJs.GetWorkspaceStatusResponse>((resolve, reject) =>
      grpcJsClient.getWorkspaceStatus({ workspaceId: WORKSPACE_ID }, bearer(SERVICE_CREDENTIAL), (error, reply) =>
        error ? reject(error) : resolve(reply),
      ),
    );
    expect(response).toEqual({
      status: {
        workspaceId: WORKSPACE_ID,
        connectivity: WorkspaceConnectivity.OFFLINE,
        deviceId: '',
        wireVersion: '',
        browserSessionCount: 0,
        changedAt: null,
      },
    });
  });

  it('streams WatchWorkspaceStatus to the grpc-js client in order', async () => {
    const call = grpcJsClient.watchWorkspaceStatus({ workspaceId: WORKSPACE_ID }, bearer(SERVICE_CREDENTIAL));
    const received: relayControlV1GrpcJs.WatchWorkspaceStatusResponse[] = [];
    for await (const message of call) {
      received.push(message as relayControlV1GrpcJs.WatchWorkspaceStatusResponse);
    }
    expect(received.map((m) => [m.status?.connectivity, m.status?.wireVersion, m.status?.changedAt?.seconds])).toEqual([
      [WorkspaceConnectivity.OFFLINE, '', 100],
      [WorkspaceConnectivity.ONLINE, '1.2', 200],
    ]);
  });

  it('streams WatchWorkspaceStatus to the NestJS client as an Observable', async () => {
    const received = await firstValueFrom(
      relayControl.watchWorkspaceStatus({ workspaceId: WORKSPACE_ID }, bearer(SERVICE_CREDENTIAL)).pipe(toArray()),
    );
    expect(received.map((m) => m.status?.connectivity)).toEqual([
      WorkspaceConnectivity.OFFLINE,
      WorkspaceConnectivity.ONLINE,
    ]);
  });

  it('maps the documented failures to gRPC status codes', async () => {
    const unauthenticated = await firstValueFrom(
      relayControl.getWorkspaceStatus({ workspaceId: WORKSPACE_ID }, bearer('wrong-credential')),
    ).catch((error: ServiceError) => error);
    expect((unauthenticated as ServiceError).code).toBe(status.UNAUTHENTICATED);

    const notFound = await firstValueFrom(
      relayControl.getWorkspaceStatus(
        { workspaceId: '0190a5e4-0000-7000-8000-000000000000' },
        bearer(SERVICE_CREDENTIAL),
      ),
    ).catch((error: ServiceError) => error);
    expect((notFound as ServiceError).code).toBe(status.NOT_FOUND);
  });
});
