/**
 * The Nest module of the registry's HTTP side: the card, operator and probe controllers, given the
 * services, the shared HTTP edge and the probes built by the bootstrap (the operator port runs
 * beside Nest on its own listener, as in the Shield analyzer).
 */
import { Module, type DynamicModule } from '@nestjs/common';
import type { PinoPortLogger } from '@trustmesh/platform-logging';
import { httpLogModule } from '@trustmesh/platform-logging/nest';
import type { PublicProbes } from '@trustmesh/platform-operator-http';
import { PUBLIC_PROBES, PublicProbesController } from '@trustmesh/platform-operator-http/nest';

import { CARD_SERVICE, CATALOG_PUBLISH_SERVICE, NAMESPACE_TRUST_SERVICE, PUBLISHER_ADMIN_SERVICE } from './card-registry.tokens';
import { FEDERATION_SERVICE, FederationController, RemoteCardsController } from './federation/federation.controller';
import type { FederationService } from './federation/federation.service';
import type { CatalogPublishService } from './catalogs/catalog-publish.service';
import { CardsController } from './http/cards.controller';
import { CatalogPublishController } from './http/catalog-publish.controller';
import { NamespaceTrustController } from './http/namespace-trust.controller';
import { OperatorController } from './http/operator.controller';
import { REGISTRY_HTTP_EDGE, type RegistryHttpEdge } from './http/registry-http.edge';
import type { CardService } from './service/card.service';
import { SEARCH_ROUTES, SearchController, type SearchRoutes } from './search/search.controller';
import type { PublisherAdminService } from './service/publisher-admin.service';
import type { NamespaceTrustService } from './trust/namespace-trust.service';

export interface CardRegistryModuleDeps {
  /** The process logger: one line per HTTP request through it (nestjs-pino). */
  logger: PinoPortLogger;
  cards: CardService;
  admin: PublisherAdminService;
  edge: RegistryHttpEdge;
  probes: PublicProbes;
  federation: FederationService;
  trust: NamespaceTrustService;
  search: SearchRoutes;
  catalogPublish: CatalogPublishService;
}

@Module({})
export class CardRegistryModule {
  static forRoot(deps: CardRegistryModuleDeps): DynamicModule {
    return {
      module: CardRegistryModule,
      imports: [httpLogModule(deps.logger)],
      controllers: [CardsController, OperatorController, FederationController, RemoteCardsController, PublicProbesController, NamespaceTrustController, SearchController, CatalogPublishController],
      providers: [
        { provide: CARD_SERVICE, useValue: deps.cards },
        { provide: PUBLISHER_ADMIN_SERVICE, useValue: deps.admin },
        { provide: REGISTRY_HTTP_EDGE, useValue: deps.edge },
        { provide: PUBLIC_PROBES, useValue: deps.probes },
        { provide: FEDERATION_SERVICE, useValue: deps.federation },
        { provide: NAMESPACE_TRUST_SERVICE, useValue: deps.trust },
        { provide: SEARCH_ROUTES, useValue: deps.search },
        { provide: CATALOG_PUBLISH_SERVICE, useValue: deps.catalogPublish },
      ],
    };
  }
}
