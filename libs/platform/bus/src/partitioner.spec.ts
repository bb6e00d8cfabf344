/**
 * The shared partitioner is Kafka's: Java's reference vectors, and the same partition as kafkajs'
 * default partitioner (what the kafka adapter's producer uses) for any key, so a stream keeps its
 * partition number when an installation moves from `local` to `kafka`.
 */
import fc from 'fast-check';
import { Partitioners } from 'kafkajs';

import { murmur2, partitionForKey } from './partitioner';

describe('the shared partitioner', () => {
  it("matches Kafka's murmur2 reference values", () => {
    // org.apache.kafka.common.utils.UtilsTest#testMurmur2
    const cases: Array<[string, number]> = [
      ['21', -973932308],
      ['foobar', -790332482],
      ['a-little-bit-long-string', -985981536],
      ['a-little-bit-longer-string', -1486304829],
      ['lkjh234lh9fiuh90y23oiuhsafujhadof229phr9h19h89h8', -58897971],
      ['abc', 479470107],
    ];
    for (const [key, hash] of cases) expect(murmur2(new TextEncoder().encode(key))).toBe(hash);
  });

  it("puts every key on the partition kafkajs' default partitioner picks", () => {
    const kafkajs = Partitioners.DefaultPartitioner();
    fc.assert(
      fc.property(fc.string({ unit: 'grapheme', maxLength: 64 }), fc.integer({ min: 1, max: 256 }), (key, partitions) => {
        const partitionMetadata = Array.from({ length: partitions }, (_, partitionId) => ({ partitionId, leader: 0, partitionErrorCode: 0, replicas: [0], isr: [0] }));
        expect(partitionForKey(key, partitions)).toBe(kafkajs({ topic: 't', partitionMetadata, message: { key, value: null } }));
      }),
      { numRuns: 500 },
    );
  });

  it('refuses a topic without partitions', () => {
    expect(() => partitionForKey('k', 0)).toThrow(RangeError);
  });
});
