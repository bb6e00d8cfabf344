/**
 * Receipts for requests routed to a Companion on another replica (`relay.companion-inbound.v1`). The replica
 * holding the workspace's Companion answers every routed request it takes with a `RelayRequestReceived`
 * record addressed to the requester's process; a request whose receipt (or response) has not come back within
 * `timeoutMs` was routed to a holder that is dead or cut off, and `onSilent` is called for it, once. Without
 * this, a request routed to a replica that died (SIGKILL) would vanish and the browser would wait for its own
 * timeout while every replica kept reporting the Companion online.
 *
 * Bounded: an entry lives at most `timeoutMs`, and exists only for a request that took a route back.
 */
export interface AwaitedReceipt {
  workspaceId: string;
  requestId: string;
  sessionId: string;
  /** The Companion connection the request was routed to (the directory's live connection at the time). */
  connectionId: string | null;
}

export class RouteReceipts {
  private readonly awaited = new Map<string, { receipt: AwaitedReceipt; timer: NodeJS.Timeout }>();

  constructor(
    private readonly timeoutMs: number,
    private readonly onSilent: (receipt: AwaitedReceipt) => void,
  ) {}

  get size(): number {
    return this.awaited.size;
  }

  expect(receipt: AwaitedReceipt): void {
    const key = keyOf(receipt.workspaceId, receipt.requestId);
    this.arrived(receipt.workspaceId, receipt.requestId);
    const timer = setTimeout(() => {
      this.awaited.delete(key);
      this.onSilent(receipt);
    }, this.timeoutMs);
    timer.unref();
    this.awaited.set(key, { receipt, timer });
  }

  /** A receipt or a response came: the holder has the request. */
  arrived(workspaceId: string, requestId: string): void {
    const key = keyOf(workspaceId, requestId);
    const entry = this.awaited.get(key);
    if (!entry) return;
    clearTimeout(entry.timer);
    this.awaited.delete(key);
  }

  clear(): void {
    for (const { timer } of this.awaited.values()) clearTimeout(timer);
    this.awaited.clear();
  }
}

function keyOf(workspaceId: string, requestId: string): string {
  return `${workspaceId}/${requestId}`;
}
