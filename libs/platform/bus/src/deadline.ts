/**
 * A bound on how long the bus waits for an answer it needs promptly (a health check must answer even
 * when the broker or the database does not).
 */

/** Resolves with `probe`'s outcome, or rejects once `timeoutMs` passed (health checks must answer in time). */
export async function within<T>(probe: Promise<T>, timeoutMs: number): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`no answer within ${timeoutMs} ms`)), timeoutMs);
  });
  try {
    return await Promise.race([probe, late]);
  } finally {
    clearTimeout(timer);
  }
}
