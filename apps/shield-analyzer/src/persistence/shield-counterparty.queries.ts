/**
 * What a consult's analysis knows of its counterparty, read in ONE statement on the platform database (a
 * PGlite round trip costs the database thread about as much as a short statement itself, `bench:shield`):
 * - the closed cases of the same operator account with the same counterparty reference, newest first, from
 *   the read model ("outcome intelligence", issue 9);
 * - what the public card registry knows of the reference (issue 12): the statement's registry part is
 *   `registryKnowledgeCtes` of registry-knowledge.queries.ts, its row folded by `registryKnowledgeOf`.
 * In SQL rather than through the analyzer's Prisma client, because it is on every consult's path (a Prisma
 * model query cost more CPU than the statement).
 */
import { registryReferenceKeys } from '@trustmesh/cards-registry-events';
import type { Database } from '@trustmesh/platform-database';
import type { CounterpartyKnowledge } from '@trustmesh/shield-records';

import { knowledgeOfRow, registryKnowledgeCtes, type KnowledgeRow } from '../registry/registry-knowledge.queries';

export type CounterpartyOutcome = CounterpartyKnowledge['outcomes'][number];

interface OutcomeRow {
  case_id: string;
  result: CounterpartyOutcome['result'];
  accepted_advice: boolean;
  latest_disposition: NonNullable<CounterpartyOutcome['latestDisposition']> | null;
  risk_tier: CounterpartyOutcome['riskTier'];
  closed_at: string;
}

/** The statement's one row: the outcomes as a JSON array (null when none), and the registry's row (nulls when it knows nothing). */
type KnowledgeStatementRow = { outcomes: OutcomeRow[] | string | null } & { [K in keyof KnowledgeRow]: KnowledgeRow[K] | null };

const parsed = <T>(value: T | string): T => (typeof value === 'string' ? (JSON.parse(value) as T) : value);

/** The account's ($1) closed cases with reference $2 but case $3, newest first, at most $4. */
const OUTCOMES_CTE = `outcomes AS (
    -- closed_at as toISOString would write it (UTC, milliseconds), so no driver's date parsing is involved.
    SELECT o.case_id::text AS case_id, o.result, o.accepted_advice, o.latest_disposition, o.risk_tier,
           to_char(o.closed_at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"') AS closed_at
      FROM shield_counterparty_outcomes o
     WHERE o.account_id = $1 AND o.reference = $2 AND o.case_id <> $3::uuid
     ORDER BY o.closed_at DESC, o.case_id
     LIMIT $4::integer
  )`;
const OUTCOMES_JSON = '(SELECT json_agg(o ORDER BY o.closed_at DESC, o.case_id) FROM outcomes o) AS outcomes';

const STATEMENT = `
  WITH ${OUTCOMES_CTE}, ${registryKnowledgeCtes(5, 6)}
  SELECT ${OUTCOMES_JSON}, k.*
    FROM (SELECT 1) AS one LEFT JOIN knowledge k ON true`;

const OUTCOMES_STATEMENT = `WITH ${OUTCOMES_CTE} SELECT ${OUTCOMES_JSON}`;
/** No case has the nil UUID: the outcome history's statement excludes none. */
const NO_CASE = '00000000-0000-0000-0000-000000000000';

const outcomesOf = (outcomes: OutcomeRow[] | string | null | undefined): CounterpartyOutcome[] =>
  (outcomes === null || outcomes === undefined ? [] : parsed(outcomes)).map((outcome) => ({
    caseId: outcome.case_id,
    result: outcome.result,
    acceptedAdvice: outcome.accepted_advice,
    ...(outcome.latest_disposition ? { latestDisposition: outcome.latest_disposition } : {}),
    riskTier: outcome.risk_tier,
    closedAt: outcome.closed_at,
  }));

/** The account's closed cases with `reference`, newest first, at most `limit`: its counterparty history as the owner reads it. */
export async function counterpartyOutcomes(database: Database, accountId: string, reference: string, limit: number): Promise<CounterpartyOutcome[]> {
  const [row] = await database.withConnection((sql) => sql.query<{ outcomes: OutcomeRow[] | string | null }>(OUTCOMES_STATEMENT, [accountId, reference, NO_CASE, limit]));
  return outcomesOf(row?.outcomes);
}

/**
 * The account's closed cases with `reference` other than `exceptCaseId` (newest first, at most `limit`), and
 * what the registry knows of `reference` at `now` (absent when it names nothing registered).
 */
export async function counterpartyKnowledge(database: Database, accountId: string, reference: string, exceptCaseId: string, limit: number, now: Date): Promise<CounterpartyKnowledge> {
  const keys = registryReferenceKeys(reference);
  const [row] = await database.withConnection((sql) =>
    sql.query<KnowledgeStatementRow>(STATEMENT, [accountId, reference, exceptCaseId, limit, keys?.exact ?? null, keys?.namespace ?? null]),
  );
  const outcomes = outcomesOf(row?.outcomes);
  const registry = keys && row?.matched_by ? knowledgeOfRow(row as KnowledgeRow, now) : undefined;
  return { reference, outcomes, ...(registry ? { registry } : {}) };
}
