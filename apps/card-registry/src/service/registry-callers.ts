/**
 * Who calls the registry and how they prove it: operator accounts (bearer credentials configured as
 * SHA-256 digests) and publishers, with credentials the operator issues. A publisher credential reads
 * `tmrp_<credentialId>.<secret>`: the id finds its stream without a scan, the secret is 32 random bytes
 * kept only as its SHA-256 (shown once at issue). Authentication reads the credential's stream on every
 * call, on any replica, so a revocation holds at once everywhere. Comparisons are constant-time.
 *
 * Delegated service credentials (`REGISTRY_SERVICE_CREDENTIALS`, libs/platform/credentials): a service such as the
 * console acts, with one credential, as the publisher `<service>-<id>` that `trustmesh-on-behalf-of` names, one per
 * person of its own. The publisher is registered on its first call through the same `PublisherRegistered` event
 * an operator's registration appends (idempotently: the stream's expected version decides), and from then on it
 * is a publisher like any other: it holds only the namespaces granted to or proved by it, and every document,
 * signature and quota rule applies to it. Operators cannot register ids inside a service's prefix
 * (`reservedBy`), so a delegated publisher never lands on one an operator made.
 */
import { randomUUID } from 'node:crypto';

import { delegatedAccount, digestsEqual, indexOfDigest, mintSecret, sha256, sha256Hex, type OperatorCredential, type ServiceCredential } from '@trustmesh/platform-credentials';
import { ConcurrencyError, type EventStore } from '@trustmesh/platform-event-store';

import { credentialStreamId, publisherStreamId, type PublisherCredentialIssued, type PublisherCredentialRevoked, type PublisherRegistered } from '../persistence/registry.stream';
import { fail, succeed, type ServiceResult } from './registry-service.result';

export const PUBLISHER_CREDENTIAL_PREFIX = 'tmrp_';
/**
 * `credentialId` keys the per-credential rate limit: a delegated publisher's is `delegated:<publisherId>`, so one
 * person of a service never spends another's allowance.
 */
export type RegistryCaller = { kind: 'operator'; accountId: string } | { kind: 'publisher'; publisherId: string; credentialId: string };

/** The longest bearer credential looked at: longer ones are refused unhashed. */
const MAX_BEARER = 512;
const CREDENTIAL_ID = /^[0-9a-f]{32}$/;
/** A publisher id (publisher-admin.service.ts), and what may follow `<service>-` in a delegated one. */
export const PUBLISHER_ID = /^[a-z0-9](?:[a-z0-9-]{0,62}[a-z0-9])?$/;
const DELEGATED_ID = /^[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?$/;
/** Delegated publishers known to be registered, kept so a call costs no append; forgotten whole past the bound. */
const KNOWN_DELEGATED_MAX = 10_000;
const UNAUTHENTICATED = 'A valid bearer credential is required';

export interface DelegationOptions {
  services: readonly ServiceCredential[];
  /** Told after a delegated publisher was registered (the outbox publisher's kick). */
  onRegistered?: () => void;
  now?: () => Date;
}

export interface IssuedCredential {
  credentialId: string;
  publisherId: string;
  /** Shown once: only its SHA-256 is kept. */
  credential: string;
  label?: string;
  issuedAt: string;
}

export class RegistryCallers {
  private readonly digests: readonly Buffer[];
  private readonly services: readonly ServiceCredential[];
  private readonly serviceDigests: readonly Buffer[];
  private readonly knownDelegated = new Set<string>();

  constructor(
    private readonly operators: readonly OperatorCredential[],
    private readonly store: EventStore,
    private readonly delegation: DelegationOptions = { services: [] },
  ) {
    this.digests = operators.map((operator) => operator.digest);
    this.services = delegation.services;
    this.serviceDigests = this.services.map((service) => service.digest);
  }

  /**
   * The caller a bearer credential proves, or why not: 401 `UNAUTHENTICATED` without a valid credential; with a
   * service credential, 401 `ON_BEHALF_OF_MISSING` / `ON_BEHALF_OF_INVALID` or 403 `ON_BEHALF_OF_FOREIGN` for
   * `onBehalfOf` (`trustmesh-on-behalf-of`), which every other credential ignores.
   */
  async authenticate(bearer: string | undefined, onBehalfOf?: string): Promise<ServiceResult<RegistryCaller>> {
    if (!bearer || bearer.length > MAX_BEARER) return fail('unauthenticated', 'UNAUTHENTICATED', UNAUTHENTICATED);
    if (bearer.startsWith(PUBLISHER_CREDENTIAL_PREFIX)) {
      const publisher = await this.publisher(bearer.slice(PUBLISHER_CREDENTIAL_PREFIX.length));
      return publisher ? succeed(publisher) : fail('unauthenticated', 'UNAUTHENTICATED', UNAUTHENTICATED);
    }
    const digest = sha256(bearer);
    const operator = this.operators[indexOfDigest(digest, this.digests)];
    if (operator) return succeed({ kind: 'operator', accountId: operator.accountId });
    const service = this.services[indexOfDigest(digest, this.serviceDigests)];
    if (!service) return fail('unauthenticated', 'UNAUTHENTICATED', UNAUTHENTICATED);
    const delegated = delegatedAccount(onBehalfOf, service.service, '-', DELEGATED_ID);
    if (delegated.ok && PUBLISHER_ID.test(delegated.account)) {
      await this.ensureRegistered(service.service, delegated.account);
      return succeed({ kind: 'publisher', publisherId: delegated.account, credentialId: `delegated:${delegated.account}` });
    }
    if (!delegated.ok && delegated.reason === 'foreign') return fail('forbidden', 'ON_BEHALF_OF_FOREIGN', `This service credential acts only for publishers ${service.service}-<id>`);
    if (!delegated.ok && delegated.reason === 'missing') {
      return fail('unauthenticated', 'ON_BEHALF_OF_MISSING', `A service credential acts for one publisher: name it in trustmesh-on-behalf-of as ${service.service}-<id>`);
    }
    return fail('unauthenticated', 'ON_BEHALF_OF_INVALID', `trustmesh-on-behalf-of must be ${service.service}-<id>: a publisher id of at most 64 lower-case letters, digits and inner dashes`);
  }

  /** The configured service whose delegated publishers `publisherId` would be among (an operator may not register it), or null. */
  reservedBy(publisherId: string): string | null {
    return this.services.find((service) => publisherId.startsWith(`${service.service}-`))?.service ?? null;
  }

  /** Registers a delegated publisher on its first call: `no-stream`, so a publisher already there (another replica's call) is left as it is. */
  private async ensureRegistered(service: string, publisherId: string): Promise<void> {
    if (this.knownDelegated.has(publisherId)) return;
    const registered: PublisherRegistered = { publisherId, displayName: `${service} account ${publisherId.slice(service.length + 1)}`, registeredAt: (this.delegation.now?.() ?? new Date()).toISOString() };
    try {
      await this.store.append(publisherStreamId(publisherId), 'no-stream', [{ eventType: 'PublisherRegistered', data: registered }]);
      this.delegation.onRegistered?.();
    } catch (error) {
      if (!(error instanceof ConcurrencyError)) throw error;
    }
    if (this.knownDelegated.size >= KNOWN_DELEGATED_MAX) this.knownDelegated.clear();
    this.knownDelegated.add(publisherId);
  }

  /** Mints a credential for `publisherId` (which the caller checked exists) and stores its digest. */
  async issue(publisherId: string, label: string | undefined, now: string): Promise<IssuedCredential> {
    const credentialId = randomUUID().replace(/-/g, '');
    const secret = mintSecret();
    const issued: PublisherCredentialIssued = { credentialId, publisherId, secretSha256: sha256Hex(secret), ...(label !== undefined ? { label } : {}), issuedAt: now };
    await this.store.append(credentialStreamId(credentialId), 'no-stream', [{ eventType: 'PublisherCredentialIssued', data: issued }], { topic: null });
    return { credentialId, publisherId, credential: `${PUBLISHER_CREDENTIAL_PREFIX}${credentialId}.${secret}`, ...(label !== undefined ? { label } : {}), issuedAt: now };
  }

  /** Revokes the credential if it belongs to `publisherId`: 'revoked' (also when already), or 'not_found'. */
  async revoke(publisherId: string, credentialId: string, now: string): Promise<'revoked' | 'not_found'> {
    if (!CREDENTIAL_ID.test(credentialId)) return 'not_found';
    const events = await this.store.readStream(credentialStreamId(credentialId));
    const issued = events[0]?.envelope.data as PublisherCredentialIssued | undefined;
    if (!issued || issued.publisherId !== publisherId) return 'not_found';
    if (events.length > 1) return 'revoked';
    const revoked: PublisherCredentialRevoked = { credentialId, publisherId, revokedAt: now };
    // 'any': revoking twice at once ends revoked either way.
    await this.store.append(credentialStreamId(credentialId), 'any', [{ eventType: 'PublisherCredentialRevoked', data: revoked }], { topic: null });
    return 'revoked';
  }

  private async publisher(idAndSecret: string): Promise<RegistryCaller | null> {
    const dot = idAndSecret.indexOf('.');
    const credentialId = idAndSecret.slice(0, dot);
    if (dot < 0 || !CREDENTIAL_ID.test(credentialId)) return null;
    const events = await this.store.readStream(credentialStreamId(credentialId));
    const issued = events[0]?.envelope.data as PublisherCredentialIssued | undefined;
    if (!issued || events.some((event) => event.envelope.eventType === 'PublisherCredentialRevoked')) return null;
    if (!digestsEqual(sha256(idAndSecret.slice(dot + 1)), Buffer.from(issued.secretSha256, 'hex'))) return null;
    return { kind: 'publisher', publisherId: issued.publisherId, credentialId };
  }
}
