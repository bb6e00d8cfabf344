/**
 * Browser reconnect delay (BEHAVIOUR.md §11): min(30000, 250·2^min(attempt−1, 7)) ms, where `attempt`
 * counts failed attempts since the last `session.ready` (1 for the first retry).
 */
export function reconnectDelayMs(attempt: number): number {
  const exponent = Math.min(Math.max(attempt, 1) - 1, 7);
  return Math.min(30_000, 250 * 2 ** exponent);
}
