/**
 * @trustmesh/shared-canonical-json: RFC 8785 canonical JSON (JCS), the one implementation the relay's
 * idempotency keys and the Shield's input digests share. Pure TypeScript with no I/O; runs in browsers
 * and in Node.
 */
export { canonicalJson } from './canonical-json';
