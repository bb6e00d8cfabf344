/**
 * Registry -> Shield as `npm start` runs them (issue 12): each app in a process of its own with an embedded
 * database and local bus, so the registry's `registry.cards.v1` reaches the Shield only through the registry's
 * EventFeed, which the Shield's mirror follows (SHIELD_REGISTRY_FEED_*). The Shield starts first, while no registry
 * answers: it is ready all the same and says its mirror is retrying; once the registry is up, a consult about a
 * card published there says what the registry knows; with the registry stopped the Shield keeps what it copied,
 * and once the registry is back, a yank published there reaches the next consult.
 */
import { createHash } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

import { freeLoopbackPort, waitUntil } from '@trustmesh/platform-testing';

import { NORTHWIND_CARD, NORTHWIND_CARD_ID, startEmbeddedCardRegistry, type CardRegistryNeighbour } from './support/card-registry.neighbour';
import { ACME_TOKEN, startShieldApp, type ShieldApp } from './support/shield-app.fixture';

const CARD = NORTHWIND_CARD_ID;
const FEED_TOKEN = 'registry-feed-credential-for-shield-tests-01';
const WAIT = { timeoutMs: 60_000, intervalMs: 250 };

const card = NORTHWIND_CARD;

type Analysis = { claims: { claim: string; status: string; evidenceReferences: string[] }[]; manipulationSignals: { tactic: string; observation: string }[] };


describe('registry knowledge in the Shield through the registry\'s event feed (two processes, embedded, local buses)', () => {
  const registryDir = mkdtempSync(join(tmpdir(), 'registry-feed-'));
  let port: number;
  let shield: ShieldApp;
  let registry: CardRegistryNeighbour | undefined;
  const registryEnv = { REGISTRY_FEED_CREDENTIALS: `shield:${createHash('sha256').update(FEED_TOKEN).digest('hex')}` };

  beforeAll(async () => {
    port = await freeLoopbackPort();
    shield = await startShieldApp({ SHIELD_REGISTRY_FEED_ADDRESS: `127.0.0.1:${port}`, SHIELD_REGISTRY_FEED_CREDENTIAL: FEED_TOKEN });
  }, 120_000);
  afterAll(async () => {
    await shield?.close();
    await registry?.stop();
    rmSync(registryDir, { recursive: true, force: true });
  }, 120_000);

  const metric = async (name: string) => {
    const text = await (await fetch(`${shield.handle.operatorUrl}/metrics`)).text();
    const line = text.split('\n').find((entry) => entry.startsWith(`${name}{topic="registry.cards.v1"}`));
    return line === undefined ? undefined : Number(line.split(' ').pop());
  };

  let caseId = '';
  async function consult(message: string): Promise<Analysis> {
    const consulted = await shield.call('POST', `/v0.1/shield/cases/${caseId}/consult`, ACME_TOKEN, { message });
    expect(consulted.status).toBe(200);
    return consulted.body.consultation.analysis as Analysis;
  }

  it('is ready without the registry, then consults with what the registry knows once it is up, across its restart', async () => {
    // No registry yet: the Shield serves and is ready; its mirror says it is retrying.
    expect((await fetch(`${shield.handle.operatorUrl}/readyz`)).status).toBe(200);
    await waitUntil(async () => ((await metric('event_feed_mirror_failures')) ?? 0) >= 1, { ...WAIT, what: 'the mirror to report failed reads' });
    expect(await metric('event_feed_mirror_following')).toBe(0);
    expect(shield.logs.filter((line) => line.includes('"code":"FEED_UNREACHABLE"'))).toHaveLength(1);
    const opened = await shield.call('POST', '/v0.1/shield/cases', ACME_TOKEN, {
      agentId: 'agent-payables',
      title: 'Invoice question from a supplier agent',
      goal: 'Answer supplier questions about open invoices correctly',
      counterparty: { type: 'agent', reference: CARD },
    });
    expect(opened.status).toBe(201);
    caseId = opened.body.caseId as string;
    const before = await consult('Hello, this is the Northwind billing agent. Can you confirm invoice INV-2231?');
    expect(before.claims.some((claim) => claim.evidenceReferences.includes(`registry:${CARD}`))).toBe(false);

    // The registry comes up on the address the Shield was given; a card is published there.
    registry = await startEmbeddedCardRegistry(registryDir, port, registryEnv);
    const publisher = await registry.onboard('northwind', 'Northwind Supplies Ltd', 'northwind-supplies.example');
    expect((await registry.call('POST', '/v1/cards', publisher, card, true)).status).toBe(201);
    let first: Analysis | undefined;
    await waitUntil(
      async () => {
        first = await consult('Hello again from the Northwind billing agent: is INV-2231 still open?');
        return first.claims.some((claim) => claim.evidenceReferences.includes(`registry:${CARD}`));
      },
      { ...WAIT, intervalMs: 500, what: 'a consult to cite what the registry knows of the card' },
    );
    const registryClaim = first?.claims.find((claim) => claim.evidenceReferences.includes(`registry:${CARD}`) && claim.claim.startsWith('The counterparty is'));
    expect(registryClaim).toMatchObject({ status: 'unverified' });
    expect(registryClaim?.claim).toContain('Northwind Supplies Ltd');
    expect(await metric('event_feed_mirror_following')).toBe(1);
    expect(shield.logs.some((line) => line.includes('event feed mirror: following again'))).toBe(true);

    // The registry stops: the Shield keeps what it copied. It comes back (same data, same address) and yanks the card.
    await registry.stop();
    registry = undefined;
    const during = await consult('Still there? Please confirm INV-2231.');
    expect(during.claims.some((claim) => claim.evidenceReferences.includes(`registry:${CARD}`))).toBe(true);
    registry = await startEmbeddedCardRegistry(registryDir, port, registryEnv);
    expect((await registry.call('POST', `/v1/cards/${encodeURIComponent(CARD)}/status`, publisher, { status: 'yanked', message: 'Retired agent' })).status).toBe(200);
    await waitUntil(
      async () => (await consult('One more question on INV-2231.')).manipulationSignals.some((signal) => signal.tactic === 'identity_deception' && signal.observation.includes('was yanked by its publisher')),
      { ...WAIT, intervalMs: 500, what: 'the yank to reach a consult' },
    );
    // Nothing was copied twice: the projection applied every registry event once (no conflict, no dead letter).
    expect(shield.logs.filter((line) => line.includes('PROJECTION_EVENT_CONFLICT') || line.includes('"level":"error"'))).toEqual([]);
  }, 300_000);
});
