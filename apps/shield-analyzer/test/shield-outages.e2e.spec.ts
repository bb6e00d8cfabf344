/**
 * The Shield analyzer in server mode (its own process, Postgres, Kafka) through outages of what it runs on:
 * - the Kafka brokers gone (every connection of the process reset, new ones refused, as a broker restart
 *   looks to it): consults are still accepted, since the event log and the outbox are in Postgres; once the
 *   brokers are back the outbox publishes and the read model catches up, each consultation once;
 * - the database gone (new sessions refused, every open one terminated): requests fail with a stable
 *   503 / UNAVAILABLE answer instead of a crash or an internal error, and succeed again once it is back;
 *   gRPC health says NOT_SERVING meanwhile, overall and for the service, and SERVING again after.
 */
import { status } from '@grpc/grpc-js';
import { databaseOutage } from '@trustmesh/platform-database/testing';
import { grpcHealthClient, useKafkaCluster, waitUntil } from '@trustmesh/platform-testing';

import { ACME_TOKEN, caseInput } from './support/shield-app.fixture';
import { toJson } from './support/shield-clients';
import { createShieldPlacement, startShieldChild, type ShieldChild, type ShieldPlacement } from './support/shield.child';

const WAIT = { timeoutMs: 120_000, intervalMs: 250 };
/** Beyond every wait of a test: on a loaded machine a consumer group can take several session timeouts to settle. */
const TEST_TIMEOUT = 300_000;

describe('Shield analyzer through broker and database outages', () => {
  const kafka = useKafkaCluster();
  let placement: ShieldPlacement;
  let shield: ShieldChild;

  beforeEach(async () => {
    placement = await createShieldPlacement(kafka.brokers, 'shield-outages');
    shield = await startShieldChild(placement, 'shield-a');
  }, 120_000);
  afterEach(async () => {
    await shield?.kill();
    await placement?.dispose();
  });

  const consult = (caseId: string, i: number) => shield.rest('POST', `/v0.1/shield/cases/${caseId}/consult`, ACME_TOKEN, { message: `Request ${i}: please confirm order 7 ships this week.` });
  const projected = (caseId: string) => placement.query<{ consultation_id: string }>('SELECT consultation_id FROM shield_consultations WHERE case_id = $1', [caseId]);

  it('accepts consults while the brokers are down and projects each exactly once when they are back', async () => {
    const opened = await shield.rest('POST', '/v0.1/shield/cases', ACME_TOKEN, caseInput());
    const caseId = opened.body.caseId as string;
    const first = await consult(caseId, 0);
    expect(first.status).toBe(200);
    // The projection runs before the outage: the first consultation reached the read model over Kafka.
    await waitUntil(async () => (await projected(caseId)).length === 1, { ...WAIT, what: 'the first consultation in the read model' });

    await shield.brokerGate.down();
    const acknowledged = [first.body.consultation.consultationId as string];
    for (let i = 1; i <= 3; i += 1) {
      const reply = await consult(caseId, i);
      expect(reply.status).toBe(200);
      acknowledged.push(reply.body.consultation.consultationId);
    }
    // A caller reads its own writes during the outage: GET folds the case's event stream.
    const during = await shield.rest('GET', `/v0.1/shield/cases/${caseId}`, ACME_TOKEN);
    expect(during.body.consultations.map((c: { consultationId: string }) => c.consultationId)).toEqual(acknowledged);

    await shield.brokerGate.up();
    await waitUntil(async () => (await projected(caseId)).length >= acknowledged.length, { ...WAIT, what: 'the read model to catch up after the outage' });
    await waitUntil(async () => Number((await placement.query<{ n: string }>('SELECT count(*)::text AS n FROM outbox WHERE published_at IS NULL'))[0]?.n) === 0, {
      ...WAIT,
      what: 'the outbox published',
    });
    expect((await projected(caseId)).map((row) => row.consultation_id).sort()).toEqual([...acknowledged].sort());
    const list = await shield.rest('GET', '/v0.1/shield/cases', ACME_TOKEN);
    expect(list.body.find((record: { caseId: string }) => record.caseId === caseId)).toMatchObject({ latestConsultationId: acknowledged.at(-1) });
    // Every consultation is on the topic (publishing is at least once; the projection applied each once).
    const onTopic = await placement.readTopic(acknowledged.length + 1);
    for (const consultationId of acknowledged) expect(onTopic.some((message) => message.value?.includes(consultationId))).toBe(true);
  }, TEST_TIMEOUT);

  it('answers 503 / UNAVAILABLE with a stable code while the database is down, and serves again once it is back', async () => {
    const opened = await shield.rest('POST', '/v0.1/shield/cases', ACME_TOKEN, caseInput());
    const caseId = opened.body.caseId as string;
    const health = grpcHealthClient(shield.grpcAddress);
    const overall = health.watch('');
    await overall.next('SERVING');
    const outage = await databaseOutage(placement.database);
    try {
      expect(await outage.down()).toBeGreaterThan(0);
      await overall.next('NOT_SERVING');
      expect(await health.check('trustmesh.shield.v1.ShieldAnalyzer')).toBe('NOT_SERVING');
      const refused = [
        await consult(caseId, 1),
        await shield.rest('GET', `/v0.1/shield/cases/${caseId}`, ACME_TOKEN),
        await shield.rest('GET', '/v0.1/shield/cases', ACME_TOKEN),
        await shield.rest('POST', '/v0.1/shield/cases', ACME_TOKEN, caseInput()),
      ];
      for (const reply of refused) {
        expect(reply.status).toBe(503);
        expect(reply.body.issues[0].code).toBe('SHIELD_UNAVAILABLE');
      }
      const grpcRefused = await shield.grpc.consult({ caseId, consultInputJson: toJson({ message: 'Is order 7 on time?' }) }, ACME_TOKEN);
      expect(grpcRefused.error?.code).toBe(status.UNAVAILABLE);
      expect(grpcRefused.issues.issues[0].code).toBe('SHIELD_UNAVAILABLE');
      // Nothing internal leaks into the answer.
      expect(JSON.stringify(refused.map((reply) => reply.body))).not.toMatch(/postgres|connection|ECONN|57P0|55000/i);
      expect((await fetch(`${shield.operatorUrl}/healthz`)).status).toBe(200);
    } finally {
      await outage.up();
      await outage.dispose();
    }
    await overall.next('SERVING');
    overall.cancel();
    health.close();
    const accepted: string[] = [];
    await waitUntil(async () => {
      const reply = await consult(caseId, 2);
      if (reply.status === 200) accepted.push(reply.body.consultation.consultationId);
      else expect(reply).toMatchObject({ status: 503, body: { issues: [{ code: 'SHIELD_UNAVAILABLE' }] } });
      return reply.status === 200;
    }, { ...WAIT, what: 'the service back with its database' });
    const got = await shield.rest('GET', `/v0.1/shield/cases/${caseId}`, ACME_TOKEN);
    // The case holds the consult answered 200 and none of those refused during the outage.
    expect(got.body.consultations.map((c: { consultationId: string }) => c.consultationId)).toEqual(accepted);
    await waitUntil(async () => (await projected(caseId)).length === got.body.consultations.length, { ...WAIT, what: 'the read model after the outage' });
  }, TEST_TIMEOUT);
});
