/**
 * Delegated service credentials (REGISTRY_SERVICE_CREDENTIALS) and namespace ownership over gRPC, against the
 * running registry with the generated gRPC client and plain HTTP, proofs run against a real DNS server and HTTPS
 * server on loopback (trust-world.fixture.ts): one console credential acts as publishers `console-<id>`, each
 * registered on its first call and holding exactly the rights of any publisher (its own proved namespaces, never
 * another's); the claim methods answer exactly the record or file to create; a bad `trustmesh-on-behalf-of` is
 * refused with a stable code on both transports.
 */
import { createHash } from 'node:crypto';

import * as grpc from '@grpc/grpc-js';
import { cardRegistryV1GrpcJs as v1 } from '@trustmesh/contracts';

import { OPERATOR_TOKEN, startRegistryApp, type RegistryApp } from './support/registry-app.fixture';
import { aiCard, bytesOf } from './support/registry-clients';
import { registryGrpcClient, type RegistryGrpc } from './support/registry-grpc.client';
import { startTrustWorld, type TrustWorld } from './support/trust-world.fixture';

const CONSOLE_TOKEN = 'console-service-credential-for-registry-tests-0004';
const SERVICE_CREDENTIALS = `console:${createHash('sha256').update(CONSOLE_TOKEN).digest('hex')}`;
const ALICE = 'console-6f1d2c3b-0000-4000-8000-00000000a11c';
const BOB = 'console-6f1d2c3b-0000-4000-8000-000000000b0b';
const as = (publisher: string) => ({ 'trustmesh-on-behalf-of': publisher });

describe('card registry delegated service credentials and namespace claims over gRPC', () => {
  let world: TrustWorld;
  let app: RegistryApp;
  let api: RegistryGrpc;
  beforeAll(async () => {
    world = await startTrustWorld(['alice.example', 'alice-files.example', 'bob.example']);
    app = await startRegistryApp({ ...world.registryEnv, REGISTRY_SERVICE_CREDENTIALS: SERVICE_CREDENTIALS, REGISTRY_TRUST_TASK_INTERVAL_MS: '0' });
    api = registryGrpcClient(app.handle.grpcAddress);
  });
  afterAll(async () => {
    api?.close();
    await app?.close();
    await world?.close();
  });

  it('proves a namespace by DNS for a console account, which then publishes there and only there', async () => {
    const started = await api.cards.startNamespaceClaim({ namespace: 'alice.example', method: v1.OwnershipMethod.DNS_TXT }, CONSOLE_TOKEN, as(ALICE));
    expect(started.error).toBeUndefined();
    const record = started.response?.proof?.dnsTxt;
    expect(record).toEqual({ name: '_trustmesh-challenge.alice.example', value: `trustmesh-verification=${started.response?.token}` });

    // Before the record exists the claim is pending; Bob (same credential) does not see Alice's claim.
    expect((await api.cards.listNamespaceClaims({}, CONSOLE_TOKEN, as(ALICE))).response?.claims).toEqual([expect.objectContaining({ namespace: 'alice.example', state: 'pending', method: v1.OwnershipMethod.DNS_TXT })]);
    expect((await api.cards.listNamespaceClaims({}, CONSOLE_TOKEN, as(BOB))).response?.claims).toEqual([]);

    world.txt['alice.example']?.push(record?.value ?? '');
    const checked = await api.cards.checkNamespaceClaim({ namespace: 'alice.example', proof: '' }, CONSOLE_TOKEN, as(ALICE));
    expect(checked.error).toBeUndefined();
    expect(checked.response).toMatchObject({ namespace: 'alice.example', publisherId: ALICE, method: v1.OwnershipMethod.DNS_TXT });
    expect((await api.cards.getNamespace({ namespace: 'alice.example' })).response).toMatchObject({ namespace: 'alice.example', publisherId: ALICE, verified: true, verification: { method: v1.OwnershipMethod.DNS_TXT, status: 'valid' } });
    expect((await api.cards.listNamespaceClaims({}, CONSOLE_TOKEN, as(ALICE))).response?.claims[0]).toMatchObject({ namespace: 'alice.example', state: 'verified' });

    // The publisher was registered on first use, through the operator's own event path.
    const registered = await app.call('GET', `/v1/operator/publishers/${ALICE}`, { token: OPERATOR_TOKEN });
    expect(registered.body).toMatchObject({ publisherId: ALICE, displayName: expect.stringContaining('console account') });

    const card = Buffer.from(bytesOf(aiCard('alice.example')));
    const published = await api.cards.publishCard({ document: card, kind: v1.CardKind.UNSPECIFIED, identifier: '', dryRun: false }, CONSOLE_TOKEN, as(ALICE));
    expect(published.response).toMatchObject({ identifier: 'did:web:alice.example', outcome: v1.PublishOutcome.CREATED });
    const intruder = await api.cards.publishCard({ document: card, kind: v1.CardKind.UNSPECIFIED, identifier: '', dryRun: false }, CONSOLE_TOKEN, as(BOB));
    expect([intruder.error?.code, intruder.refusal?.code]).toEqual([grpc.status.PERMISSION_DENIED, 'NAMESPACE_NOT_GRANTED']);
    // Bob cannot take Alice's namespace by claiming it either.
    const grab = await api.cards.startNamespaceClaim({ namespace: 'alice.example', method: v1.OwnershipMethod.DNS_TXT }, CONSOLE_TOKEN, as(BOB));
    expect([grab.error?.code, grab.refusal?.code]).toEqual([grpc.status.FAILED_PRECONDITION, 'NAMESPACE_HELD']);
  });

  it('answers the well-known file to serve, reports a failed check with its code, then verifies once the file is there', async () => {
    const started = await api.cards.startNamespaceClaim({ namespace: 'alice-files.example', method: v1.OwnershipMethod.HTTPS_FILE }, CONSOLE_TOKEN, as(ALICE));
    const file = started.response?.proof?.wellKnownFile;
    expect(file).toEqual({ url: 'https://alice-files.example/.well-known/trustmesh-registry-auth', body: `${started.response?.token}\n` });

    const early = await api.cards.checkNamespaceClaim({ namespace: 'alice-files.example', proof: '' }, CONSOLE_TOKEN, as(ALICE));
    expect([early.error?.code, early.refusal?.code, early.refusal?.issues[0]?.code]).toEqual([grpc.status.INVALID_ARGUMENT, 'PROOF_FAILED', expect.stringMatching(/^OWNERSHIP_/)]);
    const failed = (await api.cards.listNamespaceClaims({}, CONSOLE_TOKEN, as(ALICE))).response?.claims.find((claim) => claim.namespace === 'alice-files.example');
    expect(failed).toMatchObject({ state: 'failed', failureCode: early.refusal?.issues[0]?.code, proof: { wellKnownFile: file } });

    world.files.set('alice-files.example', file?.body ?? '');
    const verified = await api.cards.checkNamespaceClaim({ namespace: 'alice-files.example', proof: '' }, CONSOLE_TOKEN, as(ALICE));
    expect([verified.refusal, verified.response]).toEqual([undefined, expect.objectContaining({ publisherId: ALICE, method: v1.OwnershipMethod.HTTPS_FILE })]);
    const claims = (await api.cards.listNamespaceClaims({}, CONSOLE_TOKEN, as(ALICE))).response?.claims ?? [];
    expect(claims.map((claim) => [claim.namespace, claim.state])).toEqual([
      ['alice-files.example', 'verified'],
      ['alice.example', 'verified'],
    ]);
    // The same listing over REST.
    const rest = await app.call('GET', '/v1/namespace-claims', { token: CONSOLE_TOKEN, headers: as(ALICE) });
    expect(rest.body.claims.map((claim: { namespace: string; state: string }) => [claim.namespace, claim.state])).toEqual([
      ['alice-files.example', 'verified'],
      ['alice.example', 'verified'],
    ]);
  });

  it('refuses a missing, malformed, over-long or foreign publisher with a stable code on gRPC and REST', async () => {
    const cases: Array<[Record<string, string>, grpc.status, number, string]> = [
      [{}, grpc.status.UNAUTHENTICATED, 401, 'ON_BEHALF_OF_MISSING'],
      [as('console-'), grpc.status.UNAUTHENTICATED, 401, 'ON_BEHALF_OF_INVALID'],
      [as('console-Alice'), grpc.status.UNAUTHENTICATED, 401, 'ON_BEHALF_OF_INVALID'],
      [as(`console-${'a'.repeat(60)}`), grpc.status.UNAUTHENTICATED, 401, 'ON_BEHALF_OF_INVALID'],
      [as('acme'), grpc.status.UNAUTHENTICATED, 401, 'ON_BEHALF_OF_INVALID'],
      [as('billing-6f1d2c3b'), grpc.status.PERMISSION_DENIED, 403, 'ON_BEHALF_OF_FOREIGN'],
    ];
    for (const [metadata, code, status, refusal] of cases) {
      const reply = await api.cards.listNamespaceClaims({}, CONSOLE_TOKEN, metadata);
      expect([metadata, reply.error?.code, reply.refusal?.code]).toEqual([metadata, code, refusal]);
      const answer = await app.call('GET', '/v1/namespace-claims', { token: CONSOLE_TOKEN, headers: metadata });
      expect([metadata, answer.status, answer.body.code]).toEqual([metadata, status, refusal]);
    }
    // An operator may not register a publisher inside the console's prefix.
    const reserved = await app.call('POST', '/v1/operator/publishers', { token: OPERATOR_TOKEN, json: { publisherId: 'console-squatter', displayName: 'Squatter' } });
    expect([reserved.status, reserved.body.code]).toEqual([400, 'PUBLISHER_ID_RESERVED']);
  });

  it('fills the signature state of a card and the namespace of each search hit', async () => {
    const got = await api.cards.getCard({ identifier: 'did:web:alice.example', revision: '' });
    expect(got.response?.card).toMatchObject({ identifier: 'did:web:alice.example', namespace: 'alice.example', verified: false, signatures: [] });
    const found = await (async () => {
      for (let attempt = 0; attempt < 100; attempt += 1) {
        const search = await api.cards.searchCards({ query: '', filters: { kinds: [], protocols: [], tags: ['finance'], publisherDomains: ['alice.example'], statuses: [v1.CardStatus.ACTIVE], verified: v1.VerifiedFilter.UNSPECIFIED }, limit: 10, cursor: '' });
        if ((search.response?.hits.length ?? 0) > 0) return search.response;
        await new Promise((resolve) => setTimeout(resolve, 100));
      }
      return undefined;
    })();
    expect(found?.hits.map((hit) => [hit.identifier, hit.publisherDomain])).toEqual([['did:web:alice.example', 'alice.example']]);
    expect(found?.facets.find((facet) => facet.field === 'tag')?.values).toEqual(expect.arrayContaining([{ value: 'finance', count: 1 }]));

    // A revision signed by a key of did:web:alice.example: GetCard carries its recorded check.
    const key = await world.publishKey('alice.example');
    const signed = await world.sign(aiCard('alice.example', { updatedAt: '2026-03-01T10:00:00Z' }), key);
    const published = await api.cards.publishCard({ document: Buffer.from(bytesOf(signed)), kind: v1.CardKind.UNSPECIFIED, identifier: '', dryRun: false }, CONSOLE_TOKEN, as(ALICE));
    expect(published.response?.outcome).toBe(v1.PublishOutcome.CREATED);
    const read = await api.cards.getCard({ identifier: 'did:web:alice.example', revision: '' });
    expect(read.response?.card).toMatchObject({ revision: '2026-03-01T10:00:00Z', verified: true, signatures: [expect.objectContaining({ outcome: v1.SignatureOutcome.VERIFIED, signer: 'did:web:alice.example', alg: 'ES256' })] });
  });
});
