/**
 * Delivers the desired workspace cards (relay_workspace_cards, written by the `relay-workspace-cards`
 * projection) to the card registry: the process manager's half that acts, outbox-style. A card whose
 * `desired_version` is ahead of its `delivered_version` is claimed with a lease (so two replicas do not
 * deliver one card at once; if they did, both calls would be idempotent), its document is built from the
 * row, published (CREATED or UNCHANGED), its status set when it is not plain `active`, and the version it
 * delivered recorded. Nothing is lost: the row stays due until a delivery succeeds.
 *
 * - Registry unreachable or asking to wait (UNAVAILABLE, DEADLINE_EXCEEDED, RATE_LIMITED, …): the row is
 *   retried with capped exponential backoff (0.5 s doubling up to RELAY_REGISTRY_RETRY_MAX_SECONDS), for as
 *   long as it takes, and never given up (ARCHITECTURE.md: a failure of the world holds, never dead-letters).
 * - Registry refusal (PERMISSION_DENIED: namespace not granted, INVALID_ARGUMENT, UNAUTHENTICATED, …): the
 *   row keeps the registry's stable code in `refusal_code` and is not retried until its desired card
 *   changes or PublishWorkspaceCard is called again; retrying the same request could not help.
 */
import type { JsonLogger } from '../logging/json-logger';
import type { PrismaClient } from '../persistence/generated/prisma/client';
import type { RegistryCardsClient, RegistryOutcome } from './registry-cards.client';
import { workspaceCardBytes } from './workspace-card.builder';
import type { WorkspaceCardConfig } from './workspace-card.config';

const FIRST_RETRY_MS = 500;
const LEASE_SECONDS = 60;
/** How often an idle loop looks for due cards when nothing kicked it (other replicas' publishes, backoffs ending). */
const IDLE_POLL_MS = 1_000;
/** Cards delivered per pass before the loop yields to the event loop. */
const MAX_PER_PASS = 50;

export const DEPRECATED_MESSAGE = 'The workspace has no enrolled Companion: its agent cannot be reached until a device enrols again.';

interface CardRow {
  workspace_id: string;
  identifier: string;
  name: string;
  description: string;
  tags: string;
  endpoint: string;
  end_to_end_encrypted: boolean;
  created_at: string;
  revision: string;
  status: 'active' | 'deprecated';
  desired_version: number;
  delivered_status: string | null;
  attempts: number;
}

export class WorkspaceCardDelivery {
  private timer: NodeJS.Timeout | undefined;
  private pass: Promise<void> | undefined;
  private again = false;
  private stopped = true;

  constructor(
    private readonly prisma: PrismaClient,
    private readonly registry: RegistryCardsClient,
    private readonly config: WorkspaceCardConfig,
    private readonly logger: JsonLogger,
  ) {}

  start(): void {
    this.stopped = false;
    this.kick();
  }

  /** Looks for due cards now (after a publish), or right after the pass under way. */
  kick(): void {
    if (this.stopped) return;
    if (this.pass) {
      this.again = true;
      return;
    }
    clearTimeout(this.timer);
    this.pass = this.deliverDue()
      .catch((error: unknown) => this.logger.warn('workspace card delivery pass failed', { errorName: error instanceof Error ? error.name : 'unknown' }))
      .finally(() => {
        this.pass = undefined;
        if (this.stopped) return;
        if (this.again) {
          this.again = false;
          this.kick();
        } else {
          this.timer = setTimeout(() => this.kick(), IDLE_POLL_MS);
        }
      });
  }

  /** Ends the loop after the delivery under way (its lease lapses if the process dies instead). */
  async stop(): Promise<void> {
    this.stopped = true;
    clearTimeout(this.timer);
    await this.pass;
    this.registry.close();
  }

  private async deliverDue(): Promise<void> {
    for (let delivered = 0; delivered < MAX_PER_PASS && !this.stopped; delivered += 1) {
      const row = await this.claim();
      if (!row) return;
      await this.deliver(row);
    }
    this.again = true;
  }

  private async claim(): Promise<CardRow | undefined> {
    const rows = await this.prisma.$queryRaw<CardRow[]>`
      UPDATE relay_workspace_cards SET lease_until = now() + make_interval(secs => ${LEASE_SECONDS})
       WHERE workspace_id = (
         SELECT workspace_id FROM relay_workspace_cards
          WHERE delivered_version < desired_version AND refusal_code IS NULL
            AND (next_attempt_at IS NULL OR next_attempt_at <= now())
            AND (lease_until IS NULL OR lease_until < now())
          ORDER BY next_attempt_at NULLS FIRST
          LIMIT 1
          FOR UPDATE SKIP LOCKED)
      RETURNING workspace_id::text, identifier, name, description, tags, endpoint, end_to_end_encrypted, created_at, revision, status,
                desired_version, delivered_status, attempts`;
    return rows[0];
  }

  private async deliver(row: CardRow): Promise<void> {
    const document = workspaceCardBytes({
      workspaceId: row.workspace_id,
      identifier: row.identifier,
      name: row.name,
      description: row.description,
      tags: JSON.parse(row.tags) as string[],
      endpoint: row.endpoint,
      endToEndEncrypted: row.end_to_end_encrypted,
      createdAt: row.created_at,
      revision: row.revision,
      publisherName: this.config.publisherName,
      namespace: this.config.namespace,
    });
    let outcome: RegistryOutcome = await this.registry.publishCard(document);
    // A new revision arrives active: set the status whenever it is not plain active everywhere already.
    if (outcome.ok && (row.status !== 'active' || (row.delivered_status ?? 'active') !== 'active')) {
      outcome = await this.registry.setStatus(row.identifier, row.status, row.status === 'deprecated' ? DEPRECATED_MESSAGE : '');
    }
    if (outcome.ok) {
      await this.prisma.$executeRaw`
        UPDATE relay_workspace_cards
           SET delivered_version = GREATEST(delivered_version, ${row.desired_version}::integer), delivered_status = ${row.status}, attempts = 0,
               next_attempt_at = NULL, lease_until = NULL, last_error_code = NULL
         WHERE workspace_id = ${row.workspace_id}::uuid`;
      this.logger.info('workspace card delivered', { workspaceId: row.workspace_id, revision: row.revision, status: row.status });
      return;
    }
    if (outcome.transient) {
      const delayMs = Math.min(this.config.retryMaxMs, FIRST_RETRY_MS * 2 ** Math.min(row.attempts, 20));
      await this.prisma.$executeRaw`
        UPDATE relay_workspace_cards
           SET attempts = attempts + 1, next_attempt_at = now() + make_interval(secs => ${delayMs / 1000}::double precision), lease_until = NULL,
               last_error_code = ${outcome.code}
         WHERE workspace_id = ${row.workspace_id}::uuid`;
      this.logger.warn('workspace card delivery failed; retrying', { workspaceId: row.workspace_id, errorCode: outcome.code, attempt: row.attempts + 1, retryInMs: delayMs });
      return;
    }
    await this.prisma.$executeRaw`
      UPDATE relay_workspace_cards SET refusal_code = ${outcome.code}, last_error_code = ${outcome.code}, lease_until = NULL
       WHERE workspace_id = ${row.workspace_id}::uuid`;
    this.logger.warn('workspace card refused by the registry', { workspaceId: row.workspace_id, errorCode: outcome.code });
  }
}
