/**
 * The Shield's copy of the card registry's `registry.cards.v1` when the registry runs in another process with its
 * own local bus (`npm start`): a `TopicFeedMirror` (@trustmesh/platform-event-feed) reading the registry's EventFeed
 * into the Shield's own local bus, where the registry-knowledge projection subscribes unchanged. On Kafka, or with
 * both apps on one database, the topic is already on the Shield's bus and nothing here runs (the configuration
 * refuses SHIELD_REGISTRY_FEED_* with TRUSTMESH_BUS=kafka).
 */
import { REGISTRY_CARDS_TOPIC } from '@trustmesh/cards-registry-events';
import type { LocalEventBus } from '@trustmesh/platform-bus';
import type { GrpcClientTarget } from '@trustmesh/platform-config';
import { eventFeedClient, TopicFeedMirror } from '@trustmesh/platform-event-feed';
import { withContext, type Logger } from '@trustmesh/platform-logging';

export interface RegistryFeedMirror {
  readonly mirror: TopicFeedMirror;
  /** Stops copying (the page in hand is finished or not written at all) and closes the channel. */
  close(): Promise<void>;
}

/** Starts copying; the registry may be down or come later: the mirror retries and logs, it never throws. */
export function followRegistryFeed(target: GrpcClientTarget, bus: LocalEventBus, logger: Logger): RegistryFeedMirror {
  const client = eventFeedClient(target);
  const mirror = new TopicFeedMirror({ bus, topic: REGISTRY_CARDS_TOPIC, read: client.read, logger: withContext(logger, { component: 'registry-feed' }) });
  mirror.start();
  return {
    mirror,
    close: async () => {
      await mirror.stop();
      client.close();
    },
  };
}
