/**
 * Topic names and topic existence for the Kafka adapter.
 *
 * Names (`../topic-name.ts`): services speak of `<context>.<stream>.v<major>`; on the cluster every
 * name carries the configured prefix, so several environments can share one cluster.
 *
 * Existence: before the first publish to a topic, and before subscribing (with the topic's `.dlq`
 * sibling), the adapter asks the cluster to create the topics (CreateTopics), and tolerates a refusal:
 * on a managed cluster the topics may be provisioned elsewhere, and librdkafka's mock cluster has
 * no CreateTopics at all. After a refusal it stops asking for the rest of the bus's life and relies
 * on a metadata request, which creates missing topics on clusters that create topics on first use
 * (the mock does, with 4 partitions). A topic that still does not exist is a clear `TOPIC_MISSING`.
 */
import type { Admin } from 'kafkajs';

import { BusError } from '../bus.error';
import { describeError, type BusLogger } from '../bus-log';

export interface TopicProvisionerOptions {
  admin: () => Promise<Admin>;
  logger: BusLogger;
  /** Partitions of topics we create; undefined leaves it to the broker's default. */
  partitions?: number;
}

export class TopicProvisioner {
  private readonly known = new Map<string, Promise<void>>();
  private createTopicsRefused = false;

  constructor(private readonly options: TopicProvisionerOptions) {}

  /** Resolves once every topic exists on the cluster; each topic is checked once per bus. */
  async ensure(topics: readonly string[]): Promise<void> {
    const unknown = [...new Set(topics)].filter((topic) => !this.known.has(topic));
    if (unknown.length > 0) {
      const provisioning = this.provision(unknown);
      for (const topic of unknown) this.known.set(topic, provisioning);
      provisioning.catch(() => unknown.forEach((topic) => this.known.delete(topic)));
    }
    await Promise.all(topics.map((topic) => this.known.get(topic)));
  }

  private async provision(topics: string[]): Promise<void> {
    const admin = await this.options.admin();
    if (!this.createTopicsRefused) {
      try {
        await admin.createTopics({
          topics: topics.map((topic) => ({ topic, numPartitions: this.options.partitions ?? -1 })),
          waitForLeaders: true,
        });
      } catch (error) {
        this.createTopicsRefused = true;
        this.options.logger.log('info', 'kafka topics: the cluster refused CreateTopics; topics will be created on first use where the cluster allows it', {
          error: describeError(error),
        });
      }
    }
    try {
      await admin.fetchTopicMetadata({ topics });
    } catch (error) {
      this.options.logger.log('error', 'kafka topics: the topics do not exist and the cluster did not create them', { topics: topics.join(','), error: describeError(error) });
      throw new BusError('TOPIC_MISSING', `Topic(s) ${topics.join(', ')} do not exist and the cluster did not create them; create them or let this client create topics.`, {
        cause: error,
      });
    }
  }
}
