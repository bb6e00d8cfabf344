import { createEnvelope, validateEnvelope } from './event-envelope';
import { fromEventMessage, headersAsText, toEventMessage } from './kafka-message';
import { UpcasterRegistry, UpcastError } from './upcasting';
import { uuidv7, uuidv7Millis } from './uuidv7';

const context = { streamId: 'workspace-1', streamVersion: 1, producer: 'relay-gateway@0.1.0' };

describe('event envelopes', () => {
  it('are created valid, with a UUIDv7 id that also starts the correlation', () => {
    const envelope = createEnvelope({ eventType: 'DevicePaired', data: { deviceId: 'd' } }, context);
    expect(validateEnvelope(envelope)).toEqual({ ok: true, envelope });
    expect(envelope.eventId).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
    expect(envelope.correlationId).toBe(envelope.eventId);
    expect(envelope.schemaVersion).toBe(1);
  });

  it('are refused field by field, with stable codes', () => {
    const envelope = createEnvelope({ eventType: 'DevicePaired', data: {} }, context);
    const verdict = validateEnvelope({ ...envelope, eventType: 'device_paired', streamVersion: 0, traceparent: 'x', extra: 1 });
    expect(verdict.ok).toBe(false);
    if (!verdict.ok) {
      expect(verdict.issues.map(({ code, field }) => `${code}:${field}`)).toEqual([
        'ENVELOPE_FIELD_INVALID:eventType',
        'ENVELOPE_FIELD_INVALID:streamVersion',
        'ENVELOPE_FIELD_INVALID:traceparent',
        'ENVELOPE_FIELD_UNKNOWN:extra',
      ]);
    }
    const { data: _data, ...withoutData } = envelope;
    expect(validateEnvelope(withoutData).ok).toBe(false);
    expect(validateEnvelope([]).ok).toBe(false);
  });

  it('travel as Kafka messages keyed by stream, with routing headers', () => {
    const envelope = createEnvelope(
      { eventType: 'DevicePaired', data: { deviceId: 'd' } },
      { ...context, traceparent: '00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01' },
    );
    const message = toEventMessage(envelope);
    expect(message.key).toBe('workspace-1');
    expect(message.headers).toEqual({
      'event-type': 'DevicePaired',
      'schema-version': '1',
      'correlation-id': envelope.correlationId,
      traceparent: envelope.traceparent,
    });
    expect(fromEventMessage(new TextEncoder().encode(message.value))).toEqual({ ok: true, envelope });
    expect(fromEventMessage('{"not":"an envelope"}').ok).toBe(false);
    expect(fromEventMessage(new Uint8Array([0xff])).ok).toBe(false);
    expect(fromEventMessage(null).ok).toBe(false);
  });

  it('have their headers read back as text, whatever form a Kafka client gives them in', () => {
    const utf8 = new TextEncoder();
    expect(
      headersAsText({
        'event-type': utf8.encode('DevicePaired'),
        'schema-version': '1',
        repeated: [utf8.encode('first'), 'second'],
        broken: new Uint8Array([0x6f, 0x6b, 0xff]),
        absent: undefined,
      }),
    ).toEqual({ 'event-type': 'DevicePaired', 'schema-version': '1', repeated: 'first', broken: 'ok\uFFFD' });
    expect(headersAsText(undefined)).toEqual({});
  });
});

describe('upcasting', () => {
  const registry = new UpcasterRegistry()
    .current('DevicePaired', 3)
    .step('DevicePaired', 1, (data) => ({ ...(data as object), label: 'unnamed' }))
    .step('DevicePaired', 2, (data) => ({ ...(data as object), platform: 'unknown' }));

  it('lifts old payloads one version at a time', () => {
    const old = createEnvelope({ eventType: 'DevicePaired', schemaVersion: 1, data: { deviceId: 'd' } }, context);
    expect(registry.upcast(old)).toEqual({ ...old, schemaVersion: 3, data: { deviceId: 'd', label: 'unnamed', platform: 'unknown' } });
  });

  it('passes current and unregistered events unchanged, and refuses the future', () => {
    const current = createEnvelope({ eventType: 'DevicePaired', schemaVersion: 3, data: {} }, context);
    expect(registry.upcast(current)).toBe(current);
    const other = createEnvelope({ eventType: 'WorkspaceCreated', data: {} }, context);
    expect(registry.upcast(other)).toBe(other);
    const future = createEnvelope({ eventType: 'DevicePaired', schemaVersion: 4, data: {} }, context);
    expect(() => registry.upcast(future)).toThrow(UpcastError);
  });
});

describe('uuidv7', () => {
  it('carries the time and increases strictly within one process', () => {
    const now = Date.now() + 3_600_000; // ahead of every id made so far in this process
    const ids = Array.from({ length: 5000 }, () => uuidv7(now));
    expect(new Set(ids).size).toBe(ids.length);
    expect([...ids].sort()).toEqual(ids);
    expect(uuidv7Millis(ids[0]!)).toBe(now);
  });

  it('never goes back when the clock does', () => {
    const later = uuidv7(Date.now() + 7_200_000);
    const earlier = uuidv7(Date.now());
    expect(earlier > later).toBe(true);
  });
});
