/**
 * Which IP addresses the registry may connect to (CARDS.md §3.3 "Safe fetching", §5 crawling and ownership files).
 *
 * Owns: parsing IPv4 (including the inet_aton spellings `0x7f.1`, `2130706433`, `0177.0.0.1` that URL parsers and
 * resolvers accept) and IPv6 (including embedded dotted quads and zone ids), and sorting every address into a class.
 * Only `public` may be fetched. IPv6 forms that carry an IPv4 address (mapped `::ffff:a.b.c.d`, compatible `::a.b.c.d`,
 * NAT64 `64:ff9b::/96`, 6to4 `2002::/16`) are judged by the IPv4 address they carry, so `[::ffff:127.0.0.1]` is
 * loopback. Teredo hides its target (obfuscated), so it is refused outright.
 */

export type AddressClass =
  | 'public'
  | 'loopback'
  | 'private'
  | 'link-local'
  | 'cgnat'
  | 'metadata'
  | 'unspecified'
  | 'multicast'
  | 'broadcast'
  | 'reserved'
  | 'documentation'
  | 'invalid';

export interface AddressVerdict {
  /** The address in the canonical text form Node connects to (`127.0.0.1`, `::1`). */
  readonly address: string;
  readonly family: 4 | 6;
  readonly class: AddressClass;
}

/** Cloud instance-metadata endpoints; classed before their containing ranges so logs name them. */
const METADATA_V4 = new Set(['169.254.169.254', '169.254.170.2', '100.100.100.200', '192.0.0.192']);
const METADATA_V6_GROUPS = ['fd00:ec2:0:0:0:0:0:254'];

type V4Rule = readonly [base: number, prefix: number, cls: AddressClass];

const V4_RULES: readonly V4Rule[] = [
  [ipv4(0, 0, 0, 0), 8, 'unspecified'],
  [ipv4(10, 0, 0, 0), 8, 'private'],
  [ipv4(100, 64, 0, 0), 10, 'cgnat'],
  [ipv4(127, 0, 0, 0), 8, 'loopback'],
  [ipv4(169, 254, 0, 0), 16, 'link-local'],
  [ipv4(172, 16, 0, 0), 12, 'private'],
  [ipv4(192, 0, 0, 0), 24, 'reserved'],
  [ipv4(192, 0, 2, 0), 24, 'documentation'],
  [ipv4(192, 88, 99, 0), 24, 'reserved'],
  [ipv4(192, 168, 0, 0), 16, 'private'],
  [ipv4(198, 18, 0, 0), 15, 'reserved'],
  [ipv4(198, 51, 100, 0), 24, 'documentation'],
  [ipv4(203, 0, 113, 0), 24, 'documentation'],
  [ipv4(224, 0, 0, 0), 4, 'multicast'],
  [ipv4(255, 255, 255, 255), 32, 'broadcast'],
  [ipv4(240, 0, 0, 0), 4, 'reserved'],
];

function ipv4(a: number, b: number, c: number, d: number): number {
  return ((a << 24) | (b << 16) | (c << 8) | d) >>> 0;
}

function inV4(value: number, base: number, prefix: number): boolean {
  if (prefix === 0) return true;
  const mask = prefix === 32 ? 0xffffffff : (~((1 << (32 - prefix)) - 1) >>> 0) >>> 0;
  return ((value & mask) >>> 0) === ((base & mask) >>> 0);
}

function v4Text(value: number): string {
  return [value >>> 24, (value >>> 16) & 0xff, (value >>> 8) & 0xff, value & 0xff].join('.');
}

function classifyV4(value: number): AddressClass {
  if (METADATA_V4.has(v4Text(value))) return 'metadata';
  for (const [base, prefix, cls] of V4_RULES) if (inV4(value, base, prefix)) return cls;
  return 'public';
}

/**
 * Parses an IPv4 literal the way WHATWG URL and inet_aton do: one to four dot-separated parts, each decimal, octal
 * (leading `0`) or hex (`0x`); the last part fills the remaining bytes. Returns the 32-bit value or null.
 */
export function parseIpv4Literal(text: string): number | null {
  const parts = text.endsWith('.') ? text.slice(0, -1).split('.') : text.split('.');
  if (parts.length === 0 || parts.length > 4) return null;
  const values: number[] = [];
  for (const part of parts) {
    let value: number;
    if (/^0[xX][0-9a-fA-F]*$/.test(part)) value = part.length === 2 ? 0 : parseInt(part.slice(2), 16);
    else if (/^0[0-7]+$/.test(part)) value = parseInt(part.slice(1), 8);
    else if (/^(0|[1-9][0-9]*)$/.test(part)) value = Number(part);
    else return null;
    if (!Number.isSafeInteger(value)) return null;
    values.push(value);
  }
  const last = values[values.length - 1] ?? 0;
  const head = values.slice(0, -1);
  if (head.some((v) => v > 255)) return null;
  if (last >= 2 ** (8 * (5 - values.length))) return null;
  let result = last;
  head.forEach((v, i) => {
    result += v * 2 ** (8 * (3 - i));
  });
  return result >>> 0;
}

/** Parses IPv6 text (with `::`, an embedded dotted quad, optional brackets and `%zone`) into eight 16-bit groups. */
export function parseIpv6Literal(text: string): number[] | null {
  let body = text.startsWith('[') && text.endsWith(']') ? text.slice(1, -1) : text;
  const zone = body.indexOf('%');
  if (zone >= 0) body = body.slice(0, zone);
  if (!/^[0-9a-fA-F:.]+$/.test(body) || !body.includes(':')) return null;
  const lastColon = body.lastIndexOf(':');
  const quad = body.slice(lastColon + 1);
  if (quad.includes('.')) {
    // Rewrite the trailing dotted quad as two hex groups, then parse as plain IPv6.
    if (!/^\d{1,3}(\.\d{1,3}){3}$/.test(quad)) return null;
    const [a = 0, b = 0, c = 0, d = 0] = quad.split('.').map(Number);
    if ([a, b, c, d].some((o) => o > 255)) return null;
    const hi = ((a << 8) | b).toString(16);
    const lo = ((c << 8) | d).toString(16);
    body = `${body.slice(0, lastColon + 1)}${hi}:${lo}`;
  }
  const halves = body.split('::');
  if (halves.length > 2) return null;
  const parse = (s: string): number[] | null => {
    if (s === '') return [];
    const groups = s.split(':');
    if (groups.some((g) => !/^[0-9a-fA-F]{1,4}$/.test(g))) return null;
    return groups.map((g) => parseInt(g, 16));
  };
  const [leftText = '', rightText = ''] = halves;
  const left = parse(leftText);
  if (!left) return null;
  if (halves.length === 1) return left.length === 8 ? left : null;
  const right = parse(rightText);
  if (!right) return null;
  const fill = 8 - left.length - right.length;
  if (fill < 1) return null;
  return [...left, ...new Array<number>(fill).fill(0), ...right];
}

function v6Text(groups: readonly number[]): string {
  return groups.map((g) => g.toString(16)).join(':');
}

function embeddedV4(groups: readonly number[]): number {
  const [, , , , , , hi = 0, lo = 0] = groups;
  return ((hi << 16) | lo) >>> 0;
}

function classifyV6(groups: readonly number[]): AddressClass {
  const [g0, g1, g2, g3, g4, g5, , g7] = groups as [number, number, number, number, number, number, number, number];
  const zeroTo = (n: number): boolean => groups.slice(0, n).every((g) => g === 0);
  if (METADATA_V6_GROUPS.includes(v6Text(groups))) return 'metadata';
  if (zeroTo(8)) return 'unspecified';
  if (zeroTo(7) && g7 === 1) return 'loopback';
  if (zeroTo(5) && g5 === 0xffff) return classifyV4(embeddedV4(groups));
  // ::ffff:0:a.b.c.d (SIIT translated) and ::a.b.c.d (deprecated compatible form) also reach an IPv4 host.
  if (zeroTo(4) && g4 === 0xffff && g5 === 0) return classifyV4(embeddedV4(groups));
  if (zeroTo(6)) return classifyV4(embeddedV4(groups));
  if (g0 === 0x64 && g1 === 0xff9b && g2 === 0 && g3 === 0 && g4 === 0 && g5 === 0) return classifyV4(embeddedV4(groups));
  if (g0 === 0x64 && g1 === 0xff9b && g2 === 1) return 'reserved';
  if (g0 === 0x2002) return classifyV4(((g1 << 16) | g2) >>> 0);
  if (g0 === 0x2001 && g1 === 0) return 'reserved';
  if (g0 === 0x2001 && g1 === 0xdb8) return 'documentation';
  if (g0 === 0x2001 && (g1 & 0xfff0) === 0x10) return 'reserved';
  if (g0 === 0x2001 && (g1 & 0xfff0) === 0x20) return 'reserved';
  if ((g0 & 0xfff0) === 0x3ff0) return 'documentation';
  if (g0 === 0x100 && g1 === 0 && g2 === 0 && g3 === 0) return 'reserved';
  if ((g0 & 0xfe00) === 0xfc00) return 'private';
  if ((g0 & 0xffc0) === 0xfe80) return 'link-local';
  if ((g0 & 0xffc0) === 0xfec0) return 'private';
  if ((g0 & 0xff00) === 0xff00) return 'multicast';
  // Only global unicast (2000::/3) is routable on the public Internet; the rest is unassigned.
  if ((g0 & 0xe000) !== 0x2000) return 'reserved';
  return 'public';
}

/**
 * Classifies an IP literal (IPv4 in any inet_aton spelling, IPv6 with or without brackets). Anything that is not an
 * IP literal is `invalid`: host names must be resolved first and each resolved address classified.
 */
export function classifyAddress(text: string): AddressVerdict {
  const v4 = parseIpv4Literal(text);
  if (v4 !== null) return { address: v4Text(v4), family: 4, class: classifyV4(v4) };
  const v6 = parseIpv6Literal(text);
  if (v6 !== null) return { address: v6Text(v6), family: 6, class: classifyV6(v6) };
  return { address: text, family: 4, class: 'invalid' };
}

/** True when the text is an IP literal in any spelling (such hosts are never sent to DNS). */
export function isIpLiteral(text: string): boolean {
  return parseIpv4Literal(text) !== null || parseIpv6Literal(text) !== null;
}
