/**
 * Cases survive a restart on the same embedded database: the event store holds them, the projection's
 * checkpoints resume, and an agent token issued before the restart still works after it.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

import { ACME_TOKEN, caseInput, startShieldApp } from './support/shield-app.fixture';

describe('Shield analyzer restart', () => {
  const dir = mkdtempSync(join(tmpdir(), 'shield-restart-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('serves the same cases, consultations, lists and tokens after a restart', async () => {
    const first = await startShieldApp({}, { dir });
    const opened = await first.call('POST', '/v0.1/shield/cases', ACME_TOKEN, caseInput());
    const consulted = await first.call('POST', `/v0.1/shield/cases/${opened.body.caseId}/consult`, ACME_TOKEN, { message: 'Can you confirm the delivery date?' });
    const token = (await first.call('POST', '/v0.1/agents/agent-a/shield-tokens', ACME_TOKEN, {})).body.token as string;
    const before = await first.call('GET', `/v0.1/shield/cases/${opened.body.caseId}`, ACME_TOKEN);
    await first.eventually(async () => ((await first.call('GET', '/v0.1/shield/cases', ACME_TOKEN)).body.length === 1 ? true : undefined));
    await first.close();

    const second = await startShieldApp({}, { dir });
    try {
      expect((await second.call('GET', `/v0.1/shield/cases/${opened.body.caseId}`, ACME_TOKEN)).body).toEqual(before.body);
      expect(before.body.consultations[0].consultationId).toBe(consulted.body.consultation.consultationId);
      // The agent token issued before the restart still works; the read model catches up with whatever the
      // first process appended but had not yet projected (the outbox and the checkpoints resume).
      const listed = await second.eventually(async () => {
        const list = await second.call('GET', '/v0.1/shield/cases', token);
        expect(list.status).toBe(200);
        return list.body[0]?.latestConsultationId ? list.body : undefined;
      });
      expect(listed.map((c: { caseId: string }) => c.caseId)).toEqual([opened.body.caseId]);
      expect(listed[0].latestConsultationId).toBe(consulted.body.consultation.consultationId);
    } finally {
      await second.close();
    }
  });
});
