/**
 * The Shield's read models, projected from `shield.cases.v1`: each case's latest record (with its account),
 * every consultation record, every outcome, and the per-account counterparty outcomes that feed a later
 * case's analysis ("outcome intelligence", issue 9). Each event is applied once in the runner's transaction,
 * with inserts that skip a row already there, so replaying the log from the start rebuilds the same rows.
 *
 * Written in SQL on the platform database (`sqlTransactions`), not through the analyzer's Prisma client:
 * every consult ends in a projected event, and Prisma's upserts cost a select and an insert or update each
 * plus its query engine's work per statement, which made the projection the costliest part of a consult
 * (`bench:shield`). A consultation costs two statements here: the insert that also reads the case's record,
 * and the update of that record. Values travel as bind parameters.
 */
import type { SqlExecutor } from '@trustmesh/platform-database';
import type { EventEnvelope } from '@trustmesh/platform-events';
import type { ProjectionDefinition } from '@trustmesh/platform-projections';
import { evolve, type ShieldCase, type ShieldCaseEvent, type ShieldCaseState } from '@trustmesh/shield-records';

import { fromStored, SHIELD_CASES_TOPIC } from './shield-case.stream';

export const SHIELD_READ_MODEL_PROJECTION = 'shield-read-model';

/**
 * Runs `before` (an insert that writes nothing when its row exists, with `$1` the case id) and reads the
 * case's record, in one statement.
 */
async function insertAndReadCase(sql: SqlExecutor, before: string, params: readonly unknown[]): Promise<ShieldCase | null> {
  const [row] = await sql.query<{ record: ShieldCase | string }>(
    `WITH inserted AS (${before} ON CONFLICT DO NOTHING RETURNING 1)
     SELECT record FROM shield_cases WHERE case_id = $1::uuid`,
    params,
  );
  return caseRecord(row);
}

/** The case's record from its row: jsonb comes back parsed from both drivers (text only from one told not to parse it). */
function caseRecord(row: { record: ShieldCase | string } | undefined): ShieldCase | null {
  if (!row) return null;
  return typeof row.record === 'string' ? (JSON.parse(row.record) as ShieldCase) : row.record;
}

/** The records library's `evolve` is the one definition of how each event changes a case. */
async function updateCase(sql: SqlExecutor, current: ShieldCase | null, event: ShieldCaseEvent): Promise<ShieldCase | null> {
  if (!current) return null;
  const record: ShieldCaseState = evolve(current, event);
  if (!record) return null;
  await sql.query('UPDATE shield_cases SET status = $2, risk_tier = $3, record = $4::jsonb, updated_at = $5::timestamptz WHERE case_id = $1::uuid', [
    record.caseId,
    record.status,
    record.riskTier,
    JSON.stringify(record),
    record.updatedAt,
  ]);
  return record;
}

export function shieldReadModelProjection(): ProjectionDefinition<SqlExecutor> {
  return {
    name: SHIELD_READ_MODEL_PROJECTION,
    version: 1,
    topics: [SHIELD_CASES_TOPIC],
    async apply(envelope: EventEnvelope, { tx }) {
      const { event, accountId } = fromStored(envelope.eventType, envelope.data);
      switch (event.type) {
        case 'ShieldCaseOpened': {
          const record = event.data.caseRecord;
          await tx.query(
            `INSERT INTO shield_cases (case_id, account_id, agent_id, status, risk_tier, counterparty_reference, record, created_at, updated_at)
             VALUES ($1::uuid, $2, $3, $4, $5, $6, $7::jsonb, $8::timestamptz, $9::timestamptz)
             ON CONFLICT (case_id) DO NOTHING`,
            [record.caseId, accountId, record.agentId, record.status, record.riskTier, record.counterparty.reference ?? null, JSON.stringify(record), record.createdAt, record.updatedAt],
          );
          return;
        }
        case 'ShieldCaseConsulted': {
          const { consultation } = event.data;
          const current = await insertAndReadCase(
            tx,
            `INSERT INTO shield_consultations (consultation_id, case_id, account_id, record, created_at)
             VALUES ($2::uuid, $1::uuid, $3, $4::jsonb, $5::timestamptz)`,
            [event.data.caseId, consultation.consultationId, accountId, JSON.stringify(consultation), consultation.createdAt],
          );
          await updateCase(tx, current, event);
          return;
        }
        case 'ShieldGuidanceAdded': {
          const [row] = await tx.query<{ record: ShieldCase | string }>('SELECT record FROM shield_cases WHERE case_id = $1::uuid', [event.data.caseId]);
          await updateCase(tx, caseRecord(row), event);
          return;
        }
        case 'ShieldCaseClosed': {
          const { outcome, closedAt } = event.data;
          const current = await insertAndReadCase(
            tx,
            `INSERT INTO shield_outcomes (outcome_id, case_id, account_id, record, created_at)
             VALUES ($2::uuid, $1::uuid, $3, $4::jsonb, $5::timestamptz)`,
            [event.data.caseId, outcome.outcomeId, accountId, JSON.stringify(outcome), outcome.createdAt],
          );
          const record = await updateCase(tx, current, event);
          const reference = record?.counterparty.reference;
          if (record && reference !== undefined) {
            await tx.query(
              `INSERT INTO shield_counterparty_outcomes (case_id, account_id, reference, result, accepted_advice, latest_disposition, risk_tier, closed_at)
               VALUES ($1::uuid, $2, $3, $4, $5, $6, $7, $8::timestamptz)
               ON CONFLICT (case_id) DO NOTHING`,
              [record.caseId, accountId, reference, outcome.result, outcome.acceptedAdvice, record.latestDisposition ?? null, record.riskTier, closedAt],
            );
          }
          return;
        }
      }
    },
  };
}
