/**
 * The gateway's part in the card registry (issue 12): where the registry's gRPC API is, the publisher
 * credential the gateway publishes workspace cards with, and the namespace (a domain the registry granted
 * that publisher) the cards' identifiers live under. All optional together: without them the gateway runs
 * as before and PublishWorkspaceCard answers CARD_PUBLISHING_NOT_CONFIGURED.
 *
 * The registry is reached by the platform's one rule for a gRPC client (`readGrpcClientTarget`): TLS unless
 * the registry is on loopback or `RELAY_REGISTRY_TLS=false` says the hop is protected otherwise, the
 * credential read from a file (preferred) or the environment, held as a `SecretText` and never echoed.
 */
import { readGrpcClientTarget, type EnvReader, type GrpcClientTarget } from '@trustmesh/platform-config';

/** The variables of the gateway's registry client (the historical names, kept). */
export const REGISTRY_CLIENT_VARIABLES = {
  address: 'RELAY_REGISTRY_GRPC_ADDRESS',
  credential: 'RELAY_REGISTRY_PUBLISHER_CREDENTIAL',
  credentialFile: 'RELAY_REGISTRY_PUBLISHER_CREDENTIAL_FILE',
  tls: 'RELAY_REGISTRY_TLS',
  caFile: 'RELAY_REGISTRY_TLS_CA_FILE',
} as const;

export interface WorkspaceCardConfig {
  /** The registry's gRPC API (CardRegistry), its transport and the publisher credential (`tmrp_...`). */
  registry: GrpcClientTarget;
  /** The domain the registry granted the gateway's publisher; card ids are https://<namespace>/relay/workspaces/<id>. */
  namespace: string;
  /** The card's `publisher.name`. */
  publisherName: string;
  /** Longest wait between two deliveries of a card while the registry cannot be reached (capped backoff). */
  retryMaxMs: number;
}

const DOMAIN = /^(?=.{1,253}$)(?:[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?\.)+[a-z][a-z0-9-]{0,61}[a-z0-9]$/;
const CREDENTIAL = /^tmrp_[\x21-\x7e]{1,500}$/;
const MAX_PUBLISHER_NAME = 200;

/**
 * Reads the RELAY_REGISTRY_* variables; null when none is set. Problems go to `reader` like every other
 * variable of the gateway, so one start-up refusal names them all.
 */
export function readWorkspaceCardConfig(reader: EnvReader, readFile: (path: string) => string, absolute: (path: string) => string): WorkspaceCardConfig | null {
  const { value, fail, integer } = reader;
  const namespaceRaw = value('RELAY_CARD_NAMESPACE');
  const registry = readGrpcClientTarget(reader, REGISTRY_CLIENT_VARIABLES, {
    peer: 'the card registry',
    required: namespaceRaw !== undefined,
    credentialShape: { pattern: CREDENTIAL, description: 'a publisher credential (tmrp_ followed by printable characters, at most 505 in all)' },
    readFile: (path) => readFile(absolute(path)),
  });
  const configured = registry !== null || namespaceRaw !== undefined || Object.values(REGISTRY_CLIENT_VARIABLES).some((variable) => value(variable) !== undefined);
  if (!configured) return null;
  const namespace = namespaceRaw?.toLowerCase();
  if (namespace === undefined || !DOMAIN.test(namespace)) {
    fail('RELAY_CARD_NAMESPACE', 'must be the domain the card registry granted the relay\'s publisher (lowercase A-labels, e.g. relay.example.com)');
  }
  const publisherName = value('RELAY_CARD_PUBLISHER_NAME') ?? 'Trustmesh Relay';
  if ([...publisherName].length > MAX_PUBLISHER_NAME) fail('RELAY_CARD_PUBLISHER_NAME', `must be at most ${MAX_PUBLISHER_NAME} characters`);
  const retryMaxMs = integer('RELAY_REGISTRY_RETRY_MAX_SECONDS', 60, 1, 3600) * 1000;
  if (registry === null || namespace === undefined) return null;
  return { registry, namespace, publisherName, retryMaxMs };
}
