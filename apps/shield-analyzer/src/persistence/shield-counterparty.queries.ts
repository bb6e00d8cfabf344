/**
 * The counterparty knowledge a consult's analysis reads (issue 9, "outcome intelligence"): the closed cases
 * of one operator account with the same counterparty reference, from the read model. Read in SQL on the
 * platform database rather than through the analyzer's Prisma client, because it is on every consult's
 * path (a Prisma model query cost more CPU than the statement, `bench:shield`).
 */
import type { Database } from '@trustmesh/platform-database';
import type { CounterpartyKnowledge } from '@trustmesh/shield-records';

type CounterpartyOutcome = CounterpartyKnowledge['outcomes'][number];

interface OutcomeRow {
  case_id: string;
  result: CounterpartyOutcome['result'];
  accepted_advice: boolean;
  latest_disposition: NonNullable<CounterpartyOutcome['latestDisposition']> | null;
  risk_tier: CounterpartyOutcome['riskTier'];
  closed_at: string;
}

/** The account's closed cases with `reference` other than `exceptCaseId`, newest first, at most `limit`. */
export async function counterpartyOutcomes(database: Database, accountId: string, reference: string, exceptCaseId: string, limit: number): Promise<CounterpartyOutcome[]> {
  const rows = await database.withConnection((sql) =>
    sql.query<OutcomeRow>(
      // closed_at as toISOString would write it (UTC, milliseconds), so no driver's date parsing is involved.
      `SELECT o.case_id::text AS case_id, o.result, o.accepted_advice, o.latest_disposition, o.risk_tier,
              to_char(o.closed_at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"') AS closed_at
         FROM shield_counterparty_outcomes o
        WHERE o.account_id = $1 AND o.reference = $2 AND o.case_id <> $3::uuid
        ORDER BY o.closed_at DESC
        LIMIT $4::integer`,
      [accountId, reference, exceptCaseId, limit],
    ),
  );
  return rows.map((row) => ({
    caseId: row.case_id,
    result: row.result,
    acceptedAdvice: row.accepted_advice,
    ...(row.latest_disposition ? { latestDisposition: row.latest_disposition } : {}),
    riskTier: row.risk_tier,
    closedAt: row.closed_at,
  }));
}
