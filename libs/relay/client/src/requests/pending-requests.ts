/**
 * Requests in flight and the idempotency duties of the Browser (BEHAVIOUR.md §5, §10):
 *
 * - every request gets a fresh `requestId`; its frame is built once, on first send, and its exact text is
 *   kept, so a mutation is re-sent **verbatim** after every online `session.ready` and `workspace.status`
 *   (the same frame; an encrypted one in a fresh envelope, which the Companion opens only once);
 * - on a lost connection, sent queries fail `TRANSPORT_ERROR` (retryable) and mutations stay pending;
 * - timeouts and aborts settle a *sent* mutation as `OUTCOME_UNKNOWN`, an unsent request as
 *   `REQUEST_TIMEOUT` or `ABORTED`;
 * - a response with `error` fails remotely (error wins over result), one with neither, or with a result
 *   that fails the method's result schema, fails `PROTOCOL_ERROR`; unknown `requestId`s are ignored.
 */
import { validateMethodResult, type WireVersion, type Wire12 } from '@trustmesh/relay-protocol';

import { RelayClientError } from '../client-error';
import type { Clock } from '../connection/clock';

export interface PendingRequest {
  readonly requestId: string;
  readonly method: string;
  readonly params: unknown;
  readonly mutation: boolean;
  /** Internal requests (recovery snapshots) wait for the Workspace to come online instead of failing. */
  readonly internal: boolean;
  /** The exact frame and its wire text (an envelope's text on encrypted sessions), fixed on first send. */
  frame?: Wire12.RuntimeRequestFrame;
  wireText?: string;
  /** Ever sent (mutations keep this across connections). */
  sent: boolean;
  /** The connection it was last sent on. */
  sentOn?: number;
  resolve(result: unknown): void;
  reject(error: RelayClientError): void;
  timer?: unknown;
  detachAbort?: () => void;
}

export class PendingRequests {
  private readonly entries = new Map<string, PendingRequest>();

  constructor(private readonly clock: Clock) {}

  get size(): number {
    return this.entries.size;
  }

  /** Requests in creation order. */
  list(): PendingRequest[] {
    return [...this.entries.values()];
  }

  add(entry: PendingRequest, timeoutMs: number, signal?: AbortSignal): void {
    this.entries.set(entry.requestId, entry);
    entry.timer = this.clock.setTimeout(() => {
      this.settle(entry, entry.sent && entry.mutation ? 'OUTCOME_UNKNOWN' : 'REQUEST_TIMEOUT');
    }, timeoutMs);
    if (signal) {
      const onAbort = () => this.settle(entry, entry.sent && entry.mutation ? 'OUTCOME_UNKNOWN' : 'ABORTED');
      signal.addEventListener('abort', onAbort, { once: true });
      entry.detachAbort = () => signal.removeEventListener('abort', onAbort);
    }
  }

  /** Settles a request with a response frame; `false` if the `requestId` is unknown. */
  onResponse(frame: Wire12.RuntimeResponseFrame, wire: WireVersion): boolean {
    const entry = this.entries.get(frame.requestId);
    if (!entry) return false;
    this.remove(entry);
    if (frame.error !== undefined) {
      entry.reject(RelayClientError.remote(frame.error.code, frame.error.retryable));
      return true;
    }
    if (frame.result === undefined) {
      entry.reject(
        RelayClientError.local('PROTOCOL_ERROR', [{ code: 'RESPONSE_RESULT_XOR_ERROR', path: '', message: 'The response has neither `result` nor `error`.' }]),
      );
      return true;
    }
    const verdict = validateMethodResult(wire, entry.method, frame.result);
    if (!verdict.ok) {
      entry.reject(RelayClientError.local('PROTOCOL_ERROR', verdict.issues));
      return true;
    }
    entry.resolve(verdict.value);
    return true;
  }

  /** The connection closed: sent queries are lost; mutations wait for the next online session. */
  connectionLost(connection: number): void {
    for (const entry of this.list()) {
      if (!entry.mutation && entry.sentOn === connection) this.settle(entry, 'TRANSPORT_ERROR');
    }
  }

  /** The client is done: sent mutations have an unknown outcome, everything else is closed. */
  closeAll(): void {
    for (const entry of this.list()) this.settle(entry, entry.sent && entry.mutation ? 'OUTCOME_UNKNOWN' : 'CLIENT_CLOSED');
  }

  fail(entry: PendingRequest, error: RelayClientError): void {
    if (this.entries.get(entry.requestId) !== entry) return;
    this.remove(entry);
    entry.reject(error);
  }

  private settle(entry: PendingRequest, code: 'OUTCOME_UNKNOWN' | 'REQUEST_TIMEOUT' | 'ABORTED' | 'TRANSPORT_ERROR' | 'CLIENT_CLOSED'): void {
    this.fail(entry, RelayClientError.local(code));
  }

  private remove(entry: PendingRequest): void {
    this.entries.delete(entry.requestId);
    if (entry.timer !== undefined) this.clock.clearTimeout(entry.timer);
    entry.detachAbort?.();
  }
}
