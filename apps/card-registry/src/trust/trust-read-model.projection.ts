/**
 * The trust tables of the registry's read model (schema: ../../prisma/schema.prisma, migration
 * `namespace_trust`), applied by the registry read-model projection in the same transaction as its own
 * rows: namespaces' proofs and signature policies, look-alike flags, and the signature outcome of each
 * signed revision. The re-check task and look-alike detection read them; single-card reads fold the stream.
 * Inserts skip rows already there and updates set absolute values, so a replay rebuilds the same rows.
 */
import type { SqlExecutor } from '@trustmesh/platform-database';

import type { SignatureRecord } from '../domain/namespace-trust';
import type { NamespaceEvent } from '../domain/registry-namespace.aggregate';

type PublishedRevision = Extract<NamespaceEvent, { type: 'CardRevisionPublished' }>['data'];

async function recordSignature(tx: SqlExecutor, namespace: string, identifier: string, revision: string, signature: SignatureRecord): Promise<void> {
  await tx.query(
    `INSERT INTO registry_revision_signatures (identifier, revision, namespace, verified, signer, kid, alg, code, checked_at, key_url, key_digest)
     VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9::timestamptz, $10, $11)
     ON CONFLICT (identifier, revision) DO UPDATE SET verified = EXCLUDED.verified, signer = EXCLUDED.signer, kid = EXCLUDED.kid, alg = EXCLUDED.alg,
       code = EXCLUDED.code, checked_at = EXCLUDED.checked_at, key_url = EXCLUDED.key_url, key_digest = EXCLUDED.key_digest`,
    [identifier, revision, namespace, signature.verified, signature.signer ?? null, signature.kid ?? null, signature.alg ?? null, signature.code ?? null, signature.checkedAt, signature.keyUrl ?? null, signature.keyDigest ?? null],
  );
}

/**
 * Records the signature outcome of each signed revision among `publications` (consecutive
 * `CardRevisionPublished` events, in order) in one statement: when one revision appears twice, its last
 * outcome stands, as when each event overwrites the row in turn.
 */
export async function recordPublishedSignatures(tx: SqlExecutor, publications: readonly PublishedRevision[]): Promise<void> {
  const last = new Map<string, Record<string, unknown>>();
  for (const { namespace, identifier, revision, signature } of publications) {
    if (!signature) continue;
    const key = JSON.stringify([identifier, revision]);
    last.delete(key);
    last.set(key, {
      identifier,
      revision,
      namespace,
      verified: signature.verified,
      signer: signature.signer ?? null,
      kid: signature.kid ?? null,
      alg: signature.alg ?? null,
      code: signature.code ?? null,
      checked_at: signature.checkedAt,
      key_url: signature.keyUrl ?? null,
      key_digest: signature.keyDigest ?? null,
    });
  }
  if (last.size === 0) return;
  await tx.query(
    `INSERT INTO registry_revision_signatures (identifier, revision, namespace, verified, signer, kid, alg, code, checked_at, key_url, key_digest)
     SELECT identifier, revision, namespace, verified, signer, kid, alg, code, checked_at, key_url, key_digest
       FROM json_to_recordset($1::json) AS s(identifier text, revision text, namespace text, verified boolean, signer text, kid text, alg text, code text, checked_at timestamptz, key_url text, key_digest text)
     ON CONFLICT (identifier, revision) DO UPDATE SET verified = EXCLUDED.verified, signer = EXCLUDED.signer, kid = EXCLUDED.kid, alg = EXCLUDED.alg,
       code = EXCLUDED.code, checked_at = EXCLUDED.checked_at, key_url = EXCLUDED.key_url, key_digest = EXCLUDED.key_digest`,
    [JSON.stringify([...last.values()])],
  );
}

/**
 * Applies `event` to the trust tables (a no-op for events they do not follow). The signature outcomes of
 * card publications are recorded in lots, `recordPublishedSignatures`.
 */
export async function applyTrustReadModel(tx: SqlExecutor, event: NamespaceEvent): Promise<void> {
  switch (event.type) {
    case 'NamespaceVerified': {
      const data = event.data;
      if (data.expiresAt === undefined) return;
      await tx.query(
        `INSERT INTO registry_namespace_trust (namespace, publisher_id, method, verified_at, expires_at, lapsed_at, updated_at) VALUES ($1, $2, $3, $4::timestamptz, $5::timestamptz, NULL, $4::timestamptz)
         ON CONFLICT (namespace) DO UPDATE SET publisher_id = EXCLUDED.publisher_id, method = EXCLUDED.method, verified_at = EXCLUDED.verified_at, expires_at = EXCLUDED.expires_at, lapsed_at = NULL, updated_at = EXCLUDED.updated_at`,
        [data.namespace, data.publisherId, data.method, data.verifiedAt, data.expiresAt],
      );
      return;
    }
    case 'NamespaceProofLapsed':
      await tx.query('UPDATE registry_namespace_trust SET lapsed_at = $2::timestamptz, updated_at = $2::timestamptz WHERE namespace = $1', [event.data.namespace, event.data.lapsedAt]);
      return;
    case 'NamespaceSignaturePolicySet':
      await tx.query(
        `INSERT INTO registry_namespace_trust (namespace, signature_policy, updated_at) VALUES ($1, $2, $3::timestamptz)
         ON CONFLICT (namespace) DO UPDATE SET signature_policy = EXCLUDED.signature_policy, updated_at = EXCLUDED.updated_at`,
        [event.data.namespace, event.data.policy, event.data.setAt],
      );
      return;
    case 'NamespaceLookalikeFlagged':
      for (const flag of event.data.lookalikeOf) {
        await tx.query('INSERT INTO registry_namespace_lookalikes (namespace, lookalike_of, reason, flagged_at) VALUES ($1, $2, $3, $4::timestamptz) ON CONFLICT DO NOTHING', [event.data.namespace, flag.namespace, flag.reason, event.data.flaggedAt]);
      }
      return;
    case 'NamespaceLookalikeCleared':
      await tx.query('DELETE FROM registry_namespace_lookalikes WHERE namespace = $1 AND lookalike_of = $2', [event.data.namespace, event.data.lookalikeOf]);
      return;
    case 'CardSignatureRechecked':
      await recordSignature(tx, event.data.namespace, event.data.identifier, event.data.revision, event.data.signature);
      return;
    default:
      return;
  }
}
