/**
 * Issue 12, distributed mode end to end: every app its own process on the Postgres server and the Kafka
 * mock, configured only by environment variables as on Kubernetes, two replicas of the relay gateway and of
 * the card registry, one Shield analyzer and one companion simulator. The story, in order (the steps share
 * the one deployment, so each builds on the last):
 *
 * 1. a publisher's AI Card goes in through one registry replica and is served by both;
 * 2. an operator opens a Shield case whose counterparty is that card and consults it: the Shield projected
 *    the card from `registry.cards.v1` and its analysis cites the registry;
 * 3. the simulator pairs with a workspace on gateway A, which publishes the workspace's card in the
 *    registry (RelayControl `PublishWorkspaceCard`); a browser (`RelayClient`) on gateway B gets a streamed
 *    turn from the Companion, across replicas through Kafka;
 * 4. a counterparty's request: the simulator consults the Shield over gRPC, the browser sees the verdict in
 *    the approval and rejects it, the interaction settles and the Shield case closes as prevented harm;
 * 5. mid-turn, gateway B and registry B are killed (SIGKILL): the browser resumes on gateway A without a
 *    lost or repeated frame; registry calls go to registry A;
 * 6. every app's broker connections are cut and restored (the broker-outage tier's gate): writes accepted
 *    during the outage reach the read models once the brokers are back;
 * 7. the killed replicas restart; every card (the workspace's too) is in the registry's read model once,
 *    served by both replicas and projected once by the Shield, every Shield consultation once, and a second
 *    counterparty request completes the story.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

import { useKafkaCluster, waitUntil } from '@trustmesh/platform-testing';
import { RelayClient, type InteractionChange, type MessageUpdate } from '@trustmesh/relay-client';
import WebSocket from 'ws';

import { httpCall, relayControl, simulatorControl, type HttpReply, type RelayControl, type SimulatorControl } from './support/platform.clients';
import {
  createPlatformWorld,
  groupJoins,
  startGateway,
  startRegistry,
  startShield,
  startSimulator,
  type AppChild,
  type GatewayCardPublishing,
  type PlatformWorld,
  type ServiceReady,
  type SimulatorReady,
} from './support/platform.world';

/** Generous: the machine is shared, and a consumer group can take several session timeouts to settle. */
const WAIT = { timeoutMs: 150_000, intervalMs: 250 };
const STEP_TIMEOUT = 300_000;
const ORIGIN = 'https://app.trustmesh.test';
const NAMESPACE = 'acme.example';
/** The card of step 1, the counterparty of the operator's Shield case in step 2. */
const COUNTERPARTY_CARD = `https://${NAMESPACE}/agents/invoices`;
/** The namespace the registry grants the relay's publisher: the workspaces' cards live under it. */
const RELAY_NAMESPACE = 'relay.trustmesh.test';

/** An AI Card of the test's publisher (written for this suite). */
function aiCard(name: string): string {
  const id = `https://${NAMESPACE}/agents/${name}`;
  return JSON.stringify(
    {
      $schema: 'https://schemas.example.org/ai-card/v1.json',
      specVersion: '1.0',
      id,
      name: `Agent ${name}`,
      description: `The ${name} agent of Acme`,
      tags: ['finance'],
      publisher: { id: `did:web:${NAMESPACE}`, name: 'Acme Ltd' },
      services: { a2a: { type: 'a2a', name: `${name} over A2A`, protocolSpecific: { url: `https://${NAMESPACE}/a2a/${name}` } } },
      createdAt: '2026-01-10T09:00:00Z',
      updatedAt: '2026-02-01T10:00:00Z',
    },
    null,
    2,
  );
}

const cardPath = (identifier: string) => `/v1/cards/${encodeURIComponent(identifier)}`;

const counterpartyScenario = (request: 'bank-detail-change' | 'invoice-reminder') => `version: 1
name: counterparty ${request}
threads: [{ key: inbox, title: Supplier requests }]
steps:
  - { kind: counterpartyRequest, thread: inbox, request: ${request} }
`;

/** A turn the Companion streams in small pieces, long enough to outlast a replica's death and a reconnect. */
const STREAMED_TEXT = Array.from({ length: 40 }, (_, i) => `part ${i} of the supplier summary.`).join(' ');
const streamedTurnScenario = `version: 1
name: streamed summary
threads: [{ key: main, title: Supplier summary }]
steps:
  - kind: turn
    thread: main
    input: summarise the supplier invoices
    steps:
      - { kind: message, text: "${STREAMED_TEXT}", chunkChars: 8, chunkDelayMs: 40 }
`;

describe('Trustmesh in distributed mode: every app its own process on Postgres and Kafka', () => {
  let world: PlatformWorld;
  const children: Array<AppChild<object>> = [];
  let gateways: Array<AppChild<ServiceReady>>;
  let registries: Array<AppChild<ServiceReady>>;
  let shield: AppChild<ServiceReady>;
  let simulator: AppChild<SimulatorReady>;
  let control: SimulatorControl;
  let relayA: RelayControl;
  let browser: RelayClient;
  let dir: string;
  let workspaceId: string;
  let publisherToken: string;
  let cardPublishing: GatewayCardPublishing;
  /** Every card published and acknowledged (201), with its digest. */
  const published = new Map<string, string>();
  /** The operator's Shield case and every consultation of it acknowledged (200). */
  let operatorCaseId: string;
  const consultations: string[] = [];
  /** The Shield cases the Companion's counterparty requests opened, in order. */
  const companionCases: string[] = [];
  /** What the browser applied over the whole story: relay sequences in order, gap notices, recoveries, messages. */
  const applied: number[] = [];
  const gaps: Array<{ from: number; through: number }> = [];
  const recoveries: Array<{ phase: string; through: number }> = [];
  const resets: unknown[] = [];
  const completedMessages: MessageUpdate[] = [];

  async function launch<Ready extends object>(start: Promise<AppChild<Ready>>): Promise<AppChild<Ready>> {
    const child = await start;
    children.push(child);
    return child;
  }

  /** The registry as a Kubernetes Service sees it: the first replica still running answers. */
  function registry(method: string, path: string, token: string, body?: unknown): Promise<HttpReply> {
    const live = registries.find((replica) => replica.alive());
    if (!live) throw new Error('no registry replica is running');
    return httpCall(live.ready.httpUrl, method, path, token, body);
  }

  const shieldCall = (method: string, path: string, body?: unknown) => httpCall(shield.ready.httpUrl, method, `/v0.1${path}`, world.credentials.shieldOperator, body);

  async function publish(name: string): Promise<void> {
    const reply = await registry('POST', '/v1/cards', publisherToken, aiCard(name));
    expect(reply.status).toBe(201);
    published.set(`https://${NAMESPACE}/agents/${name}`, reply.body.digest);
  }

  async function consult(message: string): Promise<void> {
    const reply = await shieldCall('POST', `/shield/cases/${operatorCaseId}/consult`, { message });
    expect(reply.status).toBe(200);
    consultations.push(reply.body.consultation.consultationId);
  }

  /** Waits until `replica` serves the latest revision of every published card. */
  async function servesEveryCard(replica: AppChild<ServiceReady>): Promise<void> {
    await waitUntil(async () => {
      for (const [identifier, digest] of published) {
        const reply = await httpCall(replica.ready.httpUrl, 'GET', cardPath(identifier), world.credentials.registryOperator);
        if (reply.status !== 200 || reply.body.latest?.digest !== digest) return false;
      }
      return true;
    }, { ...WAIT, what: `every published card served by ${replica.name}` });
  }

  /** The next interaction the browser is offered, and the next tool that completes. */
  function nextApproval() {
    const offered = new Promise<any>((resolve) => {
      const off = browser.on('interaction', (change: InteractionChange) => {
        if (change.change !== 'pending') return;
        off();
        resolve(change.interaction);
      });
    });
    const toolCompleted = new Promise<any>((resolve) => {
      const off = browser.on('tool', (tool) => {
        if (tool.status !== 'completed') return;
        off();
        resolve(tool);
      });
    });
    return { offered, toolCompleted };
  }

  /** The Shield case the simulator's agent opened last, once closed (`{ case, consultations, outcomes }`). */
  async function newlyClosedCaseOfCompanion(): Promise<any> {
    let detail: any;
    await waitUntil(async () => {
      const listed = await shieldCall('GET', '/shield/cases');
      const opened = (listed.body as Array<{ caseId: string; agentId: string }>).filter((item) => item.agentId === simulator.ready.deviceId && !companionCases.includes(item.caseId));
      if (opened.length === 0) return false;
      expect(opened).toHaveLength(1);
      detail = (await shieldCall('GET', `/shield/cases/${opened[0]!.caseId}`)).body;
      return detail.case.status === 'closed';
    }, { ...WAIT, what: 'the Companion\'s new Shield case to be closed' });
    companionCases.push(detail.case.caseId);
    return detail;
  }

  /**
   * Waits until `survivor` holds, in each consumer group it shared with the killed `killed`, the partitions
   * both held: the rebalance the kill set off (once the group's session timeout expired the dead member) is
   * over. librdkafka's mock aborts (`rd_kafka_mock_cgrp_member_add: Assertion !member->resp`) when a member
   * whose JoinGroup is still pending sends another, which a broker outage in the middle of a rebalance makes
   * every member do: the outage of step 6 waits for this.
   */
  async function rebalancedAfterKill(survivor: AppChild<ServiceReady>, killed: AppChild<ServiceReady>, killedAt: number): Promise<void> {
    const last = (joins: ReturnType<typeof groupJoins>) => new Map(joins.map((join) => [join.groupId, join.partitions]));
    const before = last(groupJoins(survivor.logs.slice(0, killedAt)));
    const theirs = last(groupJoins(killed.logs));
    const shared = [...theirs.keys()].filter((groupId) => before.has(groupId));
    await waitUntil(() => {
      const after = last(groupJoins(survivor.logs, killedAt));
      return shared.every((groupId) => (after.get(groupId) ?? -1) >= before.get(groupId)! + theirs.get(groupId)!);
    }, { ...WAIT, what: `${survivor.name} to take over the partitions of ${killed.name}` });
  }

  async function scenarioCompleted(): Promise<void> {
    await waitUntil(() => control.scenarioCompleted(), { ...WAIT, what: 'the scenario to complete' });
  }

  /**
   * The registry's operator onboards the relay as the publisher of `RELAY_NAMESPACE` and hands it a
   * credential, which the gateways read from a file. Both gateways talk to registry A: this world has no
   * load balancer in front of the registry's gRPC, and registry A is the replica step 5 does not kill, so
   * the gateways' registry stays up as a Kubernetes Service's would.
   */
  async function onboardRelay(): Promise<GatewayCardPublishing> {
    const ops = world.credentials.registryOperator;
    expect((await registry('POST', '/v1/operator/publishers', ops, { publisherId: 'trustmesh-relay', displayName: 'Trustmesh Relay' })).status).toBe(201);
    expect((await registry('POST', '/v1/operator/namespaces', ops, { namespace: RELAY_NAMESPACE, publisherId: 'trustmesh-relay' })).status).toBe(201);
    const issued = await registry('POST', '/v1/operator/publishers/trustmesh-relay/credentials', ops, { label: 'relay gateways' });
    expect(issued.status).toBe(201);
    const credentialFile = join(dir, 'registry-publisher.credential');
    writeFileSync(credentialFile, `${issued.body.credential}\n`, { mode: 0o600 });
    return { registryGrpcAddress: registries[0]!.ready.grpcAddress, credentialFile, namespace: RELAY_NAMESPACE };
  }

  afterAll(async () => {
    browser?.close();
    control?.close();
    relayA?.close();
    for (const child of children.splice(0)) await child.kill();
    await world?.dispose();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  // After the afterAll that stops what uses the cluster: Jest runs afterAll hooks in the order they are declared,
  // and a cluster stopped first leaves every client waiting out its leave and disconnect timeouts.
  const kafka = useKafkaCluster();
  beforeAll(async () => {
    world = await createPlatformWorld(kafka.brokers);
    dir = mkdtempSync(join(tmpdir(), 'platform-e2e-'));
    // The replicas of one app start together: each member joining a consumer group makes it rebalance.
    const [registryA, registryB, shieldOne] = await Promise.all([
      launch(startRegistry(world, 'registry-a')),
      launch(startRegistry(world, 'registry-b')),
      launch(startShield(world, 'shield-a')),
    ]);
    registries = [registryA, registryB];
    shield = shieldOne;
    // The gateways need the registry's address and their publisher credential when they start.
    cardPublishing = await onboardRelay();
    gateways = await Promise.all([launch(startGateway(world, 'gateway-a', cardPublishing)), launch(startGateway(world, 'gateway-b', cardPublishing))]);
    relayA = relayControl(gateways[0]!.ready.grpcAddress, world.credentials.relayService);
  }, STEP_TIMEOUT);

  it('1. publishes an AI Card through one registry replica and serves it from both', async () => {
    const ops = world.credentials.registryOperator;
    expect((await registry('POST', '/v1/operator/publishers', ops, { publisherId: 'acme', displayName: 'Acme Ltd' })).status).toBe(201);
    expect((await registry('POST', '/v1/operator/namespaces', ops, { namespace: NAMESPACE, publisherId: 'acme' })).status).toBe(201);
    const issued = await registry('POST', '/v1/operator/publishers/acme/credentials', ops, { label: 'platform-e2e' });
    expect(issued.status).toBe(201);
    publisherToken = issued.body.credential;

    await publish('invoices');
    for (const replica of registries) await servesEveryCard(replica);
  }, STEP_TIMEOUT);

  it('2. opens a Shield case for a counterparty and consults it', async () => {
    const opened = await shieldCall('POST', '/shield/cases', {
      agentId: 'acme-payments-agent',
      title: 'Supplier asks to change bank details',
      goal: 'Pay the March invoice of Northwind Parts to the correct account',
      counterparty: { type: 'agent', reference: COUNTERPARTY_CARD },
      facts: [{ statement: 'Invoice INV-2231 is for 4,800 EUR', source: 'system', status: 'verified' }],
      evidence: [{ type: 'system_record', summary: 'Vendor master record: account unchanged since 2024', verification: 'verified' }],
      policies: [{ title: 'Bank detail changes', statement: 'Changes to supplier bank details need a call-back on the number on record.' }],
    });
    expect(opened.status).toBe(201);
    operatorCaseId = opened.body.caseId;
    // The Shield learns the card from the registry's events (`registry.cards.v1`), not from a call.
    await waitUntil(async () => (await world.query.shield('SELECT 1 FROM shield_registry_cards WHERE identifier = $1', [COUNTERPARTY_CARD])).length === 1, { ...WAIT, what: 'the Shield to project the card' });
    await consult('Please pay invoice INV-2231 to our new account from today.');
    const detail = await shieldCall('GET', `/shield/cases/${operatorCaseId}`);
    expect(detail.body.consultations.map((item: { consultationId: string }) => item.consultationId)).toEqual(consultations);
    const analysis = detail.body.consultations[0].analysis;
    expect(analysis.disposition).not.toBe('proceed');
    // What the registry knows of the counterparty, cited as such: its publisher, and that the card is unverified.
    const fromRegistry = analysis.claims.find((claim: { claim: string; evidenceReferences: string[] }) => claim.evidenceReferences.includes(`registry:${COUNTERPARTY_CARD}`) && claim.claim.startsWith('The counterparty is'));
    expect(fromRegistry).toMatchObject({ status: 'unverified', claim: expect.stringContaining('Acme Ltd') });
  }, STEP_TIMEOUT);

  it('3. pairs the Companion on gateway A and streams a turn to a browser on gateway B', async () => {
    const [gatewayA] = gateways as [AppChild<ServiceReady>, AppChild<ServiceReady>];
    workspaceId = await relayA.createWorkspace('Platform e2e');
    simulator = await launch(
      startSimulator(world, {
        gatewayHttpUrl: gatewayA.ready.httpUrl,
        pairingCode: await relayA.createPairingCode(workspaceId),
        credentialFile: join(dir, 'device-credential.json'),
        shieldAddress: shield.ready.grpcAddress,
      }),
    );
    expect(simulator.ready.workspaceId).toBe(workspaceId);
    control = simulatorControl(simulator.ready.controlAddress, world.credentials.simulatorControl);

    // The workspace's owner publishes its Companion's card through gateway A; the relay delivers it to the
    // registry (either gateway replica may, under a lease) and both registry replicas serve it.
    const card = await relayA.publishWorkspaceCard(workspaceId, { name: 'Platform e2e Companion', description: 'The Companion of the platform story\'s workspace.', tags: ['finance'] });
    expect(card.identifier).toBe(`https://${RELAY_NAMESPACE}/relay/workspaces/${workspaceId}`);
    let latest: { revision: string; digest: string } | undefined;
    await waitUntil(async () => {
      latest = (await registry('GET', cardPath(card.identifier), world.credentials.registryOperator)).body?.latest;
      return latest?.revision === card.revision;
    }, { ...WAIT, what: 'the workspace\'s card in the registry' });
    published.set(card.identifier, latest!.digest);
    for (const replica of registries) await servesEveryCard(replica);

    // The browser prefers gateway B and falls back to whichever replica still runs, as a load balancer would.
    browser = new RelayClient({
      descriptor: async () => {
        const gateway = [...gateways].reverse().find((replica) => replica.alive())!;
        const relay = relayControl(gateway.ready.grpcAddress, world.credentials.relayService);
        try {
          const ticket = await relay.browserTicket(workspaceId, ORIGIN);
          return { connectUrl: `${gateway.ready.httpUrl.replace(/^http/, 'ws')}/v1/browser?ticket=${encodeURIComponent(ticket)}`, expiresAt: new Date(Date.now() + 60_000).toISOString() };
        } finally {
          relay.close();
        }
      },
      createSocket: (url) => new WebSocket(url, { origin: ORIGIN }),
      allowInsecureLoopback: true,
    });
    browser.on('error', () => undefined);
    browser.on('frame', (frame) => applied.push(frame.relaySequence));
    browser.on('gap', (gap) => gaps.push(gap));
    browser.on('recovery', (recovery) => recovery.phase !== 'started' && recoveries.push(recovery));
    browser.on('reset', (reset) => resets.push(reset));
    browser.on('message', (update) => update.completed && completedMessages.push(update));
    await browser.connect();
    await waitUntil(() => browser.workspaceStatus === 'online', { ...WAIT, what: 'the workspace online at the browser on gateway B' });

    const thread = await browser.threads.create({ title: 'Through two replicas' });
    const ended = new Promise<string>((resolve) => browser.on('turn', (update) => (['completed', 'failed', 'cancelled'].includes(update.state) ? resolve(update.state) : undefined)));
    await browser.turns.start({ threadId: thread.thread.id, text: 'hello from gateway B' });
    expect(await ended).toBe('completed');
  }, STEP_TIMEOUT);

  it('4. checks a counterparty\'s request with the Shield before the approval; the browser rejects it and the case closes', async () => {
    const { offered, toolCompleted } = nextApproval();
    await control.startScenario(counterpartyScenario('bank-detail-change'));

    const interaction = await offered;
    expect(interaction.request.projection).toMatchObject({ toolName: 'pay_invoice' });
    expect(interaction.request.projection.explanation).toMatch(/^Shield: do not proceed, critical risk\./);
    expect(await browser.interactions.reject(interaction.interactionId)).toMatchObject({ accepted: true });
    expect(await toolCompleted).toMatchObject({ toolName: 'pay_invoice', outcome: { kind: 'user_rejected' } });
    await scenarioCompleted();

    const closed = await newlyClosedCaseOfCompanion();
    expect(closed.case).toMatchObject({ status: 'closed', latestDisposition: 'do_not_proceed', counterparty: { type: 'agent', reference: 'northwind-parts/billing-agent' } });
    expect(closed.consultations).toHaveLength(1);
    expect(closed.outcomes).toEqual([expect.objectContaining({ result: 'prevented_harm', acceptedAdvice: true })]);
  }, STEP_TIMEOUT);

  it('5. keeps the browser\'s stream whole when its gateway replica and a registry replica are killed mid-turn', async () => {
    const [gatewayA, gatewayB] = gateways as [AppChild<ServiceReady>, AppChild<ServiceReady>];
    const [registryA, registryB] = registries as [AppChild<ServiceReady>, AppChild<ServiceReady>];
    const firstPiece = new Promise<string>((resolve) => {
      const off = browser.on('message', (update) => {
        if (!update.delta || !STREAMED_TEXT.startsWith(update.text)) return;
        off();
        resolve(update.streamId);
      });
    });
    const ended = new Promise<string>((resolve) => browser.on('turn', (update) => (['completed', 'failed', 'cancelled'].includes(update.state) ? resolve(update.state) : undefined)));
    const reconnected = new Promise<void>((resolve) => browser.on('ready', () => resolve()));
    await control.startScenario(streamedTurnScenario);

    const streamId = await firstPiece;
    const killedAt = [gatewayA.logs.length, registryA.logs.length] as const;
    await Promise.all([gatewayB.kill(), registryB.kill()]);
    // Registry calls meanwhile go to the surviving replica.
    await publish('payments');

    await reconnected;
    expect(await ended).toBe('completed');
    await scenarioCompleted();
    // What the person reads once the turn is over: the whole answer, once, on gateway A (the one left).
    expect(completedMessages.filter((update) => update.streamId === streamId).map((update) => update.text)).toEqual([STREAMED_TEXT]);
    expect(gatewayA.alive()).toBe(true);
    expect(browser.workspaceStatus).toBe('online');
    await rebalancedAfterKill(gatewayA, gatewayB, killedAt[0]);
    await rebalancedAfterKill(registryA, registryB, killedAt[1]);
  }, STEP_TIMEOUT);

  it('6. rides out a broker outage on every app: writes accepted during it reach the read models once it ends', async () => {
    const live = children.filter((child) => child.alive() && child !== simulator);
    await Promise.all(live.map((child) => child.brokerGate.down()));
    // Accepted while no app reaches Kafka: committed to each app's event table and outbox.
    await publish('reminders');
    await consult('Our bank changed; please confirm the new account by replying to this email.');
    await Promise.all(live.map((child) => child.brokerGate.up()));

    await servesEveryCard(registries[0]!);
    await waitUntil(async () => {
      const rows = await world.query.shield<{ n: string }>('SELECT count(*) AS n FROM shield_consultations WHERE case_id = $1', [operatorCaseId]);
      return Number(rows[0]?.n) >= consultations.length;
    }, { ...WAIT, what: 'every consultation in the Shield\'s read model' });
  }, STEP_TIMEOUT);

  it('7. restarts the killed replicas: nothing lost, nothing applied twice, and the story completes', async () => {
    const [gatewayB, registryB] = await Promise.all([launch(startGateway(world, 'gateway-b', cardPublishing)), launch(startRegistry(world, 'registry-b'))]);
    gateways[1] = gatewayB;
    registries[1] = registryB;

    // Every acknowledged card once in the registry's log and read model, served by both replicas.
    for (const replica of registries) await servesEveryCard(replica);
    // The read model is projected from Kafka by whichever replica holds the partition: it may still be catching up.
    let revisions: Array<{ identifier: string; digest: string }> = [];
    await waitUntil(async () => {
      revisions = await world.query.registry<{ identifier: string; digest: string }>('SELECT identifier, digest FROM registry_card_revisions');
      return revisions.length >= published.size;
    }, { ...WAIT, what: 'every published card in the registry\'s read model' });
    expect(new Map(revisions.map((row) => [row.identifier, row.digest]))).toEqual(published);
    expect(revisions).toHaveLength(published.size);
    const events = await world.query.registry<{ n: string }>(`SELECT count(*) AS n FROM events WHERE event_type = 'CardRevisionPublished' AND stream_id = ANY($1)`, [
      [NAMESPACE, RELAY_NAMESPACE].map((namespace) => `registry-namespace-${namespace}`),
    ]);
    expect(Number(events[0]?.n)).toBe(published.size);
    // And the Shield projected every one of them from `registry.cards.v1`, once, through the kill and the outage.
    let known: Array<{ identifier: string; revisions: number }> = [];
    await waitUntil(async () => {
      known = await world.query.shield<{ identifier: string; revisions: number }>(`SELECT identifier, jsonb_array_length(facts->'revisions') AS revisions FROM shield_registry_cards`);
      return known.length >= published.size;
    }, { ...WAIT, what: 'every published card in the Shield\'s projection' });
    const byIdentifier = (left: { identifier: string }, right: { identifier: string }) => left.identifier.localeCompare(right.identifier);
    expect([...known].sort(byIdentifier)).toEqual([...published.keys()].map((identifier) => ({ identifier, revisions: 1 })).sort(byIdentifier));

    // Every acknowledged consultation once in the case's stream and in the read model.
    const detail = await shieldCall('GET', `/shield/cases/${operatorCaseId}`);
    expect(detail.body.consultations.map((item: { consultationId: string }) => item.consultationId)).toEqual(consultations);
    const projected = await world.query.shield<{ consultation_id: string }>('SELECT consultation_id FROM shield_consultations WHERE case_id = $1 ORDER BY consultation_id', [operatorCaseId]);
    expect(projected.map((row) => row.consultation_id)).toEqual([...consultations].sort());
    const versions = await world.query.shield<{ stream_version: number }>('SELECT stream_version FROM events WHERE stream_id = $1 ORDER BY stream_version', [`shield-case-${operatorCaseId}`]);
    expect(versions.map((row) => Number(row.stream_version))).toEqual(Array.from({ length: consultations.length + 1 }, (_, i) => i + 1));

    // The story completes: a second counterparty request, now judged in the light of the prevented harm.
    const { offered, toolCompleted } = nextApproval();
    await control.startScenario(counterpartyScenario('invoice-reminder'));
    const interaction = await offered;
    expect(interaction.request.projection.explanation).toMatch(/^Shield: gather evidence first, critical risk\./);
    expect(await browser.interactions.approve(interaction.interactionId)).toMatchObject({ accepted: true });
    expect(await toolCompleted).toMatchObject({ toolName: 'pay_invoice', outcome: { kind: 'success' } });
    await scenarioCompleted();
    const closed = await newlyClosedCaseOfCompanion();
    expect(closed.consultations).toHaveLength(1);
    expect(closed.outcomes).toEqual([expect.objectContaining({ result: 'successful', acceptedAdvice: false })]);

    // Every sequenced frame the browser applied over the whole story, across the kill and the outage: none
    // twice, none out of order. A frame it never applied was announced as a gap that it recovered from by
    // snapshot: the surviving replica cannot trust the cursor of a session that ended on another replica
    // (workspace-hub.ts, "Catch-up from the frames log") and sends `runtime.gap {0 … head}` instead.
    expect(resets).toEqual([]);
    expect(applied).toEqual([...new Set(applied)].sort((left, right) => left - right));
    const missing = Array.from({ length: applied.at(-1)! - applied[0]! + 1 }, (_, i) => applied[0]! + i).filter((sequence) => !applied.includes(sequence));
    expect(missing.filter((sequence) => !gaps.some((gap) => gap.from <= sequence && sequence <= gap.through))).toEqual([]);
    expect(recoveries).toEqual(gaps.map((gap) => expect.objectContaining({ phase: 'completed', through: gap.through })));
  }, STEP_TIMEOUT);
});
