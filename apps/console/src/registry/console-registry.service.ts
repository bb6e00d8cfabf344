/**
 * The registry routes of API.md for a signed-in person: reads go to gRPC `CardRegistry` as anyone may read; writes
 * (publish, namespace claims) carry the console's one delegated service credential and
 * `trustmesh-on-behalf-of: console-<accountId>`, so each console account publishes as a registry publisher of
 * its own (registered by the registry on first use) with exactly the rights of any publisher: only into the
 * namespaces it proved (REGISTRY_SERVICE_CREDENTIALS, the registry's README "Acting for a publisher").
 * Framework-free: the HTTP edge hands in the account and the parsed query or body.
 *
 * What a person sees of an upstream refusal: a card that fails validation as 422 CONSOLE_CARD_INVALID with EVERY
 * issue at its JSON pointer into the card (the page shows each at its field); other refusals by a stable
 * `CONSOLE_*` code with a message that says what to do and the registry's code in `upstreamCode`; a registry that
 * does not answer as 503 CONSOLE_REGISTRY_UNAVAILABLE. Never the registry's status details.
 */
import { isIP } from 'node:net';

import { Metadata, status as GrpcStatus, type ServiceError } from '@grpc/grpc-js';
import { bearerMetadataOf, callUnary, cardRegistryV1GrpcJs as v1, channelCredentialsOf, decodeRegistryRefusal, REGISTRY_ISSUES_METADATA, type RegistryRefusal, type UnaryInvoker } from '@trustmesh/contracts';
import type { GrpcClientTarget } from '@trustmesh/platform-config';
import { ON_BEHALF_OF_HEADER } from '@trustmesh/platform-credentials';

import { answered, refused, type ConsoleAccount, type ConsoleIssue, type ConsolePage, type ConsoleResult } from '../console-result';
import { cardPageOf, claimViewOf, facetsOf, KIND_NAMES, proofOf, summaryOf, type CardPage, type CardSummary, type ClaimProof, type NamespaceClaimView, type SearchFacets } from './console-registry.views';

export interface ConsoleRegistryOptions {
  /** Null: not configured (every route answers 503 CONSOLE_REGISTRY_NOT_CONFIGURED). */
  target: GrpcClientTarget | null;
  /** Each call's deadline (default 15 s: a claim check fetches DNS or HTTPS). */
  deadlineMs?: number;
}

/**
 * Where the person's request came from, as the HTTP edge determined it (its trusted proxies applied). Sent to the
 * registry as `x-forwarded-for`, which it follows only from peers in REGISTRY_TRUSTED_PROXIES: list the console
 * there, or every person shares the console's one per-source allowance (60 writes a minute by default).
 */
export interface RequestOrigin {
  clientAddress?: string;
}

export interface SearchQuery {
  q?: string;
  kind?: string;
  namespace?: string;
  status?: string;
  tag?: string;
  limit: number;
  cursor: string | null;
}

export interface ClaimCheck {
  namespace: string;
  state: 'verified' | 'failed';
  detail: string;
}

export interface SearchAnswer {
  items: CardSummary[];
  facets: SearchFacets;
  nextCursor: string | null;
}

const DEFAULT_DEADLINE_MS = 15_000;
/** A card page carries one document (at most the registry's card bound, 640 KiB) and its revisions. */
const MAX_ANSWER_BYTES = 4 * 1024 * 1024;
const MAX_IDENTIFIER = 512;
const MAX_QUERY = 256;
const MAX_FILTER = 253;
const MAX_ISSUES = 200;
/** A namespace as the registry takes it: a canonical domain (it checks the rest). */
const NAMESPACE = /^[a-z0-9](?:[a-z0-9.-]{0,251}[a-z0-9])?$/;
const UNAVAILABLE_MESSAGE = 'The registry is not answering right now; try again in a moment.';
const CONSOLE_METHODS: Readonly<Record<string, v1.OwnershipMethod>> = { dns: v1.OwnershipMethod.DNS_TXT, 'well-known': v1.OwnershipMethod.HTTPS_FILE };
const STATUS_FILTERS: Readonly<Record<string, v1.CardStatus>> = { active: v1.CardStatus.ACTIVE, deprecated: v1.CardStatus.DEPRECATED };

const invalid = <T>(path: string, code: string, message: string): ConsoleResult<T> => refused(422, 'CONSOLE_INVALID_INPUT', message, { issues: [{ code, path, message }] });

/** The registry's issues, bounded; errors only when there are any (warnings never block a publish). */
function issuesOf(refusal: RegistryRefusal | undefined): ConsoleIssue[] {
  const all = refusal?.issues ?? [];
  const errors = all.filter((issue) => issue.severity === 'error');
  return (errors.length > 0 ? errors : all).slice(0, MAX_ISSUES).map((issue) => ({ code: issue.code.slice(0, 80), path: issue.path.slice(0, 512), message: issue.message.slice(0, 500) }));
}

type Context = 'read' | 'publish' | 'namespace';

/** An upstream failure as the person's answer, by what was being done. */
function refusalOf<T>(error: ServiceError, context: Context): ConsoleResult<T> {
  const refusal = decodeRegistryRefusal(error.metadata?.get(REGISTRY_ISSUES_METADATA)[0] as Buffer | undefined);
  const upstreamCode = refusal?.code;
  const extra = upstreamCode ? { upstreamCode } : {};
  const issues = issuesOf(refusal);
  switch (error.code) {
    case GrpcStatus.INVALID_ARGUMENT:
      if (context === 'publish') {
        return refused(422, 'CONSOLE_CARD_INVALID', `The card has ${issues.length === 1 ? 'a problem' : `${issues.length} problems`}: each is shown at its field. Fix them and publish again.`, { issues, ...extra });
      }
      return refused(422, 'CONSOLE_INVALID_INPUT', 'The registry did not accept this input: each problem is shown at its field.', { issues, ...extra });
    case GrpcStatus.NOT_FOUND:
      if (upstreamCode === 'CLAIM_NOT_FOUND') return refused(404, 'CONSOLE_CLAIM_NOT_FOUND', 'There is no claim of yours for this namespace; start one first.', extra);
      if (upstreamCode === 'NAMESPACE_NOT_FOUND') return refused(404, 'CONSOLE_NAMESPACE_NOT_FOUND', 'Nobody holds or has proved this namespace yet.', extra);
      return refused(404, 'CONSOLE_CARD_NOT_FOUND', 'The registry has no card with this identifier (or every revision was yanked); check the identifier or search for the card.', extra);
    case GrpcStatus.PERMISSION_DENIED:
      if (upstreamCode === 'NAMESPACE_NOT_GRANTED') return refused(403, 'CONSOLE_NAMESPACE_NOT_OWNED', "This card's namespace is not yours yet: prove you own it under Namespaces, then publish again.", { issues, ...extra });
      return refused(502, 'CONSOLE_REGISTRY_REFUSED', "The registry refused the console's credential; ask the operator to check CONSOLE_REGISTRY_CREDENTIAL and REGISTRY_SERVICE_CREDENTIALS.", extra);
    case GrpcStatus.ALREADY_EXISTS:
    case GrpcStatus.FAILED_PRECONDITION:
    case GrpcStatus.ABORTED:
      if (upstreamCode === 'NAMESPACE_HELD') return refused(409, 'CONSOLE_NAMESPACE_HELD', 'Another publisher holds this namespace; a registry operator can transfer it to you.', extra);
      if (upstreamCode === 'CLAIM_EXPIRED') return refused(409, 'CONSOLE_CLAIM_EXPIRED', 'This claim expired; start a new one to get a fresh record or file.', extra);
      return refused(409, 'CONSOLE_CARD_CONFLICT', context === 'publish' ? 'The registry already holds a different revision like this one (for an AI Card, raise its updatedAt): each problem is shown at its field.' : 'The registry changed meanwhile; reload and try again.', { issues, ...extra });
    case GrpcStatus.RESOURCE_EXHAUSTED:
      if (upstreamCode === 'DOCUMENT_TOO_LARGE') return refused(413, 'CONSOLE_CARD_TOO_LARGE', 'The card is larger than the registry accepts; shorten it.', extra);
      return refused(429, 'CONSOLE_REGISTRY_RATE_LIMITED', `The registry asks to slow down${refusal?.retryAfterSeconds ? `: try again in ${refusal.retryAfterSeconds} s` : '; try again later'}.`, extra);
    case GrpcStatus.UNAVAILABLE:
    case GrpcStatus.DEADLINE_EXCEEDED:
      return refused(503, 'CONSOLE_REGISTRY_UNAVAILABLE', UNAVAILABLE_MESSAGE, extra);
    case GrpcStatus.UNAUTHENTICATED:
      return refused(502, 'CONSOLE_REGISTRY_REFUSED', "The registry refused the console's credential; ask the operator to check CONSOLE_REGISTRY_CREDENTIAL and REGISTRY_SERVICE_CREDENTIALS.", extra);
    default:
      return refused(502, 'CONSOLE_REGISTRY_FAILED', 'The registry could not complete this; try again, and tell the operator if it keeps failing.', extra);
  }
}

class CallRefused {
  constructor(readonly result: ConsoleResult<never>) {}
}

export class ConsoleRegistryService {
  private readonly client: v1.CardRegistryClient | null;
  private readonly deadlineMs: number;

  constructor(private readonly options: ConsoleRegistryOptions) {
    this.client = options.target ? new v1.CardRegistryClient(options.target.address, channelCredentialsOf(options.target), { 'grpc.max_receive_message_length': MAX_ANSWER_BYTES }) : null;
    this.deadlineMs = options.deadlineMs ?? DEFAULT_DEADLINE_MS;
  }

  /** `GET /registry/search?q=&kind=&namespace=&status=&tag=`: card summaries, facets with counts (first page), next cursor. */
  async search(query: SearchQuery, origin: RequestOrigin = {}): Promise<ConsoleResult<SearchAnswer>> {
    if (query.q !== undefined && query.q.length > MAX_QUERY) return invalid('?q', 'CONSOLE_QUERY_TOO_LONG', `Search words are at most ${MAX_QUERY} characters`);
    const kind = query.kind === undefined ? undefined : KIND_NAMES.find(([, name]) => name === query.kind)?.[0];
    if (query.kind !== undefined && kind === undefined) return invalid('?kind', 'CONSOLE_KIND_INVALID', 'kind is ai-card, a2a or mcp-server');
    const status = query.status === undefined ? undefined : STATUS_FILTERS[query.status];
    if (query.status !== undefined && status === undefined) return invalid('?status', 'CONSOLE_STATUS_INVALID', 'status is active or deprecated (yanked and deleted cards are never found)');
    for (const [name, value] of [['namespace', query.namespace], ['tag', query.tag]] as const) {
      if (value !== undefined && (value.length === 0 || value.length > MAX_FILTER)) return invalid(`?${name}`, 'CONSOLE_FILTER_INVALID', `${name} is 1 to ${MAX_FILTER} characters`);
    }
    if (query.cursor !== null && (query.cursor.length > 512 || !/^[A-Za-z0-9_.~-]+$/.test(query.cursor))) return invalid('?cursor', 'CONSOLE_CURSOR_INVALID', 'Use the nextCursor of the previous page');
    const request: v1.SearchCardsRequest = {
      query: query.q ?? '',
      filters: {
        kinds: kind === undefined ? [] : [kind],
        protocols: [],
        tags: query.tag === undefined ? [] : [query.tag],
        publisherDomains: query.namespace === undefined ? [] : [query.namespace],
        statuses: status === undefined ? [] : [status],
        verified: v1.VerifiedFilter.UNSPECIFIED,
      },
      limit: query.limit,
      cursor: query.cursor ?? '',
    };
    return this.guard(async () => {
      const response = await this.call<v1.SearchCardsRequest, v1.SearchCardsResponse>('read', null, origin, (r, m, o, c) => this.client?.searchCards(r, m, o, c), request);
      return answered({ items: response.hits.map(summaryOf), facets: facetsOf(response.facets), nextCursor: response.nextCursor === '' ? null : response.nextCursor });
    });
  }

  /** `GET /registry/cards/:identifier`: the card's page. */
  async card(identifier: string, origin: RequestOrigin = {}): Promise<ConsoleResult<CardPage>> {
    if (identifier.length < 1 || identifier.length > MAX_IDENTIFIER) return refused(404, 'CONSOLE_CARD_NOT_FOUND', 'The registry has no card with this identifier; check the identifier or search for the card.');
    return this.guard(async () => answered(await this.cardPage(identifier, origin)));
  }

  /** `POST /registry/cards {card}`: publishes as the account's publisher; 201 the card's page, or every issue at its pointer. */
  async publish(account: ConsoleAccount, body: unknown, origin: RequestOrigin = {}): Promise<ConsoleResult<CardPage>> {
    const card = typeof body === 'object' && body !== null && !Array.isArray(body) ? (body as Record<string, unknown>)['card'] : undefined;
    if (typeof card !== 'object' || card === null || Array.isArray(card)) return invalid('/card', 'CONSOLE_CARD_REQUIRED', 'Send the card document as {"card": {...}}');
    if (Object.keys(body as object).length !== 1) return invalid('', 'CONSOLE_FIELD_UNKNOWN', 'The body holds only "card"');
    // Pretty-printed, as a publisher writes a card: the registry keeps these exact bytes and their digest.
    const document = Buffer.from(JSON.stringify(card, null, 2), 'utf8');
    return this.guard(async () => {
      const published = await this.call<v1.PublishCardRequest, v1.PublishCardResponse>('publish', account, origin, (r, m, o, c) => this.client?.publishCard(r, m, o, c), { document, kind: v1.CardKind.UNSPECIFIED, identifier: '', dryRun: false });
      return answered(await this.cardPage(published.identifier, origin), published.outcome === v1.PublishOutcome.CREATED ? 201 : 200);
    });
  }

  /** `GET /registry/namespaces`: the account's namespaces and claims, newest claim first (at most 100: one page). */
  async namespaces(account: ConsoleAccount, origin: RequestOrigin = {}): Promise<ConsoleResult<ConsolePage<NamespaceClaimView>>> {
    return this.guard(async () => {
      const response = await this.call<v1.ListNamespaceClaimsRequest, v1.ListNamespaceClaimsResponse>('namespace', account, origin, (r, m, o, c) => this.client?.listNamespaceClaims(r, m, o, c), {});
      return answered({ items: response.claims.map(claimViewOf), nextCursor: null });
    });
  }

  /** `POST /registry/namespaces/:namespace/claims {method: dns|well-known}`: 201 exactly what to create. */
  async startClaim(account: ConsoleAccount, namespace: string, body: unknown, origin: RequestOrigin = {}): Promise<ConsoleResult<{ namespace: string; method: string; proof: ClaimProof }>> {
    if (!NAMESPACE.test(namespace)) return invalid('/namespace', 'CONSOLE_NAMESPACE_INVALID', 'A namespace is a domain in lower case, such as example.com');
    const method = typeof body === 'object' && body !== null ? (body as Record<string, unknown>)['method'] : undefined;
    const chosen = typeof method === 'string' ? CONSOLE_METHODS[method] : undefined;
    if (chosen === undefined) return invalid('/method', 'CONSOLE_METHOD_INVALID', 'method is dns (a TXT record) or well-known (a file on the domain)');
    return this.guard(async () => {
      const response = await this.call<v1.StartNamespaceClaimRequest, v1.StartNamespaceClaimResponse>('namespace', account, origin, (r, m, o, c) => this.client?.startNamespaceClaim(r, m, o, c), { namespace, method: chosen });
      const proof = proofOf(response.proof);
      if (!proof) return refused(502, 'CONSOLE_REGISTRY_FAILED', 'The registry did not say what to create; try again.');
      return answered({ namespace: response.namespace, method: method as string, proof }, 201);
    });
  }

  /** `POST /registry/namespaces/:namespace/claims/check`: `verified`, or `failed` with what the check found. */
  async checkClaim(account: ConsoleAccount, namespace: string, origin: RequestOrigin = {}): Promise<ConsoleResult<ClaimCheck>> {
    if (!NAMESPACE.test(namespace)) return invalid('/namespace', 'CONSOLE_NAMESPACE_INVALID', 'A namespace is a domain in lower case, such as example.com');
    return this.guard<ClaimCheck>(async () => {
      try {
        const response = await this.call<v1.CheckNamespaceClaimRequest, v1.CheckNamespaceClaimResponse>('namespace', account, origin, (r, m, o, c) => this.client?.checkNamespaceClaim(r, m, o, c), { namespace, proof: '' });
        return answered({ namespace: response.namespace, state: 'verified', detail: `You own ${response.namespace}: cards under it can be published now.` });
      } catch (error) {
        // A proof not (yet) in place is an answer, not an error: the page shows what the check found.
        if (error instanceof CallRefused && error.result.ok === false && error.result.error.upstreamCode === 'PROOF_FAILED') {
          const found = error.result.error.issues?.[0];
          return answered({ namespace, state: 'failed', detail: `${found?.message ?? 'The proof was not found'} (${found?.code ?? 'PROOF_FAILED'}). Create exactly what the claim shows, wait for it to be visible, then check again.` });
        }
        throw error;
      }
    });
  }

  close(): void {
    this.client?.close();
  }

  private async cardPage(identifier: string, origin: RequestOrigin): Promise<CardPage> {
    const got = await this.call<v1.GetCardRequest, v1.GetCardResponse>('read', null, origin, (r, m, o, c) => this.client?.getCard(r, m, o, c), { identifier, revision: '' });
    const card = got.card;
    if (!card) throw new CallRefused(refused(502, 'CONSOLE_REGISTRY_FAILED', 'The registry answered without the card; try again.'));
    const listed = await this.call<v1.ListRevisionsRequest, v1.ListRevisionsResponse>('read', null, origin, (r, m, o, c) => this.client?.listRevisions(r, m, o, c), { identifier: card.identifier, limit: 100, cursor: '' });
    let namespace: v1.GetNamespaceResponse | null = null;
    if (card.namespace !== '') {
      try {
        namespace = await this.call<v1.GetNamespaceRequest, v1.GetNamespaceResponse>('read', null, origin, (r, m, o, c) => this.client?.getNamespace(r, m, o, c), { namespace: card.namespace });
      } catch (error) {
        // Nobody holds or proved it (a namespace whose proof lapsed): the card shows it unclaimed.
        if (!(error instanceof CallRefused && error.result.status === 404)) throw error;
      }
    }
    return cardPageOf(card, listed.revisions, namespace);
  }

  /** Runs `work`, turning a refused call into its answer. */
  private async guard<T>(work: () => Promise<ConsoleResult<T>>): Promise<ConsoleResult<T>> {
    if (!this.client || !this.options.target) {
      return refused(503, 'CONSOLE_REGISTRY_NOT_CONFIGURED', 'The registry is not connected to this console; ask the operator to set CONSOLE_REGISTRY_ADDRESS and CONSOLE_REGISTRY_CREDENTIAL.');
    }
    try {
      return await work();
    } catch (error) {
      if (error instanceof CallRefused) return error.result;
      throw error;
    }
  }

  /**
   * One call; reads carry no credential, writes act for `account`; the person's address rides along for the
   * registry's per-source limits (throws `CallRefused` with the person's answer).
   */
  private async call<Req, Res>(context: Context, account: ConsoleAccount | null, origin: RequestOrigin, invoke: UnaryInvoker<Req, Res>, request: Req): Promise<Res> {
    const target = this.options.target as GrpcClientTarget;
    let metadata: Metadata;
    if (account) {
      metadata = bearerMetadataOf(target);
      metadata.set(ON_BEHALF_OF_HEADER, `console-${account.accountId.toLowerCase()}`);
    } else {
      metadata = new Metadata();
    }
    if (origin.clientAddress !== undefined && isIP(origin.clientAddress) !== 0) metadata.set('x-forwarded-for', origin.clientAddress);
    try {
      return await callUnary(invoke, request, metadata, this.deadlineMs);
    } catch (error) {
      throw new CallRefused(refusalOf(error as ServiceError, context));
    }
  }
}
