/**
 * Polling for asynchronous outcomes in integration tests: the condition is checked until it holds or
 * the time is up, and the failure names what was awaited.
 */
export interface WaitOptions {
  timeoutMs?: number;
  intervalMs?: number;
  /** What is awaited, for the failure message. */
  what?: string;
}

export async function waitUntil(condition: () => boolean | Promise<boolean>, options: WaitOptions = {}): Promise<void> {
  const { timeoutMs = 10_000, intervalMs = 25, what = 'the condition' } = options;
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    if (await condition()) return;
    if (Date.now() >= deadline) throw new Error(`Timed out after ${timeoutMs} ms waiting for ${what}.`);
    await new Promise((resolve) => setTimeout(resolve, intervalMs));
  }
}
