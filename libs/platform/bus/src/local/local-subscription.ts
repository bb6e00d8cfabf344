/**
 * One consumer-group member of the local bus, in any process sharing the database.
 *
 * Membership and rebalancing, without a coordinator: every heartbeat (and at once when a wake-up says the
 * group changed), the member
 *   1. renews its membership (`expires_at` = now + session timeout) and reads the live members;
 *   2. renews the leases it holds, which tells it authoritatively what it still holds: a worker whose
 *      lease is gone (taken over while this member stalled) is stopped at once;
 *   3. computes the whole group's assignment from the live members (`partition-assignment.ts`) and
 *      revokes what it holds but should not (the worker finishes its message, commits, and releases the
 *      lease, announcing it), then takes the leases it should hold that are free or expired.
 * A member that joins or leaves announces it, so the others rebalance within a round trip; a member that
 * dies stops renewing, and after the session timeout its membership and leases expire and the others
 * take its partitions. Fencing by lease generation (`consumer-group.store.ts`) keeps a stalled member
 * from committing after it was replaced.
 */
import { hostname } from 'node:os';
import { randomBytes } from 'node:crypto';

import type { Database } from '@trustmesh/platform-database';

import type { BatchHandler, PartitionLag, RecordHandler, RetryingPartition, Subscription } from '../event-bus.port';
import { TransientRetries } from '../transient-retries';
import { describeError, type BusLogger } from '../bus-log';
import {
  acquireLeases,
  commitEndWhereUncommitted,
  groupPositions,
  heartbeat,
  leaveGroup,
  releaseLease,
  renewLeases,
  type Lease,
} from './consumer-group.store';
import { HandlerSlots } from './handler-slots';
import { partitionsFor } from './partition-assignment';
import { PartitionWorker, partitionKey, type WorkerContext } from './partition-worker';
import type { WakeUp, WakeUpSource } from './wake-ups';

export interface LocalConsumerTuning {
  /** How often a member renews its membership and leases, and rechecks the assignment. */
  heartbeatIntervalMs: number;
  /** A member (and its leases) that has not renewed for this long is dead; its partitions move. */
  sessionTimeoutMs: number;
  /** Longest an idle partition waits before looking for messages without a wake-up. */
  pollIntervalMs: number;
  /** Messages read from a partition per query. */
  fetchBatchSize: number;
  /**
   * How long a partition waits after a wake-up before it reads (default 0): a burst of publishes is then
   * read and committed in one go (and handed to a batch handler as one run), at the price of that much
   * more delivery latency.
   */
  wakeUpLingerMs: number;
  /** Messages in hand at once across the member's partitions (1: the handler is never called concurrently). */
  partitionsConsumedConcurrently: number;
}

export interface SubscriptionRuntime {
  database: Database;
  wakeUps: WakeUpSource;
  logger: BusLogger;
  tuning: LocalConsumerTuning;
  retryBackoffMs: number;
  maxRetryBackoffMs: number;
  serviceTopic: (storedTopic: string) => string;
}

export interface SubscriptionPlan {
  groupId: string;
  /** Topic names as stored (with the prefix). */
  topics: string[];
  handler: RecordHandler;
  batchHandler: BatchHandler | undefined;
  start: 'earliest' | 'latest';
  maxAttempts: number;
  /** Partition counts of the topics and of their DLQ siblings, all created before the member joins. */
  partitionCounts: ReadonlyMap<string, number>;
}

/** How the bus keeps track of its subscriptions, from creation (a close during the join stops it too). */
export interface SubscriptionRegistry {
  added(subscription: LocalSubscription): void;
  removed(subscription: LocalSubscription): void;
}

export class LocalSubscription implements Subscription {
  readonly memberId = `${hostname()}-${process.pid}-${randomBytes(4).toString('hex')}`;
  private readonly workers = new Map<string, PartitionWorker>();
  private readonly stopping = new AbortController();
  private readonly context: WorkerContext;
  private heartbeatTimer?: NodeJS.Timeout;
  private ticking?: Promise<void>;
  private tickAgain = false;
  private lastRenewedAt = Date.now();
  private stopped?: Promise<void>;
  /** Set once the workers are done and the member is about to leave: no more rounds. */
  private leaving = false;

  private constructor(
    private readonly runtime: SubscriptionRuntime,
    private readonly plan: SubscriptionPlan,
    private readonly registry: SubscriptionRegistry,
  ) {
    const { tuning } = runtime;
    this.context = {
      database: runtime.database,
      wakeUps: runtime.wakeUps,
      logger: runtime.logger,
      groupId: plan.groupId,
      memberId: this.memberId,
      handler: plan.handler,
      batchHandler: plan.batchHandler,
      start: plan.start,
      maxAttempts: plan.maxAttempts,
      retryBackoffMs: runtime.retryBackoffMs,
      maxRetryBackoffMs: runtime.maxRetryBackoffMs,
      pollIntervalMs: tuning.pollIntervalMs,
      fetchBatchSize: tuning.fetchBatchSize,
      wakeUpLingerMs: tuning.wakeUpLingerMs,
      slots: new HandlerSlots(tuning.partitionsConsumedConcurrently),
      transient: new TransientRetries({
        logger: runtime.logger,
        logPrefix: 'local bus',
        groupId: plan.groupId,
        retryBackoffMs: runtime.retryBackoffMs,
        maxRetryBackoffMs: runtime.maxRetryBackoffMs,
        serviceTopic: runtime.serviceTopic,
      }),
      serviceTopic: runtime.serviceTopic,
      partitionCount: (topic) => {
        const count = plan.partitionCounts.get(topic);
        if (count === undefined) throw new Error(`Topic ${topic} was not created before the member joined.`);
        return count;
      },
      releaseLease: (lease) => this.releaseLease(lease),
    };
  }

  /** Joins the group and resolves once the member took the partitions it could take at once. */
  static async start(runtime: SubscriptionRuntime, plan: SubscriptionPlan, registry: SubscriptionRegistry): Promise<LocalSubscription> {
    const subscription = new LocalSubscription(runtime, plan, registry);
    registry.added(subscription);
    try {
      await subscription.join();
      return subscription;
    } catch (error) {
      await subscription.stop();
      throw error;
    }
  }

  get groupId(): string {
    return this.plan.groupId;
  }

  /** The partitions this member consumes now, by topic. Local-bus specific, for operations and tests. */
  assignedPartitions(): Array<{ topic: string; partitions: number[] }> {
    const byTopic = new Map<string, number[]>();
    for (const worker of this.workers.values()) {
      if (worker.state !== 'running') continue;
      const topic = this.runtime.serviceTopic(worker.lease.topic);
      byTopic.set(topic, [...(byTopic.get(topic) ?? []), worker.lease.partition]);
    }
    return [...byTopic.entries()].sort(([a], [b]) => a.localeCompare(b)).map(([topic, partitions]) => ({ topic, partitions: partitions.sort((a, b) => a - b) }));
  }

  /** Finishes the messages in hand, commits, releases the leases and leaves the group. Idempotent. */
  stop(): Promise<void> {
    this.stopped ??= (async () => {
      this.stopping.abort();
      // Heartbeats go on (renewing, never taking) until the messages in hand are finished and committed.
      for (const worker of this.workers.values()) worker.stop();
      await Promise.allSettled([...this.workers.values()].map((worker) => worker.done));
      this.leaving = true;
      clearInterval(this.heartbeatTimer);
      await this.ticking;
      const announced: WakeUp[] = [{ kind: 'group', groupId: this.plan.groupId }];
      try {
        await this.runtime.database.withConnection(async (sql) => {
          await leaveGroup(sql, this.plan.groupId, this.memberId);
          await this.runtime.wakeUps.announce(sql, announced);
        });
        this.runtime.wakeUps.committed(announced);
      } catch (error) {
        // Our leases and membership then expire after the session timeout.
        this.runtime.logger.log('warn', 'local bus: leaving the group failed; its partitions move when the session expires', {
          groupId: this.plan.groupId,
          memberId: this.memberId,
          error: describeError(error),
        });
      } finally {
        this.registry.removed(this);
      }
    })();
    return this.stopped;
  }

  retrying(): RetryingPartition[] {
    return this.context.transient.retrying();
  }

  async lag(): Promise<PartitionLag[]> {
    const positions = await this.runtime.database.withConnection((sql) => groupPositions(sql, this.plan.groupId, this.plan.topics));
    return positions.map(({ topic, partition, startOffset, endOffset, committedOffset }) => {
      const end = BigInt(endOffset);
      const logStart = BigInt(startOffset);
      // No commit yet: the group starts where `start` says. Either way it reads nothing below the log's start
      // (retention deleted it), so a partition retention emptied is caught up, not behind for ever.
      const planned = committedOffset !== undefined ? BigInt(committedOffset) : this.plan.start === 'earliest' ? logStart : end;
      const next = planned > logStart ? planned : logStart;
      return {
        topic: this.runtime.serviceTopic(topic),
        partition,
        committedOffset: next.toString(),
        endOffset: end.toString(),
        lag: end > next ? Number(end - next) : 0,
      };
    });
  }

  /** A wake-up reached the bus: new messages for a topic, a change in a group, or "anything may have changed". */
  wake(wakeUp: WakeUp): void {
    if (this.stopping.signal.aborted) return;
    if (wakeUp.kind === 'group') {
      if (wakeUp.groupId === this.plan.groupId) this.requestTick();
      return;
    }
    for (const worker of this.workers.values()) if (wakeUp.kind === 'resync' || worker.lease.topic === wakeUp.topic) worker.wake();
    if (wakeUp.kind === 'resync') this.requestTick();
  }

  private async join(): Promise<void> {
    if (this.plan.start === 'latest') {
      await this.runtime.database.withConnection((sql) => commitEndWhereUncommitted(sql, this.plan.groupId, this.plan.topics));
    }
    await this.tickOnce();
    const announced: WakeUp[] = [{ kind: 'group', groupId: this.plan.groupId }];
    await this.runtime.database.withConnection((sql) => this.runtime.wakeUps.announce(sql, announced));
    this.runtime.wakeUps.committed(announced);
    this.heartbeatTimer = setInterval(() => this.requestTick(), this.runtime.tuning.heartbeatIntervalMs);
    this.runtime.logger.log('info', 'local bus: joined group', {
      groupId: this.plan.groupId,
      memberId: this.memberId,
      partitions: [...this.workers.values()].filter((worker) => worker.state === 'running').length,
    });
  }

  /** Runs a heartbeat-and-rebalance round now, or right after the one under way. */
  private requestTick(): void {
    if (this.leaving) return;
    if (this.ticking) {
      this.tickAgain = true;
      return;
    }
    this.tickOnce().catch((error: unknown) => this.heartbeatFailed(error));
  }

  /** One round at a time: a round asked for meanwhile runs right after. */
  private tickOnce(): Promise<void> {
    const round = this.tick().finally(() => {
      this.ticking = undefined;
      if (this.tickAgain) {
        this.tickAgain = false;
        this.requestTick();
      }
    });
    this.ticking = round.catch(() => undefined);
    return round;
  }

  private async tick(): Promise<void> {
    const { database, tuning } = this.runtime;
    const { groupId, topics, partitionCounts } = this.plan;
    const { members, held } = await database.withConnection(async (sql) => ({
      members: await heartbeat(sql, groupId, this.memberId, topics, tuning.sessionTimeoutMs),
      held: await renewLeases(sql, groupId, this.memberId, tuning.sessionTimeoutMs),
    }));
    this.lastRenewedAt = Date.now();

    const heldByKey = new Map(held.map((lease) => [partitionKey(lease.topic, lease.partition), lease]));
    for (const worker of this.workers.values()) {
      if (heldByKey.get(worker.key)?.generation !== worker.lease.generation) {
        if (worker.state === 'running') this.runtime.logger.log('warn', 'local bus: partition lease lost; another member consumes it now', this.where(worker.lease));
        worker.lose();
      }
    }
    // A stopping member only renews: what it holds is given back when it leaves.
    if (this.stopping.signal.aborted) return;
    const wanted = new Set(partitionsFor(this.memberId, members, topics, partitionCounts).map(({ topic, partition }) => partitionKey(topic, partition)));
    for (const [key, lease] of heldByKey) {
      if (wanted.has(key)) continue;
      const worker = this.workers.get(key);
      if (worker) worker.revoke();
      else await this.releaseLease(lease);
    }
    const toTake = partitionsFor(this.memberId, members, topics, partitionCounts).filter(({ topic, partition }) => {
      const key = partitionKey(topic, partition);
      return !heldByKey.has(key) && !this.workers.has(key);
    });
    const granted = toTake.length === 0 ? [] : await database.withConnection((sql) => acquireLeases(sql, groupId, this.memberId, tuning.sessionTimeoutMs, toTake));
    const restart = await this.idleLeases(held, wanted);
    if (this.stopping.signal.aborted) return; // the leave gives back what was just granted
    for (const lease of [...granted, ...restart]) this.startWorker(lease);
  }

  /**
   * Leases held and wanted but without a worker (a worker failed, or a grant arrived just as a stop began),
   * as the database has them now. `held` is from the start of the round: a revoked worker may have exited
   * and given its lease back during the round's awaits, and restarting it with that lease would consume a
   * partition this member no longer holds. So the idle partitions are picked first (a worker that exited
   * has released its lease before it left the map) and the leases read again after; one given back is
   * taken again by the next round, which its release's announcement brings at once.
   */
  private async idleLeases(held: readonly Lease[], wanted: ReadonlySet<string>): Promise<Lease[]> {
    const idle = (lease: Lease) => wanted.has(partitionKey(lease.topic, lease.partition)) && !this.workers.has(partitionKey(lease.topic, lease.partition));
    const candidates = new Set(held.filter(idle).map((lease) => partitionKey(lease.topic, lease.partition)));
    if (candidates.size === 0) return [];
    const { database, tuning } = this.runtime;
    const now = await database.withConnection((sql) => renewLeases(sql, this.plan.groupId, this.memberId, tuning.sessionTimeoutMs));
    this.lastRenewedAt = Date.now();
    return now.filter((lease) => candidates.has(partitionKey(lease.topic, lease.partition)) && idle(lease));
  }

  private startWorker(lease: Lease): void {
    const worker = new PartitionWorker(this.context, lease, (exited) => {
      if (this.workers.get(exited.key) === exited) this.workers.delete(exited.key);
    });
    this.workers.set(worker.key, worker);
  }

  /** Gives a lease back at once (rather than at expiry) and tells the group, so another member takes it now. */
  private async releaseLease(lease: Lease): Promise<void> {
    const { database, wakeUps, logger } = this.runtime;
    const announced: WakeUp[] = [{ kind: 'group', groupId: this.plan.groupId }];
    try {
      await database.withConnection(async (sql) => {
        await releaseLease(sql, this.plan.groupId, this.memberId, lease);
        await wakeUps.announce(sql, announced);
      });
      wakeUps.committed(announced);
    } catch (error) {
      // The lease then expires by itself: the partition moves later, not never.
      logger.log('warn', 'local bus: releasing a partition lease failed; it will expire', { ...this.where(lease), error: describeError(error) });
    }
  }

  private heartbeatFailed(error: unknown): void {
    const silentMs = Date.now() - this.lastRenewedAt;
    this.runtime.logger.log('warn', 'local bus: heartbeat failed', { groupId: this.plan.groupId, memberId: this.memberId, silentMs, error: describeError(error) });
    if (silentMs < this.runtime.tuning.sessionTimeoutMs) return;
    // Our leases have expired by now and may be taken: stop before handling what another member handles.
    for (const worker of this.workers.values()) worker.lose();
  }

  private where(lease: Lease) {
    return { groupId: this.plan.groupId, memberId: this.memberId, topic: lease.topic, partition: lease.partition };
  }
}
