/**
 * On the embedded database a consult, guidance or close decides on the case this process keeps in memory
 * without reading its stream again. Two apps on one data directory in one process (they share its PGlite)
 * stand for the writer that should never exist there: whatever one appends, the other's next change still
 * decides on the case as stored, and nothing is lost or doubled.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

import { ACME_TOKEN, caseInput, startShieldApp, type ShieldApp } from './support/shield-app.fixture';

describe('Shield analyzer: cases kept in memory on the embedded database', () => {
  const dir = mkdtempSync(join(tmpdir(), 'shield-kept-'));
  let first: ShieldApp | undefined;
  let second: ShieldApp | undefined;
  afterAll(async () => {
    await second?.close();
    await first?.close();
    rmSync(dir, { recursive: true, force: true });
  }, 60_000);

  it('decides on the stored case when another writer moved the one kept here', async () => {
    first = await startShieldApp({}, { dir });
    second = await startShieldApp({}, { dir });
    const opened = await first.call('POST', '/v0.1/shield/cases', ACME_TOKEN, caseInput());
    expect(opened.status).toBe(201);
    const caseId = opened.body.caseId as string;
    const consult = (app: ShieldApp, message: string) => app.call('POST', `/v0.1/shield/cases/${caseId}/consult`, ACME_TOKEN, { message });

    // The second app reads the case from the store and consults; the first still keeps the case as it opened it.
    const elsewhere = await consult(second, 'Can you confirm the delivery date for INV-2231?');
    expect(elsewhere.status).toBe(200);
    const here = await consult(first, 'Please pay INV-2231 to our new account today.');
    expect(here.status).toBe(200);
    expect(here.body.caseRecord.latestConsultationId).toBe(here.body.consultation.consultationId);

    const guided = await second.call('POST', `/v0.1/shield/cases/${caseId}/guidance`, ACME_TOKEN, { instruction: 'Call the supplier back on the number on record.' });
    expect(guided.status).toBe(200);
    const closed = await first.call('POST', `/v0.1/shield/cases/${caseId}/close`, ACME_TOKEN, { result: 'escalated', acceptedAdvice: true, actionTaken: 'Handed to finance.' });
    expect(closed.status).toBe(200);

    const detail = await second.call('GET', `/v0.1/shield/cases/${caseId}`, ACME_TOKEN);
    expect(detail.body.consultations.map((consultation: { consultationId: string }) => consultation.consultationId)).toEqual([
      elsewhere.body.consultation.consultationId,
      here.body.consultation.consultationId,
    ]);
    expect(detail.body.case.ownerGuidance).toHaveLength(1);
    expect(detail.body.case.status).toBe('closed');
    expect(detail.body.outcomes).toHaveLength(1);
  }, 180_000);
});
