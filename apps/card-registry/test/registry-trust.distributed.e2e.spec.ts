/**
 * Namespace trust on a server deployment: one registry process on Postgres with the Kafka bus (librdkafka's
 * mock), configured only by its environment, with its own timer driving the re-check task (short intervals).
 * A namespace proved by DNS, a signed card verified; then the key leaves the DID document and the card turns
 * unverified, and the TXT record goes away and the proof lapses once expired; the trust read model (projected
 * through Kafka) follows.
 */
import { useKafkaCluster, waitUntil } from '@trustmesh/platform-testing';

import { onboard } from './support/registry-app.fixture';
import { createRegistryPlacement, startRegistryChild, type RegistryChild, type RegistryPlacement } from './support/registry.child';
import { aiCard, bytesOf, cardPath } from './support/registry-clients';
import { startTrustWorld, type TrustWorld } from './support/trust-world.fixture';

const WAIT = { timeoutMs: 120_000, intervalMs: 250 };
const TEST_TIMEOUT = 300_000;

describe('card registry trust on Postgres and Kafka', () => {
  let placement: RegistryPlacement;
  let world: TrustWorld;
  let registry: RegistryChild;

  afterAll(async () => {
    await registry?.stop();
    await placement?.dispose();
    await world?.close();
  });

  // After the afterAll that stops what uses the cluster: Jest runs afterAll hooks in the order they are declared,
  // and a cluster stopped first leaves every client waiting out its leave and disconnect timeouts.
  const kafka = useKafkaCluster();
  beforeAll(async () => {
    world = await startTrustWorld(['acme.example']);
    placement = await createRegistryPlacement(kafka.brokers, 'registry-trust');
    registry = await startRegistryChild(placement, 'registry-trust-a', {
      ...world.registryEnv,
      REGISTRY_TRUST_TASK_INTERVAL_MS: '200',
      REGISTRY_PROOF_RECHECK_MS: '500',
      REGISTRY_PROOF_VALIDITY_MS: '4000',
      REGISTRY_KEY_RECHECK_MS: '0',
    });
  }, 180_000);
  it('verifies a DNS-proved namespace and its signed card, then drops verified when the key is removed and when the proof lapses', async () => {
    const acme = await onboard(registry.call, 'acme', []);
    const challenge = await registry.call('POST', '/v1/namespaces/acme.example/claims', { token: acme, json: { method: 'dns-txt' } });
    expect(challenge.status).toBe(201);
    world.txt['acme.example']?.push(challenge.body.instructions.recordValue as string);
    expect((await registry.call('POST', '/v1/namespaces/acme.example/claims/check', { token: acme, json: {} })).status).toBe(200);

    const kept = await world.publishKey('acme.example', 'kept');
    const removed = await world.publishKey('acme.example', 'removed');
    const card = (name: string) => aiCard('acme.example', { id: `https://acme.example/agents/${name}`, publisher: { id: 'did:web:acme.example', name: 'Acme' } });
    for (const [name, key] of [['kept', kept], ['removed', removed]] as const) {
      const created = await registry.call('POST', '/v1/cards', { token: acme, raw: bytesOf(await world.sign(card(name), key)) });
      expect(created.status).toBe(201);
      expect(created.body.signature).toMatchObject({ verified: true, kid: key.kid });
    }
    const verifiedOf = async (name: string) => (await registry.call('GET', cardPath(`https://acme.example/agents/${name}`))).body.verified as boolean;
    expect(await verifiedOf('removed')).toBe(true);

    world.didKeys.set('acme.example', [kept]);
    await waitUntil(async () => (await verifiedOf('removed')) === false, { ...WAIT, what: 'the card signed by the removed key to turn unverified' });
    expect(await verifiedOf('kept')).toBe(true);
    await waitUntil(
      async () => {
        const rows = await placement.query<{ verified: boolean; code: string | null }>(`SELECT verified, code FROM registry_revision_signatures WHERE identifier = 'https://acme.example/agents/removed'`);
        return rows[0]?.verified === false && rows[0].code === 'KEY_NOT_FOUND';
      },
      { ...WAIT, what: 'the re-verified outcome in the read model' },
    );

    world.txt['acme.example']?.splice(0, Infinity);
    await waitUntil(async () => (await registry.call('GET', '/v1/namespaces/acme.example')).body.verification?.status === 'lapsed', { ...WAIT, what: 'the proof to lapse' });
    expect(await verifiedOf('kept')).toBe(false);
    const lapses = await placement.query<{ n: string }>(`SELECT count(*) AS n FROM events WHERE event_type = 'NamespaceProofLapsed'`);
    expect(Number(lapses[0]?.n)).toBe(1);
    await waitUntil(async () => (await placement.query<{ lapsed_at: Date | null }>(`SELECT lapsed_at FROM registry_namespace_trust WHERE namespace = 'acme.example'`))[0]?.lapsed_at != null, {
      ...WAIT,
      what: 'the lapse in the read model',
    });
  }, TEST_TIMEOUT);
});
