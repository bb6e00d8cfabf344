/**
 * Which topic names the bus accepts, under either adapter: Kafka's own rule (at most 249 letters, digits,
 * ".", "_" or "-", and not "." or ".."), checked on the name as stored, with the configured prefix. The
 * local adapter keeps Kafka's rule so that a deployment can move to Kafka without renaming a topic.
 */
import { BusError } from './bus.error';
import { deadLetterTopic } from './event-bus.port';

const LEGAL_TOPIC = /^[A-Za-z0-9._-]{1,249}$/;

export function isLegalTopicName(name: string): boolean {
  return typeof name === 'string' && LEGAL_TOPIC.test(name) && name !== '.' && name !== '..';
}

/** The name a service's topic has in the log: the configured prefix, then the name; `TOPIC_INVALID` unless legal. */
export function storedTopicName(prefix: string, topic: string): string {
  const name = `${prefix}${String(topic)}`;
  if (typeof topic !== 'string' || topic === '' || !isLegalTopicName(name)) {
    throw new BusError('TOPIC_INVALID', `${JSON.stringify(name)} is not a valid topic name (letters, digits, ".", "_", "-"; at most 249).`);
  }
  return name;
}

/**
 * The name a consumer group has in the log: the configured prefix, then the service's name. Groups are
 * namespaced like topics: deployments that share a cluster (or a database) under different prefixes never
 * share a group, whose members would otherwise be handed each other's partitions.
 */
export function storedGroupName(prefix: string, groupId: string): string {
  return `${prefix}${groupId}`;
}

/** The service's name of a topic as stored: the prefix taken off again. */
export function serviceTopicName(prefix: string, stored: string): string {
  return stored.startsWith(prefix) ? stored.slice(prefix.length) : stored;
}

/**
 * The stored names of a subscription's topics, each once. A topic whose `.dlq` sibling would be too long
 * is refused here (`TOPIC_INVALID`), not when its first poison message could not be dead-lettered.
 */
export function subscribedTopicNames(prefix: string, topics: readonly string[]): string[] {
  const stored = [...new Set(topics.map((topic) => storedTopicName(prefix, topic)))];
  for (const name of stored) {
    if (!isLegalTopicName(deadLetterTopic(name))) {
      throw new BusError('TOPIC_INVALID', `${JSON.stringify(name)} leaves no room for its dead-letter topic ${JSON.stringify(deadLetterTopic(name))} (at most 249 characters).`);
    }
  }
  return stored;
}
