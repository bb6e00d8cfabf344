/**
 * The registry's gRPC messages as API.md's registry answers: card summaries and facets for search, a card's
 * page (its document, status, revisions, signature and ownership), and namespace claims with exactly what to
 * create. Pure mappings, no I/O.
 */
import { cardRegistryV1GrpcJs as v1, dateFromTimestamp, type Timestamp } from '@trustmesh/contracts';

export type CardKindName = 'ai-card' | 'a2a' | 'mcp-server';
export type CardStatusName = 'active' | 'deprecated' | 'yanked' | 'deleted';

export const KIND_NAMES: ReadonlyArray<[v1.CardKind, CardKindName]> = [
  [v1.CardKind.AI_CARD, 'ai-card'],
  [v1.CardKind.A2A, 'a2a'],
  [v1.CardKind.MCP_SERVER, 'mcp-server'],
];
export const STATUS_NAMES: ReadonlyArray<[v1.CardStatus, CardStatusName]> = [
  [v1.CardStatus.ACTIVE, 'active'],
  [v1.CardStatus.DEPRECATED, 'deprecated'],
  [v1.CardStatus.YANKED, 'yanked'],
  [v1.CardStatus.DELETED, 'deleted'],
];
const kindName = (kind: v1.CardKind) => KIND_NAMES.find(([value]) => value === kind)?.[1] ?? 'unknown';
const statusName = (status: v1.CardStatus) => STATUS_NAMES.find(([value]) => value === status)?.[1] ?? 'unknown';
const iso = (timestamp: Timestamp | null | undefined) => (timestamp ? dateFromTimestamp(timestamp).toISOString() : undefined);

export interface CardSummary {
  identifier: string;
  namespace: string;
  kind: string;
  status: string;
  name: string;
  description: string;
  tags: string[];
  protocols: string[];
  verified: boolean;
  revision: string;
  updatedAt?: string;
}

export interface FacetValue {
  value: string;
  count: number;
}

export interface SearchFacets {
  kind: FacetValue[];
  namespace: FacetValue[];
  status: FacetValue[];
  tag: FacetValue[];
}

export function summaryOf(hit: v1.SearchHit): CardSummary {
  const updatedAt = iso(hit.updatedAt);
  return {
    identifier: hit.identifier,
    namespace: hit.publisherDomain,
    kind: kindName(hit.kind),
    status: statusName(hit.status),
    name: hit.name,
    description: hit.description,
    tags: hit.tags,
    protocols: hit.protocols,
    verified: hit.verified,
    revision: hit.revision,
    ...(updatedAt ? { updatedAt } : {}),
  };
}

/** The registry's facets (fields kind, publisher_domain, status, tag) as API.md names them; the others dropped. */
export function facetsOf(facets: readonly v1.Facet[]): SearchFacets {
  const values = (field: string) => (facets.find((facet) => facet.field === field)?.values ?? []).map(({ value, count }) => ({ value, count }));
  return { kind: values('kind'), namespace: values('publisher_domain'), status: values('status'), tag: values('tag') };
}

export interface CardPage {
  /** The AI Card (or A2A, MCP) document as published; null for a deleted card (a tombstone) or bytes that are not JSON. */
  card: unknown;
  identifier: string;
  kind: string;
  status: string;
  revision: string;
  revisions: Array<{ revision: string; status: string; publishedAt?: string; digest: string; latest: boolean }>;
  signature: { state: 'verified' | 'invalid' | 'unverifiable' | 'unsigned'; keyId?: string; signer?: string };
  ownership: { namespace: string; state: 'verified' | 'granted' | 'unclaimed'; publisherId?: string };
}

const SIGNATURE_STATES: ReadonlyArray<[v1.SignatureOutcome, CardPage['signature']['state']]> = [
  [v1.SignatureOutcome.VERIFIED, 'verified'],
  [v1.SignatureOutcome.INVALID, 'invalid'],
  [v1.SignatureOutcome.UNVERIFIABLE, 'unverifiable'],
];

export function cardPageOf(card: v1.Card, revisions: readonly v1.CardRevision[], namespace: v1.GetNamespaceResponse | null): CardPage {
  let document: unknown = null;
  if (card.document.length > 0) {
    try {
      document = JSON.parse(Buffer.from(card.document).toString('utf8'));
    } catch {
      document = null;
    }
  }
  const signature = card.signatures[0];
  const state = signature ? (SIGNATURE_STATES.find(([outcome]) => outcome === signature.outcome)?.[1] ?? 'unverifiable') : 'unsigned';
  const holder = namespace?.publisherId ?? '';
  return {
    card: document,
    identifier: card.identifier,
    kind: kindName(card.kind),
    status: statusName(card.status),
    revision: card.revision,
    revisions: revisions.map((revision) => {
      const publishedAt = iso(revision.publishedAt);
      return { revision: revision.revision, status: statusName(revision.status), ...(publishedAt ? { publishedAt } : {}), digest: revision.digest, latest: revision.latest };
    }),
    signature: { state, ...(signature?.kid ? { keyId: signature.kid } : {}), ...(signature?.signer ? { signer: signature.signer } : {}) },
    ownership: {
      namespace: card.namespace,
      // `verified`: a standing ownership proof; `granted`: held by an operator's grant without one.
      state: namespace?.verified ? 'verified' : holder !== '' ? 'granted' : 'unclaimed',
      ...(holder !== '' ? { publisherId: holder } : {}),
    },
  };
}

/** What to create, exactly (API.md): a DNS TXT record or a file; did:web (not offered by the console) as what to sign. */
export type ClaimProof = { kind: 'dns-txt'; name: string; value: string } | { kind: 'file'; url: string; body: string } | { kind: 'did-web'; did: string; payload: string };

export function proofOf(proof: v1.NamespaceProof | null | undefined): ClaimProof | null {
  if (proof?.dnsTxt) return { kind: 'dns-txt', name: proof.dnsTxt.name, value: proof.dnsTxt.value };
  if (proof?.wellKnownFile) return { kind: 'file', url: proof.wellKnownFile.url, body: proof.wellKnownFile.body };
  if (proof?.didWeb) return { kind: 'did-web', did: proof.didWeb.did, payload: proof.didWeb.payload };
  return null;
}

export type ConsoleClaimMethod = 'dns' | 'well-known' | 'did-web' | 'granted';

export const methodName = (method: v1.OwnershipMethod): ConsoleClaimMethod =>
  method === v1.OwnershipMethod.DNS_TXT ? 'dns' : method === v1.OwnershipMethod.HTTPS_FILE ? 'well-known' : method === v1.OwnershipMethod.DID_WEB ? 'did-web' : 'granted';

export interface NamespaceClaimView {
  namespace: string;
  /** API.md's three states: an expired claim is `failed` (start a new claim), with `detail` saying so. */
  state: 'pending' | 'verified' | 'failed';
  method: ConsoleClaimMethod;
  proof: ClaimProof | null;
  detail?: string;
}

export function claimViewOf(claim: v1.NamespaceClaim): NamespaceClaimView {
  const state = claim.state === 'verified' ? 'verified' : claim.state === 'pending' ? 'pending' : 'failed';
  const detail =
    claim.state === 'expired'
      ? 'The claim expired before it was checked; start a new claim to get a fresh record or file.'
      : claim.state === 'failed'
        ? `The last check did not find the proof (${claim.failureCode}); create exactly what is shown, then check again.`
        : undefined;
  return { namespace: claim.namespace, state, method: methodName(claim.method), proof: proofOf(claim.proof), ...(detail ? { detail } : {}) };
}
