/**
 * The two variable families an app reads to take part in an EventFeed, so every app reads them alike and refuses
 * them with one `ConfigError` beside its other variables:
 *
 * - serving: `<P>_FEED_CREDENTIALS`, `follower:sha256hex` pairs (the SHA-256 of each follower's bearer; never the
 *   plaintext), separated by commas. Unset: the app serves no feed.
 * - following: the platform's gRPC client family (`readGrpcClientTarget`: `<P>_ADDRESS`, `_CREDENTIAL`,
 *   `_CREDENTIAL_FILE`, `_TLS`, `_TLS_CA_FILE`). Unset: the app follows nothing.
 *
 * Either with TRUSTMESH_BUS=kafka is refused naming the variable: on Kafka the topic is on the cluster, and a feed
 * beside it would be a second, diverging copy.
 */
import { readGrpcClientTarget, type EnvReader, type GrpcClientTarget, type GrpcClientVariables } from '@trustmesh/platform-config';
import { parseOperatorCredentials } from '@trustmesh/platform-credentials';

import type { FeedFollower } from './event-feed.server';

export type BusAdapterName = 'local' | 'kafka';

const KAFKA_REFUSAL = 'is for the local bus only (TRUSTMESH_BUS=local): on Kafka the topic is on the cluster; unset it';

/** The followers a serving app accepts, or null when `variable` is unset (or refused: recorded on `reader`). */
export function readFeedFollowers(reader: EnvReader, variable: string, bus: BusAdapterName): FeedFollower[] | null {
  const raw = reader.value(variable);
  if (raw === undefined) return null;
  if (bus === 'kafka') {
    reader.fail(variable, KAFKA_REFUSAL, 'FEED_NEEDS_LOCAL_BUS');
    return null;
  }
  const parsed = parseOperatorCredentials(raw);
  if (!parsed.ok) {
    reader.fail(variable, parsed.problem.replace(/account/g, 'follower'), 'FEED_CREDENTIALS_INVALID');
    return null;
  }
  return parsed.credentials.map(({ accountId, digest }) => ({ name: accountId, digest }));
}

/** The feed a following app reads, or null when none of `variables` is set (or one is refused: recorded). */
export function readFeedSource(reader: EnvReader, variables: GrpcClientVariables, bus: BusAdapterName, peer: string): GrpcClientTarget | null {
  const target = readGrpcClientTarget(reader, variables, { peer });
  if (target !== null && bus === 'kafka') {
    reader.fail(variables.address, KAFKA_REFUSAL, 'FEED_NEEDS_LOCAL_BUS');
    return null;
  }
  return target;
}
