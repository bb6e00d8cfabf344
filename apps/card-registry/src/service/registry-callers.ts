/**
 * Who calls the registry and how they prove it: operator accounts (bearer credentials configured as
 * SHA-256 digests) and publishers, with credentials the operator issues. A publisher credential reads
 * `tmrp_<credentialId>.<secret>`: the id finds its stream without a scan, the secret is 32 random bytes
 * kept only as its SHA-256 (shown once at issue). Authentication reads the credential's stream on every
 * call, on any replica, so a revocation holds at once everywhere. Comparisons are constant-time.
 */
import { randomUUID } from 'node:crypto';

import { digestsEqual, indexOfDigest, mintSecret, sha256, sha256Hex, type OperatorCredential } from '@trustmesh/platform-credentials';
import type { EventStore } from '@trustmesh/platform-event-store';

import { credentialStreamId, type PublisherCredentialIssued, type PublisherCredentialRevoked } from '../persistence/registry.stream';

export const PUBLISHER_CREDENTIAL_PREFIX = 'tmrp_';
export type RegistryCaller = { kind: 'operator'; accountId: string } | { kind: 'publisher'; publisherId: string; credentialId: string };

/** The longest bearer credential looked at: longer ones are refused unhashed. */
const MAX_BEARER = 512;
const CREDENTIAL_ID = /^[0-9a-f]{32}$/;

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

  constructor(
    private readonly operators: readonly OperatorCredential[],
    private readonly store: EventStore,
  ) {
    this.digests = operators.map((operator) => operator.digest);
  }

  /** The caller a bearer credential proves, or null (401). */
  async authenticate(bearer: string | undefined): Promise<RegistryCaller | null> {
    if (!bearer || bearer.length > MAX_BEARER) return null;
    if (bearer.startsWith(PUBLISHER_CREDENTIAL_PREFIX)) return this.publisher(bearer.slice(PUBLISHER_CREDENTIAL_PREFIX.length));
    const operator = this.operators[indexOfDigest(sha256(bearer), this.digests)];
    return operator ? { kind: 'operator', accountId: operator.accountId } : null;
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
