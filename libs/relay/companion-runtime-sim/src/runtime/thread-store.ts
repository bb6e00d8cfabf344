/**
 * The runtime's threads: transcript messages and operations numbered by one per-thread sequence, so
 * the two lists interleave in the order things happened, and pages read backwards from any point
 * (BEHAVIOUR.md §4, pagination).
 */
import type { RuntimeMessage, RuntimeOperation, RuntimeThread } from '@trustmesh/relay-companion';

import type { AppOutputScript } from './turn-script';

export interface OperationRecord extends RuntimeOperation {
  turnId: string;
  /** Raw input and output of the tool call (secret-bearing, never projected). */
  input: unknown;
  output: string;
  /** The Runtime 1.5 app result, read by `getOperationResult`. */
  appResult?: AppOutputScript;
}

export interface ThreadRecord {
  id: string;
  /** Creation order, a tiebreak for listing. */
  ordinal: number;
  title?: string;
  model: string;
  createdAtMs: number;
  updatedAtMs: number;
  /** Whether the thread is loaded for this Companion; `detachThread` unloads it. */
  attached: boolean;
  messages: RuntimeMessage[];
  operations: OperationRecord[];
  nextItemSequence: number;
  turnIds: Set<string>;
  turnCount: number;
  cwd: string;
}

export const iso = (ms: number): string => new Date(ms).toISOString();

export function threadView(thread: ThreadRecord): RuntimeThread {
  return {
    id: thread.id,
    ...(thread.title !== undefined ? { title: thread.title } : {}),
    model: thread.model,
    createdAt: iso(thread.createdAtMs),
    updatedAt: iso(thread.updatedAtMs),
    messageCount: thread.messages.length,
    // Runtime-only fields: they stay on the machine.
    cwd: thread.cwd,
    attached: thread.attached,
    turnCount: thread.turnCount,
  };
}

export interface Page<T> {
  items: T[];
  nextBeforeSequence: number | null;
}

/** The newest `limit` items with `sequence < before` (all when `before` is absent), oldest first. */
export function pageBefore<T extends { sequence: number }>(items: readonly T[], before: number | undefined, limit: number): Page<T> {
  // Items are kept in ascending sequence order, so the eligible ones are a prefix.
  let end = items.length;
  if (before !== undefined) {
    end = 0;
    while (end < items.length && (items[end] as T).sequence < before) end++;
  }
  const start = Math.max(0, end - limit);
  const page = items.slice(start, end);
  const first = page[0];
  return { items: page, nextBeforeSequence: start > 0 && first ? first.sequence : null };
}

export function nextSequence(thread: ThreadRecord): number {
  return thread.nextItemSequence++;
}
