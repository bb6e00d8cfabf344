/**
 * Publishing through the real HTTP API of one registry on embedded PGlite (the single-machine tier):
 * created, idempotent, immutable (409), stale (409), dry run, invalid documents (422 with every issue),
 * warnings that never block, namespaces (403), credentials (401), size (413), and two clients racing on one
 * revision with different bytes. Every refusal is read back: nothing was stored.
 */
import { createHash } from 'node:crypto';

import { OPERATOR_TOKEN, onboard, startRegistryApp, type RegistryApp } from './support/registry-app.fixture';
import { aiCard, bytesOf, cardPath, mcpServer } from './support/registry-clients';

const MAX_CARD_BYTES = 8192;

describe('card registry: publishing', () => {
  let app: RegistryApp;
  let acme: string;
  let globex: string;

  beforeAll(async () => {
    app = await startRegistryApp({ REGISTRY_MAX_CARD_BYTES: String(MAX_CARD_BYTES) });
    acme = await onboard(app.call, 'acme', ['acme.example', 'acme-tools.example']);
    globex = await onboard(app.call, 'globex', ['globex.example']);
  });
  afterAll(() => app?.close());

  const publish = (token: string | null, document: unknown, query = '') => app.call('POST', `/v1/cards${query}`, { token, raw: typeof document === 'string' ? document : bytesOf(document) });
  const revisionsOf = async (identifier: string) => {
    const listed = await app.call('GET', cardPath(identifier, '/revisions'));
    return listed.status === 200 ? (listed.body.revisions as Array<{ revision: string; digest: string; status: string }>) : [];
  };

  it('stores a new revision, serves its exact bytes with its digest, and answers the same bytes again with 200 and nothing new', async () => {
    const identifier = 'https://acme.example/agents/invoices';
    const raw = bytesOf(aiCard('acme.example', { id: identifier }));
    const created = await publish(acme, raw);
    expect(created.status).toBe(201);
    const digestHex = createHash('sha256').update(raw).digest('hex');
    expect(created.body).toMatchObject({ identifier, namespace: 'acme.example', kind: 'ai-card', revision: '2026-02-01T10:00:00Z', digest: `sha256:${digestHex}`, status: 'active', created: true, dryRun: false });

    const latest = await app.call('GET', cardPath(identifier));
    expect(latest.status).toBe(200);
    expect(latest.body).toMatchObject({ identifier, namespace: 'acme.example', publisherId: 'acme', kind: 'ai-card' });
    expect(latest.body.latest).toMatchObject({ revision: '2026-02-01T10:00:00Z', digest: `sha256:${digestHex}`, status: 'active', summary: { name: 'Invoice helper' } });

    const exact = await app.call('GET', cardPath(identifier, `/revisions/${encodeURIComponent('2026-02-01T10:00:00Z')}`));
    expect(exact.status).toBe(200);
    expect(exact.bytes.toString('utf8')).toBe(raw);
    expect(exact.headers.get('etag')).toBe(`"sha256:${digestHex}"`);
    expect(exact.headers.get('repr-digest')).toBe(`sha-256=:${Buffer.from(digestHex, 'hex').toString('base64')}:`);
    expect(exact.headers.get('content-type')).toBe('application/json');
    const notModified = await app.call('GET', cardPath(identifier, `/revisions/${encodeURIComponent('2026-02-01T10:00:00Z')}`), { headers: { 'if-none-match': `"sha256:${digestHex}"` } });
    expect(notModified.status).toBe(304);

    const again = await publish(acme, raw);
    expect(again.status).toBe(200);
    expect(again.body).toMatchObject({ created: false, digest: `sha256:${digestHex}` });
    expect(await revisionsOf(identifier)).toHaveLength(1);
  });

  it('refuses other bytes for a published revision (409 REVISION_CONFLICT) and an older updatedAt (409 REVISION_STALE), keeping what was stored', async () => {
    const identifier = 'https://acme.example/agents/payments';
    const first = bytesOf(aiCard('acme.example', { id: identifier }));
    expect((await publish(acme, first)).status).toBe(201);

    const conflict = await publish(acme, aiCard('acme.example', { id: identifier, description: 'Something else entirely' }));
    expect(conflict.status).toBe(409);
    expect(conflict.headers.get('content-type')).toContain('application/problem+json');
    expect(conflict.body).toMatchObject({ status: 409, code: 'REVISION_CONFLICT', title: 'Conflict', issues: [{ code: 'REVISION_CONFLICT', path: '/revision', severity: 'error' }] });

    const newer = await publish(acme, aiCard('acme.example', { id: identifier, updatedAt: '2026-03-01T08:00:00+01:00' }));
    expect(newer.status).toBe(201);
    const stale = await publish(acme, aiCard('acme.example', { id: identifier, updatedAt: '2026-02-15T00:00:00Z' }));
    expect(stale.status).toBe(409);
    expect(stale.body.code).toBe('REVISION_STALE');

    const revisions = await revisionsOf(identifier);
    expect(revisions.map((revision) => revision.revision)).toEqual(['2026-02-01T10:00:00Z', '2026-03-01T08:00:00+01:00']);
    const kept = await app.call('GET', cardPath(identifier, `/revisions/${encodeURIComponent('2026-02-01T10:00:00Z')}`));
    expect(kept.bytes.toString('utf8')).toBe(first);
    expect((await app.call('GET', cardPath(identifier))).body.latest.revision).toBe('2026-03-01T08:00:00+01:00');
  });

  it('checks a document and its permissions with dryRun=true and stores nothing', async () => {
    const identifier = 'https://acme.example/agents/dry';
    const dry = await publish(acme, aiCard('acme.example', { id: identifier }), '?dryRun=true');
    expect(dry.status).toBe(200);
    expect(dry.body).toMatchObject({ identifier, dryRun: true, created: false });
    expect((await app.call('GET', cardPath(identifier))).status).toBe(404);

    const forbidden = await publish(globex, aiCard('acme.example', { id: identifier }), '?dryRun=true');
    expect(forbidden.status).toBe(403);
    expect(forbidden.body.code).toBe('NAMESPACE_NOT_GRANTED');
  });

  it('answers an invalid document with 422 and every issue at once, warnings included, and stores nothing', async () => {
    const identifier = 'https://acme.example/agents/broken';
    const invalid = await publish(acme, aiCard('acme.example', { id: identifier, services: {}, updatedAt: '2026-02-01', maturity: 'retired', trust: { attestations: [{ type: 'SOC2-Type2' }] } }));
    expect(invalid.status).toBe(422);
    expect(invalid.body).toMatchObject({ status: 422, code: 'DOCUMENT_INVALID', title: 'Unprocessable document' });
    const issues = invalid.body.issues as Array<{ path: string; code: string; severity: string }>;
    expect(issues).toEqual(
      expect.arrayContaining([
        expect.objectContaining({ path: '/services', code: 'SERVICES_EMPTY', severity: 'error' }),
        expect.objectContaining({ path: '/updatedAt', code: 'TIMESTAMP_INVALID', severity: 'error' }),
        expect.objectContaining({ path: '/maturity', code: 'VALUE_NOT_ALLOWED', severity: 'error' }),
        expect.objectContaining({ path: '/trust/attestations/0', code: 'ATTESTATION_NO_CREDENTIAL', severity: 'warning' }),
      ]),
    );
    expect((await app.call('GET', cardPath(identifier))).status).toBe(404);

    for (const [raw, code] of [
      ['{"id": "x", "id": "y"}', 'JSON_DUPLICATE_KEY'],
      ['not json at all', 'JSON_SYNTAX'],
      ['[1, 2]', 'KIND_UNKNOWN'],
      ['{"hello": "world"}', 'KIND_UNKNOWN'],
      ['{"specVersion": "1.0", "entries": []}', 'KIND_NOT_PUBLISHABLE'],
    ] as const) {
      const refused = await publish(acme, raw);
      expect(refused.status).toBe(422);
      expect(refused.body.issues[0].code).toBe(code);
    }
  });

  it('returns warnings with an accepted document without blocking it', async () => {
    const published = await publish(acme, aiCard('acme.example', { id: 'https://acme.example/agents/warned', trust: { attestations: [{ type: 'SOC2-Type2' }] } }));
    expect(published.status).toBe(201);
    expect(published.body.warnings).toEqual([expect.objectContaining({ code: 'ATTESTATION_NO_CREDENTIAL', severity: 'warning', path: '/trust/attestations/0' })]);
  });

  it('refuses a namespace not granted (403), a missing or unknown or revoked credential (401), and an operator credential on publish (403)', async () => {
    const identifier = 'https://globex.example/agents/sales';
    const notGranted = await publish(acme, aiCard('globex.example', { id: identifier }));
    expect(notGranted.status).toBe(403);
    expect(notGranted.body.code).toBe('NAMESPACE_NOT_GRANTED');

    for (const token of [null, 'tmrp_00000000000000000000000000000000.nope', `${acme}x`, 'not-a-credential']) {
      const refused = await publish(token, aiCard('acme.example', { id: 'https://acme.example/agents/anon' }));
      expect(refused.status).toBe(401);
      expect(refused.headers.get('www-authenticate')).toBe('Bearer');
      expect(refused.body.code).toBe('UNAUTHENTICATED');
    }
    const asOperator = await publish(OPERATOR_TOKEN, aiCard('acme.example', { id: 'https://acme.example/agents/anon' }));
    expect(asOperator.status).toBe(403);
    expect(asOperator.body.code).toBe('PUBLISHER_CREDENTIAL_REQUIRED');

    const spare = await app.call('POST', '/v1/operator/publishers/acme/credentials', { token: OPERATOR_TOKEN, json: {} });
    const credentialId = spare.body.credentialId as string;
    expect((await publish(spare.body.credential, aiCard('acme.example', { id: 'https://acme.example/agents/spare' }))).status).toBe(201);
    expect((await app.call('DELETE', `/v1/operator/publishers/acme/credentials/${credentialId}`, { token: OPERATOR_TOKEN })).status).toBe(200);
    expect((await publish(spare.body.credential, aiCard('acme.example', { id: 'https://acme.example/agents/spare2' }))).status).toBe(401);
    expect((await app.call('GET', cardPath('https://acme.example/agents/anon'))).status).toBe(404);
    expect((await app.call('GET', cardPath('https://acme.example/agents/spare2'))).status).toBe(404);
  });

  it('refuses a document over REGISTRY_MAX_CARD_BYTES with 413 and a body that is not JSON with 415', async () => {
    const identifier = 'https://acme.example/agents/huge';
    const huge = await publish(acme, aiCard('acme.example', { id: identifier, description: 'x'.repeat(MAX_CARD_BYTES) }));
    expect(huge.status).toBe(413);
    expect(huge.body).toMatchObject({ status: 413, code: 'DOCUMENT_TOO_LARGE' });
    const text = await app.call('POST', '/v1/cards', { token: acme, raw: bytesOf(aiCard('acme.example', { id: identifier })), contentType: 'text/plain' });
    expect(text.status).toBe(415);
    expect(text.body.code).toBe('CONTENT_TYPE_UNSUPPORTED');
    expect((await app.call('GET', cardPath(identifier))).status).toBe(404);
  });

  it('keys A2A and MCP revisions by version: the highest SemVer is the latest, a version is immutable, an A2A card needs ?identifier=', async () => {
    const name = 'example.acme/ledger';
    for (const version of ['1.2.0', '1.10.0', '1.9.3']) expect((await publish(acme, mcpServer('acme.example', version))).status).toBe(201);
    expect((await app.call('GET', cardPath(name))).body.latest).toMatchObject({ revision: '1.10.0', contentType: 'application/json' });
    const changed = await publish(acme, mcpServer('acme.example', '1.2.0', { description: 'Reads the ledger, now faster' }));
    expect(changed.status).toBe(409);
    expect(changed.body.code).toBe('REVISION_CONFLICT');

    const agent = { name: 'Quotes', description: 'Prices orders', url: 'https://acme.example/a2a', version: '0.3.0', protocolVersion: '0.3.0', capabilities: {}, defaultInputModes: ['text/plain'], defaultOutputModes: ['text/plain'], skills: [{ id: 'quote', name: 'Quote', description: 'Quotes a price', tags: [] }] };
    const anonymous = await publish(acme, agent);
    expect(anonymous.status).toBe(422);
    expect(anonymous.body.code).toBe('IDENTIFIER_REQUIRED');
    const identifier = 'urn:air:acme.example:agent:quotes';
    const named = await publish(acme, agent, `?identifier=${encodeURIComponent(identifier)}`);
    expect(named.status).toBe(201);
    expect(named.body).toMatchObject({ identifier, kind: 'a2a', revision: '0.3.0' });
    const served = await app.call('GET', cardPath(identifier, '/revisions/0.3.0'));
    expect(served.headers.get('content-type')).toBe('application/a2a-agent-card+json');
    expect(JSON.parse(served.bytes.toString('utf8'))).toEqual(agent);
  });

  it('lets exactly one of two clients racing on one revision with different bytes win; the other gets 409 REVISION_CONFLICT', async () => {
    const second = (await app.call('POST', '/v1/operator/publishers/acme/credentials', { token: OPERATOR_TOKEN, json: { label: 'second client' } })).body.credential as string;
    for (let round = 0; round < 4; round += 1) {
      const identifier = `https://acme-tools.example/agents/race-${round}`;
      const documents = ['left', 'right'].map((side) => bytesOf(aiCard('acme-tools.example', { id: identifier, description: `Written by the ${side} client` })));
      const replies = await Promise.all([publish(acme, documents[0]), publish(second, documents[1])]);
      const statuses = replies.map((reply) => reply.status).sort();
      expect(statuses).toEqual([201, 409]);
      const loser = replies.find((reply) => reply.status === 409);
      expect(loser?.body.code).toBe('REVISION_CONFLICT');
      const winner = replies.findIndex((reply) => reply.status === 201);
      const stored = await app.call('GET', cardPath(identifier, `/revisions/${encodeURIComponent('2026-02-01T10:00:00Z')}`));
      expect(stored.bytes.toString('utf8')).toBe(documents[winner]);
      expect(await revisionsOf(identifier)).toHaveLength(1);
    }
  });

  it('projects publishers, namespaces, cards and revisions (with the exact bytes) into the read model', async () => {
    const identifier = 'https://acme.example/agents/projected';
    const raw = bytesOf(aiCard('acme.example', { id: identifier }));
    expect((await publish(acme, raw)).status).toBe(201);
    const database = app.handle.infrastructure.database;
    const deadline = Date.now() + 20_000;
    let rows: Array<{ content: Uint8Array; digest: string; latest_revision: string; publisher_id: string }> = [];
    while (Date.now() < deadline) {
      rows = await database.withConnection((sql) =>
        sql.query<{ content: Uint8Array; digest: string; latest_revision: string; publisher_id: string }>(
          `SELECT r.content, r.digest, c.latest_revision, n.publisher_id FROM registry_card_revisions r
             JOIN registry_cards c ON c.identifier = r.identifier JOIN registry_namespaces n ON n.namespace = c.namespace WHERE r.identifier = $1`,
          [identifier],
        ),
      );
      if (rows.length > 0) break;
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    expect(rows).toHaveLength(1);
    expect(Buffer.from(rows[0]?.content ?? []).toString('utf8')).toBe(raw);
    expect(rows[0]).toMatchObject({ latest_revision: '2026-02-01T10:00:00Z', publisher_id: 'acme', digest: `sha256:${createHash('sha256').update(raw).digest('hex')}` });
    const publishers = await database.withConnection((sql) => sql.query<{ publisher_id: string }>('SELECT publisher_id FROM registry_publishers ORDER BY publisher_id'));
    expect(publishers.map((row) => row.publisher_id)).toEqual(['acme', 'globex']);
  });
});
