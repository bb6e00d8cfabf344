/**
 * The Shield's read models, projected from `shield.cases.v1`: each case's latest record (with its account),
 * every consultation record, every outcome, and the per-account counterparty outcomes that feed a later
 * case's analysis ("outcome intelligence", issue 9). Each event is applied once in the runner's transaction,
 * with upserts, so replaying the log from the start rebuilds the same rows.
 */
import type { EventEnvelope } from '@trustmesh/platform-events';
import type { ProjectionDefinition } from '@trustmesh/platform-projections';
import { evolve, type ShieldCase, type ShieldCaseState } from '@trustmesh/shield-records';

import type { Prisma } from './generated/prisma/client';
import { fromStored, SHIELD_CASES_TOPIC } from './shield-case.stream';

/** The transaction client the Shield's read models are written with (`prismaTransactions`). */
export type ShieldPrismaTx = Prisma.TransactionClient;

export const SHIELD_READ_MODEL_PROJECTION = 'shield-read-model';

const json = (value: unknown) => value as Prisma.InputJsonValue;

async function updateCase(tx: ShieldPrismaTx, caseId: string, change: (record: ShieldCase) => ShieldCaseState): Promise<ShieldCase | null> {
  // The records library's `evolve` is the one definition of how each event changes a case.
  const row = await tx.shieldCaseView.findUnique({ where: { caseId } });
  if (!row) return null;
  const record = change(row.record as unknown as ShieldCase);
  if (!record) return null;
  await tx.shieldCaseView.update({
    where: { caseId },
    data: { status: record.status, riskTier: record.riskTier, record: json(record), updatedAt: new Date(record.updatedAt) },
  });
  return record;
}

export function shieldReadModelProjection(): ProjectionDefinition<ShieldPrismaTx> {
  return {
    name: SHIELD_READ_MODEL_PROJECTION,
    version: 1,
    topics: [SHIELD_CASES_TOPIC],
    async apply(envelope: EventEnvelope, { tx }) {
      const { event, accountId } = fromStored(envelope.eventType, envelope.data);
      switch (event.type) {
        case 'ShieldCaseOpened': {
          const record = event.data.caseRecord;
          await tx.shieldCaseView.upsert({
            where: { caseId: record.caseId },
            create: {
              caseId: record.caseId,
              accountId,
              agentId: record.agentId,
              status: record.status,
              riskTier: record.riskTier,
              counterpartyReference: record.counterparty.reference ?? null,
              record: json(record),
              createdAt: new Date(record.createdAt),
              updatedAt: new Date(record.updatedAt),
            },
            update: {},
          });
          return;
        }
        case 'ShieldCaseConsulted': {
          const { consultation } = event.data;
          await tx.shieldConsultationView.upsert({
            where: { consultationId: consultation.consultationId },
            create: { consultationId: consultation.consultationId, caseId: event.data.caseId, accountId, record: json(consultation), createdAt: new Date(consultation.createdAt) },
            update: {},
          });
          await updateCase(tx, event.data.caseId, (record) => evolve(record, event));
          return;
        }
        case 'ShieldGuidanceAdded':
          await updateCase(tx, event.data.caseId, (record) => evolve(record, event));
          return;
        case 'ShieldCaseClosed': {
          const { outcome, closedAt } = event.data;
          await tx.shieldOutcomeView.upsert({
            where: { outcomeId: outcome.outcomeId },
            create: { outcomeId: outcome.outcomeId, caseId: event.data.caseId, accountId, record: json(outcome), createdAt: new Date(outcome.createdAt) },
            update: {},
          });
          const record = await updateCase(tx, event.data.caseId, (current) => evolve(current, event));
          const reference = record?.counterparty.reference;
          if (record && reference !== undefined) {
            await tx.shieldCounterpartyOutcome.upsert({
              where: { caseId: record.caseId },
              create: {
                caseId: record.caseId,
                accountId,
                reference,
                result: outcome.result,
                acceptedAdvice: outcome.acceptedAdvice,
                latestDisposition: record.latestDisposition ?? null,
                riskTier: record.riskTier,
                closedAt: new Date(closedAt),
              },
              update: {},
            });
          }
          return;
        }
      }
    },
  };
}
