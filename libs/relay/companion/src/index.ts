/**
 * @trustmesh/relay-companion: the Companion's side of the Roll Relay Protocol, transport-agnostic.
 * A host adds sockets, enrollment and configuration; this library owns sequencing, replay, ACKs,
 * idempotency, request policy, dispatch, the interaction broker, leak-safe projection, end-to-end
 * encryption of output and the outbound size limit (BEHAVIOUR.md §4–§11).
 */
export * from './agent-runtime.port';
