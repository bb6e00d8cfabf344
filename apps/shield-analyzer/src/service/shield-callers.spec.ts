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
    callers = new ShieldCallers([{ accountId: 'acme', digest: sha256('acme-secret') }, { accountId: 'globex', digest: sha256('globex-secret') }], new ShieldAgentTokens(store), [
      { service: 'console', digest: sha256('console-secret') },
    ]);
  });
  afterAll(async () => {
    await store?.close();
    await db?.dispose();
  });

  const caller = async (bearer: string | undefined, onBehalfOf?: string) => {
    const result = await callers.authenticate(bearer, onBehalfOf);
    return result.ok ? result.value : null;
  };
  const refusal = async (bearer: string | undefined, onBehalfOf?: string) => {
    const result = await callers.authenticate(bearer, onBehalfOf);
    return result.ok ? null : { kind: result.failure.kind, code: result.failure.issues[0]?.code };
  };

  it('maps an operator credential to its account and refuses anything else', async () => {
    expect(await caller('globex-secret')).toEqual({ kind: 'operator', accountId: 'globex' });
    expect(await caller('acme-secret')).toEqual({ kind: 'operator', accountId: 'acme' });
    expect(await refusal('globex-secret ')).toEqual({ kind: 'unauthenticated', code: 'SHIELD_UNAUTHENTICATED' });
    expect(await caller(undefined)).toBeNull();
    expect(await caller('x'.repeat(600))).toBeNull();
  });

  it('maps a service credential to the account it acts for, inside its own prefix only', async () => {
    expect(await caller('console-secret', 'console:4e0c')).toEqual({ kind: 'operator', accountId: 'console:4e0c' });
    expect(await refusal('console-secret')).toEqual({ kind: 'unauthenticated', code: 'SHIELD_ON_BEHALF_OF_MISSING' });
    expect(await refusal('console-secret', 'console:a b')).toEqual({ kind: 'unauthenticated', code: 'SHIELD_ON_BEHALF_OF_INVALID' });
    expect(await refusal('console-secret', 'acme')).toEqual({ kind: 'unauthenticated', code: 'SHIELD_ON_BEHALF_OF_INVALID' });
    expect(await refusal('console-secret', 'billing:4e0c')).toEqual({ kind: 'forbidden', code: 'SHIELD_ON_BEHALF_OF_FOREIGN' });
    // A plain operator credential ignores the header: it cannot be used to reach another account.
    expect(await caller('acme-secret', 'console:4e0c')).toEqual({ kind: 'operator', accountId: 'acme' });
  });

  it('maps an agent token to its agent, and an unknown one to nothing', async () => {
    const issued = await callers.agentTokens.issue('acme', 'agent-7', { tokenId: TOKEN_ID, expiresInDays: 2, mcp: false });
    if (!issued.ok) throw new Error('not issued');
    expect(await caller(issued.token)).toMatchObject({ kind: 'agent', accountId: 'acme', agentId: 'agent-7', tokenId: TOKEN_ID, mcpInstallationConfirmed: false });
    expect(await caller(issued.token.replace(TOKEN_ID, '3b1f8a34-5c6d-4e7f-8a9b-0c1d2e3f4a5b'))).toBeNull();
    expect(await caller(`tmsa_${TOKEN_ID}`)).toBeNull();
  });
});
