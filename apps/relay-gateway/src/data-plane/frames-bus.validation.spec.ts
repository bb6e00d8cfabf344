import { randomUUID } from 'node:crypto';

import { readBusFrame } from './frames-bus.validation';

const workspaceId = randomUUID();
const event = (extra: Record<string, unknown> = {}) =>
  JSON.stringify({
    type: 'runtime.event',
    workspaceId,
    relaySequence: 0,
    event: {
      protocolVersion: '1.1',
      runtimeInstanceId: randomUUID(),
      sequence: 0,
      timestamp: '2026-11-30T10:00:00.000Z',
      threadId: randomUUID(),
      event: { type: 'message.delta', streamId: randomUUID(), delta: 'hi', ...extra },
    },
  });
const fromCompanion = { direction: 'companion-to-relay' as const, workspaceId, wire: '1.2', maxFrameBytes: 1_048_576 };

describe('readBusFrame', () => {
  it('accepts a frame the Companion socket would have accepted', () => {
    expect(readBusFrame(event(), fromCompanion)).toMatchObject({ ok: true, wire: '1.2', frame: { type: 'runtime.event' } });
  });

  it('refuses what the socket would have refused, by stable code', () => {
    expect(readBusFrame(event({ secret: 'x' }), fromCompanion)).toMatchObject({ ok: false });
    expect(readBusFrame(event(), { ...fromCompanion, workspaceId: randomUUID() })).toEqual({ ok: false, code: 'WORKSPACE_MISMATCH' });
    expect(readBusFrame(event(), { ...fromCompanion, direction: 'browser-to-relay' })).toEqual({ ok: false, code: 'FRAME_DIRECTION_FORBIDDEN' });
    expect(readBusFrame('{', fromCompanion)).toEqual({ ok: false, code: 'FRAME_NOT_JSON' });
    expect(readBusFrame(event(), { ...fromCompanion, maxFrameBytes: 16 })).toEqual({ ok: false, code: 'FRAME_TOO_LARGE' });
  });

  it('refuses a record that is not what a replica writes (no text, a version no socket speaks)', () => {
    expect(readBusFrame(undefined, fromCompanion)).toEqual({ ok: false, code: 'BUS_RECORD_INVALID' });
    expect(readBusFrame(event(), { ...fromCompanion, wire: '1.0' })).toEqual({ ok: false, code: 'BUS_RECORD_INVALID' });
    expect(readBusFrame(event(), { ...fromCompanion, wire: { toString: () => '1.2' } })).toEqual({ ok: false, code: 'BUS_RECORD_INVALID' });
  });
});
