/**
 * Starts one Shield analyzer process (or an in-process one for tests and `npm start`):
 *
 * 1. configuration (validated whole; `ConfigError` names every bad variable);
 * 2. infrastructure (database + migrations, event store, bus, outbox publisher, projection, maintenance); with
 *    SHIELD_REGISTRY_FEED_* (local bus), the mirror that copies the card registry's `registry.cards.v1` from its
 *    EventFeed into this bus;
 * 3. operator credentials: configured `account:sha256hex` pairs, or in embedded mode with none configured a
 *    development credential for account `development`, minted now and printed once (never stored; a
 *    restart mints another);
 * 4. the application service and its analysis step (model path or deterministic);
 * 5. Nest (REST /v0.1, MCP /mcp, probes) on SHIELD_HTTP_PORT, gRPC `ShieldAnalyzer` on SHIELD_GRPC_PORT, then the operator port (/metrics,
 *    /healthz, /readyz); `shield analyzer listening` is logged with the addresses.
 *
 * `close()` reverses it.
 */
import 'reflect-metadata';

import type { AddressInfo } from 'node:net';

import type { INestApplication } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { ConfigError } from '@trustmesh/platform-config';
import { DEVELOPMENT_OPERATOR_ACCOUNT, withDevelopmentOperator } from '@trustmesh/platform-credentials';
import { createPinoLogger, type PinoPortLogger } from '@trustmesh/platform-logging';
import { nestLogger } from '@trustmesh/platform-logging/nest';
import { registerBackboneMetrics } from '@trustmesh/platform-backbone';
import { registerFeedMirrorMetrics } from '@trustmesh/platform-event-feed';
import { createMetricsRegistry } from '@trustmesh/platform-metrics';
import { backboneReadiness, cachedReadiness, OperatorServer, PublicProbes } from '@trustmesh/platform-operator-http';
import { readTracingConfig, startTracing, tracedHttpRequests } from '@trustmesh/platform-tracing';
import type { ISocketFactory } from 'kafkajs';

import { loadShieldAnalyzerConfig, SHIELD_ANALYZER_SERVICE_NAME, type ShieldAnalyzerConfig } from './config/shield-analyzer.config';
import { ShieldMetrics } from './health/shield-metrics';
import { ShieldAnalyzerGrpcServer } from './grpc/shield-analyzer.grpc-server';
import { ShieldHttpEdge } from './http/shield-http.edge';
import { ShieldExceptionFilter } from './http/shield-exception.filter';
import { openShieldInfrastructure, type ShieldInfrastructure } from './persistence/shield-infrastructure';
import { followRegistryFeed } from './registry/registry-feed.mirror';
import { createShieldAnalyze, type DeterministicAnalyzer } from './service/shield-analyze.factory';
import { ShieldAgentTokens } from './service/shield-agent-tokens';
import { ShieldCallers } from './service/shield-callers';
import { ShieldCaseService } from './service/shield-case.service';
import { ShieldAnalyzerModule } from './shield-analyzer.module';

export interface ShieldAnalyzerHandle {
  readonly config: ShieldAnalyzerConfig;
  readonly infrastructure: ShieldInfrastructure;
  readonly service: ShieldCaseService;
  /** `http://host:port` of the REST listener. */
  readonly httpUrl: string;
  /** `host:port` of the gRPC server. */
  readonly grpcAddress: string;
  /** `http://host:port` of the operator port, or null when it is off. */
  readonly operatorUrl: string | null;
  /** The development operator credential minted at start (embedded mode, none configured), else null. */
  readonly developmentOperatorCredential: string | null;
  close(): Promise<void>;
}

export interface StartOptions {
  /** Where the human-facing start-up lines go (default: stdout). */
  print?: (line: string) => void;
  /** Log lines (default: stdout); tests pass a sink. */
  writeLog?: (line: string) => void;
  /** The deterministic analyzer (default `analyzeCase` of `@trustmesh/shield-analysis`). */
  analyzer?: DeterministicAnalyzer;
  /** Opens every Kafka connection of the bus (tests cut the brokers off with `createBrokerGate`). */
  kafkaSocketFactory?: ISocketFactory;
}

export async function startShieldAnalyzer(env: Readonly<Record<string, string | undefined>>, options: StartOptions = {}): Promise<ShieldAnalyzerHandle> {
  const print = options.print ?? ((line: string) => process.stdout.write(`${line}\n`));
  const config = loadShieldAnalyzerConfig(env);
  const tracingConfig = readTracingConfig(env, SHIELD_ANALYZER_SERVICE_NAME);
  const logger: PinoPortLogger = createPinoLogger({
    service: SHIELD_ANALYZER_SERVICE_NAME,
    replica: config.replicaId,
    level: config.logLevel,
    ...(options.writeLog ? { write: options.writeLog } : {}),
  });

  // The configuration refuses no operators outside embedded development; never mint a live credential there.
  if (config.operatorCredentials.length === 0 && !config.embedded) throw new ConfigError([{ variable: 'SHIELD_OPERATOR_CREDENTIALS', message: 'is required in server mode' }]);
  const { operators, developmentCredential: developmentOperatorCredential } = withDevelopmentOperator(config.operatorCredentials);

  const infrastructure = await openShieldInfrastructure(config, logger, options.kafkaSocketFactory ? { kafkaSocketFactory: options.kafkaSocketFactory } : {});
  const registry = createMetricsRegistry();
  const metrics = new ShieldMetrics(registry);
  registerBackboneMetrics(registry, { bus: infrastructure.bus, store: infrastructure.store, projections: [infrastructure.projection] });
  // The registry in another process (npm start): its registry.cards.v1 copied into this bus, for the projection.
  const registryFeed = config.registryFeed && infrastructure.localBus ? followRegistryFeed(config.registryFeed, infrastructure.localBus, logger) : null;
  if (registryFeed) registerFeedMirrorMetrics(registry, [registryFeed.mirror]);
  let app: INestApplication | undefined;
  let operatorServer: OperatorServer | undefined;
  let grpcServer: ShieldAnalyzerGrpcServer | undefined;
  const tracing = startTracing(tracingConfig, { instanceId: config.replicaId });
  try {
    const analyze = createShieldAnalyze(config.model, logger, options.analyzer);
    const service = new ShieldCaseService({
      store: infrastructure.store,
      publisher: infrastructure.publisher,
      prisma: infrastructure.prisma,
      database: infrastructure.database,
      callers: new ShieldCallers(operators, new ShieldAgentTokens(infrastructure.store), config.serviceCredentials),
      analyze: async (request) => {
        const result = await analyze(request);
        metrics.consultation(result.generation.mode);
        return result;
      },
      logger,
    });
    // One readiness for both ports, checked at most once a second whatever the probe traffic.
    const readiness = cachedReadiness(() => backboneReadiness(infrastructure));
    // The analyzer reads no X-Forwarded-For: each peer address is a source of its own.
    const probes = new PublicProbes({ readiness });
    const edge = new ShieldHttpEdge({ service, logger, maxBodyBytes: config.maxBodyBytes, onAnswered: (method, route, status) => metrics.request(method, route, status) });
    app = await NestFactory.create(ShieldAnalyzerModule.forRoot({ service, edge, probes, logger }), {
      logger: nestLogger(logger, { component: 'nest' }),
      // Every route reads its own bounded body through the edge: no parser may buffer or echo one (§12).
      bodyParser: false,
    });
    (app.getHttpAdapter().getInstance() as { disable?: (setting: string) => void }).disable?.('x-powered-by');
    app.use(tracedHttpRequests());
    app.useGlobalFilters(new ShieldExceptionFilter());
    await app.listen(config.http.port, config.http.host);
    const address = app.getHttpServer().address() as AddressInfo;
    const host = address.family === 'IPv6' ? `[${address.address}]` : address.address === '0.0.0.0' ? '127.0.0.1' : address.address;
    const httpUrl = `http://${host}:${address.port}`;

    grpcServer = new ShieldAnalyzerGrpcServer(service, logger, config.maxBodyBytes, async () => (await readiness()).status === 200);
    const grpcPort = await grpcServer.start(config.grpc.host, config.grpc.port);
    const grpcHost = config.grpc.host === '0.0.0.0' ? '127.0.0.1' : config.grpc.host;
    const grpcAddress = `${grpcHost.includes(':') ? `[${grpcHost}]` : grpcHost}:${grpcPort}`;

    let operatorUrl: string | null = null;
    if (config.operator) {
      operatorServer = new OperatorServer({ registry, readiness });
      operatorUrl = await operatorServer.listen(config.operator.host, config.operator.port);
    }
    logger.log('info', 'shield analyzer listening', {
      http: httpUrl,
      grpc: grpcAddress,
      operator: operatorUrl,
      bus: config.platform.bus.adapter,
      database: config.platform.database.mode,
      model: config.model ? config.model.provider : 'none',
      registryFeed: config.registryFeed?.address ?? null,
    });
    if (developmentOperatorCredential) {
      print(`shield-analyzer: development operator credential (account "${DEVELOPMENT_OPERATOR_ACCOUNT}", shown once, valid until restart): ${developmentOperatorCredential}`);
    }
    print(`shield-analyzer: REST ${httpUrl}/v0.1, gRPC ${grpcAddress}${operatorUrl ? `, operator ${operatorUrl}` : ''}`);

    const started = { app, grpcServer, operatorServer };
    let closing: Promise<void> | undefined;
    return {
      config,
      infrastructure,
      service,
      httpUrl,
      grpcAddress,
      operatorUrl,
      developmentOperatorCredential,
      close: () =>
        (closing ??= (async () => {
          await started.grpcServer.close();
          await started.app.close();
          await started.operatorServer?.close();
          await registryFeed?.close();
          await infrastructure.close();
          await tracing.shutdown();
        })()),
    };
  } catch (error) {
    await grpcServer?.close().catch(() => undefined);
    await app?.close().catch(() => undefined);
    await operatorServer?.close().catch(() => undefined);
    await registryFeed?.close().catch(() => undefined);
    await infrastructure.close();
    await tracing.shutdown();
    throw error;
  }
}
