/**
 * The background half of trust (CARDS.md §5 "re-checked periodically", "re-verify on key change"):
 *
 * 1. ownership proofs: every namespace whose proof is due (older than REGISTRY_PROOF_RECHECK_MS) or lapsed
 *    is proved again with its stored method and token; success renews it (`NamespaceVerified`, which also
 *    ends a lapse), failure past `expiresAt` appends `NamespaceProofLapsed` once;
 * 2. signers' key documents: each DID document a stored signature was checked against is re-fetched (at
 *    most every REGISTRY_KEY_RECHECK_MS); when the SHA-256 of its bytes changed, every affected revision is
 *    verified again from its stored bytes and the new outcome appended (`CardSignatureRechecked`), so a
 *    removed key turns `verified` false. An unreachable document changes nothing (no flapping on outages).
 *
 * Single-flight across replicas: a round starts only by appending to the `registry-trust-recheck` stream at
 * the version it read (the event store's optimistic append: one replica wins each round), and every change
 * it makes is decided on a namespace's state and appended expecting that state's version, so a round that
 * races anything re-decides instead of applying twice.
 */
import { ConcurrencyError, type EventStore } from '@trustmesh/platform-event-store';
import type { Logger } from '@trustmesh/platform-logging';
import { proofStatus } from '@trustmesh/cards-ownership';
import { parseStrictJson } from '@trustmesh/shared-strict-json';

import { decideProofFailed, decideProofSucceeded, decideSignatureRecheck } from '../domain/namespace-trust';
import type { NamespaceEvent } from '../domain/registry-namespace.aggregate';
import { namespaceStreamId } from '../persistence/registry.stream';
import type { NamespaceRepository } from '../service/namespace.repository';
import { verifyDocumentSignature } from './card-signature.verifier';
import type { ProofRunner } from './ownership-proofs';
import type { TrustConfig } from './trust.config';
import type { KeyDocumentFetch, TrustNetwork } from './trust-network';

export const TRUST_RECHECK_STREAM = 'registry-trust-recheck';

export interface TrustRecheckDeps {
  store: EventStore;
  namespaces: NamespaceRepository;
  proofs: ProofRunner;
  network: TrustNetwork;
  /** Runs read-model queries (the trust tables). */
  query: <Row>(sql: string, params?: unknown[]) => Promise<Row[]>;
  config: TrustConfig;
  replicaId: string;
  logger: Logger;
  now: () => Date;
}

export interface RoundReport {
  ran: boolean;
  proofsChecked: number;
  lapsed: number;
  renewed: number;
  documentsChanged: number;
  revisionsRechecked: number;
}

interface SignatureRow {
  identifier: string;
  revision: string;
  namespace: string;
  key_url: string;
  key_digest: string | null;
}

export class TrustRecheckScheduler {
  private timer: NodeJS.Timeout | undefined;
  private running: Promise<unknown> | undefined;
  private stopped = false;
  private readonly keysFetchedAt = new Map<string, number>();

  constructor(private readonly deps: TrustRecheckDeps) {}

  start(): void {
    if (this.deps.config.taskIntervalMs === 0) return;
    const tick = () => {
      if (this.stopped) return;
      this.running = this.runRound()
        .catch((error: unknown) => this.deps.logger.log('warn', 'trust re-check round failed', { errorName: error instanceof Error ? error.name : 'unknown' }))
        .finally(() => {
          this.running = undefined;
          if (!this.stopped) this.timer = setTimeout(tick, this.deps.config.taskIntervalMs);
        });
    };
    this.timer = setTimeout(tick, this.deps.config.taskIntervalMs);
  }

  async stop(): Promise<void> {
    this.stopped = true;
    clearTimeout(this.timer);
    await this.running;
  }

  /** One round, if this replica wins it. */
  async runRound(): Promise<RoundReport> {
    const report: RoundReport = { ran: false, proofsChecked: 0, lapsed: 0, renewed: 0, documentsChanged: 0, revisionsRechecked: 0 };
    if (!(await this.winRound())) return report;
    report.ran = true;
    await this.recheckProofs(report);
    await this.recheckKeyDocuments(report);
    if (report.lapsed + report.renewed + report.revisionsRechecked > 0) this.deps.logger.log('info', 'trust re-check round', { ...report });
    return report;
  }

  private async winRound(): Promise<boolean> {
    const version = await this.deps.store.streamVersion(TRUST_RECHECK_STREAM);
    const [last] = version > 0 ? await this.deps.store.readStream(TRUST_RECHECK_STREAM, { fromVersion: version, limit: 1 }) : [];
    const now = this.deps.now();
    const lastAt = Date.parse((last?.envelope.data as { at?: string } | undefined)?.at ?? '');
    // Another replica ran a round less than half a period ago: this one skips.
    if (!Number.isNaN(lastAt) && now.getTime() - lastAt < this.deps.config.taskIntervalMs / 2) return false;
    try {
      await this.deps.store.append(TRUST_RECHECK_STREAM, version === 0 ? 'no-stream' : version, [{ eventType: 'TrustRecheckRoundStarted', data: { replicaId: this.deps.replicaId, at: now.toISOString() } }], { topic: null });
      return true;
    } catch (error) {
      if (error instanceof ConcurrencyError) return false;
      throw error;
    }
  }

  private async recheckProofs(report: RoundReport): Promise<void> {
    const policy = { recheckIntervalMs: this.deps.config.proofRecheckMs, validityMs: this.deps.config.proofValidityMs };
    const rows = await this.deps.query<{ namespace: string }>('SELECT namespace FROM registry_namespace_trust WHERE method IS NOT NULL ORDER BY namespace');
    for (const { namespace } of rows) {
      if (this.stopped) return;
      const { state } = await this.deps.namespaces.load(namespace);
      const verification = state.trust.verification;
      if (!verification || verification.publisherId !== state.publisherId) continue;
      const now = this.deps.now();
      if (!verification.lapsed && proofStatus(verification, now, policy) === 'valid') continue;
      report.proofsChecked += 1;
      const outcome = await this.deps.proofs(verification.method, namespace, verification.token, verification.proof);
      const checkedAt = this.deps.now();
      const result = await this.deps.namespaces.execute(namespace, (current) => {
        // Decided on the state at append time: a holder change or a fresher proof since the load wins.
        const standing = current.trust.verification;
        if (!standing || standing.publisherId !== current.publisherId || standing.token !== verification.token) return { ok: true, events: [] };
        if (!outcome.ok) return decideProofFailed(current, { code: outcome.code, now: checkedAt });
        if (!standing.lapsed && Date.parse(standing.verifiedAt) > Date.parse(verification.verifiedAt)) return { ok: true, events: [] };
        const expiresAt = new Date(checkedAt.getTime() + policy.validityMs).toISOString();
        return decideProofSucceeded(current, { publisherId: standing.publisherId, method: standing.method, token: standing.token, ...(standing.proof !== undefined ? { proof: standing.proof } : {}), verifiedAt: checkedAt.toISOString(), expiresAt });
      });
      if (!result.decision?.ok || !result.changed) continue;
      if (outcome.ok) report.renewed += 1;
      else {
        report.lapsed += 1;
        this.deps.logger.log('info', 'namespace proof lapsed', { namespace, method: verification.method, code: outcome.code });
      }
    }
  }

  private async recheckKeyDocuments(report: RoundReport): Promise<void> {
    const rows = await this.deps.query<SignatureRow>('SELECT identifier, revision, namespace, key_url, key_digest FROM registry_revision_signatures WHERE key_url IS NOT NULL ORDER BY key_url, identifier, revision');
    const byUrl = new Map<string, SignatureRow[]>();
    for (const row of rows) byUrl.set(row.key_url, [...(byUrl.get(row.key_url) ?? []), row]);
    for (const [url, signed] of byUrl) {
      if (this.stopped) return;
      const at = this.deps.now().getTime();
      if (at - (this.keysFetchedAt.get(url) ?? Number.NEGATIVE_INFINITY) < this.deps.config.keyRecheckMs) continue;
      this.keysFetchedAt.set(url, at);
      const fetched = await this.deps.network.fetchKeyDocument(url);
      if (!fetched.ok) continue;
      const stale = signed.filter((row) => row.key_digest !== fetched.digest);
      if (stale.length === 0) continue;
      report.documentsChanged += 1;
      const preloaded = new Map<string, KeyDocumentFetch>([[url, fetched]]);
      for (const row of stale) {
        if (await this.recheckRevision(row, preloaded)) report.revisionsRechecked += 1;
      }
    }
  }

  /** Verifies one stored revision again; true when a new outcome was appended. */
  private async recheckRevision(row: SignatureRow, preloaded: ReadonlyMap<string, KeyDocumentFetch>): Promise<boolean> {
    const { state } = await this.deps.namespaces.load(row.namespace);
    const revision = state.cards.get(row.identifier)?.revisions.find((candidate) => candidate.revision === row.revision);
    if (!revision?.signature) return false;
    const [recorded] = await this.deps.store.readStream(namespaceStreamId(row.namespace), { fromVersion: revision.publishedVersion, limit: 1 });
    const event = recorded?.envelope as { eventType: string; data: Extract<NamespaceEvent, { type: 'CardRevisionPublished' }>['data'] } | undefined;
    if (event?.eventType !== 'CardRevisionPublished' || event.data.digest !== revision.digest) return false;
    const parsed = parseStrictJson(Buffer.from(event.data.content, 'base64').toString('utf8'));
    if (!parsed.ok) return false;
    const { record } = await verifyDocumentSignature({ kind: revision.kind, document: parsed.value, namespace: row.namespace }, this.deps.network, this.deps.now(), preloaded);
    const result = await this.deps.namespaces.execute(row.namespace, (current) => decideSignatureRecheck(current, row.identifier, row.revision, record));
    if (result.decision?.ok && result.changed) {
      this.deps.logger.log('info', 'card signature re-verified', { namespace: row.namespace, verified: record.verified, code: record.code });
      return true;
    }
    return false;
  }
}
