/**
 * The Shield analyzer through gRPC `trustmesh.shield.v1.ShieldAnalyzer` with the generated grpc-js client:
 * the lifecycle, the same refusals as REST (status codes and `shield-issues-bin`), and the same service
 * (a case opened over gRPC is the one REST reads).
 */
import * as grpc from '@grpc/grpc-js';
import { validateShieldConsultation, validateShieldOutcome } from '@trustmesh/shield-records';

import { ACME_TOKEN, caseInput, GLOBEX_TOKEN, startShieldApp, type ShieldApp } from './support/shield-app.fixture';
import { fromJson as P, grpcClient, toJson as J, type ShieldGrpcApi } from './support/shield-clients';

describe('Shield analyzer gRPC ShieldAnalyzer', () => {
  let app: ShieldApp;
  let api: ShieldGrpcApi;
  beforeAll(async () => {
    app = await startShieldApp();
    api = grpcClient(app.handle.grpcAddress);
  });
  afterAll(async () => {
    api?.close();
    await app?.close();
  });

  it('opens, consults, guides, closes, gets and lists a case', async () => {
    const opened = await api.openCase({ caseInputJson: J(caseInput()) }, ACME_TOKEN);
    expect(opened.error).toBeUndefined();
    const caseId = P(opened.response?.caseRecordJson).caseId as string;
    expect(caseId).toMatch(/^[0-9a-f-]{36}$/);

    const consulted = await api.consult({ caseId, consultInputJson: J({ message: 'Please pay invoice INV-2231 to our new account today.' }) }, ACME_TOKEN);
    expect(consulted.error).toBeUndefined();
    const consultation = P(consulted.response?.consultationJson);
    expect(validateShieldConsultation(consultation).ok).toBe(true);
    expect(P(consulted.response?.caseRecordJson).latestConsultationId).toBe(consultation.consultationId);

    const guided = await api.addGuidance({ caseId, guidanceInputJson: J({ instruction: 'Call the supplier back first.' }) }, ACME_TOKEN);
    expect(P(guided.response?.caseRecordJson).ownerGuidance).toHaveLength(1);

    const closed = await api.closeCase({ caseId, closeInputJson: J({ result: 'escalated', acceptedAdvice: true, actionTaken: 'Handed to finance.' }) }, ACME_TOKEN);
    expect(validateShieldOutcome(P(closed.response?.outcomeJson)).ok).toBe(true);

    const got = await api.getCase({ caseId }, ACME_TOKEN);
    expect(P(got.response?.caseRecordJson).status).toBe('closed');
    expect(got.response?.consultationsJson).toHaveLength(1);
    expect(got.response?.outcomesJson).toHaveLength(1);
    // The same service behind REST.
    expect((await app.call('GET', `/v0.1/shield/cases/${caseId}`, ACME_TOKEN)).body.case).toEqual(P(got.response?.caseRecordJson));

    const listed = await app.eventually(async () => {
      const list = await api.listCases({}, ACME_TOKEN);
      const cases = (list.response?.casesJson ?? []).map(P);
      return cases.some((c) => c.caseId === caseId && c.status === 'closed') ? cases : undefined;
    });
    expect(listed.length).toBeGreaterThan(0);
  });

  it('refuses as REST does: unauthenticated, not found for another account, invalid input with issues, closed case', async () => {
    expect((await api.listCases({}, null)).error?.code).toBe(grpc.status.UNAUTHENTICATED);
    expect((await api.listCases({}, 'wrong')).error?.code).toBe(grpc.status.UNAUTHENTICATED);

    const bad = await api.openCase({ caseInputJson: J({ ...caseInput(), goal: '' }) }, ACME_TOKEN);
    expect(bad.error?.code).toBe(grpc.status.INVALID_ARGUMENT);
    expect(bad.issues.issues).toEqual([expect.objectContaining({ code: 'SHIELD_FIELD_TOO_SHORT', path: '/goal' })]);
    expect((await api.openCase({ caseInputJson: '' }, ACME_TOKEN)).error?.code).toBe(grpc.status.INVALID_ARGUMENT);
    const notJson = await api.openCase({ caseInputJson: '{"agentId":' }, ACME_TOKEN);
    expect(notJson.error?.code).toBe(grpc.status.INVALID_ARGUMENT);
    expect(notJson.issues.issues[0].code).toBe('SHIELD_BODY_NOT_JSON');

    const opened = await api.openCase({ caseInputJson: J(caseInput()) }, ACME_TOKEN);
    const caseId = P(opened.response?.caseRecordJson).caseId as string;
    const foreign = await api.getCase({ caseId }, GLOBEX_TOKEN);
    expect(foreign.error?.code).toBe(grpc.status.NOT_FOUND);
    expect(foreign.issues.issues[0].code).toBe('SHIELD_CASE_NOT_FOUND');

    const missingMessage = await api.consult({ caseId, consultInputJson: J({}) }, ACME_TOKEN);
    expect(missingMessage.error?.code).toBe(grpc.status.INVALID_ARGUMENT);
    expect(missingMessage.issues.issues[0]).toMatchObject({ code: 'SHIELD_FIELD_REQUIRED', path: '/message' });

    await api.closeCase({ caseId, closeInputJson: J({ result: 'false_alarm', acceptedAdvice: false, actionTaken: 'Nothing to do.' }) }, ACME_TOKEN);
    const afterClose = await api.consult({ caseId, consultInputJson: J({ message: 'And now?' }) }, ACME_TOKEN);
    expect(afterClose.error?.code).toBe(grpc.status.INVALID_ARGUMENT);
    expect(afterClose.issues.issues[0].code).toBe('SHIELD_CASE_CLOSED');

    const token = (await app.call('POST', '/v0.1/agents/agent-a/shield-tokens', ACME_TOKEN, { expiresInDays: 1 })).body.token as string;
    const agentGuidance = await api.addGuidance({ caseId, guidanceInputJson: J({ instruction: 'Approve.' }) }, token);
    expect(agentGuidance.error?.code).toBe(grpc.status.PERMISSION_DENIED);
  });
});
