/**
 * @trustmesh/platform-event-feed: a topic of one app's LOCAL event bus followed by another process over gRPC
 * (proto/trustmesh/platform/v1/event_feed.proto). The serving app adds `eventFeedService` to its gRPC server; the
 * following app runs a `TopicFeedMirror` that copies the topic into its own local log. See README.md.
 */
export { eventFeedService, type EventFeedServerOptions, type FeedFollower } from './event-feed.server';
export { eventFeedClient, FeedReadError, type EventFeedClientTarget, type FeedReader, type ReadTopicRequest, type ReadTopicResponse } from './event-feed.client';
export { TopicFeedMirror, type FeedMirrorOptions, type FeedMirrorState, type FeedMirrorStatus } from './feed-mirror';
export { FEED_ERROR_CODE_METADATA, FEED_LIMITS, type FeedErrorCode } from './event-feed.limits';
export { readFeedFollowers, readFeedSource, type BusAdapterName } from './event-feed.config';
export { registerFeedMirrorMetrics } from './feed-mirror.metrics';
