/**
 * The workspace card builder: every card it builds is a valid AI Card v1 by the registry's own validator
 * (the one `PublishCard` runs), with no warning, for any content PublishWorkspaceCard admits; and the same
 * state always gives the same bytes (a retried delivery is the registry's UNCHANGED).
 */
// The registry's validator is the judge of what the relay publishes; the relay's code never imports it.
// eslint-disable-next-line @nx/enforce-module-boundaries
import { summarizeDocument, validateDocument } from '@trustmesh/cards-documents';
import fc from 'fast-check';

import { buildWorkspaceCard, workspaceCardBytes, workspaceCardIdentifier, type WorkspaceCardState } from './workspace-card.builder';

const WORKSPACE = '0190f5a2-7c1e-7a3b-9d4e-5f6a7b8c9d0e';

function state(overrides: Partial<WorkspaceCardState> = {}): WorkspaceCardState {
  return {
    workspaceId: WORKSPACE,
    identifier: workspaceCardIdentifier('relay.example.com', WORKSPACE),
    name: 'Ada\'s coding agent',
    description: 'Runs on Ada\'s laptop; reachable through the Trustmesh relay.',
    tags: ['coding', 'companion'],
    endpoint: 'https://relay.example.com',
    endToEndEncrypted: false,
    createdAt: '2026-12-01T10:00:00.000Z',
    revision: '2026-12-02T11:30:00.123Z',
    publisherName: 'Trustmesh Relay',
    namespace: 'relay.example.com',
    ...overrides,
  };
}

describe('workspace card builder', () => {
  it('builds a valid AI Card v1 whose id, revision, interface and publisher are the workspace\'s', () => {
    const result = validateDocument(workspaceCardBytes(state({ endpoint: 'https://relay.example.com:8443/edge' })), { kind: 'ai-card' });
    expect(result.errors).toEqual([]);
    expect(result.warnings).toEqual([]);
    expect(summarizeDocument(result)).toMatchObject({
      kind: 'ai-card',
      identifier: `https://relay.example.com/relay/workspaces/${WORKSPACE}`,
      updatedAt: '2026-12-02T11:30:00.123Z',
      name: 'Ada\'s coding agent',
      tags: ['coding', 'companion'],
      protocols: ['roll-relay'],
      publisher: { identifier: 'https://relay.example.com', name: 'Trustmesh Relay' },
    });
    const card = buildWorkspaceCard(state({ endpoint: 'https://relay.example.com:8443/edge', endToEndEncrypted: true }));
    expect(card['services']).toEqual({
      'roll-relay': expect.objectContaining({
        type: 'roll-relay',
        protocolSpecific: expect.objectContaining({
          relay: 'https://relay.example.com:8443/edge',
          endpoint: 'wss://relay.example.com:8443/edge/v1/browser',
          workspaceId: WORKSPACE,
          endToEndEncrypted: true,
        }),
      }),
    });
  });

  it('leaves tags out when there are none (the seed has no empty-array rule, but nothing says "untagged" better)', () => {
    const result = validateDocument(workspaceCardBytes(state({ tags: [] })), { kind: 'ai-card' });
    expect(result.valid).toBe(true);
    expect(buildWorkspaceCard(state({ tags: [] }))).not.toHaveProperty('tags');
  });

  it('is valid for any name, description, tags and endpoint the RPC admits, and deterministic', () => {
    const text = (max: number) => fc.string({ minLength: 1, maxLength: max, unit: 'binary' }).filter((value) => value.trim() !== '');
    const host = fc.domain().map((domain) => domain.toLowerCase());
    fc.assert(
      fc.property(text(100), text(1000), fc.uniqueArray(text(40), { maxLength: 16 }), host, fc.option(fc.integer({ min: 1, max: 65535 }), { nil: undefined }), (name, description, tags, domain, port) => {
        const candidate = state({ name, description, tags, endpoint: `https://${domain}${port ? `:${port}` : ''}` });
        const bytes = workspaceCardBytes(candidate);
        const result = validateDocument(bytes, { kind: 'ai-card' });
        expect(result.errors).toEqual([]);
        expect(workspaceCardBytes({ ...candidate }).equals(bytes)).toBe(true);
      }),
      { numRuns: 200 },
    );
  });
});
