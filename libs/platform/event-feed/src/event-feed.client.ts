/**
 * The follower's gRPC client of an EventFeed: one channel opened by the platform's rule for an app's client to
 * another app (TLS or plaintext and the bearer as `readGrpcClientTarget` read them), a deadline on every call, and
 * every failure turned into a `FeedReadError` with a stable code (the server's `feed-error-code`, or what the
 * transport says) and no peer text, so the mirror can log and back off without leaking anything.
 */
import * as grpc from '@grpc/grpc-js';
import { bearerMetadataOf, channelCredentialsOf, eventFeedV1GrpcJs, type ClientChannelTarget } from '@trustmesh/contracts';

import { FEED_ERROR_CODE_METADATA, FEED_LIMITS } from './event-feed.limits';

export type ReadTopicRequest = eventFeedV1GrpcJs.ReadTopicRequest;
export type ReadTopicResponse = eventFeedV1GrpcJs.ReadTopicResponse;

/** One ReadTopic call, cancelled on `signal`; rejects with `FeedReadError`. */
export type FeedReader = (request: ReadTopicRequest, signal?: AbortSignal) => Promise<ReadTopicResponse>;

export class FeedReadError extends Error {
  constructor(
    /** The server's `feed-error-code`, else `FEED_UNREACHABLE`, `FEED_TIMEOUT`, `FEED_CANCELLED` or `FEED_CALL_FAILED`. */
    readonly code: string,
    readonly status: grpc.status,
  ) {
    super(`The event feed refused or failed the call (${code}, gRPC status ${grpc.status[status] ?? status}).`);
    this.name = 'FeedReadError';
  }
}

export interface EventFeedClientTarget extends ClientChannelTarget {
  /** `host:port` of the serving app's gRPC API. */
  address: string;
}

function feedErrorOf(error: grpc.ServiceError): FeedReadError {
  const code = error.metadata?.get(FEED_ERROR_CODE_METADATA)[0];
  if (typeof code === 'string' && /^FEED_[A-Z_]{1,40}$/.test(code)) return new FeedReadError(code, error.code);
  if (error.code === grpc.status.UNAVAILABLE) return new FeedReadError('FEED_UNREACHABLE', error.code);
  if (error.code === grpc.status.DEADLINE_EXCEEDED) return new FeedReadError('FEED_TIMEOUT', error.code);
  if (error.code === grpc.status.CANCELLED) return new FeedReadError('FEED_CANCELLED', error.code);
  return new FeedReadError('FEED_CALL_FAILED', error.code);
}

/**
 * A reader of the feed at `target`. Each call's deadline is its long poll plus `deadlineMarginMs` (default 10 s).
 * `close()` closes the channel (a call in flight fails with FEED_CALL_FAILED).
 */
export function eventFeedClient(target: EventFeedClientTarget, { deadlineMarginMs = 10_000 }: { deadlineMarginMs?: number } = {}): { read: FeedReader; close(): void } {
  const client = new eventFeedV1GrpcJs.EventFeedClient(target.address, channelCredentialsOf(target), {
    'grpc.max_receive_message_length': FEED_LIMITS.followerReceiveBytes,
  });
  const metadata = bearerMetadataOf(target);
  return {
    read: (request, signal) =>
      new Promise<ReadTopicResponse>((resolve, reject) => {
        const deadline = new Date(Date.now() + request.waitMs + deadlineMarginMs);
        const cancel = () => call.cancel();
        const call = client.readTopic(request, metadata.clone(), { deadline }, (error, response) => {
          signal?.removeEventListener('abort', cancel);
          if (error) reject(feedErrorOf(error));
          else resolve(response);
        });
        if (signal?.aborted) cancel();
        else signal?.addEventListener('abort', cancel, { once: true });
      }),
    close: () => client.close(),
  };
}
