/**
 * The AI Card v1 (CARDS.md §1, the seed) of a workspace's Companion agent, built from the relay's desired
 * card state and nothing else: the same state always gives the same bytes, so a replayed or retried
 * delivery is the registry's idempotent UNCHANGED, never a REVISION_CONFLICT.
 *
 * - `id` is `https://<namespace>/relay/workspaces/<workspaceId>`: a URL in the namespace the registry
 *   granted the relay's publisher (§5 "Namespace = domain"), stable for the workspace's life.
 * - `updatedAt` is the time of the event that last changed the content (publish, endpoint move): the
 *   revision key, strictly increasing (§1.2). A status change is not a revision (the registry's SetStatus).
 * - One service, type `roll-relay` (§1.1: a service type may be any string; its `protocolSpecific` is open):
 *   where a browser session to the workspace opens (`wss://…/v1/browser`), the Wire versions the relay
 *   speaks, the encryption profile, and how a session is obtained (a descriptor from the workspace's owning
 *   service: the relay never hands tickets to strangers, so the card tells how to ask, not a secret).
 * - No `maturity`: the lifecycle lives in the registry's status, which the relay sets (deprecated when the
 *   workspace has no enrolled device), so it changes without a new revision.
 */

/** The desired card, as the projection keeps it. */
export interface WorkspaceCardState {
  workspaceId: string;
  identifier: string;
  name: string;
  description: string;
  tags: readonly string[];
  /** The relay's public base URL: https://host[:port][/prefix]. */
  endpoint: string;
  endToEndEncrypted: boolean;
  createdAt: string;
  revision: string;
  publisherName: string;
  namespace: string;
}

export const WORKSPACE_CARD_SERVICE_TYPE = 'roll-relay';
/** Absolute URI naming the seed schema (§1.1: never dereferenced). */
const AI_CARD_SCHEMA = 'https://a2a-protocol.org/ai-card/v1/schema.json';
/** What a browser may negotiate with this relay (§2); the Companion's own version bounds it per session. */
const BROWSER_WIRE_VERSIONS = ['1.2', '1.1'];

/** The card identifier of a workspace in `namespace`. */
export function workspaceCardIdentifier(namespace: string, workspaceId: string): string {
  return `https://${namespace}/relay/workspaces/${workspaceId}`;
}

/** `wss://` URL of the browser endpoint under a public base URL (as RelayEndpoints derives it). */
function browserEndpoint(endpoint: string): string {
  const url = new URL(`${endpoint.replace(/\/+$/, '')}/v1/browser`);
  url.protocol = 'wss:';
  return url.toString();
}

/** The card as a JSON value (key order fixed, so its serialisation is stable). */
export function buildWorkspaceCard(state: WorkspaceCardState): Record<string, unknown> {
  return {
    $schema: AI_CARD_SCHEMA,
    specVersion: '1.0',
    id: state.identifier,
    identityType: 'url',
    name: state.name,
    description: state.description,
    ...(state.tags.length > 0 ? { tags: [...state.tags] } : {}),
    publisher: { id: `https://${state.namespace}`, name: state.publisherName },
    services: {
      [WORKSPACE_CARD_SERVICE_TYPE]: {
        type: WORKSPACE_CARD_SERVICE_TYPE,
        name: 'Roll Relay browser session',
        protocolSpecific: {
          relay: state.endpoint,
          endpoint: browserEndpoint(state.endpoint),
          workspaceId: state.workspaceId,
          wireVersions: BROWSER_WIRE_VERSIONS,
          endToEndEncrypted: state.endToEndEncrypted,
          session: 'a single-use session descriptor from the workspace\'s owning service (RelayControl CreateBrowserSession)',
        },
      },
    },
    createdAt: state.createdAt,
    updatedAt: state.revision,
  };
}

/** The exact bytes the relay publishes for `state`. */
export function workspaceCardBytes(state: WorkspaceCardState): Buffer {
  return Buffer.from(JSON.stringify(buildWorkspaceCard(state)), 'utf8');
}
