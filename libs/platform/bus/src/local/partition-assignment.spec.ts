/**
 * The leaderless assignment: every member computes the same, complete, disjoint assignment from the same
 * facts, balanced within one partition per topic, and only over the topics each member consumes.
 */
import fc from 'fast-check';

import { partitionsFor, type GroupMember } from './partition-assignment';

const counts = new Map([
  ['relay.workspace-frames.v1', 4],
  ['shield.cases.v1', 3],
  ['registry.cards.v1', 1],
]);
const allTopics = [...counts.keys()];

function assignment(members: readonly GroupMember[]): Map<string, string[]> {
  const owners = new Map<string, string[]>();
  for (const member of members) {
    for (const { topic, partition } of partitionsFor(member.memberId, members, member.topics, counts)) {
      const key = `${topic}#${partition}`;
      owners.set(key, [...(owners.get(key) ?? []), member.memberId]);
    }
  }
  return owners;
}

describe('partition assignment', () => {
  it('gives every partition of every consumed topic to exactly one subscribed member, evenly', () => {
    fc.assert(
      fc.property(
        fc.uniqueArray(fc.record({ memberId: fc.string({ minLength: 1, maxLength: 12 }), topics: fc.subarray(allTopics, { minLength: 1 }) }), {
          selector: ({ memberId }) => memberId,
          minLength: 1,
          maxLength: 6,
        }),
        (members) => {
          const owners = assignment(members);
          for (const topic of allTopics) {
            const subscribers = members.filter((member) => member.topics.includes(topic));
            for (let partition = 0; partition < counts.get(topic)!; partition += 1) {
              const owner = owners.get(`${topic}#${partition}`) ?? [];
              expect(owner).toHaveLength(subscribers.length === 0 ? 0 : 1);
              if (owner[0]) expect(subscribers.map(({ memberId }) => memberId)).toContain(owner[0]);
            }
            const perMember = subscribers.map(({ memberId }) => [...owners.entries()].filter(([key, [owner]]) => key.startsWith(`${topic}#`) && owner === memberId).length);
            if (perMember.length > 0) expect(Math.max(...perMember) - Math.min(...perMember)).toBeLessThanOrEqual(1);
          }
        },
      ),
    );
  });

  it('does not depend on the order members are listed in', () => {
    const members: GroupMember[] = ['c', 'a', 'b'].map((memberId) => ({ memberId, topics: allTopics }));
    expect(assignment(members)).toEqual(assignment([...members].reverse()));
  });

  it('gives a member alone every partition, even before it sees its own registration', () => {
    expect(partitionsFor('solo', [], ['shield.cases.v1'], counts)).toEqual([0, 1, 2].map((partition) => ({ topic: 'shield.cases.v1', partition })));
  });
});
