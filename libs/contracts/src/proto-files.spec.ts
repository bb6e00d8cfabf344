// The .proto files as NestJS loads them (proto-loader, PROTO_ROOT, PROTO_LOADER_OPTIONS) agree with the
// generated code: same package and service names, same methods, and the same decoded message shapes.
import { mkdtempSync, mkdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

import { loadSync, type MethodDefinition, type PackageDefinition, type ServiceDefinition } from '@grpc/proto-loader';

import {
  PROTO_LOADER_OPTIONS,
  PROTO_ROOT,
  protoFilePath,
  relayControlV1,
  relayControlV1GrpcJs,
  resolveProtoRoot,
  serviceInfoV1,
  serviceInfoV1GrpcJs,
} from './index';

function loadContract(protobufFileName: string): PackageDefinition {
  return loadSync(protoFilePath(protobufFileName), PROTO_LOADER_OPTIONS);
}

function serviceOf(definition: PackageDefinition, packageName: string, serviceName: string): ServiceDefinition {
  const service = definition[`${packageName}.${serviceName}`];
  if (service === undefined || 'format' in service) {
    throw new Error(`${packageName}.${serviceName} is not a service in the loaded proto`);
  }
  return service as ServiceDefinition;
}

/** A method's streaming shape, comparable between proto-loader and the generated grpc-js definition. */
function shapeOf(method: { path: string; requestStream: boolean; responseStream: boolean }) {
  return { path: method.path, requestStream: method.requestStream, responseStream: method.responseStream };
}

function shapesOf(methods: Record<string, { path: string; requestStream: boolean; responseStream: boolean }>) {
  return Object.values(methods)
    .map(shapeOf)
    .sort((a, b) => a.path.localeCompare(b.path));
}

describe('PROTO_ROOT', () => {
  it('finds <repo>/proto from the source tree', () => {
    expect(PROTO_ROOT).toBe(join(__dirname, '..', '..', '..', 'proto'));
  });

  it('prefers a proto/ directory next to a bundle', () => {
    const bundleDir = mkdtempSync(join(tmpdir(), 'contracts-bundle-'));
    try {
      mkdirSync(join(bundleDir, 'proto', 'trustmesh'), { recursive: true });
      expect(resolveProtoRoot(bundleDir)).toBe(join(bundleDir, 'proto'));
    } finally {
      rmSync(bundleDir, { recursive: true, force: true });
    }
  });

  it('names the missing file and the fix when the protos were not shipped', () => {
    const bundleDir = mkdtempSync(join(tmpdir(), 'contracts-bundle-'));
    try {
      const root = resolveProtoRoot(bundleDir);
      expect(() => protoFilePath(relayControlV1.protobufFileName, root)).toThrow(
        /trustmesh\/relay\/v1\/relay_control\.proto not found under .*copy <repo>\/proto/,
      );
    } finally {
      rmSync(bundleDir, { recursive: true, force: true });
    }
  });
});

describe('RelayControl loaded with proto-loader, as NestJS loads it', () => {
  const definition = loadContract(relayControlV1.protobufFileName);
  const service = serviceOf(
    definition,
    relayControlV1.TRUSTMESH_RELAY_V1_PACKAGE_NAME,
    relayControlV1.RELAY_CONTROL_SERVICE_NAME,
  );
  const method = (name: string) => service[name] as MethodDefinition<object, object>;

  it('has the package and service named by the generated constants', () => {
    expect(relayControlV1.TRUSTMESH_RELAY_V1_PACKAGE_NAME).toBe('trustmesh.relay.v1');
    expect(relayControlV1.RELAY_CONTROL_SERVICE_NAME).toBe('RelayControl');
    expect(relayControlV1.protobufPackage).toBe(relayControlV1.TRUSTMESH_RELAY_V1_PACKAGE_NAME);
  });

  it('has exactly the methods, paths and streaming shapes of the generated grpc-js definition', () => {
    expect(shapesOf(service)).toEqual(shapesOf(relayControlV1GrpcJs.RelayControlService));
    expect(shapeOf(method('WatchWorkspaceStatus'))).toEqual({
      path: '/trustmesh.relay.v1.RelayControl/WatchWorkspaceStatus',
      requestStream: false,
      responseStream: true,
    });
  });

  it('decodes bytes from the generated codec into the same object the grpc-js flavour decodes', () => {
    // NestJS reads requests with proto-loader; tools send them with ts-proto. Both must see one shape,
    // including unset message fields (null), enums (numbers) and Timestamp seconds (numbers).
    const status: relayControlV1.GetWorkspaceStatusResponse = {
      status: {
        workspaceId: '0190a5e4-7c1e-7b3a-9f00-5d2c7e8a1b42',
        connectivity: relayControlV1.WorkspaceConnectivity.ONLINE,
        deviceId: '0190a5e4-9d2f-7c4b-8a11-6e3d8f9b2c53',
        wireVersion: '1.2',
        browserSessionCount: 2,
        changedAt: { seconds: 1_767_225_600, nanos: 250_000_000 },
      },
    };
    const bytes = Buffer.from(relayControlV1GrpcJs.GetWorkspaceStatusResponse.encode(status).finish());
    const viaProtoLoader = method('GetWorkspaceStatus').responseDeserialize(bytes);
    expect(viaProtoLoader).toEqual(relayControlV1GrpcJs.GetWorkspaceStatusResponse.decode(bytes));
    expect(viaProtoLoader).toEqual(status);

    const offline = Buffer.from(
      relayControlV1GrpcJs.GetWorkspaceStatusResponse.encode({
        status: {
          workspaceId: '0190a5e4-7c1e-7b3a-9f00-5d2c7e8a1b42',
          connectivity: relayControlV1.WorkspaceConnectivity.OFFLINE,
          deviceId: '',
          wireVersion: '',
          browserSessionCount: 0,
        },
      }).finish(),
    );
    const offlineViaProtoLoader = method('GetWorkspaceStatus').responseDeserialize(offline);
    expect(offlineViaProtoLoader).toEqual(relayControlV1GrpcJs.GetWorkspaceStatusResponse.decode(offline));
    expect(offlineViaProtoLoader).toEqual({
      status: {
        workspaceId: '0190a5e4-7c1e-7b3a-9f00-5d2c7e8a1b42',
        connectivity: relayControlV1.WorkspaceConnectivity.OFFLINE,
        deviceId: '',
        wireVersion: '',
        browserSessionCount: 0,
        changedAt: null,
      },
    });
  });

  it('encodes what a NestJS controller returns into bytes the generated codec reads back', () => {
    const response: relayControlV1.CreateBrowserSessionResponse = {
      descriptor: {
        connectUrl: 'wss://relay.trustmesh.example/v1/browser?ticket=single-use',
        expiresAt: { seconds: 1_767_225_660, nanos: 0 },
      },
    };
    const bytes = method('CreateBrowserSession').responseSerialize(response);
    expect(relayControlV1GrpcJs.CreateBrowserSessionResponse.decode(bytes)).toEqual(response);
  });
});

describe('ServiceInfo loaded with proto-loader', () => {
  it('has the package and service named by the generated constants and the generated methods', () => {
    const definition = loadContract(serviceInfoV1.protobufFileName);
    const service = serviceOf(
      definition,
      serviceInfoV1.TRUSTMESH_PLATFORM_V1_PACKAGE_NAME,
      serviceInfoV1.SERVICE_INFO_SERVICE_NAME,
    );
    expect(`${serviceInfoV1.TRUSTMESH_PLATFORM_V1_PACKAGE_NAME}.${serviceInfoV1.SERVICE_INFO_SERVICE_NAME}`).toBe(
      'trustmesh.platform.v1.ServiceInfo',
    );
    expect(shapesOf(service)).toEqual(shapesOf(serviceInfoV1GrpcJs.ServiceInfoService));
  });
});
