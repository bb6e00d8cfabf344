/**
 * One prom-client `Registry` per app process, with prom-client's default process metrics (CPU, memory,
 * heap, event loop lag, handles, GC), which every app serves on its operator port's `/metrics`.
 *
 * A registry of its own rather than prom-client's global one: several apps run in one process (`npm
 * start`, the e2e tests), and each app's `/metrics` must hold its own families only (two relay gateways in
 * one test process count their own frames).
 */
import { collectDefaultMetrics, Registry } from 'prom-client';

export function createMetricsRegistry(): Registry {
  const registry = new Registry();
  collectDefaultMetrics({ register: registry });
  return registry;
}
