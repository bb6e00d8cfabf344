import { decide, emptyNamespace, evolve, latestOf, type CardSummary, type NamespaceCommand, type NamespaceState } from './registry-namespace.aggregate';

const NOW = '2026-03-01T00:00:00.000Z';
const summary = (kind: string, extra: Partial<CardSummary> = {}): CardSummary => ({ kind, name: 'n', description: 'd', tags: [], skills: [], tools: [], protocols: [], ...extra });

function publish(revision: string, digest: string, extra: Partial<Extract<NamespaceCommand, { type: 'PublishRevision' }>> = {}): NamespaceCommand {
  return { type: 'PublishRevision', publisherId: 'acme', identifier: 'com.acme/ledger', kind: 'mcp-server', revision, digest, contentType: 'application/json', content: 'e30=', size: 2, summary: summary('mcp-server', { version: revision }), status: 'active', now: NOW, ...extra };
}

/** Applies `command` to `state` (which must accept it) and returns the state after. */
function run(state: NamespaceState, command: NamespaceCommand): NamespaceState {
  const decision = decide(command, state);
  if (!decision.ok) throw new Error(decision.refusal.code);
  let version = 0;
  for (const event of decision.events) evolve(state, event, (version += 1));
  return state;
}

function granted(): NamespaceState {
  return run(emptyNamespace('acme.example'), { type: 'GrantNamespace', publisherId: 'acme', now: NOW });
}

const refusalOf = (command: NamespaceCommand, state: NamespaceState) => {
  const decision = decide(command, state);
  return decision.ok ? null : decision.refusal.code;
};

describe('namespace aggregate', () => {
  it('refuses publishing in a namespace not granted to the publisher, and a grant of a held namespace to another', () => {
    expect(refusalOf(publish('1.0.0', 'sha256:a'), emptyNamespace('acme.example'))).toBe('NAMESPACE_NOT_GRANTED');
    expect(refusalOf({ type: 'GrantNamespace', publisherId: 'globex', now: NOW }, granted())).toBe('NAMESPACE_TAKEN');
    const again = decide({ type: 'GrantNamespace', publisherId: 'acme', now: NOW }, granted());
    expect(again).toEqual({ ok: true, events: [] });
  });

  it('keeps a revision immutable: the same digest again appends nothing, another digest is REVISION_CONFLICT', () => {
    const state = run(granted(), publish('1.0.0', 'sha256:a'));
    expect(decide(publish('1.0.0', 'sha256:a'), state)).toEqual({ ok: true, events: [] });
    expect(refusalOf(publish('1.0.0', 'sha256:b'), state)).toBe('REVISION_CONFLICT');
  });

  it('requires a strictly later updatedAt for AI Card revisions', () => {
    const card = (revision: string, digest: string) => publish(revision, digest, { identifier: 'did:web:acme.example', kind: 'ai-card', updatedAtMs: Date.parse(revision), summary: summary('ai-card', { updatedAt: revision }) });
    const state = run(granted(), card('2026-02-01T10:00:00Z', 'sha256:a'));
    expect(refusalOf(card('2026-02-01T09:00:00Z', 'sha256:b'), state)).toBe('REVISION_STALE');
    // The same instant written another way is not later either.
    expect(refusalOf(card('2026-02-01T11:00:00+01:00', 'sha256:c'), state)).toBe('REVISION_STALE');
    expect(decide(card('2026-02-01T10:00:01Z', 'sha256:d'), state).ok).toBe(true);
  });

  it('takes the highest SemVer as latest, skipping yanked revisions, and none when all are hidden', () => {
    let state = granted();
    for (const version of ['1.2.0', '1.10.0', '1.9.0']) state = run(state, publish(version, `sha256:${version}`));
    const card = () => state.cards.get('com.acme/ledger')!;
    expect(latestOf(card())?.revision).toBe('1.10.0');
    state = run(state, { type: 'ChangeStatus', publisherId: 'acme', identifier: 'com.acme/ledger', revision: '1.10.0', status: 'yanked', now: NOW });
    expect(latestOf(card())?.revision).toBe('1.9.0');
    state = run(state, { type: 'ChangeStatus', publisherId: 'acme', identifier: 'com.acme/ledger', revision: null, status: 'yanked', now: NOW });
    expect(latestOf(card())).toBeNull();
  });

  it('makes deletion final: a deleted revision keeps its status, a deleted card takes no revision, status or rename', () => {
    let state = run(run(granted(), publish('1.0.0', 'sha256:a')), publish('2.0.0', 'sha256:b'));
    state = run(state, { type: 'ChangeStatus', publisherId: 'acme', identifier: 'com.acme/ledger', revision: '1.0.0', status: 'deleted', message: 'leak', now: NOW });
    expect(refusalOf({ type: 'ChangeStatus', publisherId: 'acme', identifier: 'com.acme/ledger', revision: '1.0.0', status: 'active', now: NOW }, state)).toBe('REVISION_DELETED');
    state = run(state, { type: 'ChangeStatus', publisherId: 'acme', identifier: 'com.acme/ledger', revision: null, status: 'yanked', now: NOW });
    expect(state.cards.get('com.acme/ledger')!.revisions.map((revision) => revision.status)).toEqual(['deleted', 'yanked']);
    state = run(state, { type: 'ChangeStatus', publisherId: 'acme', identifier: 'com.acme/ledger', revision: null, status: 'deleted', now: NOW });
    expect(state.cards.get('com.acme/ledger')!.deleted).toEqual({ at: NOW });
    expect(refusalOf(publish('3.0.0', 'sha256:c'), state)).toBe('CARD_DELETED');
    expect(refusalOf({ type: 'ChangeStatus', publisherId: 'acme', identifier: 'com.acme/ledger', revision: null, status: 'active', now: NOW }, state)).toBe('CARD_DELETED');
    expect(refusalOf({ type: 'RenameCard', publisherId: 'acme', from: 'com.acme/ledger', to: 'com.acme/books', now: NOW }, state)).toBe('CARD_DELETED');
  });

  it('renames once: the old identifier then refuses new revisions, a second rename elsewhere is refused, the same one is idempotent', () => {
    let state = run(granted(), publish('1.0.0', 'sha256:a'));
    state = run(state, { type: 'RenameCard', publisherId: 'acme', from: 'com.acme/ledger', to: 'com.acme/books', now: NOW });
    expect(refusalOf(publish('2.0.0', 'sha256:b'), state)).toBe('CARD_RENAMED');
    expect(decide({ type: 'RenameCard', publisherId: 'acme', from: 'com.acme/ledger', to: 'com.acme/books', now: NOW }, state)).toEqual({ ok: true, events: [] });
    expect(refusalOf({ type: 'RenameCard', publisherId: 'acme', from: 'com.acme/ledger', to: 'com.acme/other', now: NOW }, state)).toBe('CARD_RENAMED');
  });

  it('transfers a namespace: the new holder may publish, the old one may not', () => {
    let state = run(granted(), { type: 'TransferNamespace', toPublisherId: 'globex', now: NOW });
    expect(state.publisherId).toBe('globex');
    expect(refusalOf(publish('1.0.0', 'sha256:a'), state)).toBe('NAMESPACE_NOT_GRANTED');
    state = run(state, publish('1.0.0', 'sha256:a', { publisherId: 'globex' }));
    expect(state.cards.size).toBe(1);
    expect(refusalOf({ type: 'TransferNamespace', toPublisherId: 'acme', now: NOW }, emptyNamespace('other.example'))).toBe('NAMESPACE_NOT_GRANTED');
  });

  it('takes a NamespaceVerified (written by the trust decisions) as a grant with its proof, and a transfer drops the proof', () => {
    const state = evolve(emptyNamespace('acme.example'), { type: 'NamespaceVerified', data: { namespace: 'acme.example', publisherId: 'acme', method: 'dns-txt', verifiedAt: NOW } }, 1);
    expect(state).toMatchObject({ publisherId: 'acme', verifiedBy: { publisherId: 'acme', method: 'dns-txt' } });
    expect(run(state, { type: 'TransferNamespace', toPublisherId: 'globex', now: NOW }).verifiedBy).toBeUndefined();
  });
});
