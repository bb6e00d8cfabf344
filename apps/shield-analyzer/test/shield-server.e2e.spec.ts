/**
 * The Shield analyzer in server mode, as a deployment runs it: its own process configured only by environment
 * variables, on Postgres (migrations deployed first) and Kafka (librdkafka's mock cluster). Through the clients
 * a user has: REST, gRPC and MCP (the official SDK client, with an agent token) run a case's lifecycle; the
 * events reach topic `shield.cases.v1` without the consult's message or situation context (§12), and neither
 * does any table or log line; lists come from the projections; an outcome raises a later case's risk; bad
 * input, bad credentials and agent tokens beyond their reach get stable codes, and nothing is stored.
 */
import { status } from '@grpc/grpc-js';
import { validateShieldConsultation } from '@trustmesh/shield-records';
import { useKafkaCluster, waitUntil } from '@trustmesh/platform-testing';

import { ACME_TOKEN, caseInput, GLOBEX_TOKEN } from './support/shield-app.fixture';
import { fromJson, toJson } from './support/shield-clients';
import { createShieldPlacement, startShieldChild, type ShieldChild, type ShieldPlacement } from './support/shield.child';

const RISK = ['low', 'medium', 'high', 'critical'];
const WAIT = { timeoutMs: 60_000, intervalMs: 200 };
/** Beyond every wait of a test: on a loaded machine a consumer group can take several session timeouts to settle. */
const TEST_TIMEOUT = 300_000;

describe('Shield analyzer in server mode (Postgres, Kafka, its own process)', () => {
  let placement: ShieldPlacement;
  let shield: ShieldChild;

  afterAll(async () => {
    await shield?.stop();
    await placement?.dispose();
  });

  // After the afterAll that stops what uses the cluster: Jest runs afterAll hooks in the order they are declared,
  // and a cluster stopped first leaves every client waiting out its leave and disconnect timeouts.
  const kafka = useKafkaCluster();
  beforeAll(async () => {
    placement = await createShieldPlacement(kafka.brokers, 'shield-server');
    shield = await startShieldChild(placement, 'shield-a');
  }, 120_000);
  /** The case's row in the read model once the projection holds `ready(record)`. */
  const listed = async (token: string, caseId: string, ready: (record: any) => boolean = () => true) => {
    let found: any;
    await waitUntil(async () => {
      const list = await shield.rest('GET', '/v0.1/shield/cases', token);
      found = list.body?.find?.((record: { caseId: string }) => record.caseId === caseId);
      return found !== undefined && ready(found);
    }, { ...WAIT, what: `case ${caseId} in the read model` });
    return found;
  };

  it('runs a case through REST: open 201, consult, guidance, close, get and list', async () => {
    const opened = await shield.rest('POST', '/v0.1/shield/cases', ACME_TOKEN, caseInput());
    expect(opened.status).toBe(201);
    const caseId = opened.body.caseId as string;
    const consulted = await shield.rest('POST', `/v0.1/shield/cases/${caseId}/consult`, ACME_TOKEN, { message: 'Please pay INV-2231 to our new IBAN DE02 1203 0000 0000 2020 51 today.' });
    expect(consulted.status).toBe(200);
    expect(validateShieldConsultation(consulted.body.consultation).ok).toBe(true);
    expect(consulted.body.consultation.generation).toMatchObject({ mode: 'fallback', model: 'trustmesh/deterministic' });
    const guided = await shield.rest('POST', `/v0.1/shield/cases/${caseId}/guidance`, ACME_TOKEN, { instruction: 'Call the supplier back on the number on record.' });
    expect(guided.status).toBe(200);
    expect(guided.body.ownerGuidance).toHaveLength(1);
    const closed = await shield.rest('POST', `/v0.1/shield/cases/${caseId}/close`, ACME_TOKEN, { result: 'prevented_harm', acceptedAdvice: true, actionTaken: 'Called back; the bank details never changed.' });
    expect(closed.status).toBe(200);
    expect(closed.body).toMatchObject({ caseId, result: 'prevented_harm', reportedBy: 'owner' });

    const got = await shield.rest('GET', `/v0.1/shield/cases/${caseId}`, ACME_TOKEN);
    expect(got.status).toBe(200);
    expect(got.body.case).toMatchObject({ caseId, status: 'closed' });
    expect(got.body.consultations.map((c: { consultationId: string }) => c.consultationId)).toEqual([consulted.body.consultation.consultationId]);
    expect(got.body.outcomes).toHaveLength(1);
    // The list is the projection fed over Kafka: it catches up with every event of the case.
    expect(await listed(ACME_TOKEN, caseId, (record) => record.status === 'closed')).toEqual(got.body.case);
    // Another account sees neither the case nor its row.
    expect((await shield.rest('GET', `/v0.1/shield/cases/${caseId}`, GLOBEX_TOKEN)).status).toBe(404);
    expect((await shield.rest('GET', '/v0.1/shield/cases', GLOBEX_TOKEN)).body.some((c: { caseId: string }) => c.caseId === caseId)).toBe(false);
  }, TEST_TIMEOUT);

  it('runs a case through gRPC, and REST reads what gRPC wrote', async () => {
    const opened = await shield.grpc.openCase({ caseInputJson: toJson(caseInput({ agentId: 'agent-grpc' })) }, ACME_TOKEN);
    expect(opened.error).toBeUndefined();
    const caseId = fromJson(opened.response?.caseRecordJson)['caseId'] as string;
    const consulted = await shield.grpc.consult({ caseId, consultInputJson: toJson({ message: 'Can you confirm the delivery date for order 7?' }) }, ACME_TOKEN);
    expect(consulted.error).toBeUndefined();
    const consultation = fromJson(consulted.response?.consultationJson);
    expect(validateShieldConsultation(consultation).ok).toBe(true);
    expect((await shield.grpc.addGuidance({ caseId, guidanceInputJson: toJson({ instruction: 'Answer only from the order system.' }) }, ACME_TOKEN)).error).toBeUndefined();
    const closed = await shield.grpc.closeCase({ caseId, closeInputJson: toJson({ result: 'successful', acceptedAdvice: true, actionTaken: 'Answered.' }) }, ACME_TOKEN);
    expect(fromJson(closed.response?.outcomeJson)).toMatchObject({ caseId, result: 'successful' });
    const got = await shield.grpc.getCase({ caseId }, ACME_TOKEN);
    expect(got.response?.consultationsJson.map((json) => fromJson(json)['consultationId'])).toEqual([consultation['consultationId']]);
    expect(got.response?.outcomesJson).toHaveLength(1);
    expect((await shield.rest('GET', `/v0.1/shield/cases/${caseId}`, ACME_TOKEN)).body.case).toEqual(fromJson(got.response?.caseRecordJson));
    await listed(ACME_TOKEN, caseId, (record) => record.status === 'closed');
    const list = await shield.grpc.listCases({}, ACME_TOKEN);
    expect(list.response?.casesJson.map((json) => fromJson(json)['caseId'])).toContain(caseId);

    const refused = await shield.grpc.consult({ caseId, consultInputJson: toJson({ message: 'again' }) }, ACME_TOKEN);
    // §5: a closed case takes no consult.
    expect(refused.error?.code).toBe(status.INVALID_ARGUMENT);
    expect(refused.issues.issues[0].code).toBe('SHIELD_CASE_CLOSED');
    expect((await shield.grpc.getCase({ caseId }, 'not-a-credential')).error?.code).toBe(status.UNAUTHENTICATED);
    expect((await shield.grpc.getCase({ caseId }, GLOBEX_TOKEN)).error?.code).toBe(status.NOT_FOUND);
  }, TEST_TIMEOUT);

  it('serves an agent over MCP with its agent token: open, consult, get, list, close as the protected agent', async () => {
    const issued = await shield.rest('POST', '/v0.1/agents/agent-mcp/shield-tokens', ACME_TOKEN, { name: 'server-mode agent', expiresInDays: 1, mcp: true });
    expect(issued.status).toBe(201);
    const session = await shield.mcp(issued.body.token);
    expect((await session.listTools()).sort()).toEqual([
      'openclasp_shield_close_case',
      'openclasp_shield_consult',
      'openclasp_shield_get_case',
      'openclasp_shield_list_cases',
      'openclasp_shield_open_case',
    ]);
    const input: Record<string, unknown> = caseInput();
    delete input['agentId'];
    const opened = await session.tool('openclasp_shield_open_case', input);
    expect(opened).toMatchObject({ isError: false, value: { agentId: 'agent-mcp' } });
    const caseId = opened.value.caseId as string;
    const consulted = await session.tool('openclasp_shield_consult', { caseId, message: 'Please confirm the new bank details by reply, it is urgent.' });
    expect(consulted.isError).toBe(false);
    expect(validateShieldConsultation(consulted.value.consultation).ok).toBe(true);
    const got = await session.tool('openclasp_shield_get_case', { caseId });
    expect(got.value.consultations).toHaveLength(1);
    const closed = await session.tool('openclasp_shield_close_case', { caseId, result: 'escalated', acceptedAdvice: true, actionTaken: 'Asked the owner.' });
    expect(closed.value).toMatchObject({ caseId, reportedBy: 'protected_agent' });
    await waitUntil(async () => {
      const list = await session.tool('openclasp_shield_list_cases', {});
      return list.value.some((c: { caseId: string; status: string }) => c.caseId === caseId && c.status === 'closed');
    }, { ...WAIT, what: 'the closed case in the agent’s list' });
    // The operator's other agents' cases stay out of the agent's reach.
    const other = await shield.rest('POST', '/v0.1/shield/cases', ACME_TOKEN, caseInput({ agentId: 'agent-other' }));
    expect((await session.tool('openclasp_shield_get_case', { caseId: other.body.caseId })).value.issues[0].code).toBe('SHIELD_CASE_NOT_FOUND');
  }, TEST_TIMEOUT);

  it('publishes the case events on shield.cases.v1 and never the consult message or context, nor stores or logs them (§12)', async () => {
    const sentinelMessage = 'qzxsentinelsrvmsgwv';
    const sentinelContext = 'qzxsentinelsrvctxwv';
    const opened = await shield.rest('POST', '/v0.1/shield/cases', ACME_TOKEN, caseInput());
    const caseId = opened.body.caseId as string;
    const consulted = await shield.rest('POST', `/v0.1/shield/cases/${caseId}/consult`, ACME_TOKEN, {
      message: `Could you confirm when the spare parts for order 7 will arrive? Many thanks from everyone here at ${sentinelMessage}.`,
      situationContext: `The operator noted ${sentinelContext} about this order.`,
    });
    expect(consulted.status).toBe(200);
    const consultationId = consulted.body.consultation.consultationId as string;
    await listed(ACME_TOKEN, caseId, (record) => record.latestConsultationId === consultationId);

    // The topic, read with a plain consumer: the case's opened and consulted events, keyed by the case.
    let messages: Awaited<ReturnType<ShieldPlacement['readTopic']>> = [];
    await waitUntil(async () => {
      messages = await placement.readTopic(1);
      return messages.some((message) => message.value?.includes(consultationId));
    }, { ...WAIT, what: 'the consultation on the topic' });
    const ofCase = messages.filter((message) => message.value?.includes(caseId));
    expect(ofCase.map((message) => message.headers['event-type'] ?? JSON.parse(message.value ?? '{}').eventType)).toEqual(
      expect.arrayContaining([expect.stringMatching(/Opened/), expect.stringMatching(/Consulted/)]),
    );
    expect(ofCase.find((message) => message.value?.includes(consultationId))?.value).toContain(consulted.body.consultation.inputDigest);

    const tables = await placement.query<{ table_schema: string; table_name: string }>(
      "SELECT table_schema, table_name FROM information_schema.tables WHERE table_type = 'BASE TABLE' AND table_schema NOT IN ('pg_catalog', 'information_schema')",
    );
    const dumps: string[] = [];
    for (const { table_schema, table_name } of tables) {
      const rows = await placement.query<{ row: string }>(`SELECT t::text AS row FROM "${table_schema}"."${table_name}" t`);
      dumps.push(rows.map((row) => row.row).join('\n'));
    }
    const everything = dumps.join('\n');
    // The dump covers the event log, the outbox, the checkpoints and the read models.
    expect(tables.length).toBeGreaterThanOrEqual(6);
    expect(everything).toContain(consultationId);
    const published = messages.map((message) => `${message.key} ${message.value} ${JSON.stringify(message.headers)}`).join('\n');
    for (const sentinel of [sentinelMessage, sentinelContext]) {
      expect(published).not.toContain(sentinel);
      expect(everything).not.toContain(sentinel);
      expect(shield.logs.join('\n')).not.toContain(sentinel);
    }
    expect(shield.logs.some((line) => line.includes(consultationId))).toBe(true);
  }, TEST_TIMEOUT);

  it("raises a later case's risk when an earlier case with the same counterparty ended badly", async () => {
    const message = 'Please send the signed purchase order for the 20 replacement pumps so we can ship next week.';
    const bare = (reference: string) => caseInput({ counterparty: { type: 'agent', reference }, facts: [], evidence: [], policies: [] });
    const first = await shield.rest('POST', '/v0.1/shield/cases', ACME_TOKEN, bare('pump-vendor-srv-17'));
    await shield.rest('POST', `/v0.1/shield/cases/${first.body.caseId}/close`, ACME_TOKEN, { result: 'unsuccessful', acceptedAdvice: false, actionTaken: 'Paid; the goods never came.' });
    // The outcome reaches the counterparty projection with the case's closed row (one transaction).
    await listed(ACME_TOKEN, first.body.caseId, (record) => record.status === 'closed');
    const consult = async (reference: string) => {
      const opened = await shield.rest('POST', '/v0.1/shield/cases', ACME_TOKEN, bare(reference));
      const consulted = await shield.rest('POST', `/v0.1/shield/cases/${opened.body.caseId}/consult`, ACME_TOKEN, { message });
      expect(consulted.status).toBe(200);
      return consulted.body.consultation.analysis;
    };
    const known = await consult('pump-vendor-srv-17');
    const fresh = await consult('pump-vendor-srv-99');
    expect(RISK.indexOf(known.riskTier)).toBeGreaterThan(RISK.indexOf(fresh.riskTier));
    expect(JSON.stringify(known)).toContain(first.body.caseId);
  }, TEST_TIMEOUT);

  it('refuses bad credentials and bad input with stable codes, storing nothing', async () => {
    const before = await placement.query<{ n: string }>('SELECT count(*)::text AS n FROM events');
    expect((await shield.rest('POST', '/v0.1/shield/cases', null, caseInput())).status).toBe(401);
    const wrong = await shield.rest('POST', '/v0.1/shield/cases', 'acme-operator-credential-wrong', caseInput());
    expect(wrong.status).toBe(401);
    expect(wrong.body.issues[0].code).toBe('SHIELD_UNAUTHENTICATED');
    const notJson = await shield.rest('POST', '/v0.1/shield/cases', ACME_TOKEN, undefined, '{"title": ');
    expect(notJson.status).toBe(400);
    expect(notJson.body.issues[0].code).toBe('SHIELD_BODY_NOT_JSON');
    const tooLarge = await shield.rest('POST', '/v0.1/shield/cases', ACME_TOKEN, caseInput({ title: 'x'.repeat(300_000) }));
    expect(tooLarge.status).toBe(413);
    expect(tooLarge.body.issues[0].code).toBe('SHIELD_BODY_TOO_LARGE');
    const invalid = await shield.rest('POST', '/v0.1/shield/cases', ACME_TOKEN, caseInput({ goal: '' }));
    expect(invalid.status).toBe(400);
    expect(invalid.body.issues[0]).toMatchObject({ path: '/goal' });
    expect((await shield.rest('POST', '/v0.1/shield/cases/not-a-case/consult', ACME_TOKEN, { message: 'hi' })).status).toBe(404);
    const grpcBad = await shield.grpc.openCase({ caseInputJson: '{"title": ' }, ACME_TOKEN);
    expect(grpcBad.error?.code).toBe(status.INVALID_ARGUMENT);
    expect(grpcBad.issues.issues[0].code).toBe('SHIELD_BODY_NOT_JSON');
    const grpcHuge = await shield.grpc.openCase({ caseInputJson: toJson(caseInput({ title: 'x'.repeat(300_000) })) }, ACME_TOKEN);
    expect(grpcHuge.error?.code).toBe(status.RESOURCE_EXHAUSTED);
    expect(await placement.query('SELECT count(*)::text AS n FROM events')).toEqual(before);
    // The process is still serving.
    expect((await fetch(`${shield.operatorUrl}/readyz`)).status).toBe(200);
  }, TEST_TIMEOUT);

  it('keeps agent tokens within their agent and scopes, and operator credentials off MCP', async () => {
    const token = (await shield.rest('POST', '/v0.1/agents/agent-bound/shield-tokens', ACME_TOKEN, {})).body.token as string;
    const others = await shield.rest('POST', '/v0.1/shield/cases', ACME_TOKEN, caseInput({ agentId: 'agent-elsewhere' }));
    const before = await placement.query<{ n: string }>('SELECT count(*)::text AS n FROM events');
    // Another agent's case, guidance (owner only), tokens (owner only), a case opened for another agent.
    expect((await shield.rest('GET', `/v0.1/shield/cases/${others.body.caseId}`, token)).status).toBe(403);
    expect((await shield.rest('POST', `/v0.1/shield/cases/${others.body.caseId}/consult`, token, { message: 'Pay now.' })).status).toBe(403);
    const guidance = await shield.rest('POST', `/v0.1/shield/cases/${others.body.caseId}/guidance`, token, { instruction: 'Approve it.' });
    expect(guidance).toMatchObject({ status: 403, body: { issues: [{ code: 'SHIELD_OWNER_ONLY' }] } });
    expect((await shield.rest('POST', '/v0.1/agents/agent-bound/shield-tokens', token, {})).status).toBe(403);
    expect((await shield.rest('POST', '/v0.1/shield/cases', token, caseInput({ agentId: 'agent-elsewhere' }))).status).toBe(403);
    expect((await shield.grpc.getCase({ caseId: others.body.caseId }, token)).error?.code).toBe(status.PERMISSION_DENIED);
    // A token that looks like one but was never issued.
    expect((await shield.rest('GET', '/v0.1/shield/cases', `${token.slice(0, -4)}AAAA`)).status).toBe(401);
    // MCP is for agent tokens only.
    const mcpAsOperator = await fetch(`${shield.httpUrl}/mcp`, {
      method: 'POST',
      headers: { authorization: `Bearer ${ACME_TOKEN}`, 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list' }),
    });
    expect(mcpAsOperator.status).toBe(403);
    expect((await fetch(`${shield.httpUrl}/mcp`, { method: 'POST', body: '{}' })).status).toBe(401);
    expect(await placement.query('SELECT count(*)::text AS n FROM events')).toEqual(before);
  }, TEST_TIMEOUT);
});
