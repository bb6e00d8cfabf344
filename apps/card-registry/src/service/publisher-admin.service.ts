/**
 * The operator's side of the registry: register publishers, issue and revoke their credentials, grant a
 * namespace (a domain) to a publisher and transfer it to another (CARDS.md §5 "Ownership verification",
 * "Transfer"). Only operator credentials may call these. Transfer is operator-only for now: a
 * publisher-initiated transfer the target accepts is a later pair of events on the same namespace stream.
 * Proof-based grants (DNS TXT, well-known file, did:web) will append `NamespaceVerified` the same way.
 */
import { ConcurrencyError, type EventStore, type OutboxPublisher } from '@trustmesh/platform-event-store';
import type { Logger } from '@trustmesh/platform-logging';

import { canonicalNamespace } from '../domain/card-identifier';
import { publisherStreamId, type PublisherRegistered } from '../persistence/registry.stream';
import type { NamespaceRepository } from './namespace.repository';
import { PUBLISHER_ID, type IssuedCredential, type RegistryCaller, type RegistryCallers } from './registry-callers';
import { fail, fromRefusal, succeed, type ServiceResult } from './registry-service.result';
import { readFields } from './request-fields';


export interface NamespaceHolding {
  namespace: string;
  publisherId: string;
  /** False when the namespace already stood so (nothing was appended). */
  changed: boolean;
}

export interface PublisherAdminDeps {
  store: EventStore;
  publisher: OutboxPublisher;
  namespaces: NamespaceRepository;
  callers: RegistryCallers;
  logger: Logger;
  now: () => Date;
  /** Runs after a grant that changed the holder (look-alike flags, trust/namespace-trust.service.ts). */
  onNamespaceGranted?: (namespace: string) => Promise<unknown>;
}

export class PublisherAdminService {
  constructor(private readonly deps: PublisherAdminDeps) {}

  async registerPublisher(caller: RegistryCaller, body: unknown): Promise<ServiceResult<PublisherRegistered>> {
    const denied = operatorOnly<PublisherRegistered>(caller);
    if (denied) return denied;
    const fields = readFields(body, { publisherId: 'string', displayName: 'string' }, ['publisherId', 'displayName']);
    if (!fields.ok) return fields;
    const { publisherId, displayName } = fields.value as { publisherId: string; displayName: string };
    if (!PUBLISHER_ID.test(publisherId)) return fail('invalid', 'PUBLISHER_ID_INVALID', 'publisherId must be 1-64 lower-case letters, digits and inner dashes', '/publisherId');
    const reservedBy = this.deps.callers.reservedBy(publisherId);
    if (reservedBy !== null) return fail('invalid', 'PUBLISHER_ID_RESERVED', `Ids starting ${reservedBy}- are the ${reservedBy} service's own publishers; choose another publisherId`, '/publisherId');
    if (displayName.trim().length === 0 || displayName.length > 200) return fail('invalid', 'DISPLAY_NAME_INVALID', 'displayName must be 1-200 characters', '/displayName');
    const registered: PublisherRegistered = { publisherId, displayName: displayName.trim(), registeredAt: this.deps.now().toISOString() };
    try {
      await this.deps.store.append(publisherStreamId(publisherId), 'no-stream', [{ eventType: 'PublisherRegistered', data: registered }]);
    } catch (error) {
      if (error instanceof ConcurrencyError) return fail('conflict', 'PUBLISHER_EXISTS', 'A publisher with this id is already registered', '/publisherId');
      throw error;
    }
    this.deps.publisher.kick();
    this.deps.logger.log('info', 'publisher registered', { publisherId, operator: caller.kind === 'operator' ? caller.accountId : undefined });
    return succeed(registered);
  }

  async getPublisher(caller: RegistryCaller, publisherId: string): Promise<ServiceResult<PublisherRegistered>> {
    const denied = operatorOnly<PublisherRegistered>(caller);
    if (denied) return denied;
    const publisher = await this.publisher(publisherId);
    return publisher ? succeed(publisher) : fail('not_found', 'PUBLISHER_NOT_FOUND', 'No publisher has this id', '/publisherId');
  }

  async issueCredential(caller: RegistryCaller, publisherId: string, body: unknown): Promise<ServiceResult<IssuedCredential>> {
    const denied = operatorOnly<IssuedCredential>(caller);
    if (denied) return denied;
    const fields = readFields(body ?? {}, { label: 'string' }, []);
    if (!fields.ok) return fields;
    const label = fields.value['label'] as string | undefined;
    if (label !== undefined && (label.length === 0 || label.length > 120)) return fail('invalid', 'LABEL_INVALID', 'label must be 1-120 characters', '/label');
    if (!(await this.publisher(publisherId))) return fail('not_found', 'PUBLISHER_NOT_FOUND', 'No publisher has this id', '/publisherId');
    const issued = await this.deps.callers.issue(publisherId, label, this.deps.now().toISOString());
    this.deps.logger.log('info', 'publisher credential issued', { publisherId, credentialId: issued.credentialId });
    return succeed(issued);
  }

  async revokeCredential(caller: RegistryCaller, publisherId: string, credentialId: string): Promise<ServiceResult<{ credentialId: string; revoked: true }>> {
    const denied = operatorOnly<{ credentialId: string; revoked: true }>(caller);
    if (denied) return denied;
    const outcome = await this.deps.callers.revoke(publisherId, credentialId, this.deps.now().toISOString());
    if (outcome === 'not_found') return fail('not_found', 'CREDENTIAL_NOT_FOUND', 'This publisher has no credential with this id', '/credentialId');
    this.deps.logger.log('info', 'publisher credential revoked', { publisherId, credentialId });
    return succeed({ credentialId, revoked: true });
  }

  async grantNamespace(caller: RegistryCaller, body: unknown): Promise<ServiceResult<NamespaceHolding>> {
    const denied = operatorOnly<NamespaceHolding>(caller);
    if (denied) return denied;
    const fields = readFields(body, { namespace: 'string', publisherId: 'string' }, ['namespace', 'publisherId']);
    if (!fields.ok) return fields;
    const { namespace: named, publisherId } = fields.value as { namespace: string; publisherId: string };
    const namespace = canonicalNamespace(named);
    if (namespace === null) return fail('invalid', 'NAMESPACE_INVALID', 'namespace must be a lower-case domain name such as acme.example', '/namespace');
    if (!(await this.publisher(publisherId))) return fail('not_found', 'PUBLISHER_NOT_FOUND', 'No publisher has this id', '/publisherId');
    const now = this.deps.now().toISOString();
    const outcome = await this.deps.namespaces.execute(namespace, () => ({ type: 'GrantNamespace', publisherId, now }));
    if (!outcome.decision) return fail('conflict', 'NAMESPACE_CHANGED', 'The namespace kept changing during this call; retry it');
    if (!outcome.decision.ok) return fromRefusal(outcome.decision.refusal);
    if (outcome.changed) await this.deps.onNamespaceGranted?.(namespace);
    return succeed({ namespace, publisherId, changed: outcome.changed });
  }

  async transferNamespace(caller: RegistryCaller, named: string, body: unknown): Promise<ServiceResult<NamespaceHolding>> {
    const denied = operatorOnly<NamespaceHolding>(caller);
    if (denied) return denied;
    const fields = readFields(body, { toPublisherId: 'string' }, ['toPublisherId']);
    if (!fields.ok) return fields;
    const toPublisherId = fields.value['toPublisherId'] as string;
    const namespace = canonicalNamespace(named);
    if (namespace === null) return fail('invalid', 'NAMESPACE_INVALID', 'namespace must be a lower-case domain name such as acme.example', '/namespace');
    if (!(await this.publisher(toPublisherId))) return fail('not_found', 'PUBLISHER_NOT_FOUND', 'No publisher has this id', '/toPublisherId');
    const now = this.deps.now().toISOString();
    const outcome = await this.deps.namespaces.execute(namespace, () => ({ type: 'TransferNamespace', toPublisherId, now }));
    if (!outcome.decision) return fail('conflict', 'NAMESPACE_CHANGED', 'The namespace kept changing during this call; retry it');
    if (!outcome.decision.ok) return fromRefusal(outcome.decision.refusal);
    this.deps.logger.log('info', 'namespace transferred', { namespace, toPublisherId, changed: outcome.changed });
    return succeed({ namespace, publisherId: toPublisherId, changed: outcome.changed });
  }

  private async publisher(publisherId: string): Promise<PublisherRegistered | null> {
    if (!PUBLISHER_ID.test(publisherId)) return null;
    const [first] = await this.deps.store.readStream(publisherStreamId(publisherId), { limit: 1 });
    return (first?.envelope.data as PublisherRegistered | undefined) ?? null;
  }
}

function operatorOnly<T>(caller: RegistryCaller): ServiceResult<T> | null {
  return caller.kind === 'operator' ? null : fail('forbidden', 'OPERATOR_ONLY', 'Only an operator credential may do this');
}
