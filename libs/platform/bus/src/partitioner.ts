/**
 * Which partition a key lands on, for both adapters: Kafka's default partitioner (Java's, and kafkajs'
 * `Partitioners.DefaultPartitioner`, which the kafka adapter's producer uses): the positive murmur2 hash
 * of the key's UTF-8 bytes, modulo the topic's partition count. A stream therefore has the same partition
 * number under `kafka` and `local`, so partition-scoped checkpoints and lag read the same under either.
 */
const SEED = 0x9747b28c;
const M = 0x5bd1e995;
const utf8 = new TextEncoder();

/** Kafka's murmur2 (`org.apache.kafka.common.utils.Utils.murmur2`): 32-bit signed, in 32-bit arithmetic. */
export function murmur2(data: Uint8Array): number {
  const length = data.length;
  let h = SEED ^ length;
  const whole = length - (length % 4);
  // Uint8Array reads are in range here; `?? 0` only satisfies the type checker.
  for (let i = 0; i < whole; i += 4) {
    let k = (data[i] ?? 0) | ((data[i + 1] ?? 0) << 8) | ((data[i + 2] ?? 0) << 16) | ((data[i + 3] ?? 0) << 24);
    k = Math.imul(k, M);
    k ^= k >>> 24;
    k = Math.imul(k, M);
    h = Math.imul(h, M) ^ k;
  }
  const rest = length % 4;
  if (rest === 3) h ^= (data[whole + 2] ?? 0) << 16;
  if (rest >= 2) h ^= (data[whole + 1] ?? 0) << 8;
  if (rest >= 1) h = Math.imul(h ^ (data[whole] ?? 0), M);
  h ^= h >>> 13;
  h = Math.imul(h, M);
  h ^= h >>> 15;
  return h | 0;
}

/** The partition of `key` in a topic of `partitions` partitions (Kafka's `toPositive(murmur2) % n`). */
export function partitionForKey(key: string, partitions: number): number {
  if (!Number.isInteger(partitions) || partitions < 1) throw new RangeError(`A topic has at least one partition (got ${partitions}).`);
  return (murmur2(utf8.encode(key)) & 0x7fffffff) % partitions;
}
