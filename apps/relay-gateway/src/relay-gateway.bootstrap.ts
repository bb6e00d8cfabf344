/**
 * Starts one gateway process (or an in-process one for tests and `npm start`):
 *
 * 1. configuration (validated whole; `ConfigError` names every bad variable);
 * 2. TLS material (files, or the persisted self-signed development certificate);
 * 3. the HTTP(S) port, listening at once with the startup probe (health/startup-probe.server.ts): `/healthz`
 *    answers 200 and `/readyz` 503 naming the step the start waits for, everything else 503
 *    `GATEWAY_STARTING`; logged as `relay gateway starting` with the `http` URL;
 * 4. infrastructure (database + migrations, event store, bus, outbox publisher, projection, event feed, the
 *    maintenance scheduler that purges what the platform keeps),
 *    which on Kafka waits for the consumer groups to join (tens of seconds on a restart);
 * 5. the service credential: configured digests, or in embedded mode a development credential minted now
 *    and printed once (it is never stored; a restart mints another);
 * 6. Nest: presence a crashed predecessor with this replica id left behind is ended and liveness starts,
 *    then the modules (including the data plane) start on the server that already listens;
 * 7. the gRPC server (RelayControl + ServiceInfo) on its own port; then requests go to the app (`/readyz`
 *    now checks the database and the bus) and `relay gateway listening` is logged.
 * 8. the operator port (metrics and probe copies, loopback by default).
 *
 * `close()` reverses it: gRPC first (watch streams end with UNAVAILABLE), then Nest (the data plane closes
 * its sockets and records it), then any presence this replica still holds, then the infrastructure.
 */
import 'reflect-metadata';

import type { RequestListener } from 'node:http';

import type { INestApplication } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { ConfigError, type ConfigProblem } from '@trustmesh/platform-config';
import { sha256 } from '@trustmesh/platform-credentials';
import { registerBackboneMetrics } from '@trustmesh/platform-backbone';
import { createMetricsRegistry, Registry } from '@trustmesh/platform-metrics';
import { OperatorServer, type PublicProbes } from '@trustmesh/platform-operator-http';
import { PUBLIC_PROBES } from '@trustmesh/platform-operator-http/nest';
import { collectTracingConfig, startTracing, tracedHttpRequests } from '@trustmesh/platform-tracing';
import type { ISocketFactory } from 'kafkajs';

import { AppModule } from './app.module';
import { RelayEndpoints } from './config/relay-endpoints';
import { loadRelayGatewayConfig, RELAY_GATEWAY_SERVICE_NAME, type RelayGatewayConfig } from './config/relay-gateway.config';
import { RelayControlGrpcServer } from './control/relay-control.grpc-server';
import { mintSecret } from './control/secrets';
import { ReplicaLiveness } from './control/replica-liveness';
import { WorkspacePresence } from './control/workspace-presence.service';
import { DataPlane } from './data-plane/data-plane';
import { loadDataPlaneConfig } from './data-plane/data-plane.config';
import { DATA_PLANE } from './data-plane/data-plane.module';
import { securityHeaders } from './http/security-headers';
import { StartupProbeServer } from './health/startup-probe.server';
import { JsonLogger } from './logging/json-logger';
import { openRelayInfrastructure, type RelayInfrastructure } from './persistence/relay-infrastructure';
import { loadTlsMaterial, type TlsMaterial } from './tls/tls-material';

export interface RelayGatewayHandle {
  readonly config: RelayGatewayConfig;
  readonly app: INestApplication;
  readonly infrastructure: RelayInfrastructure;
  readonly endpoints: RelayEndpoints;
  readonly tls: TlsMaterial | null;
  /** `https://127.0.0.1:<port>` (or http:// with RELAY_TLS=off): where this process's HTTP server listens. */
  readonly httpUrl: string;
  /** `host:port` of the gRPC server. */
  readonly grpcAddress: string;
  /** `http://host:port` of the operator port (/metrics, /healthz, /readyz), or null when it is off. */
  readonly operatorUrl: string | null;
  /** The development service credential minted at start (embedded mode without configured digests), else null. */
  readonly developmentServiceCredential: string | null;
  close(): Promise<void>;
}

export interface StartOptions {
  /** Where the human-facing start-up lines go (default: stdout). */
  print?: (line: string) => void;
  /** Log lines (default: stdout); tests pass a sink. */
  writeLog?: (line: string) => void;
  cwd?: string;
  /** How the Kafka bus opens broker connections (tests put a broker gate here to make the bus slow). */
  kafkaSocketFactory?: ISocketFactory;
  /**
   * Gives the start up (SIGTERM before it finished): the waits for the database and the bus end, what was
   * opened is closed, and the start rejects with the signal's reason. Once started, `close()` stops it.
   */
  signal?: AbortSignal;
}

export async function startRelayGateway(env: Readonly<Record<string, string | undefined>>, options: StartOptions = {}): Promise<RelayGatewayHandle> {
  const print = options.print ?? ((line: string) => process.stdout.write(`${line}\n`));
  // Both halves of the configuration are validated before anything starts, and refused together: a bad data
  // plane variable used to surface only as Nest's bare "ConfigError" while modules were being built (exit 1,
  // no variable named). The data plane's variables come from `env` over process.env (hosts that start the
  // gateway from their own env object still set them in process.env).
  const problems: ConfigProblem[] = [];
  const attempt = <T>(load: () => T): T | undefined => {
    try {
      return load();
    } catch (error) {
      if (!(error instanceof ConfigError)) throw error;
      problems.push(...error.problems);
      return undefined;
    }
  };
  const loaded = attempt(() => loadRelayGatewayConfig(env, options.cwd ? { cwd: options.cwd } : {}));
  const dataPlaneConfig = attempt(() => loadDataPlaneConfig({ ...process.env, ...env }));
  const tracingConfig = collectTracingConfig(env, RELAY_GATEWAY_SERVICE_NAME, problems);
  if (!loaded || !dataPlaneConfig || problems.length > 0) throw new ConfigError(problems);
  const config = loaded;
  const logger = new JsonLogger({
    level: config.logLevel,
    service: RELAY_GATEWAY_SERVICE_NAME,
    replica: config.replicaId,
    ...(options.writeLog ? { write: options.writeLog } : {}),
  });
  const tls = await loadTlsMaterial(config.tls);

  let developmentServiceCredential: string | null = null;
  const serviceCredentialDigests = [...config.serviceCredentialDigests];
  if (serviceCredentialDigests.length === 0) {
    // The configuration refuses this outside embedded development; never mint a live credential there.
    if (!config.embedded) throw new Error('no service credential digests in server mode');
    developmentServiceCredential = mintSecret('serviceCredential');
    serviceCredentialDigests.push(sha256(developmentServiceCredential));
  }

  // The port answers probes from here on, whatever the rest of the start waits for.
  const headers = securityHeaders(config);
  const probe = new StartupProbeServer(tls ? { cert: tls.cert, key: tls.key } : null, headers);
  const address = await probe.listen(config.http.port, config.http.host);
  const scheme = tls ? 'https' : 'http';
  const hostForUrl = address.family === 'IPv6' ? `[${address.address}]` : address.address === '0.0.0.0' ? '127.0.0.1' : address.address;
  const httpUrl = `${scheme}://${hostForUrl}:${address.port}`;
  logger.info('relay gateway starting', { http: httpUrl });

  let infrastructure: RelayInfrastructure;
  try {
    infrastructure = await openRelayInfrastructure(config, logger, {
      onStep: (step) => probe.waitingFor(step),
      ...(options.signal ? { signal: options.signal } : {}),
      ...(options.kafkaSocketFactory ? { kafkaSocketFactory: options.kafkaSocketFactory } : {}),
    });
  } catch (error) {
    await probe.close();
    throw error;
  }
  const endpoints = new RelayEndpoints();
  let app: INestApplication | undefined;
  let grpcServer: RelayControlGrpcServer | undefined;
  let liveness: ReplicaLiveness | undefined;
  let operatorServer: OperatorServer | undefined;
  const tracing = startTracing(tracingConfig, { instanceId: config.replicaId });
  try {
    options.signal?.throwIfAborted();
    probe.waitingFor('http');
    app = await NestFactory.create(AppModule.forRoot({ config, logger, infrastructure, endpoints, tls, serviceCredentialDigests, dataPlaneConfig }), probe.adopt(), {
      logger,
      // The enrollment endpoint reads its own bounded body; nothing else takes a body.
      bodyParser: false,
    });
    // No framework banner in responses.
    (app.getHttpAdapter().getInstance() as { disable?: (setting: string) => void }).disable?.('x-powered-by');
    app.use(tracedHttpRequests());
    app.use((_request: unknown, response: { setHeader(name: string, value: string): void }, next: () => void) => {
      for (const [name, value] of Object.entries(headers)) response.setHeader(name, value);
      next();
    });
    endpoints.resolve(config.publicBaseUrl ?? `https://localhost:${address.port}`);

    // A predecessor with this replica id that crashed left its presence behind: end it before serving, that
    // is before the data plane takes upgrades (a Companion reconnecting here must not be released with it).
    probe.waitingFor('presence');
    const presence = app.get(WorkspacePresence);
    if (config.platform.database.mode === 'embedded') await presence.releaseEveryReplica();
    else await presence.releaseReplica();
    const startedLiveness = app.get(ReplicaLiveness);
    liveness = startedLiveness;
    await startedLiveness.start();

    // Modules start (the data plane attaches its upgrade handler) on the server that already listens.
    probe.waitingFor('http');
    await app.init();

    options.signal?.throwIfAborted();
    probe.waitingFor('grpc');
    const server = app.get(RelayControlGrpcServer);
    grpcServer = server;
    const readiness = app.get<PublicProbes>(PUBLIC_PROBES).readiness;
    const grpcPort = await server.start(async () => (await readiness()).status === 200);
    const grpcHost = config.grpc.host === '0.0.0.0' ? '127.0.0.1' : config.grpc.host;
    const grpcAddress = `${grpcHost.includes(':') ? `[${grpcHost}]` : grpcHost}:${grpcPort}`;

    let operatorUrl: string | null = null;
    if (config.operator) {
      const registry = gatewayMetrics(infrastructure, app.get<DataPlane>(DATA_PLANE));
      operatorServer = new OperatorServer({ registry, readiness, headers });
      operatorUrl = await operatorServer.listen(config.operator.host, config.operator.port);
    }

    // Ready: requests (and /readyz's own checks of the database and the bus) go to the app.
    probe.serve(app.getHttpAdapter().getInstance() as RequestListener);
    logger.info('relay gateway listening', {
      http: httpUrl,
      grpc: grpcAddress,
      grpcTls: config.grpc.tls,
      operator: operatorUrl,
      publicBaseUrl: endpoints.publicBaseUrl,
      tls: tls?.source ?? 'off',
      bus: config.platform.bus.adapter,
      database: config.platform.database.mode,
    });
    if (tls?.source === 'self-signed') print(`relay-gateway: development certificate ${tls.certFile} (SHA-256 ${tls.fingerprint})`);
    if (developmentServiceCredential) {
      print(`relay-gateway: development service credential for gRPC (this run only; never stored): ${developmentServiceCredential}`);
    }

    const startedApp = app;
    const startedGrpc = server;
    const startedOperator = operatorServer;
    let closing: Promise<void> | undefined;
    return {
      config,
      app: startedApp,
      infrastructure,
      endpoints,
      tls,
      httpUrl,
      grpcAddress,
      operatorUrl,
      developmentServiceCredential,
      close: () =>
        (closing ??= (async () => {
          await startedGrpc.stop();
          await startedLiveness.stop().catch(() => undefined);
          await startedApp.close();
          // Whatever the data plane did not report closed is recorded as gone before the store closes.
          await presence.releaseReplica().catch(() => undefined);
          await startedOperator?.close();
          await infrastructure.close();
          await tracing.shutdown();
          logger.info('relay gateway stopped');
        })()),
    };
  } catch (error) {
    await grpcServer?.stop().catch(() => undefined);
    await operatorServer?.close().catch(() => undefined);
    await liveness?.stop().catch(() => undefined);
    // Nest closes the server it adopted; before it did, the probe closes it.
    if (app) await app.close().catch(() => undefined);
    else await probe.close();
    await infrastructure.close();
    await tracing.shutdown();
    throw error;
  }
}

/** The gateway's one registry: process metrics, the backbone's lags and the data plane's families. */
function gatewayMetrics(infrastructure: RelayInfrastructure, dataPlane: DataPlane): Registry {
  const registry = createMetricsRegistry();
  registerBackboneMetrics(registry, { bus: infrastructure.bus, store: infrastructure.store, projections: [infrastructure.projection] });
  return Registry.merge([registry, dataPlane.metrics.registry.prom]);
}
