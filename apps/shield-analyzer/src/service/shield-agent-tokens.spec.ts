/**
 * Agent tokens on the real event store, two replicas (two stores) on one Postgres database: issue, list,
 * revoke seen at once by the other replica, expiry, the live-token bound under concurrent issues, and no
 * secret or digest in what an operator lists.
 */
import { applyMigrations } from '@trustmesh/platform-database';
import { createTestDatabase, type TestDatabase } from '@trustmesh/platform-database/testing';
import { EVENT_STORE_MIGRATIONS, openEventStore, type EventStore } from '@trustmesh/platform-event-store';
import { createRandomShieldId } from '@trustmesh/shield-records';

import { MAX_LIVE_AGENT_TOKENS, ShieldAgentTokens } from './shield-agent-tokens';

const secretOf = (token: string) => token.slice(token.indexOf('.') + 1);
const bare = (token: string) => token.slice('tmsa_'.length);

describe('ShieldAgentTokens', () => {
  let db: TestDatabase;
  let storeA: EventStore;
  let storeB: EventStore;
  let now = new Date('2026-12-01T10:00:00.000Z');
  let replicaA: ShieldAgentTokens;
  let replicaB: ShieldAgentTokens;
  beforeAll(async () => {
    db = await createTestDatabase('postgres', 'shield-agent-tokens');
    const first = await db.open();
    // On a server, apps never migrate at startup: deploy first, as the deploy command would.
    await applyMigrations(first, [EVENT_STORE_MIGRATIONS]);
    storeA = await openEventStore(first, { producer: 'shield-analyzer@test' });
    storeB = await openEventStore(await db.open(), { producer: 'shield-analyzer@test' });
    replicaA = new ShieldAgentTokens(storeA, () => now);
    replicaB = new ShieldAgentTokens(storeB, () => now);
  });
  afterAll(async () => {
    await storeA?.close();
    await storeB?.close();
    await db?.dispose();
  });

  it('issues a token shown once, lists it without secret or digest, and a revocation on one replica is refused at once on the other', async () => {
    const issued = await replicaA.issue('acme', 'agent-1', { tokenId: createRandomShieldId(), name: 'laptop', expiresInDays: 2, mcp: true });
    if (!issued.ok) throw new Error('not issued');
    expect(issued.token).toMatch(/^tmsa_[0-9a-f-]{36}\.[A-Za-z0-9_-]{43}$/);
    expect(issued.view).toMatchObject({ name: 'laptop', status: 'active', expiresAt: '2026-12-03T10:00:00.000Z', mcpInstallationConfirmedAt: now.toISOString() });
    expect(await replicaB.authenticate(bare(issued.token))).toMatchObject({ accountId: 'acme', agentId: 'agent-1', mcpInstallationConfirmed: true });

    const listed = await replicaB.list('acme', 'agent-1');
    expect(listed).toEqual([issued.view]);
    const everything = JSON.stringify(await storeA.readAll());
    expect(everything).not.toContain(secretOf(issued.token));
    expect(JSON.stringify(listed)).not.toMatch(/secret|sha256/i);

    const revoked = await replicaA.revoke('acme', 'agent-1', issued.view.tokenId);
    expect(revoked).toMatchObject({ status: 'revoked', revokedAt: now.toISOString() });
    expect(await replicaB.authenticate(bare(issued.token))).toBeNull();
    expect(await replicaA.authenticate(bare(issued.token))).toBeNull();
    expect((await replicaB.list('acme', 'agent-1'))[0]).toEqual(revoked);
    // Idempotent: revoking again answers the first revocation.
    now = new Date('2026-12-01T11:00:00.000Z');
    expect(await replicaB.revoke('acme', 'agent-1', issued.view.tokenId)).toEqual({ ...revoked });
  });

  it("refuses another agent's or account's token id, wrong secrets and expired tokens", async () => {
    const issued = await replicaA.issue('acme', 'agent-2', { tokenId: createRandomShieldId(), expiresInDays: 1, mcp: false });
    if (!issued.ok) throw new Error('not issued');
    expect(await replicaA.revoke('acme', 'agent-3', issued.view.tokenId)).toBeNull();
    expect(await replicaA.revoke('globex', 'agent-2', issued.view.tokenId)).toBeNull();
    expect(await replicaA.authenticate(bare(issued.token))).toMatchObject({ agentId: 'agent-2', mcpInstallationConfirmed: false });
    expect(await replicaA.authenticate(`${bare(issued.token).slice(0, -1)}${issued.token.endsWith('A') ? 'B' : 'A'}`)).toBeNull();
    expect(await replicaA.authenticate('not-a-uuid.secret')).toBeNull();
    expect(await replicaA.authenticate(issued.view.tokenId)).toBeNull();
    const saved = now;
    now = new Date(Date.parse(issued.view.expiresAt));
    expect(await replicaA.authenticate(bare(issued.token))).toBeNull();
    expect((await replicaA.list('acme', 'agent-2'))[0]?.status).toBe('expired');
    now = saved;
  });

  it(`holds at most ${MAX_LIVE_AGENT_TOKENS} live tokens per agent, even when replicas issue concurrently, and revoking frees a place`, async () => {
    const issue = (replica: ShieldAgentTokens) => replica.issue('acme', 'agent-busy', { tokenId: createRandomShieldId(), expiresInDays: 7, mcp: false });
    const results = await Promise.all(Array.from({ length: MAX_LIVE_AGENT_TOKENS + 5 }, (_, index) => issue(index % 2 === 0 ? replicaA : replicaB)));
    const accepted = results.filter((result) => result.ok);
    // Concurrent issues for one agent may be told to retry ('changed'), never let past the bound.
    expect(accepted.length).toBeGreaterThan(0);
    expect(accepted.length).toBeLessThanOrEqual(MAX_LIVE_AGENT_TOKENS);
    expect(results.every((result) => result.ok || result.refusal === 'limit' || result.refusal === 'changed')).toBe(true);
    for (let issued = accepted.length; issued < MAX_LIVE_AGENT_TOKENS; issued += 1) expect((await issue(issued % 2 ? replicaA : replicaB)).ok).toBe(true);
    expect(await issue(replicaA)).toEqual({ ok: false, refusal: 'limit' });
    expect(await issue(replicaB)).toEqual({ ok: false, refusal: 'limit' });
    const listed = await replicaA.list('acme', 'agent-busy');
    expect(listed.filter((token) => token.status === 'active')).toHaveLength(MAX_LIVE_AGENT_TOKENS);

    const first = accepted[0];
    if (!first?.ok) throw new Error('unreachable');
    await replicaB.revoke('acme', 'agent-busy', first.view.tokenId);
    expect((await issue(replicaA)).ok).toBe(true);
  });
});
