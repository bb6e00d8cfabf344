/**
 * Who should consume which partition: every member computes the whole group's assignment from the same
 * facts (the live members and their topics, the topics' partition counts), so members agree without a
 * leader. Leases make it safe while views differ for a moment (a partition is taken only when free), and
 * the shared facts make it converge.
 *
 * Per topic, the members subscribed to it, by member id, get its partitions round-robin, starting at a
 * member chosen by the topic's hash so that, over many topics, no member is always the one with extra
 * partitions.
 */
import { murmur2 } from '../partitioner';

export interface GroupMember {
  memberId: string;
  /** Topics the member consumes (as stored, with the prefix). */
  topics: readonly string[];
}

export interface AssignedPartition {
  topic: string;
  partition: number;
}

const utf8 = new TextEncoder();

/** The partitions of `topics` that `memberId` should hold, given the live `members` (which include it). */
export function partitionsFor(
  memberId: string,
  members: readonly GroupMember[],
  topics: readonly string[],
  partitionCounts: ReadonlyMap<string, number>,
): AssignedPartition[] {
  const assigned: AssignedPartition[] = [];
  for (const topic of topics) {
    const subscribers = [...new Set([memberId, ...members.filter((member) => member.topics.includes(topic)).map((member) => member.memberId)])].sort();
    const count = partitionCounts.get(topic) ?? 0;
    const rotation = (murmur2(utf8.encode(topic)) & 0x7fffffff) % subscribers.length;
    for (let partition = 0; partition < count; partition += 1) {
      if (subscribers[(partition + rotation) % subscribers.length] === memberId) assigned.push({ topic, partition });
    }
  }
  return assigned;
}
