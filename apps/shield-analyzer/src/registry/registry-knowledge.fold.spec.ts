import type { RegistryCardEvent } from '@trustmesh/cards-registry-events';

import { foldCard, MAX_REVISIONS, registryKnowledgeOf, type CardFacts, type NamespaceFacts } from './registry-knowledge.fold';

const NS = 'acme.example';
const ID = 'https://acme.example/agents/billing';
const NOW = new Date('2026-06-01T00:00:00.000Z');

type CardEvent = Parameters<typeof foldCard>[1];

const published = (revision: string, signer = `did:web:${NS}`): CardEvent =>
  ({
    type: 'CardRevisionPublished',
    data: {
      namespace: NS,
      identifier: ID,
      kind: 'mcp-server',
      revision,
      digest: 'sha256:0',
      contentType: 'application/json',
      content: Buffer.from(JSON.stringify({ remotes: [{ url: `https://acme.example/mcp/${revision}` }] })).toString('base64'),
      size: 1,
      summary: { kind: 'mcp-server', name: 'Billing', description: '', tags: [], skills: [], tools: [], protocols: [] },
      status: 'active',
      publisherId: 'acme',
      publishedAt: '2026-01-01T00:00:00.000Z',
      signature: { verified: true, signer, checkedAt: '2026-01-01T00:00:00.000Z' },
    },
  }) satisfies RegistryCardEvent;

const status = (revision: string | null, value: 'deprecated' | 'yanked' | 'deleted'): CardEvent => ({
  type: 'CardStatusChanged',
  data: { namespace: NS, identifier: ID, revision, status: value, publisherId: 'acme', changedAt: '2026-01-02T00:00:00.000Z' },
});

const fold = (events: readonly CardEvent[]): CardFacts | null => events.reduce<CardFacts | null>((card, event, index) => foldCard(card, event, index + 1), null);

const holder = (proof: Partial<NonNullable<NamespaceFacts['proof']>> = {}, publisherId = 'acme'): NamespaceFacts => ({
  namespace: NS,
  publisherId,
  proof: { publisherId: 'acme', method: 'dns-txt', verifiedAt: '2026-01-01T00:00:00.000Z', expiresAt: '2027-01-01T00:00:00.000Z', lapsedAt: null, ...proof },
  lookalikeOf: [],
});

const knowledge = (card: CardFacts | null, facts: NamespaceFacts | null = holder()) => registryKnowledgeOf({ matchedBy: 'identifier', namespace: NS, facts, publisherName: null, card }, NOW);

describe('the registry knowledge fold', () => {
  it('takes the latest visible revision: its status, signature and endpoints', () => {
    const card = fold([published('1.0.0'), published('2.0.0'), status('2.0.0', 'yanked')]);
    expect(knowledge(card).card).toEqual({ identifier: ID, name: 'Billing', status: 'active', latestRevision: '1.0.0', verified: true, endpoints: ['https://acme.example/mcp/1.0.0'] });
  });

  it('calls a card with no visible revision yanked or deleted, and a deleted revision stays deleted', () => {
    expect(knowledge(fold([published('1.0.0'), status(null, 'yanked')])).card?.status).toBe('yanked');
    const deleted = fold([published('1.0.0'), status(null, 'deleted'), status(null, 'deprecated')]);
    expect(knowledge(deleted).card).toMatchObject({ status: 'deleted', verified: false, endpoints: ['https://acme.example/mcp/1.0.0'] });
  });

  it("verifies a card only when signed by the namespace's did:web while the holder's proof stands", () => {
    expect(knowledge(fold([published('1.0.0', 'did:web:other.example')])).card?.verified).toBe(false);
    expect(knowledge(fold([published('1.0.0')]), holder({ lapsedAt: '2026-03-01T00:00:00.000Z' }))).toMatchObject({ ownershipProof: 'lapsed', card: { verified: false } });
    // Transferred to another publisher: the old holder's proof is not the new holder's.
    expect(knowledge(fold([published('1.0.0')]), holder({}, 'globex'))).toMatchObject({ ownershipProof: 'none', publisher: { publisherId: 'globex' }, card: { verified: false } });
    expect(knowledge(fold([published('1.0.0')]), null)).toMatchObject({ ownershipProof: 'none', lookalikeOf: [] });
  });

  it('ignores a status change of a card it never saw, keeps a revision published twice once, and keeps at most the newest revisions', () => {
    expect(fold([status(null, 'yanked')])).toBeNull();
    expect(fold([published('1.0.0'), published('1.0.0')])?.revisions).toHaveLength(1);
    const many = fold(Array.from({ length: MAX_REVISIONS + 5 }, (_, i) => published(`1.0.${i}`)));
    expect(many?.revisions).toHaveLength(MAX_REVISIONS);
    expect(knowledge(many).card?.latestRevision).toBe(`1.0.${MAX_REVISIONS + 4}`);
  });
});
