// Checking appends before any I/O: envelopes built for new events, versions of whole envelopes, limits.
import { createEnvelope } from '@trustmesh/platform-events';

import { placeAt, prepareAppend, type AppendSettings } from './append-request';
import { EventStoreError } from './event-store.errors';

const settings: AppendSettings = {
  maxEventDataBytes: 64,
  maxEventsPerAppend: 3,
  producer: 'spec@1',
  defaultTopic: 'spec.events.v1',
  now: () => new Date('2025-01-02T03:04:05.678Z'),
};

const codeOf = (work: () => unknown): string => {
  try {
    work();
  } catch (error) {
    if (error instanceof EventStoreError) return error.code;
    throw error;
  }
  return 'accepted';
};

describe('prepareAppend', () => {
  it('wraps new events in envelopes numbered from the stream position the database will give them', () => {
    const prepared = prepareAppend('s', 'no-stream', [{ eventType: 'A', data: { when: new Date(0) } }, { eventType: 'B', schemaVersion: 2, data: null }], { correlationId: 'c' }, settings);
    expect(prepared.expected).toBe(0);
    expect(prepared.topic).toBe('spec.events.v1');
    const placed = placeAt(prepared, 7);
    expect(placed.map((envelope) => [envelope.streamVersion, envelope.eventType, envelope.schemaVersion])).toEqual([
      [8, 'A', 1],
      [9, 'B', 2],
    ]);
    expect(placed[0]).toMatchObject({ streamId: 's', correlationId: 'c', causationId: null, producer: 'spec@1', occurredAt: '2025-01-02T03:04:05.678Z' });
    // Data is what a read returns: JSON, so a Date becomes its string.
    expect(placed[0]?.data).toEqual({ when: '1970-01-01T00:00:00.000Z' });
  });

  it('keeps whole envelopes and makes their versions the expectation, with UTC millisecond timestamps', () => {
    const envelope = createEnvelope({ eventType: 'A', data: {} }, { streamId: 's', streamVersion: 5, producer: 'x@1' });
    const offset = { ...envelope, occurredAt: '2025-01-02T05:04:05.678912+02:00' };
    const prepared = prepareAppend('s', 'any', [offset], { topic: null }, settings);
    expect(prepared.expected).toBe(4);
    expect(prepared.topic).toBeNull();
    expect(placeAt(prepared, 4)[0]).toEqual({ ...envelope, occurredAt: '2025-01-02T03:04:05.678Z' });
  });

  it('refuses with precise codes', () => {
    const other = createEnvelope({ eventType: 'A', data: {} }, { streamId: 'other', streamVersion: 1, producer: 'x@1' });
    const mine = createEnvelope({ eventType: 'A', data: {} }, { streamId: 's', streamVersion: 1, producer: 'x@1' });
    expect(codeOf(() => prepareAppend('s', 'any', [{ eventType: 'A', data: {} }, { eventType: 'A', data: {} }, { eventType: 'A', data: {} }, { eventType: 'A', data: {} }], {}, settings))).toBe('TOO_MANY_EVENTS');
    expect(codeOf(() => prepareAppend('s', 'any', [other], {}, settings))).toBe('EVENT_INVALID');
    expect(codeOf(() => prepareAppend('s', 'any', [mine, { eventType: 'A', data: {} } as never], {}, settings))).toBe('EVENT_INVALID');
    expect(codeOf(() => prepareAppend('s', 'any', [mine, mine], {}, settings))).toBe('EVENT_VERSION_MISMATCH');
    expect(codeOf(() => prepareAppend('s', 'any', [mine, { ...mine, streamVersion: 2 }], {}, settings))).toBe('DUPLICATE_EVENT_ID');
    expect(codeOf(() => prepareAppend('s', 'any', [{ eventType: 'A', data: 'x'.repeat(63) }], {}, settings))).toBe('EVENT_DATA_TOO_LARGE');
    expect(codeOf(() => prepareAppend('s', 'any', [{ eventType: 'A', data: 'x'.repeat(62) }], {}, settings))).toBe('accepted');
    expect(codeOf(() => prepareAppend('s', 'any', [{ eventType: 'A', data: undefined }], {}, settings))).toBe('EVENT_DATA_INVALID');
    const cyclic: Record<string, unknown> = {};
    cyclic['self'] = cyclic;
    expect(codeOf(() => prepareAppend('s', 'any', [{ eventType: 'A', data: cyclic }], {}, settings))).toBe('EVENT_DATA_INVALID');
    expect(codeOf(() => prepareAppend('s', 'any', [null as never], {}, settings))).toBe('EVENT_INVALID');
    expect(codeOf(() => prepareAppend('s', 'any', [{ eventType: 'A', data: {} }], { traceparent: 'nope' }, settings))).toBe('EVENT_INVALID');
  });
});
