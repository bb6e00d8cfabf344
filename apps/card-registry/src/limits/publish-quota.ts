/**
 * The daily publish quota (CARDS.md §5 "Rate limits": publish quotas): how many revisions one publisher may
 * newly store per UTC day. Only a call that stores something spends quota, so a retry of the same bytes, a
 * dry run or a refused document costs nothing; a publisher at its quota is refused before its document is
 * validated (429 / RESOURCE_EXHAUSTED, PUBLISH_QUOTA_EXCEEDED, wait until the next UTC midnight).
 *
 * Counted per replica in memory, checked then spent: two calls racing at the last unit can both pass, so a
 * publisher may exceed the quota by the calls in flight at once. `QuotaCardService` puts it in front of
 * `CardService.publish` for both transports.
 */
import { CardService, type CardServiceDeps, type PublishedRevision, type PublishQuery } from '../service/card.service';
import type { RegistryCaller } from '../service/registry-callers';
import type { ServiceResult } from '../service/registry-service.result';
import { rateLimited } from './registry-limits';

export const PUBLISH_QUOTA_EXCEEDED = 'PUBLISH_QUOTA_EXCEEDED';
const DAY_MS = 86_400_000;
/** Publishers tracked at once; beyond it, days gone by are swept first. */
const MAX_TRACKED = 100_000;

export class DailyPublishQuota {
  private readonly spent = new Map<string, { day: number; count: number }>();

  constructor(
    readonly perDay: number,
    private readonly now: () => number = () => Date.now(),
  ) {}

  /** Null when `publisherId` may store one more revision today, else seconds until the quota resets. */
  exhausted(publisherId: string): { retryAfterSeconds: number } | null {
    const now = this.now();
    const day = Math.floor(now / DAY_MS);
    const entry = this.spent.get(publisherId);
    if (!entry || entry.day !== day || entry.count < this.perDay) return null;
    return { retryAfterSeconds: Math.max(1, Math.ceil(((day + 1) * DAY_MS - now) / 1000)) };
  }

  spend(publisherId: string): void {
    const day = Math.floor(this.now() / DAY_MS);
    const entry = this.spent.get(publisherId);
    if (entry && entry.day === day) {
      entry.count += 1;
      return;
    }
    if (!entry && this.spent.size >= MAX_TRACKED) {
      for (const [key, value] of this.spent) if (value.day !== day) this.spent.delete(key);
      if (this.spent.size >= MAX_TRACKED) this.spent.delete(this.spent.keys().next().value as string);
    }
    this.spent.set(publisherId, { day, count: 1 });
  }
}

/** The card service with the daily publish quota in front of `publish`; everything else as it is. */
export class QuotaCardService extends CardService {
  constructor(
    deps: CardServiceDeps,
    private readonly quota: DailyPublishQuota,
  ) {
    super(deps);
  }

  override async publish(caller: RegistryCaller, content: Buffer, query: PublishQuery): Promise<ServiceResult<PublishedRevision>> {
    if (caller.kind === 'publisher' && !query.dryRun) {
      const exhausted = this.quota.exhausted(caller.publisherId);
      if (exhausted) return { ok: false, failure: rateLimited(exhausted, `Your publisher stored its ${this.quota.perDay} revisions for today (UTC); retry after ${exhausted.retryAfterSeconds} s`, PUBLISH_QUOTA_EXCEEDED) };
    }
    const result = await super.publish(caller, content, query);
    if (result.ok && result.value.created && caller.kind === 'publisher') this.quota.spend(caller.publisherId);
    return result;
  }
}
