/**
 * The gateway's part in the card registry (issue 12): where the registry's gRPC API is, the publisher
 * credential the gateway publishes workspace cards with, and the namespace (a domain the registry granted
 * that publisher) the cards' identifiers live under. All optional together: without them the gateway runs
 * as before and PublishWorkspaceCard answers CARD_PUBLISHING_NOT_CONFIGURED.
 *
 * The credential is a bearer secret: read from a file (preferred) or the environment, held in a
 * `SecretText` that prints as `[redacted]` (a log line or an error that carries the config cannot leak
 * it), and never echoed in a configuration problem.
 */
import { inspect } from 'node:util';

import type { EnvReader } from '@trustmesh/platform-config';

/** A secret held in memory only; `reveal()` is the one way to read it. */
export class SecretText {
  readonly #text: string;

  constructor(text: string) {
    this.#text = text;
  }

  reveal(): string {
    return this.#text;
  }

  toString(): string {
    return '[redacted]';
  }

  toJSON(): string {
    return '[redacted]';
  }

  [inspect.custom](): string {
    return '[redacted]';
  }
}

export interface WorkspaceCardConfig {
  /** `host:port` of the registry's gRPC API (CardRegistry). */
  registryAddress: string;
  /** PEM of the CA to trust for gRPC over TLS; null = plaintext (a registry on loopback or in the same pod). */
  registryTlsCa: Buffer | null;
  /** The registry publisher credential (`tmrp_...`). */
  publisherCredential: SecretText;
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
  const address = value('RELAY_REGISTRY_GRPC_ADDRESS');
  const credentialRaw = value('RELAY_REGISTRY_PUBLISHER_CREDENTIAL');
  const credentialFile = value('RELAY_REGISTRY_PUBLISHER_CREDENTIAL_FILE');
  const namespaceRaw = value('RELAY_CARD_NAMESPACE');
  const caFile = value('RELAY_REGISTRY_TLS_CA_FILE');
  if ([address, credentialRaw, credentialFile, namespaceRaw, caFile].every((entry) => entry === undefined)) return null;

  if (address === undefined || !/^[^\s/]{1,255}:\d{1,5}$/.test(address)) {
    fail('RELAY_REGISTRY_GRPC_ADDRESS', 'must be the card registry\'s gRPC address as host:port (set with RELAY_REGISTRY_PUBLISHER_CREDENTIAL_FILE and RELAY_CARD_NAMESPACE)');
  }
  let credential: string | undefined;
  if (credentialRaw !== undefined && credentialFile !== undefined) {
    fail('RELAY_REGISTRY_PUBLISHER_CREDENTIAL', 'set either it or RELAY_REGISTRY_PUBLISHER_CREDENTIAL_FILE, not both');
  } else if (credentialFile !== undefined) {
    try {
      credential = readFile(absolute(credentialFile)).trim();
    } catch {
      fail('RELAY_REGISTRY_PUBLISHER_CREDENTIAL_FILE', `cannot be read (${absolute(credentialFile)})`);
    }
  } else {
    credential = credentialRaw;
  }
  const credentialVariable = credentialFile !== undefined ? 'RELAY_REGISTRY_PUBLISHER_CREDENTIAL_FILE' : 'RELAY_REGISTRY_PUBLISHER_CREDENTIAL';
  // Never echo the value: a misplaced secret must not reach the logs.
  if (credential === undefined) {
    if (credentialRaw === undefined && credentialFile === undefined) fail(credentialVariable, 'is required to publish workspace cards: a card registry publisher credential (tmrp_...)');
  } else if (!CREDENTIAL.test(credential)) {
    fail(credentialVariable, 'must hold a card registry publisher credential (tmrp_ followed by printable characters, at most 505 in all)');
  }
  const namespace = namespaceRaw?.toLowerCase();
  if (namespace === undefined || !DOMAIN.test(namespace)) {
    fail('RELAY_CARD_NAMESPACE', 'must be the domain the card registry granted the relay\'s publisher (lowercase A-labels, e.g. relay.example.com)');
  }
  let registryTlsCa: Buffer | null = null;
  if (caFile !== undefined) {
    try {
      registryTlsCa = Buffer.from(readFile(absolute(caFile)));
    } catch {
      fail('RELAY_REGISTRY_TLS_CA_FILE', `cannot be read (${absolute(caFile)})`);
    }
  }
  const publisherName = value('RELAY_CARD_PUBLISHER_NAME') ?? 'Trustmesh Relay';
  if ([...publisherName].length > MAX_PUBLISHER_NAME) fail('RELAY_CARD_PUBLISHER_NAME', `must be at most ${MAX_PUBLISHER_NAME} characters`);
  const retryMaxMs = integer('RELAY_REGISTRY_RETRY_MAX_SECONDS', 60, 1, 3600) * 1000;
  if (address === undefined || credential === undefined || namespace === undefined) return null;
  return { registryAddress: address, registryTlsCa, publisherCredential: new SecretText(credential), namespace, publisherName, retryMaxMs };
}
