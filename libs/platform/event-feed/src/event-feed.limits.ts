/**
 * The bounds both sides of an EventFeed agree on, and its stable refusal codes. One place, so a follower never
 * asks for more than a server grants and a server's page always fits a follower's receive limit.
 */

/** The trailer a refusal carries its stable code in. */
export const FEED_ERROR_CODE_METADATA = 'feed-error-code';

export type FeedErrorCode =
  /** No bearer, or one that is not a follower's. */
  | 'FEED_UNAUTHENTICATED'
  /** A topic the serving app does not serve (whether or not it exists there). */
  | 'FEED_TOPIC_NOT_SERVED'
  /** A request outside the bounds below, or not a ReadTopicRequest at all. */
  | 'FEED_REQUEST_INVALID'
  /** A partition the topic does not have. */
  | 'FEED_PARTITION_UNKNOWN'
  /** A position past the log's end: the follower's position belongs to another log. */
  | 'FEED_OFFSET_AHEAD'
  /** The serving app cannot read its log right now (its database is away). */
  | 'FEED_UNAVAILABLE';

export const FEED_LIMITS = {
  /** Partitions one request may name (the local bus has at most 256). */
  maxPositions: 256,
  /** Records one answer holds at most, and when the request says 0. */
  maxRecords: 1_000,
  defaultRecords: 100,
  /** Longest long poll a request may ask for. */
  maxWaitMs: 20_000,
  /** An answer stops adding records past this many bytes (it always holds one record, when one is there). */
  maxPageBytes: 4 * 1024 * 1024,
  /**
   * What a follower accepts in one answer: a page plus one record of the local bus's largest default size
   * (1 MiB) and the message's framing.
   */
  followerReceiveBytes: 8 * 1024 * 1024,
} as const;
