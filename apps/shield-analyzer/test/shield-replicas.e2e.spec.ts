/**
 * Two Shield analyzer replicas (processes) on one Postgres database and one Kafka cluster, as a deployment
 * scales them:
 * - concurrent consults of one case on both replicas (REST on one, gRPC on the other): each version of the
 *   case is taken by exactly one, the others get 409 / ABORTED with `SHIELD_CASE_CHANGED`, and every
 *   acknowledged consultation is in the case once, in the read model once, and nothing else is; closing on
 *   both at once records one outcome;
 * - a replica killed (SIGKILL) in the middle of a stream of consults: the other replica has every acknowledged
 *   consultation, nothing twice, at most the requests cut off unanswered as well, and its read model agrees
 *   with the event log; the killed replica, restarted, serves the same and applies nothing twice.
 */
import { status } from '@grpc/grpc-js';
import { useKafkaCluster, waitUntil } from '@trustmesh/platform-testing';

import { ACME_TOKEN, caseInput } from './support/shield-app.fixture';
import { fromJson, toJson } from './support/shield-clients';
import { createShieldPlacement, startShieldChild, type ShieldChild, type ShieldPlacement } from './support/shield.child';

const WAIT = { timeoutMs: 120_000, intervalMs: 250 };
/** Beyond every wait of a test: on a loaded machine a consumer group can take several session timeouts to settle. */
const TEST_TIMEOUT = 300_000;

describe('Shield analyzer replicas on one Postgres and Kafka', () => {
  const kafka = useKafkaCluster();
  let placement: ShieldPlacement;
  const replicas: ShieldChild[] = [];

  beforeEach(async () => {
    placement = await createShieldPlacement(kafka.brokers, 'shield-replicas');
    // Both at once: each member joining the projection's consumer group makes the group rebalance.
    replicas.push(...(await Promise.all(['shield-a', 'shield-b'].map((id) => startShieldChild(placement, id)))));
  }, 120_000);
  afterEach(async () => {
    for (const replica of replicas.splice(0)) await replica.kill();
    await placement?.dispose();
  });

  const openCase = async (replica: ShieldChild) => {
    const opened = await replica.rest('POST', '/v0.1/shield/cases', ACME_TOKEN, caseInput());
    expect(opened.status).toBe(201);
    return opened.body.caseId as string;
  };
  /** The case's consultation ids as its event stream has them (GET folds the stream). */
  const consultationIds = async (replica: ShieldChild, caseId: string): Promise<string[]> => {
    const got = await replica.rest('GET', `/v0.1/shield/cases/${caseId}`, ACME_TOKEN);
    expect(got.status).toBe(200);
    return got.body.consultations.map((consultation: { consultationId: string }) => consultation.consultationId);
  };
  /** Waits until the read model holds `expected` consultations of the case, and returns their ids. */
  const projectedConsultations = async (caseId: string, expected: number): Promise<string[]> => {
    let rows: Array<{ consultation_id: string }> = [];
    await waitUntil(async () => {
      rows = await placement.query<{ consultation_id: string }>('SELECT consultation_id FROM shield_consultations WHERE case_id = $1', [caseId]);
      return rows.length >= expected;
    }, { ...WAIT, what: `${expected} consultation(s) of ${caseId} in the read model` });
    return rows.map((row) => row.consultation_id);
  };
  const sorted = (ids: readonly string[]) => [...ids].sort();

  it('lets exactly one consult per version of a case win across replicas; the others get a stable conflict', async () => {
    const [a, b] = replicas as [ShieldChild, ShieldChild];
    const caseId = await openCase(a);
    const acknowledged: string[] = [];
    // One after the other, alternating: each replica's next consult builds on the other's (no conflict), although
    // each keeps the case it last folded in memory.
    for (const [i, replica] of [a, b, a, b].entries()) {
      const reply = await replica.rest('POST', `/v0.1/shield/cases/${caseId}/consult`, ACME_TOKEN, { message: `Step ${i}: can you confirm order 7 shipped?` });
      expect(reply.status).toBe(200);
      acknowledged.push(reply.body.consultation.consultationId);
      expect(await consultationIds(replica === a ? b : a, caseId)).toEqual(acknowledged);
    }
    let conflicts = 0;
    for (let round = 0; round < 5; round += 1) {
      const message = (i: number) => ({ message: `Round ${round}, request ${i}: can you confirm the delivery date of order 7?` });
      const [restA1, grpcB1, restB, grpcA] = await Promise.all([
        a.rest('POST', `/v0.1/shield/cases/${caseId}/consult`, ACME_TOKEN, message(1)),
        b.grpc.consult({ caseId, consultInputJson: toJson(message(2)) }, ACME_TOKEN),
        b.rest('POST', `/v0.1/shield/cases/${caseId}/consult`, ACME_TOKEN, message(3)),
        a.grpc.consult({ caseId, consultInputJson: toJson(message(4)) }, ACME_TOKEN),
      ]);
      let won = 0;
      for (const reply of [restA1, restB]) {
        if (reply.status === 200) {
          acknowledged.push(reply.body.consultation.consultationId);
          won += 1;
        } else {
          expect(reply).toMatchObject({ status: 409, body: { issues: [{ code: 'SHIELD_CASE_CHANGED' }] } });
          conflicts += 1;
        }
      }
      for (const reply of [grpcB1, grpcA]) {
        if (!reply.error) {
          acknowledged.push(fromJson(reply.response?.consultationJson)['consultationId']);
          won += 1;
        } else {
          expect(reply.error.code).toBe(status.ABORTED);
          expect(reply.issues.issues[0].code).toBe('SHIELD_CASE_CHANGED');
          conflicts += 1;
        }
      }
      expect(won).toBeGreaterThanOrEqual(1);
    }
    // Twenty requests in rounds of four at once on two processes: some met a case changed under them.
    expect(conflicts).toBeGreaterThan(0);
    expect(new Set(acknowledged).size).toBe(acknowledged.length);
    // The case holds each acknowledged consultation once, whichever replica reads it, and nothing else.
    expect(sorted(await consultationIds(b, caseId))).toEqual(sorted(acknowledged));
    expect(await consultationIds(a, caseId)).toEqual(await consultationIds(b, caseId));
    // The event log has one version per consultation (and the opening), no gap, no repeat.
    const versions = await placement.query<{ stream_version: number }>('SELECT stream_version FROM events WHERE stream_id = $1 ORDER BY stream_version', [`shield-case-${caseId}`]);
    expect(versions.map((row) => Number(row.stream_version))).toEqual(Array.from({ length: acknowledged.length + 1 }, (_, i) => i + 1));
    // The read model shows each consultation exactly once, and its case row the latest.
    expect(sorted(await projectedConsultations(caseId, acknowledged.length))).toEqual(sorted(acknowledged));
    const latest = (await consultationIds(a, caseId)).at(-1);
    await waitUntil(async () => {
      const list = await b.rest('GET', '/v0.1/shield/cases', ACME_TOKEN);
      return list.body.some((record: { caseId: string; latestConsultationId?: string }) => record.caseId === caseId && record.latestConsultationId === latest);
    }, { ...WAIT, what: 'the latest consultation in the listed case' });

    // Closing on both replicas at once: one outcome; the other close meets a changed or a closed case.
    const closes = await Promise.all(
      [a, b].map((replica, i) => replica.rest('POST', `/v0.1/shield/cases/${caseId}/close`, ACME_TOKEN, { result: 'successful', acceptedAdvice: true, actionTaken: `Closed on replica ${i}.` })),
    );
    expect(closes.filter((reply) => reply.status === 200)).toHaveLength(1);
    const loser = closes.find((reply) => reply.status !== 200)!;
    expect([409, 400]).toContain(loser.status);
    expect(['SHIELD_CASE_CHANGED', 'SHIELD_CASE_ALREADY_CLOSED']).toContain(loser.body.issues[0].code);
    expect((await b.rest('GET', `/v0.1/shield/cases/${caseId}`, ACME_TOKEN)).body.outcomes).toHaveLength(1);
  }, TEST_TIMEOUT);

  it('loses nothing acknowledged and applies nothing twice when a replica is killed mid-load', async () => {
    const [a, b] = replicas as [ShieldChild, ShieldChild];
    const cases = [await openCase(b), await openCase(b), await openCase(b)];
    const acknowledged = new Map<string, string[]>(cases.map((caseId) => [caseId, []]));
    const cutOff = new Map<string, number>(cases.map((caseId) => [caseId, 0]));
    let killed = false;
    // One client per case consults it on replica A again and again until a request is cut off.
    const workers = cases.map(async (caseId, worker) => {
      for (let i = 0; !killed; i += 1) {
        try {
          const reply = await a.rest('POST', `/v0.1/shield/cases/${caseId}/consult`, ACME_TOKEN, { message: `Worker ${worker}, request ${i}: please confirm order 7 ships this week.` });
          expect(reply.status).toBe(200);
          acknowledged.get(caseId)!.push(reply.body.consultation.consultationId);
        } catch {
          // The connection died with the replica: this request may or may not have been appended.
          cutOff.set(caseId, cutOff.get(caseId)! + 1);
          return;
        }
      }
    });
    const total = () => [...acknowledged.values()].reduce((sum, ids) => sum + ids.length, 0);
    await waitUntil(() => total() >= 9, { ...WAIT, what: 'nine acknowledged consults' });
    killed = true;
    await a.kill();
    await Promise.all(workers);

    // Replica B, now the group's only member, consumes what A appended: every acknowledged consultation is
    // there, in order, none twice, and the read model agrees with the log.
    const stored = new Map<string, string[]>();
    for (const caseId of cases) {
      const ids = await consultationIds(b, caseId);
      const mine = acknowledged.get(caseId)!;
      expect(new Set(ids).size).toBe(ids.length);
      expect(ids.slice(0, mine.length)).toEqual(mine);
      // At most the one request per client that the kill cut off unanswered was appended as well.
      expect(ids.length - mine.length).toBeLessThanOrEqual(cutOff.get(caseId)!);
      expect(sorted(await projectedConsultations(caseId, ids.length))).toEqual(sorted(ids));
      stored.set(caseId, ids);
    }
    // Nothing appended is left unpublished: B's publisher took over A's lease once it ran out.
    await waitUntil(async () => Number((await placement.query<{ n: string }>('SELECT count(*)::text AS n FROM outbox WHERE published_at IS NULL'))[0]?.n) === 0, { ...WAIT, what: 'an empty outbox' });

    // A restarts and takes over. B is stopped first: librdkafka's mock cluster answers a follower whose
    // SyncGroup arrives after the leader's with INVALID_REQUEST (see MOCK_CLUSTER_SESSION), and a replica still
    // starting up on a loaded machine is that late follower round after round; a real broker has no such race.
    await b.stop();
    const restarted = await startShieldChild(placement, 'shield-a');
    replicas[0] = restarted;
    for (const caseId of cases) {
      expect(await consultationIds(restarted, caseId)).toEqual(stored.get(caseId));
      // Its projection resumes from the checkpoints: nothing is applied twice.
      expect(sorted(await projectedConsultations(caseId, stored.get(caseId)!.length))).toEqual(sorted(stored.get(caseId)!));
    }
    await waitUntil(async () => {
      const list = await restarted.rest('GET', '/v0.1/shield/cases', ACME_TOKEN);
      return cases.every((caseId) => list.body.some((record: { caseId: string; latestConsultationId?: string }) => record.caseId === caseId && record.latestConsultationId === stored.get(caseId)!.at(-1)));
    }, { ...WAIT, what: 'the listed cases at their latest consultation' });
  }, TEST_TIMEOUT);
});
