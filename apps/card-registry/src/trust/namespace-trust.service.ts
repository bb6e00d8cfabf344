/**
 * Namespace ownership by proof, look-alike flags and signature policy (CARDS.md §5 "Ownership
 * verification", "Look-alike ids flagged", §3.6 per-namespace policy):
 *
 * - a publisher claims a namespace with a method and gets a challenge token and exactly where to put it;
 *   claims live on a stream of their own per (publisher, namespace), never published on the bus;
 * - the check runs the proof; success appends `NamespaceVerified` (method, verifiedAt, expiresAt), which
 *   grants the namespace when nobody holds it, renews it for its holder, and is refused with 409
 *   NAMESPACE_HELD when another publisher holds it (an operator transfers it);
 * - a namespace claimed or granted is compared with the verified ones (`findLookalikes`); flags are stored
 *   on its stream, shown in reads, and cleared by an operator;
 * - the signature policy is set by the namespace's holder or an operator.
 */
import { sha256Hex } from '@trustmesh/platform-credentials';
import type { EventStore } from '@trustmesh/platform-event-store';
import type { Logger } from '@trustmesh/platform-logging';
import { createChallengeToken, challengeText, dnsChallengeName, OWNERSHIP_JWS_TYP, proofRecordFrom, proofStatus, wellKnownAuthUrl } from '@trustmesh/cards-ownership';
import { findLookalikes, parseNamespace } from '@trustmesh/cards-namespaces';

import {
  decideClearLookalike,
  decideLookalikes,
  decideProofSucceeded,
  decideSignaturePolicy,
  proofStands,
  SIGNATURE_POLICIES,
  type LookalikeFlag,
  type OwnershipMethod,
  type SignaturePolicy,
} from '../domain/namespace-trust';
import type { NamespaceRepository } from '../service/namespace.repository';
import type { RegistryCaller } from '../service/registry-callers';
import { fail, fromRefusal, succeed, type ServiceFailure, type ServiceResult } from '../service/registry-service.result';
import { readFields } from '../service/request-fields';
import { MAX_PROOF_LENGTH, type ProofRunner } from './ownership-proofs';
import type { TrustConfig } from './trust.config';

export const OWNERSHIP_METHODS: readonly OwnershipMethod[] = ['dns-txt', 'https-file', 'did-web'];

export const claimStreamId = (publisherId: string, namespace: string) => `registry-claim-${sha256Hex(`${publisherId}\n${namespace}`)}`;
/**
 * One `NamespaceClaimIndexed` per namespace a publisher ever claimed (appended with its first claim), so its
 * claims can be listed without a scan; never published on the bus, like the claims.
 */
export const claimIndexStreamId = (publisherId: string) => `registry-claims-of-${sha256Hex(publisherId)}`;
/** The claims `listClaims` answers at most (newest first), and the index entries it reads at most. */
const LISTED_CLAIMS = 100;
const INDEX_READ = 1000;

interface ClaimStarted {
  namespace: string;
  publisherId: string;
  method: OwnershipMethod;
  token: string;
  startedAt: string;
  expiresAt: string;
}

interface ClaimFailed {
  namespace: string;
  publisherId: string;
  code: string;
  failedAt: string;
}

/** A namespace the caller holds or claimed, as `listClaims` answers it. */
export interface ClaimListing {
  namespace: string;
  state: 'verified' | 'pending' | 'failed' | 'expired';
  /** Absent for a namespace held without a proof (an operator's grant) and no claim of the caller's. */
  method?: OwnershipMethod;
  token?: string;
  instructions?: Record<string, string>;
  claimedAt?: string;
  expiresAt?: string;
  failureCode?: string;
}

export interface ClaimChallenge {
  namespace: string;
  method: OwnershipMethod;
  token: string;
  expiresAt: string;
  /** Exactly what to publish, and where. */
  instructions: Record<string, string>;
}

export interface NamespaceVerifiedView {
  namespace: string;
  publisherId: string;
  method: OwnershipMethod;
  verifiedAt: string;
  expiresAt: string;
  lookalikeOf: LookalikeFlag[];
}

export interface NamespaceTrustView {
  namespace: string;
  publisherId: string | null;
  /** The ownership proof stands for the current holder. */
  verified: boolean;
  verification: { method: OwnershipMethod; verifiedAt: string; expiresAt: string; status: 'valid' | 'due' | 'expired' | 'lapsed'; lapsedAt?: string; lapseCode?: string } | null;
  signaturePolicy: SignaturePolicy;
  lookalikeOf: LookalikeFlag[];
}

export interface NamespaceTrustDeps {
  store: EventStore;
  namespaces: NamespaceRepository;
  proofs: ProofRunner;
  /** Namespaces whose proof stands (read model), for look-alike detection. */
  verifiedNamespaces: () => Promise<string[]>;
  /** The namespaces a publisher holds (read model), for `listClaims`; at most `limit`. */
  heldNamespaces?: (publisherId: string, limit: number) => Promise<string[]>;
  config: TrustConfig;
  logger: Logger;
  now: () => Date;
}

const CHANGED = 'The namespace kept changing during this call; retry it';

export class NamespaceTrustService {
  constructor(private readonly deps: NamespaceTrustDeps) {}

  private get policy() {
    return { recheckIntervalMs: this.deps.config.proofRecheckMs, validityMs: this.deps.config.proofValidityMs };
  }

  async startClaim(caller: RegistryCaller, namespaceParam: string, body: unknown): Promise<ServiceResult<ClaimChallenge>> {
    if (caller.kind !== 'publisher') return fail('forbidden', 'PUBLISHER_CREDENTIAL_REQUIRED', 'Claiming a namespace needs a publisher credential (tmrp_…)');
    const namespace = canonical(namespaceParam);
    if (typeof namespace !== 'string') return namespace;
    const fields = readFields(body, { method: 'string' }, ['method']);
    if (!fields.ok) return fields;
    const method = fields.value['method'] as OwnershipMethod;
    if (!OWNERSHIP_METHODS.includes(method)) return fail('invalid', 'METHOD_INVALID', `method must be one of ${OWNERSHIP_METHODS.join(', ')}`, '/method');
    const { state } = await this.deps.namespaces.load(namespace);
    if (state.publisherId !== null && state.publisherId !== caller.publisherId) return held(namespace);

    const now = this.deps.now();
    const claim: ClaimStarted = { namespace, publisherId: caller.publisherId, method, token: createChallengeToken(), startedAt: now.toISOString(), expiresAt: new Date(now.getTime() + this.deps.config.claimTtlMs).toISOString() };
    // 'any': a newer claim simply supersedes the previous one; claims carry no secret and are never published.
    const streamId = claimStreamId(caller.publisherId, namespace);
    const first = (await this.deps.store.readStream(streamId, { limit: 1 })).length === 0;
    await this.deps.store.append(streamId, 'any', [{ eventType: 'NamespaceClaimStarted', data: claim }], { topic: null });
    if (first) await this.deps.store.append(claimIndexStreamId(caller.publisherId), 'any', [{ eventType: 'NamespaceClaimIndexed', data: { namespace, publisherId: caller.publisherId, at: claim.startedAt } }], { topic: null });
    this.deps.logger.log('info', 'namespace claim started', { namespace, method, publisherId: caller.publisherId });
    return succeed({ namespace, method, token: claim.token, expiresAt: claim.expiresAt, instructions: instructionsFor(method, namespace, claim.token) });
  }

  async checkClaim(caller: RegistryCaller, namespaceParam: string, body: unknown): Promise<ServiceResult<NamespaceVerifiedView>> {
    if (caller.kind !== 'publisher') return fail('forbidden', 'PUBLISHER_CREDENTIAL_REQUIRED', 'Checking a claim needs a publisher credential (tmrp_…)');
    const namespace = canonical(namespaceParam);
    if (typeof namespace !== 'string') return namespace;
    const fields = readFields(body ?? {}, { proof: 'string' }, []);
    if (!fields.ok) return fields;
    const proof = fields.value['proof'] as string | undefined;
    if (proof !== undefined && (proof.length === 0 || proof.length > MAX_PROOF_LENGTH)) return fail('invalid', 'PROOF_TOO_LONG', `proof must be 1-${MAX_PROOF_LENGTH} characters`, '/proof');

    const recorded = await this.deps.store.readStream(claimStreamId(caller.publisherId, namespace));
    // The latest claim: a failed check after it (NamespaceClaimFailed) leaves it standing.
    const claim = recorded.findLast((event) => event.envelope.eventType === 'NamespaceClaimStarted')?.envelope.data as ClaimStarted | undefined;
    if (!claim) return fail('not_found', 'CLAIM_NOT_FOUND', `Start a claim first: POST /v1/namespaces/${namespace}/claims {"method": …}`, '/namespace');
    const now = this.deps.now();
    if (now.getTime() >= Date.parse(claim.expiresAt)) return fail('conflict', 'CLAIM_EXPIRED', 'This claim expired; start a new one to get a fresh token', '/namespace');
    if (claim.method === 'did-web' && proof === undefined) return fail('invalid', 'FIELD_REQUIRED', 'proof is required for did-web: the detached JWS over the challenge', '/proof');
    const { state } = await this.deps.namespaces.load(namespace);
    if (state.publisherId !== null && state.publisherId !== caller.publisherId) return held(namespace);

    const outcome = await this.deps.proofs(claim.method, namespace, claim.token, claim.method === 'did-web' ? proof : undefined);
    if (!outcome.ok) {
      this.deps.logger.log('info', 'namespace proof failed', { namespace, method: claim.method, code: outcome.code });
      const failed: ClaimFailed = { namespace, publisherId: caller.publisherId, code: outcome.code, failedAt: now.toISOString() };
      await this.deps.store.append(claimStreamId(caller.publisherId, namespace), 'any', [{ eventType: 'NamespaceClaimFailed', data: failed }], { topic: null });
      return { ok: false, failure: { kind: 'unprocessable', code: 'PROOF_FAILED', detail: `The ${claim.method} proof did not succeed (${outcome.code})`, issues: [{ path: '', code: outcome.code, severity: 'error', message: outcome.message }], extra: { ownershipCode: outcome.code } } };
    }
    const record = proofRecordFrom(namespace, outcome, this.policy);
    const result = await this.deps.namespaces.execute(namespace, (current) =>
      decideProofSucceeded(current, { publisherId: caller.publisherId, method: claim.method, token: claim.token, ...(claim.method === 'did-web' && proof !== undefined ? { proof } : {}), verifiedAt: record.verifiedAt, expiresAt: record.expiresAt }),
    );
    if (!result.decision) return fail('conflict', 'NAMESPACE_CHANGED', CHANGED);
    if (!result.decision.ok) return fromRefusal(result.decision.refusal);
    this.deps.logger.log('info', 'namespace verified', { namespace, method: claim.method, publisherId: caller.publisherId });
    const lookalikeOf = await this.flagLookalikes(namespace);
    return succeed({ namespace, publisherId: caller.publisherId, method: claim.method, verifiedAt: record.verifiedAt, expiresAt: record.expiresAt, lookalikeOf });
  }

  /**
   * The caller's namespaces, newest claim first: those it claimed (each with its latest claim, what to create,
   * and whether it is verified, pending, failed or expired), then those it holds without a claim of its own (an
   * operator's grant). At most 100.
   */
  async listClaims(caller: RegistryCaller): Promise<ServiceResult<ClaimListing[]>> {
    if (caller.kind !== 'publisher') return fail('forbidden', 'PUBLISHER_CREDENTIAL_REQUIRED', 'Listing claims needs a publisher credential (tmrp_…)');
    const indexed = await this.deps.store.readStream(claimIndexStreamId(caller.publisherId), { limit: INDEX_READ });
    const claimed = [...new Set(indexed.map((event) => (event.envelope.data as { namespace: string }).namespace))].reverse().slice(0, LISTED_CLAIMS);
    const now = this.deps.now();
    const listings: ClaimListing[] = [];
    for (const namespace of claimed) {
      const events = await this.deps.store.readStream(claimStreamId(caller.publisherId, namespace));
      const lastStart = events.findLastIndex((event) => event.envelope.eventType === 'NamespaceClaimStarted');
      const claim = events[lastStart]?.envelope.data as ClaimStarted | undefined;
      if (!claim) continue;
      const failed = events.slice(lastStart + 1).findLast((event) => event.envelope.eventType === 'NamespaceClaimFailed')?.envelope.data as ClaimFailed | undefined;
      const { state } = await this.deps.namespaces.load(namespace);
      const held = state.publisherId === caller.publisherId;
      const expired = now.getTime() >= Date.parse(claim.expiresAt);
      const stateOf: ClaimListing['state'] = held && proofStands(state, now) ? 'verified' : failed ? 'failed' : expired ? 'expired' : 'pending';
      listings.push({
        namespace,
        state: stateOf,
        method: claim.method,
        token: claim.token,
        instructions: instructionsFor(claim.method, namespace, claim.token),
        claimedAt: claim.startedAt,
        expiresAt: claim.expiresAt,
        ...(stateOf === 'failed' && failed ? { failureCode: failed.code } : {}),
      });
    }
    const held = (await this.deps.heldNamespaces?.(caller.publisherId, LISTED_CLAIMS)) ?? [];
    for (const namespace of held) {
      if (listings.length >= LISTED_CLAIMS) break;
      if (!claimed.includes(namespace)) listings.push({ namespace, state: 'verified' });
    }
    return succeed(listings);
  }

  /** Flags `namespace` against the verified namespaces; answers its flags (after a grant or a proof). */
  async flagLookalikes(namespace: string): Promise<LookalikeFlag[]> {
    const verified = (await this.deps.verifiedNamespaces()).filter((candidate) => candidate !== namespace);
    const found = findLookalikes(namespace, verified).map((flag) => ({ namespace: flag.namespace, reason: flag.reason }));
    const now = this.deps.now().toISOString();
    const result = await this.deps.namespaces.execute(namespace, (state) => decideLookalikes(state, found, now));
    if (result.decision?.ok && result.changed) this.deps.logger.log('info', 'namespace flagged as look-alike', { namespace, lookalikeOf: found.map((flag) => flag.namespace).join(',') });
    return result.decision ? result.state.trust.lookalikes.map((flag) => ({ ...flag })) : found;
  }

  async view(namespaceParam: string): Promise<ServiceResult<NamespaceTrustView>> {
    const namespace = canonical(namespaceParam);
    if (typeof namespace !== 'string') return namespace;
    const { state } = await this.deps.namespaces.load(namespace);
    const verification = state.trust.verification;
    if (state.publisherId === null && !verification) return fail('not_found', 'NAMESPACE_NOT_FOUND', 'No publisher holds or has proved this namespace', '/namespace');
    const now = this.deps.now();
    return succeed({
      namespace,
      publisherId: state.publisherId,
      verified: proofStands(state, now),
      verification: verification
        ? {
            method: verification.method,
            verifiedAt: verification.verifiedAt,
            expiresAt: verification.expiresAt,
            status: verification.lapsed ? 'lapsed' : proofStatus(verification, now, this.policy),
            ...(verification.lapsed ? { lapsedAt: verification.lapsed.at, lapseCode: verification.lapsed.code } : {}),
          }
        : null,
      signaturePolicy: state.trust.signaturePolicy,
      lookalikeOf: state.trust.lookalikes.map((flag) => ({ ...flag })),
    });
  }

  async setSignaturePolicy(caller: RegistryCaller, namespaceParam: string, body: unknown): Promise<ServiceResult<{ namespace: string; signaturePolicy: SignaturePolicy; changed: boolean }>> {
    const namespace = canonical(namespaceParam);
    if (typeof namespace !== 'string') return namespace;
    const fields = readFields(body, { policy: 'string' }, ['policy']);
    if (!fields.ok) return fields;
    const policy = fields.value['policy'] as SignaturePolicy;
    if (!SIGNATURE_POLICIES.includes(policy)) return fail('invalid', 'POLICY_INVALID', `policy must be one of ${SIGNATURE_POLICIES.join(', ')}`, '/policy');
    const setBy = caller.kind === 'operator' ? `operator:${caller.accountId}` : `publisher:${caller.publisherId}`;
    const now = this.deps.now().toISOString();
    const result = await this.deps.namespaces.execute(namespace, (state) => {
      if (state.publisherId === null) return { ok: false, refusal: { kind: 'not_found', code: 'NAMESPACE_NOT_GRANTED', message: `Namespace ${namespace} is not granted to any publisher`, path: '/namespace' } };
      if (caller.kind === 'publisher' && state.publisherId !== caller.publisherId) return { ok: false, refusal: { kind: 'forbidden', code: 'NAMESPACE_NOT_GRANTED', message: `Namespace ${namespace} is not granted to your publisher`, path: '/namespace' } };
      return decideSignaturePolicy(state, policy, setBy, now);
    });
    if (!result.decision) return fail('conflict', 'NAMESPACE_CHANGED', CHANGED);
    if (!result.decision.ok) return fromRefusal(result.decision.refusal);
    if (result.changed) this.deps.logger.log('info', 'namespace signature policy set', { namespace, policy, setBy });
    return succeed({ namespace, signaturePolicy: policy, changed: result.changed });
  }

  async clearLookalike(caller: RegistryCaller, namespaceParam: string, body: unknown): Promise<ServiceResult<{ namespace: string; cleared: string; lookalikeOf: LookalikeFlag[] }>> {
    if (caller.kind !== 'operator') return fail('forbidden', 'OPERATOR_ONLY', 'Only an operator credential may do this');
    const namespace = canonical(namespaceParam);
    if (typeof namespace !== 'string') return namespace;
    const fields = readFields(body, { lookalikeOf: 'string' }, ['lookalikeOf']);
    if (!fields.ok) return fields;
    const lookalikeOf = fields.value['lookalikeOf'] as string;
    if (lookalikeOf.length > 253) return fail('invalid', 'NAMESPACE_INVALID', 'lookalikeOf is a domain of at most 253 characters', '/lookalikeOf');
    const now = this.deps.now().toISOString();
    const result = await this.deps.namespaces.execute(namespace, (state) => decideClearLookalike(state, lookalikeOf, `operator:${caller.accountId}`, now));
    if (!result.decision) return fail('conflict', 'NAMESPACE_CHANGED', CHANGED);
    if (!result.decision.ok) return fromRefusal(result.decision.refusal);
    this.deps.logger.log('info', 'look-alike flag cleared', { namespace, lookalikeOf, operator: caller.accountId });
    return succeed({ namespace, cleared: lookalikeOf, lookalikeOf: result.state.trust.lookalikes.map((flag) => ({ ...flag })) });
  }
}

type Failed = { ok: false; failure: ServiceFailure };

/** The namespace path parameter, which must already be canonical (lower-case A-labels): else a refusal. */
function canonical(text: string): string | Failed {
  const parsed = parseNamespace(text, '/namespace');
  if (!parsed.ok) return fail('invalid', 'NAMESPACE_INVALID', parsed.issue.message, '/namespace') as Failed;
  if (parsed.namespace !== text) return fail('invalid', 'NAMESPACE_INVALID', `write the namespace in its canonical form: ${parsed.namespace}`, '/namespace') as Failed;
  return parsed.namespace;
}

function held<T>(namespace: string): ServiceResult<T> {
  return fail('conflict', 'NAMESPACE_HELD', `Namespace ${namespace} is held by another publisher; an operator can transfer it`, '/namespace');
}

export function instructionsFor(method: OwnershipMethod, namespace: string, token: string): Record<string, string> {
  switch (method) {
    case 'dns-txt':
      return { recordName: dnsChallengeName(namespace), recordType: 'TXT', recordValue: challengeText(token), note: 'The record also proves subdomains of this namespace to DNS readers; the registry grants exactly this namespace.' };
    case 'https-file':
      return { url: wellKnownAuthUrl(namespace), line: token, note: 'Serve the token on a line of its own, over HTTPS, without redirects, at most 4 KiB.' };
    case 'did-web':
      return {
        did: `did:web:${namespace}`,
        payload: challengeText(token),
        typ: OWNERSHIP_JWS_TYP,
        note: 'Sign the UTF-8 bytes of payload as a detached compact JWS (ES256 or EdDSA, typ as given, kid under the did and listed in its assertionMethod) and send it as "proof" to the check.',
      };
  }
}
