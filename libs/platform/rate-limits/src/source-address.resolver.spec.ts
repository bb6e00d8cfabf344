import type { IncomingMessage } from 'node:http';

import { grpcPeerAddress, sourceAddress, sourceAddressOf, sourceKey, TrustedProxies } from './source-address.resolver';

const request = (remoteAddress: string, forwarded?: string) =>
  ({ socket: { remoteAddress }, headers: forwarded === undefined ? {} : { 'x-forwarded-for': forwarded } }) as unknown as IncomingMessage;

describe('source address', () => {
  const proxies = TrustedProxies.parse('10.0.0.0/8').proxies;

  it('ignores X-Forwarded-For unless the peer is a trusted proxy', () => {
    expect(sourceAddress(request('203.0.113.9', '198.51.100.1'), TrustedProxies.none)).toBe('203.0.113.9');
    expect(sourceAddress(request('203.0.113.9', '198.51.100.1'), proxies)).toBe('203.0.113.9');
  });

  it('takes the right-most hop that is not a trusted proxy, whatever the client wrote on the left', () => {
    expect(sourceAddress(request('10.0.0.2', '198.51.100.1'), proxies)).toBe('198.51.100.1');
    expect(sourceAddress(request('10.0.0.2', '1.1.1.1, 198.51.100.1, 10.0.0.3'), proxies)).toBe('198.51.100.1');
    expect(sourceAddress(request('::ffff:10.0.0.2', 'garbage, 198.51.100.1'), proxies)).toBe('198.51.100.1');
    expect(sourceAddress(request('10.0.0.2', '198.51.100.1, not-an-address'), proxies)).toBe('10.0.0.2');
    expect(sourceAddress(request('10.0.0.2'), proxies)).toBe('10.0.0.2');
  });

  it('counts IPv6 sources by their /64', () => {
    expect(sourceKey('2001:db8:1:2:aaaa::1')).toBe('2001:db8:1:2::/64');
    expect(sourceKey('2001:db8:1:2:bbbb:cccc:dddd:eeee')).toBe('2001:db8:1:2::/64');
    expect(sourceKey('::1')).toBe('0:0:0:0::/64');
    expect(sourceKey('192.0.2.1')).toBe('192.0.2.1');
  });
});

describe('source address of other transports', () => {
  const proxies = TrustedProxies.parse('10.0.0.0/8, 2001:db8:ffff::/48').proxies;

  it('applies the same right-most rule to a peer address and raw X-Forwarded-For values', () => {
    expect(sourceAddressOf('10.0.0.2', ['1.1.1.1', '198.51.100.1'], proxies)).toBe('198.51.100.1');
    expect(sourceAddressOf('2001:db8:ffff::7', '198.51.100.1', proxies)).toBe('198.51.100.1');
    expect(sourceAddressOf('203.0.113.9', '198.51.100.1', proxies)).toBe('203.0.113.9');
    expect(sourceAddressOf('', '198.51.100.1', proxies)).toBe('unknown');
  });

  it('reads the address out of grpc-js peer strings, and nothing out of anything else', () => {
    expect(grpcPeerAddress('ipv4:203.0.113.9:51234')).toBe('203.0.113.9');
    expect(grpcPeerAddress('ipv6:[2001:db8::1]:51234')).toBe('2001:db8::1');
    expect(grpcPeerAddress('ipv6:[::ffff:203.0.113.9]:443')).toBe('203.0.113.9');
    expect(grpcPeerAddress('[::1]:51234')).toBe('::1');
    expect(grpcPeerAddress('203.0.113.9:51234')).toBe('203.0.113.9');
    expect(grpcPeerAddress('unix:/tmp/registry.sock')).toBe('');
    expect(grpcPeerAddress('ipv4:not-an-address:1')).toBe('');
    expect(sourceAddressOf(grpcPeerAddress('unix:/tmp/registry.sock'), undefined, proxies)).toBe('unknown');
  });
});
