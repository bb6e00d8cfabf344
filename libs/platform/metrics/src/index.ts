/**
 * @trustmesh/platform-metrics: every app's prom-client registry (default process metrics included) and the
 * families read at scrape time. See README.md.
 */
export { createMetricsRegistry } from './metrics.registry';
export { collectedCounter, collectedGauge, COLLECT_TIMEOUT_MS, type CollectedFamily, type Sample } from './collected-metrics';
export { Registry } from 'prom-client';
