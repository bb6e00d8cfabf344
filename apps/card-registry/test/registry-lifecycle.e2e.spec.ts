/**
 * Lifecycle through the real HTTP API (CARDS.md §5): deprecated, yanked (hidden from latest, resolvable by
 * exact revision), deleted (a tombstone: 410), `maturity: deprecated`, rename (308 to the new identifier),
 * namespace transfer by the operator, and refusals on every route with stable codes and nothing stored.
 */
import { OPERATOR_TOKEN, onboard, startRegistryApp, type RegistryApp } from './support/registry-app.fixture';
import { aiCard, bytesOf, cardPath, mcpServer } from './support/registry-clients';

describe('card registry: lifecycle, rename, transfer and bad input', () => {
  let app: RegistryApp;
  let acme: string;
  let globex: string;

  beforeAll(async () => {
    app = await startRegistryApp();
    acme = await onboard(app.call, 'acme', ['acme.example']);
    globex = await onboard(app.call, 'globex', ['globex.example']);
  });
  afterAll(() => app?.close());

  const publish = (token: string, document: unknown) => app.call('POST', '/v1/cards', { token, raw: bytesOf(document) });
  const setStatus = (token: string, identifier: string, json: unknown) => app.call('POST', cardPath(identifier, '/status'), { token, json });
  const latestRevision = async (identifier: string) => {
    const latest = await app.call('GET', cardPath(identifier));
    return latest.status === 200 ? (latest.body.latest.revision as string) : latest.status;
  };

  it('deprecates, yanks and deletes revisions, and reads show each state', async () => {
    const name = 'example.acme/ledger';
    for (const version of ['1.0.0', '1.1.0', '2.0.0']) expect((await publish(acme, mcpServer('acme.example', version))).status).toBe(201);
    expect(await latestRevision(name)).toBe('2.0.0');

    const deprecated = await setStatus(acme, name, { status: 'deprecated', revision: '2.0.0', message: 'Use 2.1 when it ships' });
    expect(deprecated).toMatchObject({ status: 200, body: { status: 'deprecated', changed: true } });
    expect((await app.call('GET', cardPath(name))).body.latest).toMatchObject({ revision: '2.0.0', status: 'deprecated', statusMessage: 'Use 2.1 when it ships' });

    expect((await setStatus(acme, name, { status: 'yanked', revision: '2.0.0' })).status).toBe(200);
    expect(await latestRevision(name)).toBe('1.1.0');
    const yanked = await app.call('GET', cardPath(name, '/revisions/2.0.0'));
    expect(yanked.status).toBe(200);
    expect(yanked.headers.get('x-card-status')).toBe('yanked');
    expect(JSON.parse(yanked.bytes.toString('utf8')).version).toBe('2.0.0');

    const deleted = await setStatus(acme, name, { status: 'deleted', revision: '1.1.0', message: 'Leaked a test key' });
    expect(deleted.status).toBe(200);
    const gone = await app.call('GET', cardPath(name, '/revisions/1.1.0'));
    expect(gone.status).toBe(410);
    expect(gone.body).toMatchObject({ code: 'REVISION_DELETED', tombstone: { identifier: name, revision: '1.1.0', status: 'deleted', message: 'Leaked a test key' } });
    expect(await latestRevision(name)).toBe('1.0.0');
    const undelete = await setStatus(acme, name, { status: 'active', revision: '1.1.0' });
    expect(undelete).toMatchObject({ status: 409, body: { code: 'REVISION_DELETED' } });

    const listed = await app.call('GET', cardPath(name, '/revisions'));
    expect(listed.body.revisions.map((revision: { revision: string; status: string }) => [revision.revision, revision.status])).toEqual([
      ['1.0.0', 'active'],
      ['1.1.0', 'deleted'],
      ['2.0.0', 'yanked'],
    ]);

    // The whole card: a tombstone, and the identifier takes no new revision.
    expect((await setStatus(acme, name, { status: 'deleted', message: 'Retired' })).status).toBe(200);
    const tombstone = await app.call('GET', cardPath(name));
    expect(tombstone.status).toBe(410);
    expect(tombstone.body).toMatchObject({ status: 410, code: 'CARD_DELETED', tombstone: { identifier: name, status: 'deleted', message: 'Retired' } });
    const republish = await publish(acme, mcpServer('acme.example', '3.0.0'));
    expect(republish).toMatchObject({ status: 409, body: { code: 'CARD_DELETED' } });
  });

  it('gives a card published with maturity deprecated the status deprecated', async () => {
    const identifier = 'https://acme.example/agents/legacy';
    const published = await publish(acme, aiCard('acme.example', { id: identifier, maturity: 'deprecated' }));
    expect(published.body.status).toBe('deprecated');
    expect((await app.call('GET', cardPath(identifier))).body.latest.status).toBe('deprecated');
  });

  it('renames a card: the old identifier answers 308 with Location to the new one and accepts no new revision', async () => {
    const from = 'https://acme.example/agents/old-name';
    const to = 'https://acme.example/agents/new-name';
    expect((await publish(acme, aiCard('acme.example', { id: from }))).status).toBe(201);
    const renamed = await app.call('POST', cardPath(from, '/rename'), { token: acme, json: { to } });
    expect(renamed).toMatchObject({ status: 200, body: { identifier: from, renamedTo: to } });
    const redirect = await app.call('GET', cardPath(from));
    expect(redirect.status).toBe(308);
    expect(redirect.headers.get('location')).toBe(cardPath(to));
    expect(redirect.body).toEqual({ identifier: from, renamedTo: to });
    expect((await publish(acme, aiCard('acme.example', { id: from, updatedAt: '2026-04-01T00:00:00Z' }))).body.code).toBe('CARD_RENAMED');
    expect((await publish(acme, aiCard('acme.example', { id: to }))).status).toBe(201);
    expect((await app.call('GET', cardPath(to))).status).toBe(200);

    const elsewhere = await app.call('POST', cardPath(to, '/rename'), { token: acme, json: { to: 'https://globex.example/agents/stolen' } });
    expect(elsewhere).toMatchObject({ status: 403, body: { code: 'NAMESPACE_NOT_GRANTED' } });
    const byOther = await app.call('POST', cardPath(to, '/rename'), { token: globex, json: { to: 'https://globex.example/agents/stolen' } });
    expect(byOther).toMatchObject({ status: 403, body: { code: 'NAMESPACE_NOT_GRANTED' } });
    expect((await app.call('GET', cardPath(to))).status).toBe(200);
  });

  it('transfers a namespace by operator: the new holder publishes there, the old one no longer can', async () => {
    expect((await app.call('POST', '/v1/operator/namespaces', { token: OPERATOR_TOKEN, json: { namespace: 'shared.example', publisherId: 'acme' } })).status).toBe(201);
    const taken = await app.call('POST', '/v1/operator/namespaces', { token: OPERATOR_TOKEN, json: { namespace: 'shared.example', publisherId: 'globex' } });
    expect(taken).toMatchObject({ status: 409, body: { code: 'NAMESPACE_TAKEN' } });
    expect((await publish(acme, aiCard('shared.example', { id: 'https://shared.example/agents/a' }))).status).toBe(201);

    const transferred = await app.call('POST', '/v1/operator/namespaces/shared.example/transfer', { token: OPERATOR_TOKEN, json: { toPublisherId: 'globex' } });
    expect(transferred).toMatchObject({ status: 200, body: { namespace: 'shared.example', publisherId: 'globex', changed: true } });
    expect((await publish(acme, aiCard('shared.example', { id: 'https://shared.example/agents/b' }))).status).toBe(403);
    expect((await publish(globex, aiCard('shared.example', { id: 'https://shared.example/agents/b' }))).status).toBe(201);
    const statusByOld = await setStatus(acme, 'https://shared.example/agents/a', { status: 'yanked' });
    expect(statusByOld.status).toBe(403);
    expect((await app.call('GET', cardPath('https://shared.example/agents/a'))).body.latest.status).toBe('active');
  });

  it('refuses bad input on every route with a stable code and a problem document, and stores nothing', async () => {
    const identifier = 'https://acme.example/agents/steady';
    expect((await publish(acme, aiCard('acme.example', { id: identifier }))).status).toBe(201);
    const cases: Array<[string, string, Parameters<typeof app.call>[2], number, string]> = [
      ['POST', cardPath(identifier, '/status'), { token: acme, raw: '{"status": "yanked",', contentType: 'application/json' }, 400, 'BODY_NOT_JSON'],
      ['POST', cardPath(identifier, '/status'), { token: acme, raw: '{"status": "yanked", "status": "active"}' }, 400, 'BODY_NOT_JSON'],
      ['POST', cardPath(identifier, '/status'), { token: acme, json: { status: 'archived' } }, 400, 'STATUS_INVALID'],
      ['POST', cardPath(identifier, '/status'), { token: acme, json: { status: 'yanked', why: 'x' } }, 400, 'FIELD_UNKNOWN'],
      ['POST', cardPath(identifier, '/status'), { token: acme, json: { status: 'yanked', revision: 7 } }, 400, 'FIELD_TYPE'],
      ['POST', cardPath(identifier, '/status'), { token: acme, json: { status: 'yanked', revision: '1999-01-01T00:00:00Z' } }, 404, 'REVISION_NOT_FOUND'],
      ['POST', cardPath(identifier, '/status'), { token: acme, raw: 'status=yanked', contentType: 'application/x-www-form-urlencoded' }, 415, 'CONTENT_TYPE_UNSUPPORTED'],
      ['POST', cardPath(identifier, '/status'), { json: { status: 'yanked' } }, 401, 'UNAUTHENTICATED'],
      ['POST', cardPath(identifier, '/rename'), { token: acme, json: { to: 'nowhere' } }, 400, 'IDENTIFIER_NAMESPACE_UNKNOWN'],
      ['POST', cardPath(identifier, '/rename'), { token: acme, json: { to: identifier } }, 400, 'RENAME_TO_SELF'],
      ['GET', cardPath('x'.repeat(513)), {}, 400, 'IDENTIFIER_TOO_LONG'],
      ['GET', cardPath('https://acme.example/agents/none'), {}, 404, 'CARD_NOT_FOUND'],
      ['GET', '/v1/cards/%E0%A4%A', {}, 400, 'PATH_INVALID'],
      ['PUT', '/v1/cards', { token: acme, json: {} }, 404, 'ROUTE_NOT_FOUND'],
      ['GET', cardPath(identifier, '/revisions/9.9.9'), {}, 404, 'REVISION_NOT_FOUND'],
      ['POST', '/v1/cards?dryRun=maybe', { token: acme, json: aiCard('acme.example', { id: identifier }) }, 400, 'PARAMETER_INVALID'],
      ['POST', '/v1/cards?verbose=1', { token: acme, json: aiCard('acme.example', { id: identifier }) }, 400, 'PARAMETER_UNKNOWN'],
      ['POST', '/v1/cards?kind=openapi', { token: acme, json: aiCard('acme.example', { id: identifier }) }, 400, 'PARAMETER_INVALID'],
      ['POST', '/v1/operator/publishers', { token: acme, json: { publisherId: 'mallory', displayName: 'M' } }, 403, 'OPERATOR_ONLY'],
      ['POST', '/v1/operator/publishers', { token: OPERATOR_TOKEN, json: { publisherId: 'Not Valid', displayName: 'M' } }, 400, 'PUBLISHER_ID_INVALID'],
      ['POST', '/v1/operator/publishers', { token: OPERATOR_TOKEN, json: { publisherId: 'acme', displayName: 'Again' } }, 409, 'PUBLISHER_EXISTS'],
      ['POST', '/v1/operator/namespaces', { token: OPERATOR_TOKEN, json: { namespace: 'Not_A_Domain', publisherId: 'acme' } }, 400, 'NAMESPACE_INVALID'],
      ['POST', '/v1/operator/namespaces', { token: OPERATOR_TOKEN, json: { namespace: 'fresh.example', publisherId: 'nobody' } }, 404, 'PUBLISHER_NOT_FOUND'],
      ['POST', '/v1/operator/namespaces/unheld.example/transfer', { token: OPERATOR_TOKEN, json: { toPublisherId: 'acme' } }, 404, 'NAMESPACE_NOT_GRANTED'],
      ['DELETE', '/v1/operator/publishers/acme/credentials/0123', { token: OPERATOR_TOKEN }, 404, 'CREDENTIAL_NOT_FOUND'],
      ['POST', '/v1/operator/publishers/acme/credentials', { token: OPERATOR_TOKEN, json: [] }, 400, 'BODY_NOT_OBJECT'],
    ];
    for (const [method, path, options, status, code] of cases) {
      const reply = await app.call(method, path, options);
      expect({ path, status: reply.status, code: reply.body?.code }).toEqual({ path, status, code });
      expect(reply.body).toMatchObject({ type: `urn:trustmesh:registry:problem:${code}`, status, issues: [expect.objectContaining({ code, severity: 'error' })] });
    }
    const after = await app.call('GET', cardPath(identifier, '/revisions'));
    expect(after.body.revisions).toEqual([expect.objectContaining({ status: 'active' })]);
    expect((await app.call('GET', '/v1/operator/publishers/mallory', { token: OPERATOR_TOKEN })).status).toBe(404);
    expect(app.logs.some((line) => line.includes('"level":"error"'))).toBe(false);
  });

  it('answers the probes on the data port and serves metrics on the operator port', async () => {
    expect((await app.call('GET', '/healthz')).body).toEqual({ status: 'ok' });
    expect((await app.call('GET', '/readyz')).status).toBe(200);
    const metrics = await fetch(`${app.handle.operatorUrl}/metrics`);
    const text = await metrics.text();
    expect(text).toContain('registry_http_requests_total{method="POST",route="/v1/cards",status="201"}');
    expect(text).toMatch(/^registry_namespace_cache_entries \d+$/m);
    expect(text).toMatch(/^registry_namespace_cache_hits_total \d+$/m);
    // prom-client's process metrics, and the backbone's lags read at the scrape.
    expect(text).toMatch(/^process_cpu_seconds_total [\d.e-]+$/m);
    expect(text).toMatch(/^outbox_backlog_rows \d+$/m);
    expect(text).toMatch(/^projection_lag_events\{projection="[\w-]+"\} \d+$/m);
    expect(text).toMatch(/^bus_consumer_lag_messages\{topic="registry\.cards\.v1",partition="\d+"\} \d+$/m);
  });
});
