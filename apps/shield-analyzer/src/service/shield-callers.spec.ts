import type { EventStore } from '@trustmesh/platform-event-store';
import { createEnvelope, type NewEvent } from '@trustmesh/platform-events';

import { sha256, ShieldCallers } from './shield-callers';

/** The two calls the callers make, kept in memory. */
function memoryStore(): EventStore {
  const streams = new Map<string, ReturnType<typeof createEnvelope>[]>();
  const store = {
    async append(streamId: string, _expected: unknown, events: NewEvent[]) {
      const list = streams.get(streamId) ?? [];
      for (const event of events) list.push(createEnvelope(event, { streamId, streamVersion: list.length + 1, producer: 'test@1' }));
      streams.set(streamId, list);
      return { streamId, streamVersion: list.length, events: [] };
    },
    async readStream(streamId: string) {
      return (streams.get(streamId) ?? []).map((envelope, position) => ({ position, envelope }));
    },
  };
  return store as unknown as EventStore;
}

const TOKEN_ID = '2b1f8a34-5c6d-4e7f-8a9b-0c1d2e3f4a5b';

describe('ShieldCallers', () => {
  let now = new Date('2026-12-01T10:00:00.000Z');
  const store = memoryStore();
  const callers = new ShieldCallers([{ accountId: 'acme', digest: sha256('acme-secret') }, { accountId: 'globex', digest: sha256('globex-secret') }], store, () => now);

  it('maps an operator credential to its account and refuses anything else', async () => {
    expect(await callers.authenticate('globex-secret')).toEqual({ kind: 'operator', accountId: 'globex' });
    expect(await callers.authenticate('globex-secret ')).toBeNull();
    expect(await callers.authenticate(undefined)).toBeNull();
    expect(await callers.authenticate('x'.repeat(600))).toBeNull();
  });

  it('issues an agent token bound to one agent, shown once, valid until it expires', async () => {
    const { token, record } = await callers.issueAgentToken('acme', 'agent-7', { expiresInDays: 2, tokenId: TOKEN_ID });
    expect(record.expiresAt).toBe('2026-12-03T10:00:00.000Z');
    // Only the digest is kept.
    const stored = JSON.stringify(await store.readStream(`shield-agent-token-${TOKEN_ID}`));
    expect(stored).not.toContain(token.split('.')[1]);
    expect(await callers.authenticate(token)).toMatchObject({ kind: 'agent', accountId: 'acme', agentId: 'agent-7', tokenId: TOKEN_ID });
    expect(await callers.authenticate(`${token.slice(0, -1)}${token.endsWith('A') ? 'B' : 'A'}`)).toBeNull();
    expect(await callers.authenticate(token.replace(TOKEN_ID, '3b1f8a34-5c6d-4e7f-8a9b-0c1d2e3f4a5b'))).toBeNull();
    now = new Date('2026-12-03T10:00:00.000Z');
    expect(await callers.authenticate(token)).toBeNull();
  });
});
