/**
 * @trustmesh/platform-operator-http: every app's operator port (/metrics, /healthz, /readyz) off the public
 * listener, the readiness of an app on the event backbone (database and bus), and the probes' rules on the
 * public port (constant cost, a generous per-source limit).
 */
export { OperatorServer, sendJson, type OperatorServerOptions, type ReadinessAnswer } from './operator.server';
export { backboneReadiness } from './backbone-readiness';
export { cachedReadiness, PublicProbes, PUBLIC_PROBE_LIMIT, READINESS_MAX_AGE_MS, type PublicProbesOptions } from './public-probes';
