/**
 * Starts one card registry process (or an in-process one for tests):
 *
 * 1. configuration (validated whole; `ConfigError` names every bad variable);
 * 2. infrastructure (database + migrations, event store, bus, outbox publisher, projection, maintenance);
 * 3. operator credentials: configured `account:sha256hex` pairs, or in embedded mode with none configured a
 *    development credential for account `development`, minted now and printed once (never stored);
 * 4. the services (publishers and namespaces, cards, namespace trust, federation) over the namespace repository;
 * 5. Nest (`/v1`, probes) on REGISTRY_HTTP_PORT, gRPC `CardRegistry` + `CardRegistryOperator` on
 *    REGISTRY_GRPC_PORT (both behind the same rate limits and publish quota; with REGISTRY_FEED_CREDENTIALS on the
 *    local bus also `EventFeed` of `registry.cards.v1`, for followers in other processes), then the operator port
 *    (/metrics, /healthz, /readyz); `card registry listening` is logged with the addresses; then the
 *    federation scheduler and the trust re-check task start.
 *
 * `close()` reverses it.
 */
import 'reflect-metadata';

import type { AddressInfo } from 'node:net';

import type { INestApplication } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { safeFetcherPort } from '@trustmesh/cards-federation';
import { ConfigError } from '@trustmesh/platform-config';
import { DEVELOPMENT_OPERATOR_ACCOUNT, withDevelopmentOperator } from '@trustmesh/platform-credentials';
import { eventFeedService } from '@trustmesh/platform-event-feed';
import { createPinoLogger, withContext, type PinoPortLogger } from '@trustmesh/platform-logging';
import { nestLogger } from '@trustmesh/platform-logging/nest';
import { registerBackboneMetrics } from '@trustmesh/platform-backbone';
import { createMetricsRegistry } from '@trustmesh/platform-metrics';
import { backboneReadiness, cachedReadiness, OperatorServer, PublicProbes } from '@trustmesh/platform-operator-http';
import { readTracingConfig, startTracing, traceGrpcServerCall, tracedHttpRequests } from '@trustmesh/platform-tracing';
import type { ISocketFactory } from 'kafkajs';

import { CardRegistryModule } from './card-registry.module';
import { CARD_REGISTRY_SERVICE_NAME, loadCardRegistryConfig, type CardRegistryConfig } from './config/card-registry.config';
import type { CardDocuments } from './documents/card-documents.port';
import { cardsDocuments } from './documents/cards-documents.adapter';
import { FederationRepository } from './federation/federation.repository';
import { FederationScheduler } from './federation/federation.scheduler';
import { FederationService } from './federation/federation.service';
import { RegistryGrpcEdge } from './grpc/registry-grpc.edge';
import { RegistryGrpcServer } from './grpc/registry-grpc.server';
import { RegistryMetrics } from './health/registry-metrics';
import { RegistryExceptionFilter } from './http/registry-exception.filter';
import { RegistryHttpEdge } from './http/registry-http.edge';
import { CatalogPublishService } from './catalogs/catalog-publish.service';
import { DailyPublishQuota, QuotaCardService } from './limits/publish-quota';
import { RegistryLimits } from './limits/registry-limits';
import { openRegistryInfrastructure, type RegistryInfrastructure } from './persistence/registry-infrastructure';
import { REGISTRY_CARDS_TOPIC } from './persistence/registry.stream';
import { CatalogService } from './search/catalog.service';
import { ChangesService } from './search/changes.service';
import { SearchService } from './search/search.service';
import type { CardService } from './service/card.service';
import { NamespaceRepository } from './service/namespace.repository';
import { PublisherAdminService } from './service/publisher-admin.service';
import { RegistryCallers } from './service/registry-callers';
import { NamespaceTrustService } from './trust/namespace-trust.service';
import { ownershipProofRunner } from './trust/ownership-proofs';
import { signaturePolicyGate } from './trust/signature-policy.gate';
import { createTrustNetwork } from './trust/trust-network';
import { TrustRecheckScheduler } from './trust/trust-recheck.scheduler';

export interface CardRegistryHandle {
  readonly config: CardRegistryConfig;
  readonly infrastructure: RegistryInfrastructure;
  readonly cards: CardService;
  readonly admin: PublisherAdminService;
  readonly federation: FederationService;
  readonly trust: NamespaceTrustService;
  /** Proof re-checks and key-document re-verification (its timer runs every REGISTRY_TRUST_TASK_INTERVAL_MS). */
  readonly trustRecheck: TrustRecheckScheduler;
  /** `http://host:port` of the HTTP listener. */
  readonly httpUrl: string;
  /** `host:port` of the gRPC listener. */
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
  /** Document validation (default: `@trustmesh/cards-documents`). */
  documents?: CardDocuments;
  /** Opens every Kafka connection of the bus (tests cut the brokers off with `createBrokerGate`). */
  kafkaSocketFactory?: ISocketFactory;
  /** The clock of the services (default: the system's); in-process tests move it to pass proof expiries. */
  now?: () => Date;
}

export async function startCardRegistry(env: Readonly<Record<string, string | undefined>>, options: StartOptions = {}): Promise<CardRegistryHandle> {
  const print = options.print ?? ((line: string) => process.stdout.write(`${line}\n`));
  const config = loadCardRegistryConfig(env);
  const tracingConfig = readTracingConfig(env, CARD_REGISTRY_SERVICE_NAME);
  const logger: PinoPortLogger = createPinoLogger({
    service: CARD_REGISTRY_SERVICE_NAME,
    replica: config.replicaId,
    level: config.logLevel,
    ...(options.writeLog ? { write: options.writeLog } : {}),
  });

  // The configuration refuses no operators outside embedded development; never mint a live credential there.
  if (config.operatorCredentials.length === 0 && !config.embedded) throw new ConfigError([{ variable: 'REGISTRY_OPERATOR_CREDENTIALS', message: 'is required in server mode' }]);
  const { operators, developmentCredential: developmentOperatorCredential } = withDevelopmentOperator(config.operatorCredentials);

  const infrastructure = await openRegistryInfrastructure(config, logger, options.kafkaSocketFactory ? { kafkaSocketFactory: options.kafkaSocketFactory } : {});
  const registry = createMetricsRegistry();
  const metrics = new RegistryMetrics(registry);
  registerBackboneMetrics(registry, { bus: infrastructure.bus, store: infrastructure.store, projections: [infrastructure.projection] });
  let app: INestApplication | undefined;
  let operatorServer: OperatorServer | undefined;
  let scheduler: FederationScheduler | undefined;
  let trustRecheck: TrustRecheckScheduler | undefined;
  let grpcServer: RegistryGrpcServer | undefined;
  const tracing = startTracing(tracingConfig, { instanceId: config.replicaId });
  try {
    const now = options.now ?? (() => new Date());
    const callers = new RegistryCallers(operators, infrastructure.store, { services: config.serviceCredentials, onRegistered: () => infrastructure.publisher.kick(), now });
    const namespaces = new NamespaceRepository(infrastructure.store, { capacity: config.namespaceCacheEntries, onAppended: () => infrastructure.publisher.kick() });
    metrics.observeNamespaceCache(namespaces);
    if (config.trust.testOnly) logger.log('warn', 'REGISTRY_TEST_ONLY_* fetch overrides are set: outbound fetching trusts the test CA, host map or loopback; never run a real registry like this', {});
    const network = createTrustNetwork(config.trust);
    const proofs = ownershipProofRunner(network, now);
    const query = <Row>(sql: string, params: unknown[] = []) => infrastructure.database.withConnection((connection) => connection.query<Row>(sql, params));
    const verifiedNamespaces = async () =>
      (await query<{ namespace: string }>('SELECT namespace FROM registry_namespace_trust WHERE method IS NOT NULL AND lapsed_at IS NULL AND expires_at > $1::timestamptz', [now().toISOString()])).map((row) => row.namespace);
    const heldNamespaces = async (publisherId: string, limit: number) =>
      (await query<{ namespace: string }>('SELECT namespace FROM registry_namespaces WHERE publisher_id = $1 ORDER BY granted_at DESC, namespace LIMIT $2::integer', [publisherId, limit])).map((row) => row.namespace);
    const trust = new NamespaceTrustService({ store: infrastructure.store, namespaces, proofs, verifiedNamespaces, heldNamespaces, config: config.trust, logger, now });
    const documents = options.documents ?? cardsDocuments(config.maxCardBytes);
    const signatures = signaturePolicyGate(network, now);
    const quota = new DailyPublishQuota(config.limits.publishQuotaPerDay, (sql, params) => query(sql, params), logger, () => now().getTime());
    const cards = new QuotaCardService({ store: infrastructure.store, namespaces, documents, logger, now, signatures, onPublished: (kind) => metrics.revisionPublished(kind) }, quota);
    const catalogPublish = new CatalogPublishService({ namespaces, documents, signatures, network, logger, now, quota });
    const limits = new RegistryLimits(config.limits);
    const admin = new PublisherAdminService({ store: infrastructure.store, publisher: infrastructure.publisher, namespaces, callers, logger, now, onNamespaceGranted: (namespace) =>
        // The grant stands either way: a flag that could not be computed now is not a reason to refuse it.
        trust.flagLookalikes(namespace).catch((error: unknown) => logger.log('warn', 'look-alike check failed', { namespace, errorName: error instanceof Error ? error.name : 'unknown' })),
    });
    trustRecheck = new TrustRecheckScheduler({ store: infrastructure.store, namespaces, proofs, network, query, config: config.trust, replicaId: config.replicaId, logger, now });
    const federation = new FederationService({
      repository: new FederationRepository(infrastructure.store, infrastructure.publisher),
      // The registry's one SafeFetcher: crawls and trust fetch under the same rules (and the same test-only overrides).
      fetcher: safeFetcherPort(network.fetcher),
      prisma: infrastructure.prisma,
      logger: withContext(logger, { component: 'federation' }),
      now,
      replicaId: config.replicaId,
      crawlDeadlineMs: config.federation.crawlDeadlineMs,
      maxDocumentBytes: config.maxCardBytes,
    });
    // One readiness for both ports, checked at most once a second whatever the probe traffic.
    const readiness = cachedReadiness(() => backboneReadiness(infrastructure));
    const probes = new PublicProbes({ readiness, trustedProxies: config.limits.trustedProxies });
    const edge = new RegistryHttpEdge({ callers, logger, maxBodyBytes: config.maxBodyBytes, maxCardBytes: config.maxCardBytes, limits, onAnswered: (method, route, status) => metrics.request(method, route, status) });
    // Result and catalog URLs: REGISTRY_PUBLIC_URL, else this listener's address (known once it listens).
    let listenerUrl = '';
    const baseUrl = () => config.publicUrl ?? listenerUrl;
    const read = { database: infrastructure.database, baseUrl };
    const search = { search: new SearchService(read), changes: new ChangesService(read), catalogs: new CatalogService(read) };
    app = await NestFactory.create(CardRegistryModule.forRoot({ cards, admin, edge, probes, trust, federation, search, catalogPublish, logger }), {
      logger: nestLogger(logger, { component: 'nest' }),
      // Every route reads its own bounded body through the edge: a card's exact bytes are what is stored.
      bodyParser: false,
    });
    app.useGlobalFilters(new RegistryExceptionFilter());
    (app.getHttpAdapter().getInstance() as { disable?: (setting: string) => void }).disable?.('x-powered-by');
    app.use(tracedHttpRequests());
    await app.listen(config.http.port, config.http.host);
    const address = app.getHttpServer().address() as AddressInfo;
    const host = address.family === 'IPv6' ? `[${address.address}]` : address.address === '0.0.0.0' ? '127.0.0.1' : address.address;
    const httpUrl = `http://${host}:${address.port}`;
    listenerUrl = httpUrl;

    // The feed of registry.cards.v1 for followers in other processes (npm start's Shield): local bus only, where
    // the topic lives in this registry's own database (the configuration refuses followers on Kafka).
    const feed =
      config.feedFollowers && infrastructure.localBus
        ? eventFeedService({ bus: infrastructure.localBus, topics: [REGISTRY_CARDS_TOPIC], followers: config.feedFollowers, logger, trace: traceGrpcServerCall })
        : undefined;
    grpcServer = new RegistryGrpcServer(
      { cards, catalogPublish, admin, namespaces, search, trust, edge: new RegistryGrpcEdge({ callers, logger, limits }), maxCardBytes: config.maxCardBytes, now, ...(feed ? { feed } : {}) },
      async () => (await readiness()).status === 200,
    );
    const grpcPort = await grpcServer.start(config.grpc.host, config.grpc.port);
    const grpcHost = config.grpc.host === '0.0.0.0' ? '127.0.0.1' : config.grpc.host;
    const grpcAddress = `${grpcHost.includes(':') ? `[${grpcHost}]` : grpcHost}:${grpcPort}`;

    let operatorUrl: string | null = null;
    if (config.operator) {
      operatorServer = new OperatorServer({ registry, readiness });
      operatorUrl = await operatorServer.listen(config.operator.host, config.operator.port);
    }
    logger.log('info', 'card registry listening', { http: httpUrl, grpc: grpcAddress, operator: operatorUrl, bus: config.platform.bus.adapter, database: config.platform.database.mode });
    if (developmentOperatorCredential) {
      print(`card-registry: development operator credential (account "${DEVELOPMENT_OPERATOR_ACCOUNT}", shown once, valid until restart): ${developmentOperatorCredential}`);
    }
    print(`card-registry: HTTP ${httpUrl}/v1, gRPC ${grpcAddress}${operatorUrl ? `, operator ${operatorUrl}` : ''}`);
    if (config.federation.scheduler) {
      scheduler = new FederationScheduler(federation, config.federation.tickMs, withContext(logger, { component: 'federation' }));
      scheduler.start();
    }

    trustRecheck.start();

    const started = { app, grpcServer, operatorServer, scheduler, trustRecheck };
    let closing: Promise<void> | undefined;
    return {
      config,
      infrastructure,
      cards,
      admin,
      federation,
      trust,
      trustRecheck,
      httpUrl,
      grpcAddress,
      operatorUrl,
      developmentOperatorCredential,
      close: () =>
        (closing ??= (async () => {
          await started.scheduler?.stop();
          federation.close();
          await started.trustRecheck.stop();
          await started.app.close();
          await started.grpcServer.close();
          await started.operatorServer?.close();
          await infrastructure.close();
          await tracing.shutdown();
        })()),
    };
  } catch (error) {
    await scheduler?.stop().catch(() => undefined);
    await trustRecheck?.stop().catch(() => undefined);
    await app?.close().catch(() => undefined);
    await grpcServer?.close().catch(() => undefined);
    await operatorServer?.close().catch(() => undefined);
    await infrastructure.close();
    await tracing.shutdown();
    throw error;
  }
}
