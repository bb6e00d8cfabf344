/**
 * The checks every adapter makes on `subscribe` options before it touches its log, so both refuse the
 * same mistakes with the same words.
 */
import { BusError } from './bus.error';
import type { SubscribeOptions } from './event-bus.port';

/** Upper bound on `maxAttempts`, for the bus options and per subscription. */
export const MAX_ATTEMPTS_LIMIT = 100;
const MAX_GROUP_ID_LENGTH = 249;

/** What is wrong with these options (`maxAttempts` already defaulted), or `undefined`. */
export function subscribeOptionsProblem(options: SubscribeOptions, maxAttempts: number): string | undefined {
  const { groupId, topics, handler, batchHandler, start = 'earliest' } = options;
  if (typeof groupId !== 'string' || groupId.trim() === '' || groupId.length > MAX_GROUP_ID_LENGTH) {
    return `groupId must be a non-empty name of at most ${MAX_GROUP_ID_LENGTH} characters.`;
  }
  if (!Array.isArray(topics) || topics.length === 0) return 'topics must name at least one topic.';
  if (typeof handler !== 'function') return 'handler must be a function.';
  if (batchHandler !== undefined && typeof batchHandler !== 'function') return 'batchHandler must be a function when given.';
  if (start !== 'earliest' && start !== 'latest') return 'start must be "earliest" or "latest".';
  if (!Number.isInteger(maxAttempts) || maxAttempts < 1 || maxAttempts > MAX_ATTEMPTS_LIMIT) {
    return `maxAttempts must be a whole number from 1 to ${MAX_ATTEMPTS_LIMIT}.`;
  }
  return undefined;
}

/** Throws `SUBSCRIPTION_INVALID` with what is wrong, if anything. */
export function checkSubscribeOptions(options: SubscribeOptions, maxAttempts: number): void {
  const problem = subscribeOptionsProblem(options, maxAttempts);
  if (problem) throw new BusError('SUBSCRIPTION_INVALID', problem);
}
