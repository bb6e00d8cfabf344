/**
 * Namespace ownership, look-alikes and signature policy through the real HTTP API of one registry on
 * embedded PGlite, against a real DNS server and a real HTTPS server with a test CA (trust-world.fixture.ts):
 * claims proved by DNS TXT, by HTTPS file and by did:web signature, wrong tokens, a proof lapsing after its expiry and coming
 * back, look-alike flags and their clearing, `require` refusing unsigned cards, signatures stored and shown,
 * tampered and forbidden-header signatures refused, and a key removed from the DID document turning a card
 * unverified on re-verification. The registry's clock is the test's, so expiries pass without waiting; the
 * re-check task is driven by the test (`runRound`).
 */
import { waitUntil } from '@trustmesh/platform-testing';

import { OPERATOR_TOKEN, onboard, startRegistryApp, type RegistryApp } from './support/registry-app.fixture';
import { aiCard, bytesOf, cardPath } from './support/registry-clients';
import { startTrustWorld, type TrustWorld } from './support/trust-world.fixture';

const VALIDITY_MS = 60_000;
const HOUR = 3_600_000;

describe('card registry: namespace trust', () => {
  let world: TrustWorld;
  let app: RegistryApp;
  let clockOffsetMs = 0;
  let acme: string;
  let globex: string;
  let mallory: string;

  beforeAll(async () => {
    world = await startTrustWorld(['acme.example', 'globex.example', 'acrne.example', 'initech.example']);
    app = await startRegistryApp(
      { ...world.registryEnv, REGISTRY_TRUST_TASK_INTERVAL_MS: '0', REGISTRY_PROOF_RECHECK_MS: '1000', REGISTRY_PROOF_VALIDITY_MS: String(VALIDITY_MS), REGISTRY_KEY_RECHECK_MS: '0' },
      { now: () => new Date(Date.now() + clockOffsetMs) },
    );
    acme = await onboard(app.call, 'acme', []);
    globex = await onboard(app.call, 'globex', []);
    mallory = await onboard(app.call, 'mallory', []);
    // A PGlite start and a test CA on two cores shared with other suites can take a while.
  }, 180_000);
  afterAll(async () => {
    await app?.close();
    await world?.close();
  });

  const claim = (token: string, namespace: string, method: string) => app.call('POST', `/v1/namespaces/${namespace}/claims`, { token, json: { method } });
  const check = (token: string, namespace: string, json: Record<string, unknown> = {}) => app.call('POST', `/v1/namespaces/${namespace}/claims/check`, { token, json });
  const publish = (token: string, document: unknown) => app.call('POST', '/v1/cards', { token, raw: bytesOf(document) });
  const card = (domain: string, name: string, overrides: Record<string, unknown> = {}) => aiCard(domain, { id: `https://${domain}/agents/${name}`, publisher: { id: `did:web:${domain}`, name: 'Owner' }, ...overrides });
  const trustRows = (namespace: string) =>
    app.handle.infrastructure.database.withConnection((connection) => connection.query('SELECT namespace FROM registry_namespace_trust WHERE namespace = $1 AND method IS NOT NULL', [namespace]));

  const verifiedInReadModel = async () =>
    (
      await app.handle.infrastructure.database.withConnection((connection) =>
        connection.query<{ identifier: string }>(
          `SELECT c.identifier FROM registry_cards c
             JOIN registry_namespaces n ON n.namespace = c.namespace
             JOIN registry_namespace_trust t ON t.namespace = c.namespace AND t.publisher_id = n.publisher_id
                  AND t.method IS NOT NULL AND t.lapsed_at IS NULL AND t.expires_at > now()
             JOIN registry_revision_signatures s ON s.identifier = c.identifier AND s.revision = c.latest_revision
                  AND s.verified AND s.signer = 'did:web:' || c.namespace`,
        ),
      )
    ).map((row) => row.identifier);

  it('grants a namespace proved by a DNS TXT record, after refusing the check while the record is missing, and shows it verified', async () => {
    const challenge = await claim(acme, 'acme.example', 'dns-txt');
    expect(challenge.status).toBe(201);
    expect(challenge.body).toMatchObject({ namespace: 'acme.example', method: 'dns-txt', instructions: { recordName: '_trustmesh-challenge.acme.example', recordType: 'TXT' } });
    expect(challenge.body.instructions.recordValue).toBe(`trustmesh-verification=${challenge.body.token}`);

    const missing = await check(acme, 'acme.example');
    expect(missing.status).toBe(422);
    expect(missing.body).toMatchObject({ code: 'PROOF_FAILED', ownershipCode: 'OWNERSHIP_DNS_RECORD_MISSING', issues: [{ code: 'OWNERSHIP_DNS_RECORD_MISSING' }] });
    expect((await app.call('GET', '/v1/namespaces/acme.example')).status).toBe(404);
    expect((await publish(acme, card('acme.example', 'early'))).status).toBe(403);

    world.txt['acme.example']?.push(challenge.body.instructions.recordValue as string);
    const verified = await check(acme, 'acme.example');
    expect(verified.status).toBe(200);
    expect(verified.body).toMatchObject({ namespace: 'acme.example', publisherId: 'acme', method: 'dns-txt', lookalikeOf: [] });
    const view = await app.call('GET', '/v1/namespaces/acme.example');
    expect(view.body).toMatchObject({ namespace: 'acme.example', publisherId: 'acme', verified: true, verification: { method: 'dns-txt', status: 'valid' }, signaturePolicy: 'verify-if-present', lookalikeOf: [] });
    expect((await publish(acme, card('acme.example', 'first'))).status).toBe(201);
    await waitUntil(async () => (await trustRows('acme.example')).length === 1, { what: 'the proof in the read model' });
  });

  it('grants a namespace proved by the HTTPS well-known file, and refuses a wrong token or a namespace another publisher holds', async () => {
    const challenge = await claim(globex, 'globex.example', 'https-file');
    expect(challenge.status).toBe(201);
    expect(challenge.body.instructions).toMatchObject({ url: 'https://globex.example/.well-known/trustmesh-registry-auth', line: challenge.body.token });

    world.files.set('globex.example', 'trustmesh-verification-for-someone-else\nAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA\n');
    const wrong = await check(globex, 'globex.example');
    expect(wrong.status).toBe(422);
    expect(wrong.body.ownershipCode).toBe('OWNERSHIP_FILE_TOKEN_MISMATCH');
    expect((await app.call('GET', '/v1/namespaces/globex.example')).status).toBe(404);

    world.files.set('globex.example', `other-registry-token\n${challenge.body.token as string}\n`);
    const verified = await check(globex, 'globex.example');
    expect(verified.status).toBe(200);
    expect(verified.body).toMatchObject({ publisherId: 'globex', method: 'https-file' });

    // A wrong DNS token for a namespace nobody holds, then a claim on a namespace someone else holds.
    const initech = await claim(mallory, 'initech.example', 'dns-txt');
    world.txt['initech.example']?.push('trustmesh-verification=not-the-token-the-registry-issued-to-you00');
    expect((await check(mallory, 'initech.example')).body.ownershipCode).toBe('OWNERSHIP_DNS_TOKEN_MISMATCH');
    expect(initech.status).toBe(201);
    const held = await claim(mallory, 'globex.example', 'dns-txt');
    expect(held.status).toBe(409);
    expect(held.body.code).toBe('NAMESPACE_HELD');
    expect((await app.call('GET', '/v1/namespaces/globex.example')).body.publisherId).toBe('globex');
  });

  it('grants a namespace proved by a did:web signature over the challenge, after refusing a missing proof and a signature of another kind', async () => {
    const key = await world.publishKey('initech.example', 'ownership');
    const challenge = await claim(mallory, 'initech.example', 'did-web');
    expect(challenge.body.instructions).toMatchObject({ did: 'did:web:initech.example', payload: `trustmesh-verification=${challenge.body.token}`, typ: 'trustmesh-ownership+jws' });
    const payload = challenge.body.instructions.payload as string;

    expect((await check(mallory, 'initech.example')).body).toMatchObject({ status: 400, code: 'FIELD_REQUIRED', issues: [{ path: '/proof' }] });
    const wrongKind = await check(mallory, 'initech.example', { proof: await world.signText(payload, key, { typ: 'ai-card+jws' }) });
    expect(wrongKind.status).toBe(422);
    expect(wrongKind.body.ownershipCode).toBe('OWNERSHIP_DID_SIGNATURE_INVALID');
    expect((await app.call('GET', '/v1/namespaces/initech.example')).status).toBe(404);

    const verified = await check(mallory, 'initech.example', { proof: await world.signText(payload, key, { typ: 'trustmesh-ownership+jws' }) });
    expect(verified.status).toBe(200);
    expect(verified.body).toMatchObject({ namespace: 'initech.example', publisherId: 'mallory', method: 'did-web' });
    expect((await app.call('GET', '/v1/namespaces/initech.example')).body).toMatchObject({ verified: true, verification: { method: 'did-web', status: 'valid' } });
  });

  it('refuses claims without a publisher credential, with an unknown method or a non-canonical namespace', async () => {
    expect((await claim(OPERATOR_TOKEN, 'acme.example', 'dns-txt')).body.code).toBe('PUBLISHER_CREDENTIAL_REQUIRED');
    expect((await app.call('POST', '/v1/namespaces/acme.example/claims', { json: { method: 'dns-txt' } })).status).toBe(401);
    expect((await claim(acme, 'acme.example', 'carrier-pigeon')).body).toMatchObject({ status: 400, code: 'METHOD_INVALID', issues: [{ path: '/method' }] });
    expect((await claim(acme, 'ACME.example', 'dns-txt')).body.code).toBe('NAMESPACE_INVALID');
    expect((await check(globex, 'acme.example')).body.code).toBe('CLAIM_NOT_FOUND');
    expect((await check(mallory, 'initech.example', { proof: 'x'.repeat(5000) })).body).toMatchObject({ status: 400, code: 'PROOF_TOO_LONG', issues: [{ path: '/proof' }] });
    expect((await check(mallory, 'initech.example', { token: 'chosen-by-me' })).body).toMatchObject({ status: 400, code: 'FIELD_UNKNOWN', issues: [{ path: '/token' }] });
    const oversized = await app.call('POST', '/v1/namespaces/acme.example/claims', { token: acme, raw: JSON.stringify({ method: 'dns-txt', padding: 'x'.repeat(70 * 1024) }) });
    expect(oversized.status).toBe(413);
    expect(oversized.body.code).toBe('BODY_TOO_LARGE');
    expect((await app.call('PUT', '/v1/namespaces/nobody-holds.example/signature-policy', { token: OPERATOR_TOKEN, json: { policy: 'require' } })).body).toMatchObject({ status: 404, code: 'NAMESPACE_NOT_GRANTED' });
  });

  it('flags a namespace granted next to a verified look-alike, shows the flag on it and its cards, and lets an operator clear it', async () => {
    await waitUntil(async () => (await trustRows('acme.example')).length === 1, { what: 'acme.example in the read model' });
    const granted = await app.call('POST', '/v1/operator/namespaces', { token: OPERATOR_TOKEN, json: { namespace: 'acrne.example', publisherId: 'mallory' } });
    expect(granted.status).toBe(201);
    const view = await app.call('GET', '/v1/namespaces/acrne.example');
    expect(view.body).toMatchObject({ publisherId: 'mallory', verified: false, verification: null, lookalikeOf: [{ namespace: 'acme.example', reason: 'confusable' }] });

    const published = await publish(mallory, card('acrne.example', 'invoices'));
    expect(published.status).toBe(201);
    const read = await app.call('GET', cardPath('https://acrne.example/agents/invoices'));
    expect(read.body).toMatchObject({ verified: false, lookalikeOf: [{ namespace: 'acme.example', reason: 'confusable' }] });

    expect((await app.call('POST', '/v1/operator/namespaces/acrne.example/lookalikes/clear', { token: mallory, json: { lookalikeOf: 'acme.example' } })).body.code).toBe('OPERATOR_ONLY');
    const cleared = await app.call('POST', '/v1/operator/namespaces/acrne.example/lookalikes/clear', { token: OPERATOR_TOKEN, json: { lookalikeOf: 'acme.example' } });
    expect(cleared.status).toBe(200);
    expect(cleared.body.lookalikeOf).toEqual([]);
    expect((await app.call('GET', cardPath('https://acrne.example/agents/invoices'))).body.lookalikeOf).toEqual([]);
    expect((await app.call('POST', '/v1/operator/namespaces/acrne.example/lookalikes/clear', { token: OPERATOR_TOKEN, json: { lookalikeOf: 'acme.example' } })).body.code).toBe('LOOKALIKE_NOT_FLAGGED');
  });

  it('stores a valid signature with the revision and shows the card verified; refuses a tampered card with 422 and stores nothing', async () => {
    const key = await world.publishKey('acme.example');
    const signed = await world.sign(card('acme.example', 'signed'), key);
    const created = await publish(acme, signed);
    expect(created.status).toBe(201);
    expect(created.body.signature).toMatchObject({ verified: true, signer: 'did:web:acme.example', kid: key.kid, alg: 'ES256', keyUrl: 'https://acme.example/.well-known/did.json' });
    const read = await app.call('GET', cardPath('https://acme.example/agents/signed'));
    expect(read.body).toMatchObject({ verified: true, latest: { signature: { verified: true, signer: 'did:web:acme.example', kid: key.kid, alg: 'ES256' } } });
    expect(typeof read.body.latest.signature.verifiedAt).toBe('string');
    // The read model gives the same answer with the query the README documents for search and catalogs.
    await waitUntil(async () => (await verifiedInReadModel()).includes('https://acme.example/agents/signed'), { what: 'the signed card verified in the read model' });
    expect(await verifiedInReadModel()).not.toContain('https://acme.example/agents/first');

    const tampered = { ...(await world.sign(card('acme.example', 'tampered'), key)), description: 'Changed after signing' };
    const refused = await publish(acme, tampered);
    expect(refused.status).toBe(422);
    expect(refused.body).toMatchObject({ code: 'SIGNATURE_INVALID', signatureCode: 'SIGNATURE_INVALID', issues: [{ path: '/signature', code: 'SIGNATURE_INVALID', severity: 'error' }] });
    expect((await app.call('GET', cardPath('https://acme.example/agents/tampered'))).status).toBe(404);
  });

  it('verifies an A2A card\'s signatures against the did:web of its namespace, and refuses one changed after signing', async () => {
    const key = await world.publishKey('acme.example', 'agents');
    const agent = { name: 'Quotes', description: 'Prices orders', url: 'https://acme.example/a2a', version: '1.0.0', protocolVersion: '0.3.0', capabilities: {}, defaultInputModes: ['text/plain'], defaultOutputModes: ['text/plain'], skills: [{ id: 'quote', name: 'Quote', description: 'Quotes a price', tags: ['pricing'] }] };
    const publishAgent = (document: unknown, identifier: string) => app.call('POST', `/v1/cards?identifier=${encodeURIComponent(identifier)}`, { token: acme, raw: bytesOf(document) });

    const created = await publishAgent(await world.signA2a(agent, key), 'urn:air:acme.example:agent:quotes');
    expect(created.status).toBe(201);
    expect(created.body).toMatchObject({ kind: 'a2a', signature: { verified: true, signer: 'did:web:acme.example', kid: key.kid, signatures: 1 } });
    expect((await app.call('GET', cardPath('urn:air:acme.example:agent:quotes'))).body.verified).toBe(true);

    const changed = { ...(await world.signA2a(agent, key)), description: 'Prices orders, now for free' };
    const refused = await publishAgent(changed, 'urn:air:acme.example:agent:free-quotes');
    expect(refused.status).toBe(422);
    expect(refused.body).toMatchObject({ code: 'SIGNATURE_INVALID', signatureCode: 'SIGNATURE_INVALID', issues: [{ path: '/signatures/0' }] });
    expect((await app.call('GET', cardPath('urn:air:acme.example:agent:free-quotes'))).status).toBe(404);
  });

  it('refuses every forbidden JWS header at publish with its signature code, and stores none of them', async () => {
    const key = await world.publishKey('acme.example', 'header-tests');
    const table: Array<[string, Record<string, unknown>, string]> = [
      ['jku', { jku: 'https://acme.example/jwks.json' }, 'JWS_HEADER_FORBIDDEN'],
      ['jwk', { jwk: key.publicJwk }, 'JWS_HEADER_FORBIDDEN'],
      ['x5u', { x5u: 'https://acme.example/cert.pem' }, 'JWS_HEADER_FORBIDDEN'],
      ['x5c', { x5c: ['MIIBszCCAVmgAwIBAgIUQ'] }, 'JWS_HEADER_FORBIDDEN'],
      ['b64', { b64: false }, 'JWS_HEADER_FORBIDDEN'],
      ['crit', { crit: ['exp'], exp: 1 }, 'JWS_CRIT_UNSUPPORTED'],
      ['alg none', { alg: 'none' }, 'JWS_ALG_NONE'],
      ['alg HS256', { alg: 'HS256' }, 'JWS_ALG_SYMMETRIC'],
    ];
    for (const [name, header, code] of table) {
      const identifier = `header-${name.replace(/\s/g, '-')}`;
      const refused = await publish(acme, await world.sign(card('acme.example', identifier), key, header));
      expect({ name, status: refused.status, code: refused.body.code, signatureCode: refused.body.signatureCode }).toEqual({ name, status: 422, code: 'SIGNATURE_INVALID', signatureCode: code });
      expect((await app.call('GET', cardPath(`https://acme.example/agents/${identifier}`))).status).toBe(404);
    }
  });

  it('under require, refuses an unsigned card (422 SIGNATURE_REQUIRED) and stores nothing; only the holder or an operator sets the policy', async () => {
    expect((await app.call('PUT', '/v1/namespaces/acme.example/signature-policy', { token: globex, json: { policy: 'off' } })).body.code).toBe('NAMESPACE_NOT_GRANTED');
    expect((await app.call('PUT', '/v1/namespaces/acme.example/signature-policy', { token: acme, json: { policy: 'sometimes' } })).body.code).toBe('POLICY_INVALID');
    const set = await app.call('PUT', '/v1/namespaces/acme.example/signature-policy', { token: acme, json: { policy: 'require' } });
    expect(set.status).toBe(200);
    expect(set.body).toMatchObject({ signaturePolicy: 'require', changed: true });

    const unsigned = await publish(acme, card('acme.example', 'unsigned'));
    expect(unsigned.status).toBe(422);
    expect(unsigned.body).toMatchObject({ code: 'SIGNATURE_REQUIRED', signatureCode: 'SIGNATURE_ABSENT', issues: [{ path: '/signature', code: 'SIGNATURE_ABSENT' }] });
    expect((await app.call('GET', cardPath('https://acme.example/agents/unsigned'))).status).toBe(404);

    const byOperator = await app.call('PUT', '/v1/namespaces/acme.example/signature-policy', { token: OPERATOR_TOKEN, json: { policy: 'verify-if-present' } });
    expect(byOperator.body).toMatchObject({ signaturePolicy: 'verify-if-present', changed: true });
    expect((await publish(acme, card('acme.example', 'unsigned'))).status).toBe(201);
  });

  it('re-verifies stored signatures when the DID document changes: a removed key turns the card unverified', async () => {
    const key = await world.publishKey('acme.example', 'rotating');
    const created = await publish(acme, await world.sign(card('acme.example', 'rotated'), key));
    expect(created.body.signature.verified).toBe(true);
    expect((await app.call('GET', cardPath('https://acme.example/agents/rotated'))).body.verified).toBe(true);

    world.didKeys.set('acme.example', (world.didKeys.get('acme.example') ?? []).filter((candidate) => candidate !== key));
    // Rounds until the revision has reached the read model the task reads (the projection is asynchronous).
    await waitUntil(
      async () => {
        await app.handle.trustRecheck.runRound();
        return (await app.call('GET', cardPath('https://acme.example/agents/rotated'))).body.verified === false;
      },
      { what: 'the re-verification of the rotated card', intervalMs: 100 },
    );
    const read = await app.call('GET', cardPath('https://acme.example/agents/rotated'));
    expect(read.body).toMatchObject({ verified: false, latest: { signature: { verified: false, code: 'KEY_NOT_FOUND', kid: key.kid } } });
    // A card signed by a key still listed stays verified.
    expect((await app.call('GET', cardPath('https://acme.example/agents/signed'))).body.verified).toBe(true);
  });

  it('stores a signature whose key document cannot be fetched as unverified with a warning, and verifies it once the document appears', async () => {
    const key = await world.publishKey('globex.example', 'late');
    const listed = world.didKeys.get('globex.example') ?? [];
    world.didKeys.delete('globex.example'); // did.json answers 404
    const created = await publish(globex, await world.sign(card('globex.example', 'late'), key));
    expect(created.status).toBe(201);
    expect(created.body.signature).toMatchObject({ verified: false, code: 'KEY_DOCUMENT_UNAVAILABLE' });
    expect(created.body.warnings).toEqual([expect.objectContaining({ code: 'KEY_DOCUMENT_UNAVAILABLE', severity: 'warning', path: '/signature' })]);
    expect((await app.call('GET', cardPath('https://globex.example/agents/late'))).body.verified).toBe(false);

    world.didKeys.set('globex.example', listed);
    await waitUntil(
      async () => {
        await app.handle.trustRecheck.runRound();
        return (await app.call('GET', cardPath('https://globex.example/agents/late'))).body.verified === true;
      },
      { what: 'the late key document to verify the card', intervalMs: 100 },
    );
    expect((await app.call('GET', cardPath('https://globex.example/agents/late'))).body.latest.signature).toMatchObject({ verified: true, kid: key.kid });
  });

  it('runs exactly one of two re-check rounds started at once (the round is won by an optimistic append, as across replicas)', async () => {
    const rounds = await Promise.all([app.handle.trustRecheck.runRound(), app.handle.trustRecheck.runRound(), app.handle.trustRecheck.runRound()]);
    expect(rounds.filter((round) => round.ran)).toHaveLength(1);
  });

  it('lapses a proof that fails past its expiry (its cards lose verified) and restores it when the record is back', async () => {
    const signedCard = cardPath('https://acme.example/agents/signed');
    expect((await app.call('GET', signedCard)).body.verified).toBe(true);
    const record = [...(world.txt['acme.example'] ?? [])];
    world.txt['acme.example']?.splice(0, Infinity);

    clockOffsetMs += 2_000; // due for a re-check, not expired: still verified
    await app.handle.trustRecheck.runRound();
    expect((await app.call('GET', '/v1/namespaces/acme.example')).body).toMatchObject({ verified: true });

    clockOffsetMs += VALIDITY_MS + HOUR;
    const lapsing = await app.handle.trustRecheck.runRound();
    expect(lapsing.lapsed).toBe(1);
    expect((await app.call('GET', '/v1/namespaces/acme.example')).body).toMatchObject({ publisherId: 'acme', verified: false, verification: { status: 'lapsed', lapseCode: 'OWNERSHIP_DNS_RECORD_MISSING' } });
    expect((await app.call('GET', signedCard)).body.verified).toBe(false);
    expect((await app.handle.trustRecheck.runRound()).lapsed).toBe(0);

    world.txt['acme.example']?.push(...record);
    expect((await app.handle.trustRecheck.runRound()).renewed).toBe(1);
    expect((await app.call('GET', '/v1/namespaces/acme.example')).body).toMatchObject({ verified: true, verification: { status: 'valid' } });
    expect((await app.call('GET', signedCard)).body.verified).toBe(true);
  });

  it('refuses to check a claim past its time to live (409 CLAIM_EXPIRED), leaving the namespace unclaimed', async () => {
    const challenge = await claim(globex, 'acrne.example', 'dns-txt');
    expect(challenge.status).toBe(409); // held by mallory
    const fresh = await claim(mallory, 'acrne.example', 'dns-txt');
    world.txt['acrne.example']?.push(fresh.body.instructions.recordValue as string);
    clockOffsetMs += 8 * 24 * HOUR;
    const expired = await check(mallory, 'acrne.example');
    expect(expired.body).toMatchObject({ status: 409, code: 'CLAIM_EXPIRED' });
    expect((await app.call('GET', '/v1/namespaces/acrne.example')).body).toMatchObject({ publisherId: 'mallory', verified: false, verification: null });
  });
});
