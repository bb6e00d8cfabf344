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
 *
 * A run of events (the local bus hands a partition's consecutive events over at once) is applied set-based
 * (`applyRun`): one read of the records of every case the run touches, the events folded onto them here with
 * the same `evolve`, then one statement per table for the whole run (each row set travels as one JSON
 * parameter). The rows left are exactly those `apply` on each event in turn leaves, conflicts included: a
 * case opened again is not replaced, a consultation or outcome already there is kept, and an event for a
 * case without a row changes no case.
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

interface CaseRow {
  case_id: string;
  record: ShieldCase | string;
}

/** What a run writes, table by table, once its events are folded onto the records it read. */
interface RunWrites {
  /** Cases the run opens, with their record after the run's later events. */
  opened: { caseId: string; accountId: string; opened: ShieldCase }[];
  /** Cases that had a row before the run and whose record the run changes. */
  changed: Set<string>;
  records: Map<string, ShieldCase>;
  consultations: { consultation_id: string; case_id: string; account_id: string; record: unknown; created_at: string }[];
  outcomes: { outcome_id: string; case_id: string; account_id: string; record: unknown; created_at: string }[];
  counterparty: { case_id: string; account_id: string; reference: string; result: string; accepted_advice: boolean; latest_disposition: string | null; risk_tier: string; closed_at: string }[];
}

/** Postgres prints a uuid in lowercase: the key a case is found by, whatever case an event spelt it in. */
const key = (caseId: string) => caseId.toLowerCase();

/** Folds a run's events onto the records stored before it (`stored`), as `apply` would one by one. */
function planRun(events: readonly { event: ShieldCaseEvent; accountId: string }[], stored: Map<string, ShieldCase>): RunWrites {
  const writes: RunWrites = { opened: [], changed: new Set(), records: stored, consultations: [], outcomes: [], counterparty: [] };
  const opened = new Set<string>();
  /** `apply`'s `updateCase`: the case evolves only where it has a record and `evolve` gives one. */
  const evolveCase = (caseId: string, event: ShieldCaseEvent): ShieldCase | null => {
    const current = writes.records.get(key(caseId));
    if (!current) return null;
    const record = evolve(current, event);
    if (!record) return null;
    writes.records.set(key(caseId), record);
    if (!opened.has(key(caseId))) writes.changed.add(key(caseId));
    return record;
  };
  for (const { event, accountId } of events) {
    switch (event.type) {
      case 'ShieldCaseOpened': {
        const record = event.data.caseRecord;
        // ON CONFLICT DO NOTHING: a case that has a row (stored, or opened earlier in the run) stays as it is.
        if (writes.records.has(key(record.caseId))) break;
        writes.records.set(key(record.caseId), record);
        opened.add(key(record.caseId));
        writes.opened.push({ caseId: key(record.caseId), accountId, opened: record });
        break;
      }
      case 'ShieldCaseConsulted': {
        const { consultation } = event.data;
        writes.consultations.push({ consultation_id: consultation.consultationId, case_id: event.data.caseId, account_id: accountId, record: consultation, created_at: consultation.createdAt });
        evolveCase(event.data.caseId, event);
        break;
      }
      case 'ShieldGuidanceAdded':
        evolveCase(event.data.caseId, event);
        break;
      case 'ShieldCaseClosed': {
        const { outcome, closedAt } = event.data;
        writes.outcomes.push({ outcome_id: outcome.outcomeId, case_id: event.data.caseId, account_id: accountId, record: outcome, created_at: outcome.createdAt });
        const record = evolveCase(event.data.caseId, event);
        const reference = record?.counterparty.reference;
        if (record && reference !== undefined) {
          writes.counterparty.push({
            case_id: record.caseId,
            account_id: accountId,
            reference,
            result: outcome.result,
            accepted_advice: outcome.acceptedAdvice,
            latest_disposition: record.latestDisposition ?? null,
            risk_tier: record.riskTier,
            closed_at: closedAt,
          });
        }
        break;
      }
    }
  }
  return writes;
}

/** The run's writes, one statement per table that has rows to write. */
async function writeRun(tx: SqlExecutor, writes: RunWrites): Promise<void> {
  if (writes.opened.length > 0) {
    const rows = writes.opened.map(({ caseId, accountId, opened }) => {
      const record = writes.records.get(caseId) as ShieldCase;
      // As `apply`: agent, reference and creation from the opening; status, risk, record and update time from the last event.
      return { case_id: caseId, account_id: accountId, agent_id: opened.agentId, status: record.status, risk_tier: record.riskTier, counterparty_reference: opened.counterparty.reference ?? null, record, created_at: opened.createdAt, updated_at: record.updatedAt };
    });
    await tx.query(
      `INSERT INTO shield_cases (case_id, account_id, agent_id, status, risk_tier, counterparty_reference, record, created_at, updated_at)
       SELECT case_id, account_id, agent_id, status, risk_tier, counterparty_reference, record, created_at, updated_at
         FROM json_to_recordset($1::json) AS r(case_id uuid, account_id text, agent_id text, status text, risk_tier text, counterparty_reference text,
                                               record jsonb, created_at timestamptz, updated_at timestamptz)
       ON CONFLICT (case_id) DO NOTHING`,
      [JSON.stringify(rows)],
    );
  }
  if (writes.changed.size > 0) {
    const rows = [...writes.changed].map((caseId) => {
      const record = writes.records.get(caseId) as ShieldCase;
      return { case_id: caseId, status: record.status, risk_tier: record.riskTier, record, updated_at: record.updatedAt };
    });
    await tx.query(
      `UPDATE shield_cases c SET status = r.status, risk_tier = r.risk_tier, record = r.record, updated_at = r.updated_at
         FROM json_to_recordset($1::json) AS r(case_id uuid, status text, risk_tier text, record jsonb, updated_at timestamptz)
        WHERE c.case_id = r.case_id`,
      [JSON.stringify(rows)],
    );
  }
  if (writes.consultations.length > 0) {
    await tx.query(
      `INSERT INTO shield_consultations (consultation_id, case_id, account_id, record, created_at)
       SELECT consultation_id, case_id, account_id, record, created_at
         FROM json_to_recordset($1::json) AS r(consultation_id uuid, case_id uuid, account_id text, record jsonb, created_at timestamptz)
       ON CONFLICT DO NOTHING`,
      [JSON.stringify(writes.consultations)],
    );
  }
  if (writes.outcomes.length > 0) {
    await tx.query(
      `INSERT INTO shield_outcomes (outcome_id, case_id, account_id, record, created_at)
       SELECT outcome_id, case_id, account_id, record, created_at
         FROM json_to_recordset($1::json) AS r(outcome_id uuid, case_id uuid, account_id text, record jsonb, created_at timestamptz)
       ON CONFLICT DO NOTHING`,
      [JSON.stringify(writes.outcomes)],
    );
  }
  if (writes.counterparty.length > 0) {
    await tx.query(
      `INSERT INTO shield_counterparty_outcomes (case_id, account_id, reference, result, accepted_advice, latest_disposition, risk_tier, closed_at)
       SELECT case_id, account_id, reference, result, accepted_advice, latest_disposition, risk_tier, closed_at
         FROM json_to_recordset($1::json) AS r(case_id uuid, account_id text, reference text, result text, accepted_advice boolean, latest_disposition text,
                                               risk_tier text, closed_at timestamptz)
       ON CONFLICT (case_id) DO NOTHING`,
      [JSON.stringify(writes.counterparty)],
    );
  }
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
    async applyRun(envelopes, { tx }) {
      const events = envelopes.map((envelope) => fromStored(envelope.eventType, envelope.data));
      const caseIds = [...new Set(events.map(({ event }) => key(event.type === 'ShieldCaseOpened' ? event.data.caseRecord.caseId : event.data.caseId)))];
      const rows = await tx.query<CaseRow>('SELECT case_id::text AS case_id, record FROM shield_cases WHERE case_id = ANY($1::uuid[])', [caseIds]);
      const stored = new Map(rows.map((row) => [key(row.case_id), caseRecord(row) as ShieldCase]));
      await writeRun(tx, planRun(events, stored));
    },
  };
}
