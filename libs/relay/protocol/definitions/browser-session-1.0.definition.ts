/**
 * The browser session descriptor `{connectUrl, expiresAt}` (BEHAVIOUR.md §13), as the project's own
 * definition. `connectUrl` must be lowercase `wss://` without whitespace and must parse as a URL: the
 * pattern states the first two rules and the `uri` format the third, which the library's validators
 * assert (the Wire schemas' `uuid`/`date-time` formats are annotations: their patterns decide).
 */
import { closedObject, type JsonSchema } from './json-schema';
import { primitivesOf } from './wire-1.2.document';

export function defineBrowserSession10(wire12: JsonSchema): JsonSchema {
  const { dateTime } = primitivesOf(wire12);
  return {
    $schema: wire12.$schema,
    $id: 'urn:roll-agent:schema:relay-browser-session:1.0',
    title: 'Roll Relay Browser Session Descriptor v1.0',
    description: 'Short-lived single-use Browser WebSocket connection descriptor.',
    ...closedObject({
      connectUrl: { type: 'string', format: 'uri', pattern: '^wss:\\/\\/\\S+$' },
      expiresAt: dateTime,
    }),
    'x-roll-control-version': '1.0',
  };
}
