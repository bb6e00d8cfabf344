/**
 * One leased partition in one member: reads it in offset order from the group's committed offset, hands
 * each message to the handler, and commits the next offset once the handler succeeded, so after any stop
 * or crash the partition resumes at the first message not yet handled.
 *
 * - A failing handler gets `maxAttempts` tries with a doubling, capped backoff (the same delays as the
 *   kafka adapter); then the message goes to `<topic>.dlq` with the DLQ headers, in the same transaction as
 *   the commit of its offset, so a dead letter is written exactly once and the partition moves on. A value
 *   that is not a valid envelope goes there at once (`ENVELOPE_INVALID`, 0 tries). A transient failure
 *   (the error is marked `transient`, see the port) uses up no try: the partition waits on the message,
 *   with the same backoff, and tries it again until it succeeds or the worker is stopped, revoked or loses
 *   its lease (`../transient-retries.ts` keeps the count, the log lines and `retrying()`).
 * - Every commit (and dead letter) is fenced by the lease generation: if the partition was taken over
 *   while this member stalled, the commit is refused and the worker stops at once (`lost`); the message in
 *   hand is then delivered again by the new holder, which is what at-least-once allows.
 * - Revoked (a rebalance gives the partition to another member) or stopped: the message in hand is
 *   finished and committed, a retry backoff is abandoned (the next holder starts the tries again), and a
 *   revoked partition's lease is released at once so the other member takes it without waiting for expiry.
 * - Idle: waits for a wake-up for its topic, or the poll interval, whichever comes first; after a read that
 *   came back short too, unless a wake-up came meanwhile. With `wakeUpLingerMs`, a wake-up is followed by
 *   that pause before the read, so the messages of a burst of publishes are read, handled and committed
 *   together (one read, one batch-handler call, one commit) instead of one read and one commit each.
 * - With a batch handler (see `BatchHandler` in the port), the valid envelopes at the head of each read go
 *   to it in one call and are committed together, holding one slot; if it rejects, nothing was committed
 *   and those same messages are delivered one by one as above, so tries, transient waits and dead letters
 *   are exactly those of a subscription without one.
 * - Retention may have deleted the messages at the worker's position (a group that was gone, or lagged past
 *   the bus's maximum age): the worker reads on from the oldest kept one and says so (`BUS_LOG_TRUNCATED`).
 */
import type { Database, SqlExecutor } from '@trustmesh/platform-database';
import { fromEventMessage } from '@trustmesh/platform-events';

import { DEAD_LETTER_CODES, deadLetterHeaders, failureCode } from '../dead-letter';
import { deadLetterTopic, isTransientFailure, type BatchHandler, type BusRecord, type RecordHandler } from '../event-bus.port';
import { describeError, type BusLogger } from '../bus-log';
import { pause, retryDelayMs } from '../retry-backoff';
import type { TransientRetries } from '../transient-retries';
import { commitOffset, committedOffset, type Lease } from './consumer-group.store';
import { HandlerSlots } from './handler-slots';
import { appendMessages, endOffsets, localLogIdentity, readPartition, type StoredMessage } from './local-log.store';
import type { WakeUp, WakeUpSource } from './wake-ups';

export interface WorkerContext {
  database: Database;
  wakeUps: WakeUpSource;
  logger: BusLogger;
  groupId: string;
  memberId: string;
  handler: RecordHandler;
  batchHandler: BatchHandler | undefined;
  start: 'earliest' | 'latest';
  maxAttempts: number;
  retryBackoffMs: number;
  maxRetryBackoffMs: number;
  pollIntervalMs: number;
  fetchBatchSize: number;
  /** Pause between a wake-up and the read it asks for (0: read at once). */
  wakeUpLingerMs: number;
  slots: HandlerSlots;
  /** The member's transient failures by partition (shared by its workers). */
  transient: TransientRetries;
  /** The topic name services use for a stored (prefixed) topic name. */
  serviceTopic(storedTopic: string): string;
  /** Partition count of a topic the subscription ensured (its topics and their DLQ siblings). */
  partitionCount(storedTopic: string): number;
  /** Gives the lease back now and tells the group (never throws: an unreleased lease expires). */
  releaseLease(lease: Lease): Promise<void>;
}

export type WorkerState = 'running' | 'revoked' | 'stopping' | 'lost' | 'failed';

type Outcome = 'committed' | 'abandoned' | 'lost';

/** Where a worker starts reading, and whether that is the group's commit (or where `start` puts a new group). */
interface StartPosition {
  offset: string;
  committed: boolean;
}

class LeaseLost extends Error {}

export class PartitionWorker {
  private currentState: WorkerState = 'running';
  private readonly halt = new AbortController();
  private woken = false;
  private wakeWaiter: (() => void) | undefined;
  /** `BusRecord.log` of this partition's records, read when the worker starts. */
  private log = '';
  /** Settles when the worker has exited (and, if revoked, released its lease). */
  readonly done: Promise<void>;

  constructor(
    private readonly context: WorkerContext,
    readonly lease: Lease,
    private readonly onExit: (worker: PartitionWorker) => void,
  ) {
    this.done = this.run();
  }

  get state(): WorkerState {
    return this.currentState;
  }

  get key(): string {
    return partitionKey(this.lease.topic, this.lease.partition);
  }

  /** Another member should have the partition: finish the message in hand, commit, release the lease. */
  revoke(): void {
    this.leave('revoked');
  }

  /** The subscription stops: finish the message in hand and commit (the group leave releases the lease). */
  stop(): void {
    this.leave('stopping');
  }

  /** The lease is no longer ours: stop at once, commit nothing more. */
  lose(): void {
    if (this.currentState === 'running' || this.currentState === 'revoked' || this.currentState === 'stopping') this.currentState = 'lost';
    this.halt.abort();
  }

  /** New messages may be there. */
  wake(): void {
    if (this.wakeWaiter) this.wakeWaiter();
    else this.woken = true;
  }

  private leave(state: 'revoked' | 'stopping'): void {
    if (this.currentState !== 'running') return;
    this.currentState = state;
    this.halt.abort();
  }

  private where(offset?: string) {
    return { groupId: this.context.groupId, topic: this.lease.topic, partition: this.lease.partition, ...(offset === undefined ? {} : { offset }) };
  }

  private async run(): Promise<void> {
    // Let the constructor return before the first await, so `done` is set before `onExit` can run.
    await Promise.resolve();
    const { database, fetchBatchSize } = this.context;
    try {
      const start = await this.startPosition();
      let position = start.offset;
      // Until the first message is handled, the position is the group's commit only if it had one.
      let committedPosition = start.committed;
      while (this.currentState === 'running') {
        this.woken = false;
        const batch = await database.withConnection((sql) => readPartition(sql, this.lease.topic, this.lease.partition, position, fetchBatchSize));
        if (batch.length === 0) {
          await this.idle();
          continue;
        }
        this.reportTruncation(position, batch[0]?.offset ?? position, committedPosition);
        const next = await this.handleRead(batch, position);
        // Once a message of the read is committed, the position is the group's commit.
        if (next !== position) committedPosition = true;
        position = next;
        // A short read reached the end of the partition as it was then: whatever was published since
        // woke the worker (the flag was cleared before the read), so without a wake-up there is nothing
        // to read yet, and reading to find that out would cost a statement per delivery.
        if (batch.length < fetchBatchSize) await this.idle();
      }
    } catch (error) {
      if (this.currentState === 'running' || this.currentState === 'revoked' || this.currentState === 'stopping') {
        // The lease stays ours: the member's next heartbeat starts the partition again from its commit.
        this.context.logger.log('error', 'local bus: partition worker failed; restarting it from the committed offset', { ...this.where(), error: describeError(error) });
        this.currentState = 'failed';
      }
    } finally {
      if (this.currentState === 'revoked') await this.context.releaseLease(this.lease);
      this.onExit(this);
    }
  }

  /** Delivers one read's messages in order; returns the offset after the last one committed. */
  private async handleRead(messages: StoredMessage[], position: string): Promise<string> {
    let handled = 0;
    const { batchHandler } = this.context;
    const run = batchHandler ? this.leadingRun(messages) : [];
    const last = run.at(-1)?.offset;
    // A run of one gains nothing and would cost a second call if it failed.
    if (batchHandler && last !== undefined && run.length > 1 && this.currentState === 'running') {
      const outcome = await this.deliverRun(batchHandler, run, last);
      if (outcome !== 'failed' && !this.settle(outcome, last)) return position;
      if (outcome === 'committed') {
        handled = run.length;
        position = nextOffset(last);
      }
    }
    for (const message of messages.slice(handled)) {
      if (this.currentState !== 'running') break;
      if (!this.settle(await this.deliver(message), message.offset)) break;
      position = nextOffset(message.offset);
    }
    return position;
  }

  /** True when the partition goes on after this outcome; a lost lease stops the worker. */
  private settle(outcome: Outcome, offset: string): boolean {
    if (outcome === 'lost') {
      this.context.logger.log('warn', 'local bus: partition lease lost; another member consumes it now', this.where(offset));
      this.lose();
    }
    return outcome === 'committed';
  }

  /** The records of the valid envelopes at the head of a read (an invalid one goes to the DLQ on its own). */
  private leadingRun(messages: StoredMessage[]): BusRecord[] {
    const run: BusRecord[] = [];
    for (const message of messages) {
      const verdict = fromEventMessage(message.value);
      if (!verdict.ok) break;
      run.push({ ...this.recordOf(message, verdict.envelope), attempt: 1 });
    }
    return run;
  }

  /**
   * Hands a run to the batch handler and commits past its last offset. `failed`: the handler rejected and
   * nothing was committed, so the caller delivers the run one by one.
   */
  private async deliverRun(batchHandler: BatchHandler, run: BusRecord[], last: string): Promise<Outcome | 'failed'> {
    const { slots, logger } = this.context;
    if (!(await slots.acquire(this.halt.signal))) return 'abandoned';
    try {
      try {
        await batchHandler(run);
      } catch (error) {
        // Expected whenever one of the run's messages would fail on its own: not worth more than debug.
        logger.log('debug', 'local bus: batch handler failed; delivering its messages one by one', { ...this.where(run[0]?.offset), messages: run.length, code: failureCode(error) });
        return 'failed';
      }
      return (await this.commitThrough(last)) ? 'committed' : 'lost';
    } finally {
      slots.release();
    }
  }

  private recordOf(message: StoredMessage, envelope: BusRecord['envelope']): Omit<BusRecord, 'attempt'> {
    return {
      topic: this.context.serviceTopic(this.lease.topic),
      partition: this.lease.partition,
      offset: message.offset,
      log: this.log,
      key: message.key,
      envelope,
      headers: message.headers,
    };
  }

  private async startPosition(): Promise<StartPosition> {
    const { database, groupId, start } = this.context;
    return database.withConnection(async (sql) => {
      this.log = await localLogIdentity(sql, this.lease.topic);
      const committed = await committedOffset(sql, groupId, this.lease);
      if (committed !== undefined) return { offset: committed, committed: true };
      if (start === 'earliest') return { offset: '0', committed: false };
      return { offset: (await endOffsets(sql, this.lease.topic)).get(this.lease.partition) ?? '0', committed: false };
    });
  }

  /**
   * Offsets are gap-free, so a batch that starts past the position means retention deleted what lay
   * between (`local-log.retention.ts`). A group starting from the earliest kept message is what retention
   * promises (info); a group whose committed position was deleted lost messages it never handled (warn).
   */
  private reportTruncation(position: string, firstKept: string, committed: boolean): void {
    if (BigInt(firstKept) <= BigInt(position)) return;
    const fields = { ...this.where(), code: 'BUS_LOG_TRUNCATED', fromOffset: position, firstKeptOffset: firstKept };
    if (committed) {
      this.context.logger.log('warn', "local bus: retention deleted messages the group had not committed; the partition resumes at the oldest kept message", fields);
    } else {
      this.context.logger.log('info', 'local bus: the group starts at the oldest message retention kept', fields);
    }
  }

  /** Waits for a wake-up or the poll interval; after a wake-up, lingers `wakeUpLingerMs` for more to come. */
  private async idle(): Promise<void> {
    if (this.halt.signal.aborted) return;
    const woken = this.woken || (await this.wakeUpOrPoll());
    if (woken && this.context.wakeUpLingerMs > 0) await pause(this.context.wakeUpLingerMs, this.halt.signal);
  }

  /** True when a wake-up ended the wait (not the poll interval or a stop). */
  private wakeUpOrPoll(): Promise<boolean> {
    return new Promise((resolve) => {
      const done = (woken: boolean) => {
        clearTimeout(timer);
        this.halt.signal.removeEventListener('abort', stopped);
        this.wakeWaiter = undefined;
        resolve(woken);
      };
      const stopped = () => done(false);
      const timer = setTimeout(() => done(false), this.context.pollIntervalMs);
      this.wakeWaiter = () => done(true);
      this.halt.signal.addEventListener('abort', stopped, { once: true });
    });
  }

  private async deliver(message: StoredMessage): Promise<Outcome> {
    const { maxAttempts, logger, slots, transient } = this.context;
    const verdict = fromEventMessage(message.value);
    if (!verdict.ok) return this.deadLetter(message, 0, DEAD_LETTER_CODES.envelopeInvalid);

    const record = this.recordOf(message, verdict.envelope);
    const position = { topic: this.lease.topic, partition: this.lease.partition, offset: message.offset };
    let succeeded = false;
    try {
      for (let attempt = 1; ; ) {
        // The slot is held until the message is committed or dead-lettered, not only while the handler
        // runs: a member that dies then leaves at most `partitionsConsumedConcurrently` messages handled
        // and not committed, as a Kafka consumer does. It is given back during a backoff.
        if (!(await slots.acquire(this.halt.signal))) return 'abandoned';
        let delayMs: number;
        try {
          const failure = await this.tryHandler({ ...record, attempt });
          if (failure === undefined) {
            const committed = await this.commitThrough(message.offset);
            succeeded = committed;
            return committed ? 'committed' : 'lost';
          }
          if (failure.transient) {
            // The world failed, not the message: no try is used up, however long it takes.
            delayMs = transient.failed(position, failure.error);
          } else {
            transient.settled(position, false);
            const code = failureCode(failure.error);
            // The code and the position only: an error's message may quote the event's data.
            logger.log('warn', 'local bus: handler failed', { ...this.where(message.offset), attempt, maxAttempts, code });
            if (attempt >= maxAttempts) return await this.deadLetter(message, maxAttempts, code);
            delayMs = retryDelayMs(attempt, this.context.retryBackoffMs, this.context.maxRetryBackoffMs);
            attempt += 1;
          }
        } finally {
          slots.release();
        }
        if (!(await pause(delayMs, this.halt.signal))) return 'abandoned';
      }
    } finally {
      transient.settled(position, succeeded);
    }
  }

  /** Runs the handler once: undefined when it succeeded, else what it threw and whether that was transient. */
  private async tryHandler(record: BusRecord): Promise<{ error: unknown; transient: boolean } | undefined> {
    try {
      await this.context.handler(record);
      return undefined;
    } catch (error) {
      return { error, transient: isTransientFailure(error) };
    }
  }

  /** Commits past `offset`; false when the lease is no longer ours. */
  private commitThrough(offset: string): Promise<boolean> {
    return this.context.database.withConnection((sql) => commitOffset(sql, this.context.groupId, this.context.memberId, this.lease, nextOffset(offset)));
  }

  /** Writes the dead letter and commits past the message in one transaction; a refused commit undoes both. */
  private async deadLetter(message: StoredMessage, attempts: number, code: string): Promise<Outcome> {
    const { database, groupId, memberId, wakeUps, logger } = this.context;
    const topic = deadLetterTopic(this.lease.topic);
    const announced: WakeUp[] = [{ kind: 'messages', topic }];
    const letter = {
      key: message.key,
      value: message.value,
      headers: deadLetterHeaders(message.headers, { topic: this.lease.topic, partition: this.lease.partition, offset: message.offset, attempts, code }),
    };
    try {
      await database.withConnection((sql) =>
        sql.transaction(async (tx: SqlExecutor) => {
          await appendMessages(tx, topic, this.context.partitionCount(topic), [letter]);
          if (!(await commitOffset(tx, groupId, memberId, this.lease, nextOffset(message.offset)))) throw new LeaseLost();
          await wakeUps.announce(tx, announced);
        }),
      );
    } catch (error) {
      if (error instanceof LeaseLost) return 'lost';
      throw error;
    }
    wakeUps.committed(announced);
    logger.log('warn', 'local bus: message dead-lettered', { ...this.where(message.offset), attempts, code });
    return 'committed';
  }
}

function nextOffset(offset: string): string {
  return (BigInt(offset) + 1n).toString();
}

export function partitionKey(topic: string, partition: number): string {
  return `${topic}#${partition}`;
}
