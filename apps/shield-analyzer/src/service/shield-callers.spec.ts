import { sha256 } from '@trustmesh/platform-credentials';
import { createTestDatabase, type TestDatabase } from '@trustmesh/platform-database/testing';
import { openEventStore, type EventStore } from '@trustmesh/platform-event-store';

import { ShieldAgentTokens } from './shield-agent-tokens';
import { ShieldCallers } from './shield-callers';

const TOKEN_ID = '2b1f8a34-5c6d-4e7f-8a9b-0c1d2e3f4a5b';

describe('ShieldCallers', () => {
  let db: TestDatabase;
  let store: EventStore;
  let callers: ShieldCallers;
  beforeAll(async () => {
    db = await createTestDatabase('pglite', 'shield-callers');
    store = await openEventStore(await db.open(), { producer: 'shield-analyzer@test' });
    callers = new ShieldCallers([{ accountId: 'acme', digest: sha256('acme-secret') }, { accountId: 'globex', digest: sha256('globex-secret') }], new ShieldAgentTokens(store));
  });
  afterAll(async () => {
    await store?.close();
    await db?.dispose();
  });

  it('maps an operator credential to its account and refuses anything else', async () => {
    expect(await callers.authenticate('globex-secret')).toEqual({ kind: 'operator', accountId: 'globex' });
    expect(await callers.authenticate('acme-secret')).toEqual({ kind: 'operator', accountId: 'acme' });
    expect(await callers.authenticate('globex-secret ')).toBeNull();
    expect(await callers.authenticate(undefined)).toBeNull();
    expect(await callers.authenticate('x'.repeat(600))).toBeNull();
  });

  it('maps an agent token to its agent, and an unknown one to nothing', async () => {
    const issued = await callers.agentTokens.issue('acme', 'agent-7', { tokenId: TOKEN_ID, expiresInDays: 2, mcp: false });
    if (!issued.ok) throw new Error('not issued');
    expect(await callers.authenticate(issued.token)).toMatchObject({ kind: 'agent', accountId: 'acme', agentId: 'agent-7', tokenId: TOKEN_ID, mcpInstallationConfirmed: false });
    expect(await callers.authenticate(issued.token.replace(TOKEN_ID, '3b1f8a34-5c6d-4e7f-8a9b-0c1d2e3f4a5b'))).toBeNull();
    expect(await callers.authenticate(`tmsa_${TOKEN_ID}`)).toBeNull();
  });
});
