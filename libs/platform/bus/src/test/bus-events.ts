/**
 * What every bus spec builds its scenarios from, whichever adapter runs: envelopes for many interleaved
 * streams, a handler that records what it was given, a logger that keeps its lines, and the checks of a
 * handover between two consumers of one group.
 */
import { createEnvelope, type EventEnvelope } from '@trustmesh/platform-events';
import type { LogFields } from '@trustmesh/platform-logging';

import type { BusLogger, BusLogLevel } from '../bus-log';
import type { BusRecord, RecordHandler } from '../event-bus.port';

export function event(streamId: string, streamVersion: number, data: unknown = { n: streamVersion }): EventEnvelope {
  return createEnvelope({ eventType: 'CounterIncremented', data }, { streamId, streamVersion, producer: 'bus-spec@0' });
}

/** `perStream` events for each of `streams` streams, interleaved round-robin as a busy producer would. */
export function interleavedEvents(streams: readonly string[], perStream: number): EventEnvelope[] {
  return range(1, perStream).flatMap((version) => streams.map((streamId) => event(streamId, version, { by: version })));
}

export function streamIds(prefix: string, count: number): string[] {
  return Array.from({ length: count }, (_, index) => `${prefix}-${index}`);
}

/** `streamId:streamVersion`, the identity of an event in these specs. */
export function eventKey(envelope: Pick<EventEnvelope, 'streamId' | 'streamVersion'>): string {
  return `${envelope.streamId}:${envelope.streamVersion}`;
}

export function range(from: number, to: number): number[] {
  return Array.from({ length: Math.max(0, to - from + 1) }, (_, index) => from + index);
}

/** Stream versions per stream, in the order the event keys list them. */
export function versionsByStream(keys: readonly string[]): Map<string, number[]> {
  const byStream = new Map<string, number[]>();
  for (const key of keys) {
    const cut = key.lastIndexOf(':');
    const stream = key.slice(0, cut);
    byStream.set(stream, [...(byStream.get(stream) ?? []), Number(key.slice(cut + 1))]);
  }
  return byStream;
}

export interface Recorder {
  handler: RecordHandler;
  readonly records: BusRecord[];
  keys(): string[];
  /** Stream versions in delivery order, per stream. */
  versionsByStream(): Map<string, number[]>;
}

/** A handler that runs `before` (which may throw or wait), then records the record. */
export function recorder(before?: (record: BusRecord) => Promise<void> | void): Recorder {
  const records: BusRecord[] = [];
  const keys = () => records.map((record) => eventKey(record.envelope));
  return {
    records,
    handler: async (record) => {
      await before?.(record);
      records.push(record);
    },
    keys,
    versionsByStream: () => versionsByStream(keys()),
  };
}

/**
 * What the first member of a group finished and what its successor got: together every event once, and
 * each stream in order across the handover.
 */
export function expectSeamlessHandover(first: readonly string[], second: readonly string[], streams: readonly string[], perStream: number): void {
  const finished = new Set(first);
  expect(second.filter((key) => finished.has(key))).toEqual([]);
  const before = versionsByStream(first);
  const after = versionsByStream(second);
  for (const stream of streams) expect([...(before.get(stream) ?? []), ...(after.get(stream) ?? [])]).toEqual(range(1, perStream));
}

export interface LogLine {
  level: BusLogLevel;
  message: string;
  fields: LogFields;
}

export interface RecordingLogger extends BusLogger {
  readonly lines: LogLine[];
}

export function recordingLogger(): RecordingLogger {
  const lines: LogLine[] = [];
  return {
    lines,
    log(level, message, fields = {}) {
      lines.push({ level, message, fields });
    },
  };
}

/** A promise and the function that resolves it. */
export function latch(): { promise: Promise<void>; open: () => void } {
  let open = () => undefined as void;
  const promise = new Promise<void>((resolve) => (open = resolve));
  return { promise, open };
}
