/**
 * Which topic names the bus accepts, under either adapter: Kafka's own rule (at most 249 letters, digits,
 * ".", "_" or "-", and not "." or ".."), checked on the name as stored, with the configured prefix. The
 * local adapter keeps Kafka's rule so that a deployment can move to Kafka without renaming a topic.
 */
const LEGAL_TOPIC = /^[A-Za-z0-9._-]{1,249}$/;

export function isLegalTopicName(name: string): boolean {
  return typeof name === 'string' && LEGAL_TOPIC.test(name) && name !== '.' && name !== '..';
}
