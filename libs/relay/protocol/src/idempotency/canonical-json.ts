/**
 * Canonical JSON (BEHAVIOUR.md §5) is RFC 8785's, implemented once in `@trustmesh/shared-canonical-json`
 * for the relay and the Shield alike; this module keeps the relay's own import path.
 */
export { canonicalJson } from '@trustmesh/shared-canonical-json';
