/**
 * Starts one console process (or an in-process one for tests and `npm start`):
 *
 * 1. configuration (validated whole; `ConfigError` names every bad variable);
 * 2. infrastructure (its database + migrations, event store, bus, outbox, the read models' projection);
 * 3. the services: accounts, sessions and sign-in, workspaces over gRPC RelayControl, the Shield and the card
 *    registry over gRPC (each when configured: else its routes answer 503 *_NOT_CONFIGURED), the platform's
 *    health and metrics from the apps' operator ports;
 * 4. Nest on CONSOLE_HTTP_HOST:CONSOLE_HTTP_PORT (the API, probes and the page), every answer with the
 *    security headers, no framework body parser (the edge reads each bounded body itself); then the operator
 *    port (/metrics, /healthz, /readyz); `console listening` is logged and the URL printed.
 *
 * `close()` reverses it (the gRPC channels close after Nest stops answering). Expired sessions are swept every ten minutes.
 */
import 'reflect-metadata';

import type { AddressInfo } from 'node:net';

import type { INestApplication } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { registerBackboneMetrics } from '@trustmesh/platform-backbone';
import { createPinoLogger, type PinoPortLogger } from '@trustmesh/platform-logging';
import { nestLogger } from '@trustmesh/platform-logging/nest';
import { createMetricsRegistry } from '@trustmesh/platform-metrics';
import { backboneReadiness, cachedReadiness, OperatorServer, PublicProbes } from '@trustmesh/platform-operator-http';
import { readTracingConfig, startTracing, tracedHttpRequests } from '@trustmesh/platform-tracing';

import { ConsoleAccountsService } from './accounts/console-accounts.service';
import { CONSOLE_SERVICE_NAME, loadConsoleConfig, type ConsoleConfig } from './config/console.config';
import { ConsoleModule } from './console.module';
import { ConsoleMetrics } from './health/console-metrics';
import { ConsoleHttpEdge } from './http/console-http.edge';
import { ConsolePage } from './http/console-page';
import { securityHeaders } from './http/security-headers';
import { openConsoleInfrastructure, type ConsoleInfrastructure } from './persistence/console-infrastructure';
import { ConsolePlatformService } from './platform/console-platform.service';
import { ConsoleRegistryService } from './registry/console-registry.service';
import { ConsoleSessions } from './session/console-sessions';
import { ConsoleSignIn, defaultSignInLimits, type SignInLimits } from './session/console-sign-in.service';
import { ConsoleTrustedDevices } from './session/console-trusted-devices';
import { ConsoleShieldService } from './shield/console-shield.service';
import { ConsoleWorkspacesService } from './workspaces/console-workspaces.service';
import { RelayControlGrpcAdapter } from './workspaces/relay-control.grpc-adapter';
import { WorkspaceOwnership } from './workspaces/workspace-ownership';

export interface ConsoleHandle {
  readonly config: ConsoleConfig;
  readonly infrastructure: ConsoleInfrastructure;
  readonly accounts: ConsoleAccountsService;
  /** `http://host:port` of the listener. */
  readonly httpUrl: string;
  /** The origin the console answers for (CONSOLE_PUBLIC_ORIGIN, else `http://localhost:<port>`). */
  readonly publicOrigin: string;
  readonly operatorUrl: string | null;
  close(): Promise<void>;
}

export interface StartConsoleOptions {
  print?: (line: string) => void;
  writeLog?: (line: string) => void;
  /** The sign-in limits (tests pass tighter ones). */
  signInLimits?: SignInLimits;
}

const SESSION_SWEEP_MS = 10 * 60 * 1000;

export async function startConsole(env: Readonly<Record<string, string | undefined>>, options: StartConsoleOptions = {}): Promise<ConsoleHandle> {
  const print = options.print ?? ((line: string) => process.stdout.write(`${line}\n`));
  const config = loadConsoleConfig(env);
  const tracingConfig = readTracingConfig(env, CONSOLE_SERVICE_NAME);
  const logger: PinoPortLogger = createPinoLogger({
    service: CONSOLE_SERVICE_NAME,
    replica: config.replicaId,
    level: config.logLevel,
    ...(options.writeLog ? { write: options.writeLog } : {}),
  });

  const infrastructure = await openConsoleInfrastructure(config, logger);
  const registry = createMetricsRegistry();
  const metrics = new ConsoleMetrics(registry);
  registerBackboneMetrics(registry, { bus: infrastructure.bus, store: infrastructure.store, projections: [infrastructure.projection] });
  const relay = config.relayControl ? new RelayControlGrpcAdapter(config.relayControl) : null;
  // Each holds a gRPC channel only when configured (grpc-js connects on the first call); close() ends it.
  const shield = new ConsoleShieldService({ target: config.shield });
  const cardRegistry = new ConsoleRegistryService({ target: config.registry });
  const closeChannels = () => {
    relay?.close();
    shield.close();
    cardRegistry.close();
  };
  const tracing = startTracing(tracingConfig, { instanceId: config.replicaId });
  let app: INestApplication | undefined;
  let operatorServer: OperatorServer | undefined;
  let sweep: NodeJS.Timeout | undefined;
  try {
    // The origin is known before listening unless the port is 0 and none is configured (tests): then it is
    // the bound address's, set once the listener is up and before any request can be answered.
    let publicOrigin = config.publicOrigin ?? '';
    const origin = () => publicOrigin;
    const accounts = new ConsoleAccountsService({ store: infrastructure.store, prisma: infrastructure.prisma, projection: infrastructure.projection });
    const sessions = new ConsoleSessions(infrastructure.prisma);
    const devices = new ConsoleTrustedDevices(infrastructure.prisma);
    const signIn = new ConsoleSignIn(accounts, sessions, devices, options.signInLimits ?? defaultSignInLimits());
    const workspaces = new ConsoleWorkspacesService(relay, new WorkspaceOwnership(infrastructure.store, infrastructure.prisma, infrastructure.projection), origin);
    const readiness = cachedReadiness(() => backboneReadiness(infrastructure));
    const probes = new PublicProbes({ readiness, trustedProxies: config.trustedProxies });
    const edge = new ConsoleHttpEdge({ sessions, logger, publicOrigin: origin, onAnswered: (method, route, status) => metrics.request(method, route, status) });

    app = await NestFactory.create(
      ConsoleModule.forRoot({
        edge,
        session: { signIn, sessions, trustedProxies: config.trustedProxies, secureCookie: () => publicOrigin.startsWith('https:'), metrics },
        workspaces,
        shield,
        registry: { service: cardRegistry, trustedProxies: config.trustedProxies },
        platform: new ConsolePlatformService({ targets: config.platformTargets }),
        page: new ConsolePage(config.webDir),
        probes,
        logger,
      }),
      {
        logger: nestLogger(logger, { component: 'nest' }),
        // Every API route reads its own bounded body through the edge: no parser may buffer or echo one.
        bodyParser: false,
      },
    );
    const express = app.getHttpAdapter().getInstance() as { disable?: (setting: string) => void; set?: (setting: string, value: unknown) => void };
    express.disable?.('x-powered-by');
    // `?limit=1&limit[x]=2` must not become objects: query values are strings or arrays of strings.
    express.set?.('query parser', 'simple');
    app.use(securityHeaders(config.relayWebSocketOrigin));
    app.use(tracedHttpRequests());
    await app.listen(config.http.port, config.http.host);
    const address = app.getHttpServer().address() as AddressInfo;
    const host = address.family === 'IPv6' ? `[${address.address}]` : address.address === '0.0.0.0' ? '127.0.0.1' : address.address;
    const httpUrl = `http://${host}:${address.port}`;
    if (!publicOrigin) publicOrigin = `http://localhost:${address.port}`;

    let operatorUrl: string | null = null;
    if (config.operator) {
      operatorServer = new OperatorServer({ registry, readiness });
      operatorUrl = await operatorServer.listen(config.operator.host, config.operator.port);
    }
    sweep = setInterval(() => {
      Promise.all([sessions.sweep(), devices.sweep()]).catch((error: unknown) => logger.log('warn', 'session sweep failed', { errorName: error instanceof Error ? error.name : 'unknown' }));
    }, SESSION_SWEEP_MS);
    sweep.unref();

    logger.log('info', 'console listening', {
      http: httpUrl,
      origin: publicOrigin,
      operator: operatorUrl,
      relayControl: config.relayControl?.address ?? null,
      shield: config.shield?.address ?? null,
      registry: config.registry?.address ?? null,
      database: config.platform.database.mode,
      bus: config.platform.bus.adapter,
    });
    if (!relay) print('console: no relay configured (CONSOLE_RELAY_CONTROL_ADDRESS); workspace pages answer 503 until one is');
    if (!config.shield) print('console: no Shield configured (CONSOLE_SHIELD_ADDRESS); Shield pages answer 503 until one is');
    if (!config.registry) print('console: no card registry configured (CONSOLE_REGISTRY_ADDRESS); registry pages answer 503 until one is');
    print(`console: ${publicOrigin}${operatorUrl ? ` (operator ${operatorUrl})` : ''}`);

    const started = { app };
    let closing: Promise<void> | undefined;
    return {
      config,
      infrastructure,
      accounts,
      httpUrl,
      publicOrigin,
      operatorUrl,
      close: () =>
        (closing ??= (async () => {
          clearInterval(sweep);
          await started.app.close();
          await operatorServer?.close();
          closeChannels();
          await infrastructure.close();
          await tracing.shutdown();
        })()),
    };
  } catch (error) {
    clearInterval(sweep);
    await app?.close().catch(() => undefined);
    await operatorServer?.close().catch(() => undefined);
    closeChannels();
    await infrastructure.close();
    await tracing.shutdown();
    throw error;
  }
}
