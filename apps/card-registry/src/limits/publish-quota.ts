/**
 * The daily publish quota (CARDS.md §5 "Rate limits": publish quotas): how many revisions one publisher may
 * newly store per UTC day, counted in the registry's database so it holds across every replica at once.
 *
 * A card publish reserves one unit before anything else is done, with one conditional upsert on
 * `registry_publish_quota` (publisher, day): `INSERT … ON CONFLICT DO UPDATE SET count = count + 1 WHERE
 * count < perDay RETURNING count`. Postgres (and PGlite) lock the row for the update, so of many calls racing
 * for the last unit, on one replica or several, exactly one gets a row back; the others are refused (429 /
 * RESOURCE_EXHAUSTED, PUBLISH_QUOTA_EXCEEDED, wait until the next UTC midnight) unless their document is a
 * revision stored already (the same bytes again, e.g. a retry after a lost answer): that one still gets its
 * 200, since it stores nothing. A publish that stores nothing (the same bytes again, a refused document, a lost race that met
 * its twin) gives its unit back, so only stored revisions cost quota; a dry run reserves nothing. A replica
 * that dies between reserving and giving back leaks that one unit for the rest of the day.
 *
 * Catalogs (POST /v1/catalogs) are refused once the day is spent and then add one unit per revision they
 * stored (they may overshoot: how many a catalog stores is known only after it is decided). Rows of days gone
 * by are deleted by the first reservation of each new day on each replica. `QuotaCardService` puts the
 * reservation in front of `CardService.publish` for both transports.
 */
import type { Logger } from '@trustmesh/platform-logging';

import { CardService, type CardServiceDeps, type PublishedRevision, type PublishQuery } from '../service/card.service';
import type { RegistryCaller } from '../service/registry-callers';
import type { ServiceResult } from '../service/registry-service.result';
import { rateLimited } from './registry-limits';

export const PUBLISH_QUOTA_EXCEEDED = 'PUBLISH_QUOTA_EXCEEDED';
const DAY_MS = 86_400_000;

/** Runs one statement on the registry's database (`Database.withConnection` + `query`). */
export type QuotaSql = <Row>(sql: string, params: unknown[]) => Promise<Row[]>;

const RESERVE = `INSERT INTO registry_publish_quota (publisher_id, day, count) VALUES ($1, $2, 1)
  ON CONFLICT (publisher_id, day) DO UPDATE SET count = registry_publish_quota.count + 1 WHERE registry_publish_quota.count < $3
  RETURNING count`;
const RELEASE = 'UPDATE registry_publish_quota SET count = count - 1 WHERE publisher_id = $1 AND day = $2 AND count > 0';
const SPEND = `INSERT INTO registry_publish_quota (publisher_id, day, count) VALUES ($1, $2, $3)
  ON CONFLICT (publisher_id, day) DO UPDATE SET count = registry_publish_quota.count + $3`;
const SPENT = 'SELECT count FROM registry_publish_quota WHERE publisher_id = $1 AND day = $2';
const SWEEP = 'DELETE FROM registry_publish_quota WHERE day < $1';

export type QuotaReservation = { reserved: true; release(): Promise<void> } | { reserved: false; retryAfterSeconds: number };

export class DailyPublishQuota {
  /** The last day this replica swept the rows of earlier days (or started sweeping). */
  private sweptDay = -1;

  constructor(
    readonly perDay: number,
    private readonly sql: QuotaSql,
    private readonly logger?: Logger,
    private readonly now: () => number = () => Date.now(),
  ) {}

  /** Takes one unit of `publisherId`'s quota for today, or says how long until the quota resets. */
  async reserve(publisherId: string): Promise<QuotaReservation> {
    const now = this.now();
    const day = Math.floor(now / DAY_MS);
    this.sweepBefore(day);
    const rows = await this.sql<{ count: number }>(RESERVE, [publisherId, day, this.perDay]);
    if (rows.length === 0) return { reserved: false, retryAfterSeconds: secondsUntilNextDay(now, day) };
    let released = false;
    return {
      reserved: true,
      release: async () => {
        if (released) return;
        released = true;
        // The day of the reservation: a publish straddling midnight gives back yesterday's unit.
        await this.sql(RELEASE, [publisherId, day]);
      },
    };
  }

  /** Null when `publisherId` has quota left today, else seconds until it resets (a check, nothing taken). */
  async exhausted(publisherId: string): Promise<{ retryAfterSeconds: number } | null> {
    const now = this.now();
    const day = Math.floor(now / DAY_MS);
    const [row] = await this.sql<{ count: number }>(SPENT, [publisherId, day]);
    return row && Number(row.count) >= this.perDay ? { retryAfterSeconds: secondsUntilNextDay(now, day) } : null;
  }

  /** Adds `units` stored revisions to today's count, past the quota if need be (catalogs). */
  async spend(publisherId: string, units: number): Promise<void> {
    if (units <= 0) return;
    await this.sql(SPEND, [publisherId, Math.floor(this.now() / DAY_MS), units]);
  }

  private sweepBefore(day: number): void {
    if (this.sweptDay >= day) return;
    const previous = this.sweptDay;
    this.sweptDay = day;
    this.sql(SWEEP, [day]).catch((error: unknown) => {
      this.sweptDay = previous;
      this.logger?.log('warn', 'publish quota sweep failed; retried with the next reservation', { code: 'PUBLISH_QUOTA_SWEEP_FAILED', error: (error as Error)?.name ?? 'Error' });
    });
  }
}

const secondsUntilNextDay = (now: number, day: number) => Math.max(1, Math.ceil(((day + 1) * DAY_MS - now) / 1000));

/** The card service with the daily publish quota reserved in front of `publish`; everything else as it is. */
export class QuotaCardService extends CardService {
  constructor(
    deps: CardServiceDeps,
    private readonly quota: DailyPublishQuota,
  ) {
    super(deps);
  }

  override async publish(caller: RegistryCaller, content: Buffer, query: PublishQuery): Promise<ServiceResult<PublishedRevision>> {
    if (caller.kind !== 'publisher' || query.dryRun) return super.publish(caller, content, query);
    const reservation = await this.quota.reserve(caller.publisherId);
    if (!reservation.reserved) {
      // Spent: only what would store a revision is refused; a retry of bytes stored earlier still gets its 200.
      const spent = rateLimited(reservation, `Your publisher stored its ${this.quota.perDay} revisions for today (UTC); retry after ${reservation.retryAfterSeconds} s`, PUBLISH_QUOTA_EXCEEDED);
      return super.publish(caller, content, { ...query, refuseStoring: spent });
    }
    let result: ServiceResult<PublishedRevision>;
    try {
      result = await super.publish(caller, content, query);
    } catch (error) {
      await this.giveBack(reservation);
      throw error;
    }
    if (!result.ok || !result.value.created) await this.giveBack(reservation);
    return result;
  }

  /** A unit that cannot be given back (the database failed meanwhile) stays spent: the answer stands. */
  private async giveBack(reservation: { release(): Promise<void> }): Promise<void> {
    try {
      await reservation.release();
    } catch (error) {
      this.deps.logger.log('warn', 'publish quota unit not given back', { code: 'PUBLISH_QUOTA_RELEASE_FAILED', error: (error as Error)?.name ?? 'Error' });
    }
  }
}
