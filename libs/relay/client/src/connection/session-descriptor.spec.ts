import { reconnectDelayMs } from './reconnect-backoff';
import { checkSessionDescriptor } from './session-descriptor';

const NOW = Date.parse('2026-06-01T00:00:00Z');
const LATER = '2026-06-01T00:05:00Z';

describe('checkSessionDescriptor (§13)', () => {
  it('accepts a wss:// descriptor that has not expired', () => {
    expect(checkSessionDescriptor({ connectUrl: 'wss://relay.example/v1/browser?ticket=single-use', expiresAt: LATER }, NOW).ok).toBe(true);
  });

  it('refuses ws://, WSS://, spaces, missing offsets, extra keys and expired descriptors', () => {
    for (const descriptor of [
      { connectUrl: 'ws://relay.example/v1/browser', expiresAt: LATER },
      { connectUrl: 'WSS://relay.example/v1/browser', expiresAt: LATER },
      { connectUrl: 'wss://relay.example/v1/ browser', expiresAt: LATER },
      { connectUrl: 'wss://relay.example/v1/browser', expiresAt: '2026-06-01T00:05:00' },
      { connectUrl: 'wss://relay.example/v1/browser', expiresAt: LATER, ticket: 'x' },
      { connectUrl: 'wss://relay.example/v1/browser', expiresAt: '2026-06-01T00:00:00Z' },
      null,
    ]) {
      expect(checkSessionDescriptor(descriptor, NOW).ok).toBe(false);
    }
  });

  it('admits ws:// only for loopback hosts, and only when asked', () => {
    const loopback = (host: string) => ({ connectUrl: `ws://${host}:8080/v1/browser`, expiresAt: LATER });
    for (const host of ['127.0.0.1', 'localhost', '[::1]']) {
      expect(checkSessionDescriptor(loopback(host), NOW).ok).toBe(false);
      expect(checkSessionDescriptor(loopback(host), NOW, { allowInsecureLoopback: true })).toEqual({ ok: true, value: loopback(host) });
    }
    expect(checkSessionDescriptor(loopback('relay.example'), NOW, { allowInsecureLoopback: true }).ok).toBe(false);
    expect(checkSessionDescriptor({ ...loopback('127.0.0.1'), expiresAt: '2000-01-01T00:00:00Z' }, NOW, { allowInsecureLoopback: true }).ok).toBe(false);
  });
});

describe('reconnectDelayMs (§11)', () => {
  it('is min(30000, 250·2^min(attempt−1, 7))', () => {
    expect([1, 2, 3, 4, 5, 6, 7, 8, 9, 100].map(reconnectDelayMs)).toEqual([250, 500, 1000, 2000, 4000, 8000, 16000, 30000, 30000, 30000]);
  });
});
