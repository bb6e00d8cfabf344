/**
 * The registry's public URLs of a card and of one revision's exact bytes (cards.controller.ts), under the
 * configured `REGISTRY_PUBLIC_URL` (else the listener's address): what catalogs, search results and the
 * change feed point at. Identifiers and revisions travel URL-encoded in one path segment each.
 */
export const cardUrl = (base: string, identifier: string) => `${base}/v1/cards/${encodeURIComponent(identifier)}`;

export const revisionUrl = (base: string, identifier: string, revision: string) => `${cardUrl(base, identifier)}/revisions/${encodeURIComponent(revision)}`;
