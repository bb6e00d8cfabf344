import { classifyAddress, isIpLiteral, parseIpv4Literal, type AddressClass } from './address.classifier';

describe('classifyAddress', () => {
  const table: ReadonlyArray<[input: string, cls: AddressClass, canonical?: string]> = [
    // IPv4 public
    ['8.8.8.8', 'public'],
    ['93.184.216.34', 'public'],
    ['1.1.1.1', 'public'],
    ['172.32.0.1', 'public'],
    ['100.128.0.1', 'public'],
    ['11.0.0.1', 'public'],
    ['223.255.255.255', 'public'],
    // loopback, any spelling
    ['127.0.0.1', 'loopback'],
    ['127.255.255.254', 'loopback'],
    ['2130706433', 'loopback', '127.0.0.1'],
    ['0x7f.1', 'loopback', '127.0.0.1'],
    ['0x7f000001', 'loopback', '127.0.0.1'],
    ['0177.0.0.1', 'loopback', '127.0.0.1'],
    ['017700000001', 'loopback', '127.0.0.1'],
    ['127.1', 'loopback', '127.0.0.1'],
    ['127.0.1', 'loopback', '127.0.0.1'],
    // private
    ['10.0.0.1', 'private'],
    ['10.255.255.255', 'private'],
    ['172.16.0.1', 'private'],
    ['172.31.255.255', 'private'],
    ['192.168.1.1', 'private'],
    ['0xc0.0xa8.1.1', 'private', '192.168.1.1'],
    // link-local, metadata, CGNAT
    ['169.254.1.1', 'link-local'],
    ['169.254.169.254', 'metadata'],
    ['0xa9fea9fe', 'metadata', '169.254.169.254'],
    ['169.254.170.2', 'metadata'],
    ['100.100.100.200', 'metadata'],
    ['100.64.0.1', 'cgnat'],
    ['100.127.255.255', 'cgnat'],
    // unspecified, broadcast, multicast, reserved, documentation
    ['0.0.0.0', 'unspecified'],
    ['0', 'unspecified', '0.0.0.0'],
    ['0.1.2.3', 'unspecified'],
    ['255.255.255.255', 'broadcast'],
    ['224.0.0.1', 'multicast'],
    ['239.255.255.250', 'multicast'],
    ['240.0.0.1', 'reserved'],
    ['192.0.0.8', 'reserved'],
    ['198.18.0.1', 'reserved'],
    ['192.0.2.1', 'documentation'],
    ['198.51.100.7', 'documentation'],
    ['203.0.113.9', 'documentation'],
    // IPv6
    ['::1', 'loopback'],
    ['[::1]', 'loopback'],
    ['0:0:0:0:0:0:0:1', 'loopback'],
    ['::', 'unspecified'],
    ['fe80::1', 'link-local'],
    ['fe80::1%eth0', 'link-local'],
    ['febf:ffff::1', 'link-local'],
    ['fc00::1', 'private'],
    ['fd12:3456:789a::1', 'private'],
    ['fec0::1', 'private'],
    ['fd00:ec2::254', 'metadata'],
    ['ff02::1', 'multicast'],
    ['2001:db8::1', 'documentation'],
    ['2001::1', 'reserved'],
    ['100::1', 'reserved'],
    ['4000::1', 'reserved'],
    ['2606:4700:4700::1111', 'public'],
    ['2a00:1450:4001:81c::200e', 'public'],
    // IPv6 forms that carry an IPv4 address
    ['::ffff:127.0.0.1', 'loopback'],
    ['[::ffff:127.0.0.1]', 'loopback'],
    ['::ffff:7f00:1', 'loopback'],
    ['::ffff:10.0.0.1', 'private'],
    ['::ffff:169.254.169.254', 'metadata'],
    ['::ffff:8.8.8.8', 'public'],
    ['::127.0.0.1', 'loopback'],
    ['::ffff:0:127.0.0.1', 'loopback'],
    ['64:ff9b::127.0.0.1', 'loopback'],
    ['64:ff9b::808:808', 'public'],
    ['64:ff9b:1::1', 'reserved'],
    ['2002:7f00:1::', 'loopback'],
    ['2002:c0a8:101::1', 'private'],
    ['2002:808:808::1', 'public'],
    // not IP literals
    ['acme.com', 'invalid'],
    ['256.0.0.1', 'invalid'],
    ['1.2.3.4.5', 'invalid'],
    ['0x1g', 'invalid'],
    ['08.0.0.1', 'invalid'],
    ['::ffff:300.0.0.1', 'invalid'],
    ['1:2:3:4:5:6:7:8:9', 'invalid'],
    ['1::2::3', 'invalid'],
    ['', 'invalid'],
  ];

  it.each(table.map(([input, cls, canonical]) => [input, cls, canonical ?? null] as const))('%s is %s', (input, cls, canonical) => {
    const verdict = classifyAddress(input);
    expect(verdict.class).toBe(cls);
    if (canonical) expect(verdict.address).toBe(canonical);
  });

  it('matches how WHATWG URL normalises numeric hosts, so either form is judged the same', () => {
    for (const href of ['https://0x7f.1/', 'https://2130706433/', 'https://0177.0.0.1/', 'https://[::ffff:127.0.0.1]/']) {
      expect(classifyAddress(new URL(href).hostname).class).toBe('loopback');
    }
  });

  it('refuses IPv4 parts that overflow', () => {
    expect(parseIpv4Literal('1.16777216')).toBeNull();
    expect(parseIpv4Literal('4294967296')).toBeNull();
    expect(parseIpv4Literal('4294967295')).toBe(0xffffffff);
  });

  it('tells IP literals from host names', () => {
    expect(isIpLiteral('0x7f.1')).toBe(true);
    expect(isIpLiteral('::1')).toBe(true);
    expect(isIpLiteral('acme.test')).toBe(false);
    expect(isIpLiteral('1.com')).toBe(false);
  });
});
