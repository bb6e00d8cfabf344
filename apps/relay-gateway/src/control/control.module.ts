/**
 * The control plane's services, global so the data plane can inject `RELAY_DIRECTORY`. The gRPC server is
 * provided here and started by the bootstrap once the HTTP server listens (main.ts), and stopped first at
 * shutdown (its watch streams end with UNAVAILABLE).
 */
import { Global, Inject, Module, type OnModuleDestroy } from '@nestjs/common';

import { RELAY_ENDPOINTS, type RelayEndpoints } from '../config/relay-endpoints';
import { RELAY_CONFIG, type RelayGatewayConfig } from '../config/relay-gateway.config';
import { RELAY_LOGGER, type JsonLogger } from '../logging/json-logger';
import { RELAY_SERVICE_CREDENTIAL_DIGESTS, RELAY_TLS } from '../persistence/persistence.module';
import { RELAY_INFRASTRUCTURE, type RelayInfrastructure } from '../persistence/relay-infrastructure';
import type { TlsMaterial } from '../tls/tls-material';
import { workspaceCardProviders } from '../workspace-card/workspace-card.providers';
import { WorkspaceCardService } from '../workspace-card/workspace-card.service';
import { ControlStore } from './control-store';
import { PresenceRows } from './presence-rows';
import { RelayControlGrpcServer } from './relay-control.grpc-server';
import { ReplicaLiveness } from './replica-liveness';
import { RelayControlService } from './relay-control.service';
import { RELAY_DIRECTORY } from './relay-directory.port';
import { RelayDirectoryService } from './relay-directory.service';
import { WorkspacePresence } from './workspace-presence.service';
import { WorkspaceRegistry } from './workspace-registry';

@Global()
@Module({
  providers: [
    {
      provide: ControlStore,
      inject: [RELAY_INFRASTRUCTURE],
      useFactory: (infra: RelayInfrastructure) => new ControlStore(infra.store, infra.publisher, infra.feed),
    },
    { provide: WorkspaceRegistry, inject: [ControlStore], useFactory: (control: ControlStore) => new WorkspaceRegistry(control) },
    {
      provide: WorkspacePresence,
      inject: [RELAY_INFRASTRUCTURE, ControlStore, WorkspaceRegistry, RELAY_CONFIG, RELAY_LOGGER],
      useFactory: (infra: RelayInfrastructure, control: ControlStore, workspaces: WorkspaceRegistry, config: RelayGatewayConfig, logger: JsonLogger) =>
        new WorkspacePresence(new PresenceRows(infra.database), control, workspaces, infra.feed, config, logger),
    },
    {
      provide: RELAY_DIRECTORY,
      inject: [ControlStore, WorkspaceRegistry, WorkspacePresence, RELAY_INFRASTRUCTURE, RELAY_LOGGER],
      useFactory: (control: ControlStore, workspaces: WorkspaceRegistry, presence: WorkspacePresence, infra: RelayInfrastructure, logger: JsonLogger) =>
        new RelayDirectoryService(control, workspaces, presence, infra.feed, logger),
    },
    {
      provide: RelayControlService,
      inject: [ControlStore, WorkspaceRegistry, WorkspacePresence, RELAY_INFRASTRUCTURE, RELAY_ENDPOINTS, RELAY_CONFIG, RELAY_LOGGER],
      useFactory: (
        control: ControlStore,
        workspaces: WorkspaceRegistry,
        presence: WorkspacePresence,
        infra: RelayInfrastructure,
        endpoints: RelayEndpoints,
        config: RelayGatewayConfig,
        logger: JsonLogger,
      ) => new RelayControlService(control, workspaces, presence, infra.prisma, endpoints, config, logger),
    },
    {
      provide: ReplicaLiveness,
      inject: [RELAY_INFRASTRUCTURE, WorkspacePresence, RELAY_CONFIG, RELAY_LOGGER],
      useFactory: (infra: RelayInfrastructure, presence: WorkspacePresence, config: RelayGatewayConfig, logger: JsonLogger) =>
        new ReplicaLiveness(infra.prisma, presence, config, logger),
    },
    {
      provide: RelayControlGrpcServer,
      inject: [RelayControlService, WorkspaceCardService, RELAY_CONFIG, RELAY_SERVICE_CREDENTIAL_DIGESTS, RELAY_LOGGER, RELAY_TLS],
      useFactory: (service: RelayControlService, cards: WorkspaceCardService, config: RelayGatewayConfig, digests: Buffer[], logger: JsonLogger, tls: TlsMaterial | null) =>
        new RelayControlGrpcServer(service, cards, config, digests, logger, tls),
    },
    // PublishWorkspaceCard and the process manager that keeps published cards following their workspace.
    ...workspaceCardProviders,
  ],
  exports: [RELAY_DIRECTORY, RelayControlService, RelayControlGrpcServer, ControlStore, WorkspacePresence, WorkspaceRegistry, ReplicaLiveness],
})
export class ControlModule implements OnModuleDestroy {
  constructor(@Inject(WorkspacePresence) private readonly presence: WorkspacePresence) {}

  onModuleDestroy(): void {
    this.presence.dispose();
  }
}
