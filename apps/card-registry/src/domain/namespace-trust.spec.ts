/**
 * The trust part of the namespace aggregate, decided and folded without I/O: proofs granting, renewing and
 * refusing a held namespace, lapses only past expiry and only once, `verified` only for a signature by the
 * namespace's did:web while the proof stands, policy and look-alike flags, re-verification appended only
 * when its outcome differs.
 */
import {
  decideClearLookalike,
  decideLookalikes,
  decideProofFailed,
  decideProofSucceeded,
  decideSignaturePolicy,
  decideSignatureRecheck,
  isRevisionVerified,
  proofStands,
  type SignatureRecord,
} from './namespace-trust';
import { decide, emptyNamespace, evolve, type Decision, type NamespaceState } from './registry-namespace.aggregate';

const NS = 'acme.example';
const T0 = '2026-03-01T00:00:00.000Z';
const EXPIRES = '2026-03-31T00:00:00.000Z';

function apply(state: NamespaceState, decision: Decision): NamespaceState {
  if (!decision.ok) throw new Error(`refused: ${decision.refusal.code}`);
  let version = 0;
  for (const event of decision.events) evolve(state, event, (version += 1));
  return state;
}

const proved = (publisherId = 'acme') => apply(emptyNamespace(NS), decideProofSucceeded(emptyNamespace(NS), { publisherId, method: 'dns-txt', token: 't'.repeat(43), verifiedAt: T0, expiresAt: EXPIRES }));
const signature = (overrides: Partial<SignatureRecord> = {}): SignatureRecord => ({ verified: true, signer: `did:web:${NS}`, kid: `did:web:${NS}#k1`, alg: 'ES256', checkedAt: T0, keyUrl: `https://${NS}/.well-known/did.json`, keyDigest: 'sha256:aa', ...overrides });

describe('namespace trust', () => {
  it('grants an unheld namespace on a proof, renews it for its holder, and refuses another publisher with NAMESPACE_HELD', () => {
    const state = proved();
    expect(state.publisherId).toBe('acme');
    expect(state.trust.verification).toMatchObject({ method: 'dns-txt', verifiedAt: T0, expiresAt: EXPIRES });
    expect(proofStands(state, new Date('2026-03-10T00:00:00Z'))).toBe(true);

    const renewal = decideProofSucceeded(state, { publisherId: 'acme', method: 'dns-txt', token: 't'.repeat(43), verifiedAt: '2026-03-05T00:00:00.000Z', expiresAt: '2026-04-04T00:00:00.000Z' });
    expect(renewal.ok && renewal.events.map((event) => event.type)).toEqual(['NamespaceVerified']);

    const other = decideProofSucceeded(state, { publisherId: 'globex', method: 'https-file', token: 'u'.repeat(43), verifiedAt: T0, expiresAt: EXPIRES });
    expect(other).toMatchObject({ ok: false, refusal: { kind: 'conflict', code: 'NAMESPACE_HELD' } });
  });

  it('lapses only past expiry and only once; a new proof ends the lapse', () => {
    const state = proved();
    expect(decideProofFailed(state, { code: 'OWNERSHIP_DNS_RECORD_MISSING', now: new Date('2026-03-30T00:00:00Z') })).toEqual({ ok: true, events: [] });
    const lapse = decideProofFailed(state, { code: 'OWNERSHIP_DNS_RECORD_MISSING', now: new Date('2026-04-01T00:00:00Z') });
    apply(state, lapse);
    expect(state.trust.verification?.lapsed).toEqual({ at: '2026-04-01T00:00:00.000Z', code: 'OWNERSHIP_DNS_RECORD_MISSING' });
    expect(proofStands(state, new Date('2026-03-02T00:00:00Z'))).toBe(false);
    expect(decideProofFailed(state, { code: 'OWNERSHIP_DNS_RECORD_MISSING', now: new Date('2026-04-02T00:00:00Z') })).toEqual({ ok: true, events: [] });

    apply(state, decideProofSucceeded(state, { publisherId: 'acme', method: 'dns-txt', token: 't'.repeat(43), verifiedAt: '2026-04-03T00:00:00.000Z', expiresAt: '2026-05-03T00:00:00.000Z' }));
    expect(state.trust.verification?.lapsed).toBeUndefined();
    expect(proofStands(state, new Date('2026-04-04T00:00:00Z'))).toBe(true);
  });

  it('calls a revision verified only when its signature verified by the namespace did:web while the proof stands for the holder', () => {
    const state = proved();
    const during = new Date('2026-03-02T00:00:00Z');
    expect(isRevisionVerified(state, signature(), during)).toBe(true);
    expect(isRevisionVerified(state, signature({ signer: 'did:web:other.example' }), during)).toBe(false);
    expect(isRevisionVerified(state, signature({ verified: false, code: 'KEY_NOT_FOUND' }), during)).toBe(false);
    expect(isRevisionVerified(state, undefined, during)).toBe(false);
    expect(isRevisionVerified(state, signature(), new Date('2026-04-01T00:00:00Z'))).toBe(false);
    // An operator grant alone proves nothing.
    const granted = apply(emptyNamespace(NS), decide({ type: 'GrantNamespace', publisherId: 'acme', now: T0 }, emptyNamespace(NS)));
    expect(isRevisionVerified(granted, signature(), during)).toBe(false);
    // After a transfer the previous holder's proof no longer counts.
    apply(state, decide({ type: 'TransferNamespace', toPublisherId: 'globex', now: T0 }, state));
    expect(isRevisionVerified(state, signature(), during)).toBe(false);
  });

  it('sets the signature policy once, and keeps look-alike flags until an operator clears each', () => {
    const state = proved();
    expect(state.trust.signaturePolicy).toBe('verify-if-present');
    apply(state, decideSignaturePolicy(state, 'require', 'publisher:acme', T0));
    expect(state.trust.signaturePolicy).toBe('require');
    expect(decideSignaturePolicy(state, 'require', 'publisher:acme', T0)).toEqual({ ok: true, events: [] });

    apply(state, decideLookalikes(state, [{ namespace: 'acrne.example', reason: 'confusable' }, { namespace: NS, reason: 'tld-swap' }], T0));
    expect(state.trust.lookalikes).toEqual([{ namespace: 'acrne.example', reason: 'confusable' }]);
    expect(decideLookalikes(state, [{ namespace: 'acrne.example', reason: 'confusable' }], T0)).toEqual({ ok: true, events: [] });
    expect(decideClearLookalike(state, 'nobody.example', 'operator:ops', T0)).toMatchObject({ ok: false, refusal: { code: 'LOOKALIKE_NOT_FLAGGED', path: '/lookalikeOf' } });
    apply(state, decideClearLookalike(state, 'acrne.example', 'operator:ops', T0));
    expect(state.trust.lookalikes).toEqual([]);
  });

  it('appends a re-verification only when its outcome differs from the stored one', () => {
    const state = proved();
    apply(
      state,
      decide(
        {
          type: 'PublishRevision',
          publisherId: 'acme',
          identifier: `https://${NS}/agents/a`,
          kind: 'ai-card',
          revision: T0,
          updatedAtMs: Date.parse(T0),
          digest: 'sha256:00',
          contentType: 'application/json',
          content: 'e30=',
          size: 2,
          summary: { kind: 'ai-card', name: 'a', description: 'a', tags: [], skills: [], tools: [], protocols: [] },
          status: 'active',
          signature: signature(),
          now: T0,
        },
        state,
      ),
    );
    expect(decideSignatureRecheck(state, `https://${NS}/agents/a`, T0, signature({ checkedAt: '2026-03-02T00:00:00.000Z' }))).toEqual({ ok: true, events: [] });
    const removed = signature({ verified: false, code: 'KEY_NOT_FOUND', keyDigest: 'sha256:bb', checkedAt: '2026-03-02T00:00:00.000Z' });
    apply(state, decideSignatureRecheck(state, `https://${NS}/agents/a`, T0, removed));
    expect(state.cards.get(`https://${NS}/agents/a`)?.revisions[0]?.signature).toEqual(removed);
    expect(decideSignatureRecheck(state, `https://${NS}/agents/unknown`, T0, removed)).toEqual({ ok: true, events: [] });
  });
});
