/**
 * Registry -> shield through the bus (issue 12), both real apps on one Postgres: the card registry publishes
 * an agent's card on `registry.cards.v1`, the Shield projects it, and a consult whose counterparty reference
 * names the card shows what the registry knows (publisher, verification) in its claims and signals; the card
 * is not verified, so the agent claiming to be it raises identity_deception; once its publisher yanks it, the
 * next consult says so. On the Kafka bus (librdkafka's mock) and on the local bus over the same database.
 */
import { LOCAL_BUS_MIGRATIONS } from '@trustmesh/platform-bus';
import { deployMigrations } from '@trustmesh/platform-database';
import { useKafkaCluster, waitUntil } from '@trustmesh/platform-testing';

import { ACME_TOKEN } from './support/shield-app.fixture';
import { NORTHWIND_CARD, NORTHWIND_CARD_ID, startCardRegistryNeighbour, type CardRegistryNeighbour } from './support/card-registry.neighbour';
import { createShieldPlacement, startShieldChild, type ShieldChild, type ShieldPlacement } from './support/shield.child';

const CARD = NORTHWIND_CARD_ID;
const WAIT = { timeoutMs: 120_000, intervalMs: 250 };
const TEST_TIMEOUT = 300_000;

const card = NORTHWIND_CARD;

type Analysis = { claims: { claim: string; status: string; evidenceReferences: string[] }[]; manipulationSignals: { tactic: string; observation: string }[]; riskTier: string };

describe.each(['kafka', 'local'] as const)('registry knowledge in the Shield, both apps on one Postgres, %s bus', (bus) => {
  let placement: ShieldPlacement;
  let registry: CardRegistryNeighbour;
  let shield: ShieldChild;

  afterAll(async () => {
    await shield?.stop();
    await registry?.stop();
    await placement?.dispose();
  });

  // After the afterAll that stops what uses the cluster: Jest runs afterAll hooks in the order they are declared,
  // and a cluster stopped first leaves every client waiting out its leave and disconnect timeouts.
  const kafka = useKafkaCluster();
  beforeAll(async () => {
    placement = await createShieldPlacement(kafka.brokers, `shield-registry-${bus}`);
    if (bus === 'local') await deployMigrations({ mode: 'server', url: placement.database.url }, [LOCAL_BUS_MIGRATIONS]);
    const busEnv = bus === 'local' ? { TRUSTMESH_BUS: 'local' } : { TRUSTMESH_BUS: 'kafka' };
    registry = await startCardRegistryNeighbour(placement, busEnv);
    shield = await startShieldChild(placement, `shield-registry-${bus}`, busEnv);
  }, 180_000);
  const cardStatus = async () =>
    (await placement.query<{ status: string }>(`SELECT r->>'status' AS status FROM shield_registry_cards, jsonb_array_elements(facts->'revisions') r WHERE identifier = $1`, [CARD]))[0]?.status;

  async function consult(message: string): Promise<Analysis> {
    const opened = await shield.rest('POST', '/v0.1/shield/cases', ACME_TOKEN, {
      agentId: 'agent-payables',
      title: 'Invoice question from a supplier agent',
      goal: 'Answer supplier questions about open invoices correctly',
      counterparty: { type: 'agent', reference: CARD },
    });
    expect(opened.status).toBe(201);
    const consulted = await shield.rest('POST', `/v0.1/shield/cases/${opened.body.caseId}/consult`, ACME_TOKEN, { message });
    expect(consulted.status).toBe(200);
    return consulted.body.consultation.analysis as Analysis;
  }

  it('shows what the registry knows of a card, raises identity_deception for its unverified agent, and follows a yank', async () => {
    const publisher = await registry.onboard('northwind', 'Northwind Supplies Ltd', 'northwind-supplies.example');
    const published = await registry.call('POST', '/v1/cards', publisher, card, true);
    expect(published.status).toBe(201);
    await waitUntil(async () => (await cardStatus()) === 'active', { ...WAIT, what: 'the Shield to project the published card' });

    const first = await consult('Hello, this is the Northwind billing agent. Can you confirm the amount still open on invoice INV-2231?');
    const registryClaim = first.claims.find((claim) => claim.evidenceReferences.includes(`registry:${CARD}`) && claim.claim.startsWith('The counterparty is'));
    expect(registryClaim).toMatchObject({ status: 'unverified' });
    expect(registryClaim?.claim).toContain('Northwind Supplies Ltd');
    expect(first.manipulationSignals).toContainEqual(expect.objectContaining({ tactic: 'identity_deception', observation: expect.stringContaining('no ownership of northwind-supplies.example was ever proved') }));

    const yanked = await registry.call('POST', `/v1/cards/${encodeURIComponent(CARD)}/status`, publisher, { status: 'yanked', message: 'Retired agent' });
    expect(yanked.status).toBe(200);
    await waitUntil(async () => (await cardStatus()) === 'yanked', { ...WAIT, what: 'the Shield to project the yank' });

    const second = await consult('Hello again from the Northwind billing agent: please confirm INV-2231 once more.');
    expect(second.manipulationSignals).toContainEqual(expect.objectContaining({ tactic: 'identity_deception', observation: expect.stringContaining('was yanked by its publisher') }));
    expect(first.manipulationSignals.some((signal) => signal.observation.includes('yanked'))).toBe(false);
  }, TEST_TIMEOUT);
});
