/**
 * Browser Control 1.0 (BEHAVIOUR.md §10, §13): the relay-to-browser session messages outside the Wire
 * union, and the per-socket direction allowlists, as the project's own definition.
 *
 * `session.ready.relayProtocolVersion` names the Wire version the relay chose for the socket: `"1.1"`
 * or `"1.2"` (§2 and §13; a 1.2 session announces itself in the same message). `"1.0"` is never
 * bridged to a browser, so it is invalid here.
 */
import { closedObject, constant, oneOfStrings, text, type JsonSchema } from './json-schema';
import { primitivesOf } from './wire-1.2.document';

/** `session.error` codes (§10); the suggested retryability is a policy kept in the library's registry. */
export const SESSION_ERROR_CODES = [
  'WORKSPACE_NOT_FOUND',
  'WORKSPACE_OFFLINE',
  'CONTROLLER_CONFLICT',
  'RELAY_PROTOCOL_VERSION_UNSUPPORTED',
  'RATE_LIMITED',
  'RELAY_INTERNAL_ERROR',
] as const;

const WORKSPACE_STATUSES = ['online', 'offline'];

export function defineControl10(wire12: JsonSchema): JsonSchema {
  const { uuid } = primitivesOf(wire12);
  return {
    $schema: wire12.$schema,
    $id: 'urn:roll-agent:schema:relay-control:1.0',
    title: 'Roll Relay Browser Control v1.0',
    description: 'Relay-to-Browser session and workspace control messages.',
    anyOf: [
      closedObject({
        type: constant('session.ready'),
        controlVersion: constant('1.0'),
        relayProtocolVersion: oneOfStrings(['1.1', '1.2']),
        sessionId: text({ min: 1 }),
        workspaceId: uuid,
        workspaceStatus: oneOfStrings(WORKSPACE_STATUSES),
      }),
      closedObject({
        type: constant('workspace.status'),
        workspaceId: uuid,
        status: oneOfStrings(WORKSPACE_STATUSES),
      }),
      closedObject({
        type: constant('session.error'),
        code: oneOfStrings(SESSION_ERROR_CODES),
        retryable: { type: 'boolean' },
      }),
    ],
    'x-roll-control-version': '1.0',
    'x-roll-browser-first-message-type': 'session.ready',
    'x-roll-browser-message-types-by-direction': {
      'relay-to-peer': [
        'session.ready',
        'workspace.status',
        'session.error',
        'runtime.response',
        'runtime.event',
        'runtime.gap',
        'interaction.request',
        'interaction.resolved',
        'interaction.cancelled',
      ],
      'peer-to-relay': ['runtime.request', 'runtime.ack'],
    },
    'x-roll-companion-message-types-by-direction': {
      'relay-to-peer': ['runtime.request', 'runtime.ack'],
      'peer-to-relay': [
        'device.connect',
        'runtime.response',
        'runtime.event',
        'runtime.gap',
        'interaction.request',
        'interaction.resolved',
        'interaction.cancelled',
      ],
    },
  };
}
