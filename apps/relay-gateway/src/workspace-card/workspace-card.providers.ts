/**
 * The workspace-card feature's providers, registered in the ControlModule (PublishWorkspaceCard is a
 * RelayControl RPC): the use case, and, when the relay is configured to publish (RELAY_REGISTRY_*), the
 * process manager's two halves: the `relay-workspace-cards` projection (its own consumer group and
 * checkpoint) and the delivery loop. They start once the app is built (the public endpoint is known then)
 * without holding the start up: on Kafka a consumer group can take tens of seconds to join.
 */
import { Inject, Injectable, type OnApplicationBootstrap, type OnModuleDestroy, type Provider } from '@nestjs/common';
import { withContext } from '@trustmesh/platform-logging';
import { prismaTransactions, ProjectionRunner } from '@trustmesh/platform-projections';

import { RELAY_ENDPOINTS, type RelayEndpoints } from '../config/relay-endpoints';
import { RELAY_CONFIG, type RelayGatewayConfig } from '../config/relay-gateway.config';
import { ControlStore } from '../control/control-store';
import { WorkspaceRegistry } from '../control/workspace-registry';
import { RELAY_LOGGER, type JsonLogger } from '../logging/json-logger';
import type { RelayPrismaTx } from '../persistence/control-read-model.projection';
import { RELAY_INFRASTRUCTURE, type RelayInfrastructure } from '../persistence/relay-infrastructure';
import { RegistryCardsClient } from './registry-cards.client';
import { WorkspaceCardDelivery } from './workspace-card.delivery';
import { workspaceCardsProjection } from './workspace-card.projection';
import { WorkspaceCardService } from './workspace-card.service';

/** DI token of the delivery loop, or null when the relay publishes no cards. */
export const WORKSPACE_CARD_DELIVERY = Symbol.for('trustmesh.relay-gateway.WorkspaceCardDelivery');

@Injectable()
export class WorkspaceCardProcess implements OnApplicationBootstrap, OnModuleDestroy {
  private runner: ProjectionRunner<RelayPrismaTx> | undefined;

  constructor(
    @Inject(RELAY_INFRASTRUCTURE) private readonly infra: RelayInfrastructure,
    @Inject(WORKSPACE_CARD_DELIVERY) private readonly delivery: WorkspaceCardDelivery | null,
    @Inject(WorkspaceCardService) private readonly service: WorkspaceCardService,
    @Inject(RELAY_LOGGER) private readonly logger: JsonLogger,
  ) {}

  onApplicationBootstrap(): void {
    const delivery = this.delivery;
    if (!delivery) return;
    const runner = new ProjectionRunner(workspaceCardsProjection(), prismaTransactions(this.infra.prisma), this.infra.bus, {
      logger: withContext(this.logger.port, { component: 'workspace-cards' }),
    });
    this.runner = runner;
    delivery.start();
    void runner
      .start()
      .then(() => this.service.followEndpoint())
      .catch((error: unknown) => this.logger.warn('workspace cards did not start following', { errorName: error instanceof Error ? error.name : 'unknown' }));
  }

  /**
   * Not awaiting the start: a consumer group that never joined (no broker) must not hold the shutdown; what it
   * would still open goes with the bus, which the bootstrap closes next.
   */
  async onModuleDestroy(): Promise<void> {
    await this.delivery?.stop();
    await this.runner?.stop();
  }
}

export const workspaceCardProviders: Provider[] = [
  {
    provide: WORKSPACE_CARD_DELIVERY,
    inject: [RELAY_INFRASTRUCTURE, RELAY_CONFIG, RELAY_LOGGER],
    useFactory: (infra: RelayInfrastructure, config: RelayGatewayConfig, logger: JsonLogger) =>
      config.workspaceCards ? new WorkspaceCardDelivery(infra.prisma, new RegistryCardsClient(config.workspaceCards), config.workspaceCards, logger) : null,
  },
  {
    provide: WorkspaceCardService,
    inject: [ControlStore, WorkspaceRegistry, RELAY_ENDPOINTS, RELAY_INFRASTRUCTURE, RELAY_CONFIG, WORKSPACE_CARD_DELIVERY, RELAY_LOGGER],
    useFactory: (
      control: ControlStore,
      workspaces: WorkspaceRegistry,
      endpoints: RelayEndpoints,
      infra: RelayInfrastructure,
      config: RelayGatewayConfig,
      delivery: WorkspaceCardDelivery | null,
      logger: JsonLogger,
    ) => new WorkspaceCardService(control, workspaces, endpoints, infra.prisma, config.workspaceCards, delivery, logger),
  },
  WorkspaceCardProcess,
];
