// gRPC health (`grpc.health.v1.Health`) and server reflection on an app's @grpc/grpc-js server, for every
// app the same way: load balancers, Kubernetes gRPC probes and `grpcurl`/`grpc_health_probe` need no
// credential and no .proto of ours.
//
// - Health answers per service (`trustmesh.relay.v1.RelayControl`, ...) and for the whole server (""),
//   SERVING while the app's readiness (its database and its bus, the same check as /readyz) passes and
//   NOT_SERVING otherwise. grpc-health-check keeps a status map and pushes changes to Watch streams, so the
//   readiness is evaluated on a timer rather than per Check: a probe storm costs no database query.
//   `close()` reports NOT_SERVING before the server shuts down, so watchers hear of it first.
// - Reflection lists the app's services and the health service, and serves their descriptors: it needs the
//   .proto files at run time (proto-files.ts says where a bundled app keeps them).
// Neither tells more than the contract already publishes: service names, message shapes, one status.
import type * as grpc from '@grpc/grpc-js';
import { loadSync, type PackageDefinition } from '@grpc/proto-loader';
import { ReflectionService } from '@grpc/reflection';
import { HealthImplementation, protoPath as HEALTH_PROTO_PATH, type ServingStatus } from 'grpc-health-check';

import { PROTO_LOADER_OPTIONS, protoFilePath } from './proto-files';

/** The health service's own name, as clients and reflection know it. */
export const HEALTH_SERVICE_NAME = 'grpc.health.v1.Health';
/** How often readiness is re-evaluated (the apps cache it for 1 s anyway). */
export const HEALTH_REFRESH_MS = 2_000;

export interface GrpcIntrospectionOptions {
  /** The app's services as generated for grpc-js (`...V1GrpcJs.*Service`); health names come from their paths. */
  readonly services: readonly grpc.ServiceDefinition[];
  /** The .proto files that declare them, as the generated `protobufFileName`s (for reflection). */
  readonly protoFiles: readonly string[];
  /** Whether the app can serve now (database and bus). Omitted: SERVING while the server runs. */
  readonly ready?: () => Promise<boolean>;
  /** Re-evaluation period of `ready` (default HEALTH_REFRESH_MS). */
  readonly refreshMs?: number;
}

/** The fully qualified name of a generated service (`/trustmesh.relay.v1.RelayControl/CreateWorkspace` -> ...). */
export function serviceNameOf(definition: grpc.ServiceDefinition): string {
  const path = Object.values(definition)[0]?.path ?? '';
  const name = path.split('/')[1];
  if (!name) throw new Error('a gRPC service definition without methods has no name');
  return name;
}

/** The app's health: per service and overall, following its readiness until `close()`. */
export class GrpcHealth {
  private readonly implementation: HealthImplementation;
  private readonly names: readonly string[];
  private timer: NodeJS.Timeout | undefined;
  private closed = false;

  constructor(private readonly options: GrpcIntrospectionOptions) {
    this.names = ['', ...options.services.map(serviceNameOf)];
    this.implementation = new HealthImplementation(Object.fromEntries(this.names.map((name) => [name, 'NOT_SERVING' as ServingStatus])));
  }

  /** Adds the health service to `server` and starts following the readiness. */
  addToServer(server: grpc.Server): void {
    this.implementation.addToServer(server);
    void this.refresh();
    this.timer = setInterval(() => void this.refresh(), this.options.refreshMs ?? HEALTH_REFRESH_MS);
    this.timer.unref();
  }

  /** Stops following; every service reads NOT_SERVING from now on. */
  close(): void {
    this.closed = true;
    clearInterval(this.timer);
    this.set('NOT_SERVING');
  }

  private async refresh(): Promise<void> {
    // A readiness check that throws is not ready; its text stays here.
    const ready = this.options.ready ? await this.options.ready().catch(() => false) : true;
    if (!this.closed) this.set(ready ? 'SERVING' : 'NOT_SERVING');
  }

  private set(status: ServingStatus): void {
    for (const name of this.names) this.implementation.setStatus(name, status);
  }
}

/** The descriptors reflection serves: the app's protos and the health service's. */
function reflectedPackages(protoFiles: readonly string[]): PackageDefinition {
  return loadSync([...protoFiles.map((file) => protoFilePath(file)), HEALTH_PROTO_PATH], PROTO_LOADER_OPTIONS);
}

/**
 * Adds health and reflection to `server` (before it binds). Returns the health, to `close()` when the app
 * stops, before the server's shutdown.
 */
export function serveHealthAndReflection(server: grpc.Server, options: GrpcIntrospectionOptions): GrpcHealth {
  const health = new GrpcHealth(options);
  health.addToServer(server);
  addReflection(server, options.protoFiles);
  return health;
}

/** Server reflection (v1 and v1alpha) over the app's protos and the health service. */
export function addReflection(server: Pick<grpc.Server, 'addService'>, protoFiles: readonly string[]): void {
  // @grpc/reflection types its argument with its own copy of proto-loader; the definition's shape is the same.
  new ReflectionService(reflectedPackages(protoFiles) as ConstructorParameters<typeof ReflectionService>[0]).addToServer(server);
}
