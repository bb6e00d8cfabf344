/**
 * The producer side of an EventFeed (proto/trustmesh/platform/v1/event_feed.proto): the handler an app adds to its
 * gRPC server to let followers in other processes read an allowlist of topics from its LOCAL bus's log. Owns what
 * the contract promises a caller: the bearer check (constant-time against SHA-256 digests: the app never holds a
 * follower's plaintext), the allowlist (any other topic is NOT_FOUND, whether it exists or not), the request's
 * bounds, the page's bounds, the long poll, and a stable code with every refusal (`feed-error-code` trailer).
 */
import * as grpc from '@grpc/grpc-js';
import { bearerCredentialOf, eventFeedV1GrpcJs, isUndecodable, serveUnary, tolerantDecoding, type UnaryAnswer, type UnaryEdge, type UnaryRefusal } from '@trustmesh/contracts';
import type { FeedPosition, LocalEventBus } from '@trustmesh/platform-bus';
import { indexOfDigest, sha256 } from '@trustmesh/platform-credentials';
import { isDatabaseUnavailable } from '@trustmesh/platform-database';
import type { Logger } from '@trustmesh/platform-logging';

import { FEED_ERROR_CODE_METADATA, FEED_LIMITS, type FeedErrorCode } from './event-feed.limits';

type ReadTopicRequest = eventFeedV1GrpcJs.ReadTopicRequest;
type ReadTopicResponse = eventFeedV1GrpcJs.ReadTopicResponse;

/** A process allowed to follow: a name for the log lines, and the SHA-256 of its bearer credential. */
export interface FeedFollower {
  name: string;
  digest: Buffer;
}

export interface EventFeedServerOptions {
  /** The app's local bus: the log the records are read from. */
  bus: Pick<LocalEventBus, 'readFeed' | 'awaitRecords'>;
  /** The topics served (as the app's code names them); every other topic is NOT_FOUND. */
  topics: readonly string[];
  followers: readonly FeedFollower[];
  /** The app's logger (`log(level, message, fields)`): one line per call (answered calls at debug), never a credential or a record. */
  logger: Logger;
  /** Runs each call under the app's server span (`traceGrpcServerCall` of the platform's tracing fits). */
  trace?: UnaryEdge['trace'];
}

function refusal(code: grpc.status, errorCode: FeedErrorCode, details: string): UnaryRefusal {
  const metadata = new grpc.Metadata();
  metadata.set(FEED_ERROR_CODE_METADATA, errorCode);
  return { code, details, metadata };
}

const refuse = (code: grpc.status, errorCode: FeedErrorCode, details: string): UnaryAnswer<ReadTopicResponse> => ({ ok: false, refusal: refusal(code, errorCode, details) });

/** The positions of a request, or why they are refused (the sentence names the field and the bound). */
function positionsOf(request: ReadTopicRequest): FeedPosition[] | string {
  if (request.positions.length > FEED_LIMITS.maxPositions) return `positions holds ${request.positions.length} entries; at most ${FEED_LIMITS.maxPositions} are read per call`;
  const seen = new Set<number>();
  const positions: FeedPosition[] = [];
  for (const { partition, fromOffset } of request.positions) {
    if (seen.has(partition)) return `positions names partition ${partition} twice`;
    if (!Number.isSafeInteger(fromOffset) || fromOffset < 0) return `positions[partition ${partition}].from_offset is not an offset this feed can serve`;
    seen.add(partition);
    positions.push({ partition, fromOffset: String(fromOffset) });
  }
  return positions;
}

/** The EventFeed handler: add it with `server.addService(definition, implementation)`. */
export function eventFeedService(options: EventFeedServerOptions): { definition: grpc.ServiceDefinition; implementation: eventFeedV1GrpcJs.EventFeedServer } {
  const served = new Set(options.topics);
  const digests = options.followers.map((follower) => follower.digest);
  const edge: UnaryEdge = {
    name: 'event feed',
    // A follower long-polls all day: its answered calls are debug lines, its refusals and failures stay visible.
    log: (level, message, fields) => options.logger.log(level === 'info' && fields['code'] === grpc.status.OK ? 'debug' : level, message, fields),
    isUnavailable: isDatabaseUnavailable,
    unavailable: () => refusal(grpc.status.UNAVAILABLE, 'FEED_UNAVAILABLE', 'The feed cannot read its log right now; call again shortly.'),
    ...(options.trace ? { trace: options.trace } : {}),
  };

  const readTopic = async (call: grpc.ServerUnaryCall<ReadTopicRequest, ReadTopicResponse>): Promise<UnaryAnswer<ReadTopicResponse>> => {
    const bearer = bearerCredentialOf(call.metadata);
    if (bearer === undefined || indexOfDigest(sha256(bearer), digests) < 0) {
      return refuse(grpc.status.UNAUTHENTICATED, 'FEED_UNAUTHENTICATED', 'A valid feed credential is required (metadata authorization: Bearer …).');
    }
    if (isUndecodable(call.request)) return refuse(grpc.status.INVALID_ARGUMENT, 'FEED_REQUEST_INVALID', 'The request is not a ReadTopicRequest message.');
    const request = call.request;
    if (!served.has(request.topic)) return refuse(grpc.status.NOT_FOUND, 'FEED_TOPIC_NOT_SERVED', 'This feed serves no such topic; ask the serving app\'s operator which topics it serves.');
    const positions = positionsOf(request);
    if (typeof positions === 'string') return refuse(grpc.status.INVALID_ARGUMENT, 'FEED_REQUEST_INVALID', positions);
    const maxRecords = request.maxRecords === 0 ? FEED_LIMITS.defaultRecords : request.maxRecords;
    if (maxRecords > FEED_LIMITS.maxRecords) return refuse(grpc.status.INVALID_ARGUMENT, 'FEED_REQUEST_INVALID', `max_records must be 1 to ${FEED_LIMITS.maxRecords} (0: ${FEED_LIMITS.defaultRecords})`);
    if (request.waitMs > FEED_LIMITS.maxWaitMs) return refuse(grpc.status.INVALID_ARGUMENT, 'FEED_REQUEST_INVALID', `wait_ms must be 0 to ${FEED_LIMITS.maxWaitMs}`);

    const limits = { maxRecords, maxBytes: FEED_LIMITS.maxPageBytes };
    // Asked before the read: a record published between the read and the wait still ends the wait.
    const cancelled = new AbortController();
    call.once('cancelled', () => cancelled.abort());
    const wait = options.bus.awaitRecords(request.topic, request.waitMs, cancelled.signal);
    try {
      let read = await options.bus.readFeed(request.topic, positions, limits);
      if ('page' in read && read.page.records.length === 0 && positions.length > 0 && request.waitMs > 0) {
        await wait.arrived;
        if (!cancelled.signal.aborted) read = await options.bus.readFeed(request.topic, positions, limits);
      }
      if ('problem' in read) {
        const { problem } = read;
        return problem.code === 'FEED_PARTITION_UNKNOWN'
          ? refuse(grpc.status.INVALID_ARGUMENT, problem.code, `The topic has ${problem.partitions} partitions (0 to ${problem.partitions - 1}); partition ${problem.partition} is not one of them.`)
          : refuse(
              grpc.status.OUT_OF_RANGE,
              problem.code,
              `Partition ${problem.partition} ends at offset ${problem.endOffset}; a position past the end belongs to another log: read the log identity again and start from 0.`,
            );
      }
      const { page } = read;
      return {
        ok: true,
        value: {
          logIdentity: page.logIdentity,
          partitions: page.partitions,
          endOffsets: [...page.endOffsets].map(([partition, end]) => ({ partition, endOffset: Number(end) })),
          records: page.records.map((record) => ({ partition: record.partition, offset: Number(record.offset), key: record.key, value: record.value, headers: { ...record.headers } })),
        },
      };
    } finally {
      wait.cancel();
    }
  };

  return {
    definition: tolerantDecoding(eventFeedV1GrpcJs.EventFeedService),
    implementation: { readTopic: serveUnary(edge, 'ReadTopic', readTopic) },
  };
}
