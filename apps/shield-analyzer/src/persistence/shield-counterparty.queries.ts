/**
 * The counterparty knowledge a consult's analysis reads (issue 9, "outcome intelligence"): the closed cases
 * of one operator account with the same counterparty reference, from the read model. Read in SQL on the
 * platform database rather than through the analyzer's Prisma client, because it is on every consult's
 * path (a Prisma model query cost more CPU than the statement, `bench:shield`).
 *
 * On the embedded database the answers are also kept in memory: the data directory is locked to this
 * process, so the read model's projection that writes these rows runs here too and says when a reference
 * gained an outcome (`changed`). Without the cache every consult paid a statement that also waited for any
 * projection transaction open at the time. On a Postgres server other replicas project as well, so every
 * consult reads the table.
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

/** References kept at once; the least recently read is dropped first. */
const KEPT_REFERENCES = 4_096;

export class CounterpartyOutcomes {
  /** `account \0 reference` -> its newest `limit + 1` outcomes, least recently read first. */
  private readonly kept = new Map<string, readonly CounterpartyOutcome[]>();
  /** Counts `changed` calls: an answer read while one happened is not kept (it may predate the change). */
  private changes = 0;

  /**
   * `limit`: outcomes a consult gets at most. `keep`: whether answers may be kept in memory, true only when
   * every write to the table goes through this process's projection (`changed`).
   */
  constructor(
    private readonly database: Database,
    private readonly limit: number,
    private readonly keep: boolean,
  ) {}

  /** The account's closed cases with `reference` other than `exceptCaseId`, newest first, at most `limit`. */
  async of(accountId: string, reference: string, exceptCaseId: string): Promise<CounterpartyOutcome[]> {
    const key = `${accountId}\u0000${reference}`;
    let outcomes = this.kept.get(key);
    if (outcomes) {
      this.kept.delete(key);
      this.kept.set(key, outcomes);
    } else {
      const before = this.changes;
      // One more than a consult gets: the case consulting may be among them and is left out below.
      outcomes = await this.read(accountId, reference, this.limit + 1);
      if (this.keep && this.changes === before) this.remember(key, outcomes);
    }
    return outcomes.filter((outcome) => outcome.caseId !== exceptCaseId).slice(0, this.limit);
  }

  /**
   * Called by the projection as it writes an outcome for `reference` (inside its transaction, before the
   * commit). A read that starts after this waits for that transaction on the embedded database, so it sees
   * the row; one already under way is not kept.
   */
  changed(accountId: string, reference: string): void {
    this.changes += 1;
    this.kept.delete(`${accountId}\u0000${reference}`);
  }

  private remember(key: string, outcomes: readonly CounterpartyOutcome[]): void {
    this.kept.set(key, outcomes);
    if (this.kept.size > KEPT_REFERENCES) {
      const oldest = this.kept.keys().next().value;
      if (oldest !== undefined) this.kept.delete(oldest);
    }
  }

  private async read(accountId: string, reference: string, limit: number): Promise<CounterpartyOutcome[]> {
    const rows = await this.database.withConnection((sql) =>
      sql.query<OutcomeRow>(
        // closed_at as toISOString would write it (UTC, milliseconds), so no driver's date parsing is involved.
        `SELECT o.case_id::text AS case_id, o.result, o.accepted_advice, o.latest_disposition, o.risk_tier,
                to_char(o.closed_at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"') AS closed_at
           FROM shield_counterparty_outcomes o
          WHERE o.account_id = $1 AND o.reference = $2
          ORDER BY o.closed_at DESC
          LIMIT $3::integer`,
        [accountId, reference, limit],
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
}
