/**
 * @trustmesh/platform-operator-http: every app's operator port (/metrics, /healthz, /readyz) off the public
 * listener, and the readiness of an app on the event backbone (database and bus).
 */
export { OperatorServer, sendJson, type OperatorServerOptions, type ReadinessAnswer } from './operator.server';
export { backboneReadiness } from './backbone-readiness';
