/**
 * Preloaded into the relay gateway's child process by `npm run bench:relay-gateway` (`--import` after tsx,
 * with `--expose-gc`), so the benchmark reads the gateway's heap without anything in the gateway itself:
 * on SIGUSR2 it collects garbage (when exposed) and writes `process.memoryUsage()` as JSON to
 * `BENCH_MEMORY_PROBE_FILE`. Without that variable it does nothing.
 */
import { writeFileSync } from 'node:fs';
import { isMainThread } from 'node:worker_threads';

const file = process.env['BENCH_MEMORY_PROBE_FILE'];
// Signals reach the main thread only (a worker that inherits this preload leaves them alone).
if (file && isMainThread) {
  process.on('SIGUSR2', () => {
    const collect = (globalThis as { gc?: () => void }).gc;
    collect?.();
    collect?.();
    writeFileSync(file, JSON.stringify({ ...process.memoryUsage(), collected: collect !== undefined, at: Date.now() }));
  });
}
