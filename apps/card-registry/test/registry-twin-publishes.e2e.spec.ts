/**
 * A hostile check through the running registry (embedded PGlite, real HTTP): one publisher's two
 * sessions (two credentials, as two CI jobs) send the same publish at the same instant, several times
 * over; one revision with two different byte contents at once; and different cards into one namespace
 * at once. Whatever the interleaving: exactly one revision stored per (card, revision), every twin
 * answered as the idempotent repeat (200, same digest) or 409 REVISION_CONFLICT for other bytes, no
 * publish lost, no 5xx, and the quota spent once per stored revision.
 */
import { OPERATOR_TOKEN, onboard, startRegistryApp, type RegistryApp } from './support/registry-app.fixture';
import { aiCard, bytesOf, cardPath, type Reply } from './support/registry-clients';
import { namespaceStreamId } from '../src/persistence/registry.stream';

const NAMESPACE = 'twins.example';
const REVISION = encodeURIComponent('2026-02-01T10:00:00Z');

describe('card registry: twin publishes from two sessions of one publisher', () => {
  let app: RegistryApp;
  let tokens: [string, string];

  beforeAll(async () => {
    app = await startRegistryApp();
    const first = await onboard(app.call, 'twins', [NAMESPACE]);
    const second = (await app.call('POST', '/v1/operator/publishers/twins/credentials', { token: OPERATOR_TOKEN, json: { label: 'second session' } })).body.credential as string;
    tokens = [first, second];
  });
  afterAll(() => app?.close());

  const publish = (session: number, raw: string) => app.call('POST', '/v1/cards', { token: tokens[session % 2], raw });
  const storedEvents = async () => (await app.handle.infrastructure.store.readStream(namespaceStreamId(NAMESPACE))).filter(({ envelope }) => envelope.eventType === 'CardRevisionPublished').map(({ envelope }) => envelope.data as { identifier: string; digest: string });
  const noServerError = (replies: Reply[]) => expect(replies.filter((reply) => reply.status >= 500).map((reply) => reply.bytes.toString())).toEqual([]);

  it('stores the same bytes sent at once by both sessions exactly once and answers every twin as the repeat', async () => {
    for (let round = 0; round < 5; round += 1) {
      const identifier = `https://${NAMESPACE}/agents/same-${round}`;
      const raw = bytesOf(aiCard(NAMESPACE, { id: identifier }));
      const replies = await Promise.all(Array.from({ length: 6 }, (_, session) => publish(session, raw)));
      noServerError(replies);
      expect(replies.map((reply) => reply.status).sort()).toEqual([200, 200, 200, 200, 200, 201]);
      expect(replies.filter((reply) => reply.body.created === true)).toHaveLength(1);
      expect(new Set(replies.map((reply) => reply.body.digest)).size).toBe(1);
      expect((await storedEvents()).filter((event) => event.identifier === identifier)).toHaveLength(1);
    }
  });

  it('lets one of two byte contents of one revision sent at once win; the other gets 409 and the winner is what is served', async () => {
    for (let round = 0; round < 5; round += 1) {
      const identifier = `https://${NAMESPACE}/agents/split-${round}`;
      const contents = ['left', 'right'].map((side) => bytesOf(aiCard(NAMESPACE, { id: identifier, description: `Sent by the ${side} session` }))) as [string, string];
      // Each session sends its bytes twice: the winner's twin is a repeat, the loser's both conflict.
      const replies = await Promise.all([0, 1, 0, 1].map((session) => publish(session, contents[session] as string)));
      noServerError(replies);
      expect(replies.map((reply) => reply.status).sort()).toEqual([200, 201, 409, 409]);
      const winner = replies.find((reply) => reply.status === 201) as Reply;
      const won = replies.indexOf(winner) % 2;
      expect(replies.filter((reply, index) => index % 2 === won).map((reply) => reply.status).sort()).toEqual([200, 201]);
      expect(replies.filter((reply) => reply.status === 409).map((reply) => reply.body.code)).toEqual(['REVISION_CONFLICT', 'REVISION_CONFLICT']);
      const served = await app.call('GET', cardPath(identifier, `/revisions/${REVISION}`));
      expect(served.bytes.toString('utf8')).toBe(contents[won]);
      expect((await storedEvents()).filter((event) => event.identifier === identifier).map((event) => event.digest)).toEqual([winner.body.digest]);
    }
  });

  it('loses none of many different cards published into one namespace at once by both sessions', async () => {
    const identifiers = Array.from({ length: 12 }, (_, index) => `https://${NAMESPACE}/agents/crowd-${index}`);
    const replies = await Promise.all(identifiers.map((identifier, index) => publish(index, bytesOf(aiCard(NAMESPACE, { id: identifier })))));
    noServerError(replies);
    expect(replies.map((reply) => `${reply.status} ${reply.body.code ?? ""}`)).toEqual(identifiers.map(() => "201 "));
    const stored = await storedEvents();
    for (const identifier of identifiers) expect(stored.filter((event) => event.identifier === identifier)).toHaveLength(1);
    // 5 same-bytes rounds + 5 split rounds + 12 cards: one unit per stored revision, none for the twins.
    const [spent] = await app.handle.infrastructure.database.withConnection((sql) => sql.query<{ count: number }>('SELECT sum(count)::int AS count FROM registry_publish_quota WHERE publisher_id = $1', ['twins']));
    expect(spent?.count).toBe(stored.length);
    expect(stored).toHaveLength(22);
    // One namespace, folded once and kept: every later command caught up from the cache.
    const metrics = await (await fetch(`${app.handle.operatorUrl}/metrics`)).text();
    expect(metrics).toContain('registry_namespace_cache_entries 1\n');
    expect(metrics).toMatch(/registry_namespace_cache_misses_total 1\n/);
  });
});
