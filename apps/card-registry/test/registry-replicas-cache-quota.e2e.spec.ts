/**
 * Two card registry replicas (processes) on one Postgres database, each with its own namespace cache, and
 * the daily publish quota they share:
 * - publishing into one namespace alternately through both, each replica holding an older folded state
 *   of it when the other publishes, still keeps revisions immutable (same revision, other bytes: 409 on
 *   the replica that had not seen it; same bytes: 200; an older `updatedAt`: 409 REVISION_STALE);
 * - the quota is counted once for both replicas and is exact at the last unit: of many concurrent
 *   publishes through both, exactly the quota is stored; a re-send, a refusal and a dry run cost nothing;
 * - the same publish at the same instant through both replicas, from two credentials of one publisher:
 *   one stored, its twin answered as the idempotent repeat (or 409 for other bytes), never a 500.
 * The bus is the local one over the same database: what is tested here is the database's part.
 */
import { onboard, OPERATOR_TOKEN } from './support/registry-app.fixture';
import { createRegistryPlacement, startRegistryChild, type RegistryChild, type RegistryPlacement } from './support/registry.child';
import { aiCard, bytesOf, cardPath, type Reply } from './support/registry-clients';

const QUOTA = 12;
const TEST_TIMEOUT = 180_000;

describe('card registry replicas: namespace caches and the shared publish quota', () => {
  let placement: RegistryPlacement;
  let a: RegistryChild;
  let b: RegistryChild;

  beforeAll(async () => {
    placement = await createRegistryPlacement(null, 'registry-cache-quota');
    const started = await Promise.all(['registry-a', 'registry-b'].map((id) => startRegistryChild(placement, id, { REGISTRY_PUBLISH_QUOTA_PER_DAY: String(QUOTA) })));
    [a, b] = started as [RegistryChild, RegistryChild];
  }, 120_000);
  afterAll(async () => {
    await a?.kill();
    await b?.kill();
    await placement?.dispose();
  });

  const secondCredential = async (replica: RegistryChild, publisherId: string) => (await replica.call('POST', `/v1/operator/publishers/${publisherId}/credentials`, { token: OPERATOR_TOKEN, json: {} })).body.credential as string;
  const published = async (identifier: string) => Number((await placement.query<{ n: string }>(`SELECT count(*) AS n FROM events WHERE event_type = 'CardRevisionPublished' AND data->>'identifier' = $1`, [identifier]))[0]?.n);
  const spentToday = async (publisherId: string) => Number((await placement.query<{ count: number }>('SELECT count FROM registry_publish_quota WHERE publisher_id = $1 AND day = $2', [publisherId, Math.floor(Date.now() / 86_400_000)]))[0]?.count ?? 0);

  it('keeps revisions immutable when the replicas publish into one namespace alternately, each holding an older state of it', async () => {
    const tokens = new Map([[a, await onboard(a.call, 'acme', ['alternate.example'])], [b, await secondCredential(b, 'acme')]]);
    let previous = 'https://alternate.example/agents/start';
    expect((await a.call('POST', '/v1/cards', { token: tokens.get(a), raw: bytesOf(aiCard('alternate.example', { id: previous })) })).status).toBe(201);
    for (let round = 0; round < 4; round += 1) {
      const [writer, other] = round % 2 === 0 ? [a, b] : [b, a];
      // The other replica folds (and caches) the namespace as it is before this round's publish.
      expect((await other.call('GET', cardPath(previous))).status).toBe(200);
      const identifier = `https://alternate.example/agents/card-${round}`;
      const [mine, theirs] = ['writer', 'other'].map((side) => bytesOf(aiCard('alternate.example', { id: identifier, description: `Published by the ${side} in round ${round}` }))) as [string, string];
      const stored = await writer.call('POST', '/v1/cards', { token: tokens.get(writer), raw: mine });
      expect(stored.status).toBe(201);

      const conflict = await other.call('POST', '/v1/cards', { token: tokens.get(other), raw: theirs });
      expect([conflict.status, conflict.body.code]).toEqual([409, 'REVISION_CONFLICT']);
      const repeat = await other.call('POST', '/v1/cards', { token: tokens.get(other), raw: mine });
      expect([repeat.status, repeat.body.created, repeat.body.digest]).toEqual([200, false, stored.body.digest]);
      const stale = await other.call('POST', '/v1/cards', { token: tokens.get(other), raw: bytesOf(aiCard('alternate.example', { id: identifier, updatedAt: '2026-01-20T10:00:00Z' })) });
      expect([stale.status, stale.body.code]).toEqual([409, 'REVISION_STALE']);
      for (const replica of [a, b]) expect((await replica.call('GET', cardPath(identifier, `/revisions/${encodeURIComponent('2026-02-01T10:00:00Z')}`))).bytes.toString('utf8')).toBe(mine);
      expect(await published(identifier)).toBe(1);
      previous = identifier;
    }
  }, TEST_TIMEOUT);

  it('stores exactly the quota of many concurrent publishes through both replicas; re-sends, refusals and dry runs cost nothing', async () => {
    // The racers spread over several namespaces: the quota, not one stream's contention, is what is tested.
    const domains = Array.from({ length: 6 }, (_, index) => `globex-${index}.example`);
    const tokens = new Map([[a, await onboard(a.call, 'globex', ['globex.example', ...domains])], [b, await secondCredential(b, 'globex')]]);
    const first = bytesOf(aiCard('globex.example', { id: 'https://globex.example/agents/first' }));
    expect((await a.call('POST', '/v1/cards', { token: tokens.get(a), raw: first })).status).toBe(201);
    expect((await b.call('POST', '/v1/cards', { token: tokens.get(b), raw: first })).status).toBe(200);
    expect((await b.call('POST', '/v1/cards', { token: tokens.get(b), raw: bytesOf(aiCard('globex.example', { id: 'https://globex.example/agents/first', description: 'other bytes' })) })).status).toBe(409);
    expect((await a.call('POST', '/v1/cards?dryRun=true', { token: tokens.get(a), raw: bytesOf(aiCard('globex.example', { id: 'https://globex.example/agents/dry' })) })).status).toBe(200);
    expect((await b.call('POST', '/v1/cards', { token: tokens.get(b), raw: '{"not": "a card"}' })).status).toBe(422);
    expect(await spentToday('globex')).toBe(1);

    const replies = await Promise.all(
      Array.from({ length: 36 }, (_, index) => {
        const replica = index % 2 === 0 ? a : b;
        const domain = domains[index % domains.length] as string;
        return replica.call('POST', '/v1/cards', { token: tokens.get(replica), raw: bytesOf(aiCard(domain, { id: `https://${domain}/agents/racer-${index}` })) });
      }),
    );
    const statuses = replies.map((reply) => reply.status);
    expect(statuses.filter((status) => status === 201)).toHaveLength(QUOTA - 1);
    expect(statuses.filter((status) => status === 429)).toHaveLength(36 - (QUOTA - 1));
    expect(new Set(replies.filter((reply) => reply.status === 429).map((reply) => reply.body.code))).toEqual(new Set(['PUBLISH_QUOTA_EXCEEDED']));
    const stored = await placement.query<{ n: string }>(`SELECT count(*) AS n FROM events WHERE event_type = 'CardRevisionPublished' AND data->>'publisherId' = 'globex'`);
    expect(Number(stored[0]?.n)).toBe(QUOTA);
    expect(await spentToday('globex')).toBe(QUOTA);
  }, TEST_TIMEOUT);

  it('stores a publish sent at the same instant through both replicas by two credentials once, and answers its twins as repeats or 409, never 500', async () => {
    const tokens = [await onboard(a.call, 'initech', ['initech.example']), await secondCredential(b, 'initech')] as const;
    for (let round = 0; round < 3; round += 1) {
      const identifier = `https://initech.example/agents/twin-${round}`;
      const raw = bytesOf(aiCard('initech.example', { id: identifier }));
      const same = await Promise.all([a, b, a, b].map((replica, index) => replica.call('POST', '/v1/cards', { token: tokens[index % 2], raw })));
      expectOneStoredRestRepeats(same);
      expect(await published(identifier)).toBe(1);

      const other = `https://initech.example/agents/split-${round}`;
      const twins = [bytesOf(aiCard('initech.example', { id: other, description: 'left' })), bytesOf(aiCard('initech.example', { id: other, description: 'right' }))];
      const split = await Promise.all([a.call('POST', '/v1/cards', { token: tokens[0], raw: twins[0] }), b.call('POST', '/v1/cards', { token: tokens[1], raw: twins[1] })]);
      expect(split.map((reply) => reply.status).sort()).toEqual([201, 409]);
      expect(split.find((reply) => reply.status === 409)?.body.code).toBe('REVISION_CONFLICT');
      expect(await published(other)).toBe(1);
    }
    expect(await spentToday('initech')).toBe(6);
  }, TEST_TIMEOUT);
});

function expectOneStoredRestRepeats(replies: Reply[]): void {
  expect(replies.map((reply) => reply.status).sort()).toEqual([200, 200, 200, 201]);
  expect(new Set(replies.map((reply) => reply.body.digest)).size).toBe(1);
  expect(replies.filter((reply) => reply.body.created === true)).toHaveLength(1);
}
