/**
 * The Nest module of the registry's HTTP side: the card, operator and probe controllers, given the
 * services, the shared HTTP edge and the readiness check built by the bootstrap (the operator port runs
 * beside Nest on its own listener, as in the Shield analyzer).
 */
import { Module, type DynamicModule } from '@nestjs/common';

import { CARD_SERVICE, NAMESPACE_TRUST_SERVICE, PUBLISHER_ADMIN_SERVICE, REGISTRY_READINESS } from './card-registry.tokens';
import { RegistryHealthController, type RegistryReadinessCheck } from './health/registry-health.controller';
import { CardsController } from './http/cards.controller';
import { NamespaceTrustController } from './http/namespace-trust.controller';
import { OperatorController } from './http/operator.controller';
import { REGISTRY_HTTP_EDGE, type RegistryHttpEdge } from './http/registry-http.edge';
import type { CardService } from './service/card.service';
import { SEARCH_ROUTES, SearchController, type SearchRoutes } from './search/search.controller';
import type { PublisherAdminService } from './service/publisher-admin.service';
import type { NamespaceTrustService } from './trust/namespace-trust.service';

export interface CardRegistryModuleDeps {
  cards: CardService;
  admin: PublisherAdminService;
  edge: RegistryHttpEdge;
  readiness: RegistryReadinessCheck;
  search: SearchRoutes;
  trust: NamespaceTrustService;
}

@Module({})
export class CardRegistryModule {
  static forRoot(deps: CardRegistryModuleDeps): DynamicModule {
    return {
      module: CardRegistryModule,
      controllers: [CardsController, OperatorController, RegistryHealthController, NamespaceTrustController, SearchController],
      providers: [
        { provide: CARD_SERVICE, useValue: deps.cards },
        { provide: PUBLISHER_ADMIN_SERVICE, useValue: deps.admin },
        { provide: REGISTRY_HTTP_EDGE, useValue: deps.edge },
        { provide: REGISTRY_READINESS, useValue: deps.readiness },
        { provide: NAMESPACE_TRUST_SERVICE, useValue: deps.trust },
        { provide: SEARCH_ROUTES, useValue: deps.search },
      ],
    };
  }
}
