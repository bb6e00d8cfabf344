/** DI tokens of the registry's Nest module (the services are built by the bootstrap, not by Nest). */
export const CARD_SERVICE = Symbol.for('trustmesh.card-registry.CardService');
export const PUBLISHER_ADMIN_SERVICE = Symbol.for('trustmesh.card-registry.PublisherAdminService');
export const NAMESPACE_TRUST_SERVICE = Symbol.for('trustmesh.card-registry.NamespaceTrustService');
export const CATALOG_PUBLISH_SERVICE = Symbol.for('trustmesh.card-registry.CatalogPublishService');
