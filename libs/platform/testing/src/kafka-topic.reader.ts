/**
 * Reads a topic's raw messages (keys, values, headers) with a plain kafkajs consumer, for tests that
 * check what an adapter wrote below its own API: dead-letter headers, keys, partitions.
 */
import { Kafka, logLevel } from 'kafkajs';

import { headersAsText } from '@trustmesh/platform-events';

import { uniqueName } from './unique-name';
import { waitUntil } from './wait-until';

export interface TopicMessage {
  partition: number;
  offset: string;
  key: string | null;
  value: string | null;
  headers: Record<string, string>;
}

export interface ReadTopicOptions {
  /** Wait until the topic holds at least this many messages before reading (default 1). */
  minMessages?: number;
  timeoutMs?: number;
}

/** Every message the topic holds once it holds `minMessages`, by partition then offset. */
export async function readTopic(brokers: string[], topic: string, options: ReadTopicOptions = {}): Promise<TopicMessage[]> {
  const { minMessages = 1, timeoutMs = 30_000 } = options;
  const kafka = new Kafka({ clientId: 'topic-reader', brokers, logLevel: logLevel.NOTHING });
  const admin = kafka.admin();
  await admin.connect();
  let ends = new Map<number, bigint>();
  try {
    await waitUntil(
      async () => {
        const offsets = await admin.fetchTopicOffsets(topic);
        ends = new Map(offsets.map(({ partition, high }) => [partition, BigInt(high)]));
        const held = offsets.reduce((sum, { high, low }) => sum + (BigInt(high) - BigInt(low)), 0n);
        return held >= BigInt(minMessages);
      },
      { timeoutMs, intervalMs: 100, what: `${minMessages} message(s) on ${topic}` },
    );
  } finally {
    await admin.disconnect();
  }

  const messages: TopicMessage[] = [];
  const pending = new Set([...ends].filter(([, end]) => end > 0n).map(([partition]) => partition));
  const consumer = kafka.consumer({ groupId: uniqueName('topic-reader'), sessionTimeout: 6_000, heartbeatInterval: 500, maxWaitTimeInMs: 100 });
  await consumer.connect();
  try {
    await consumer.subscribe({ topics: [topic], fromBeginning: true });
    await consumer.run({
      eachMessage: async ({ partition, message }) => {
        const end = ends.get(partition) ?? 0n;
        if (BigInt(message.offset) >= end) return;
        messages.push({
          partition,
          offset: message.offset,
          key: message.key?.toString('utf8') ?? null,
          value: message.value?.toString('utf8') ?? null,
          headers: headersAsText(message.headers),
        });
        if (BigInt(message.offset) + 1n >= end) pending.delete(partition);
      },
    });
    await waitUntil(() => pending.size === 0, { timeoutMs, intervalMs: 25, what: `every message of ${topic}` });
  } finally {
    await consumer.disconnect();
  }
  return messages.sort((a, b) => a.partition - b.partition || Number(BigInt(a.offset) - BigInt(b.offset)));
}
