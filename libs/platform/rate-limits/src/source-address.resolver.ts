/**
 * Who is on the other end of an HTTP request, upgrade or gRPC call, for per-source limits (the relay's
 * enrollment rate limit and unauthenticated sockets, the card registry's per-IP limits): the peer's socket
 * address, or, when that peer is a proxy the operator trusts (RELAY_TRUSTED_PROXIES, or the registry's own
 * setting), the right-most `X-Forwarded-For` hop that is not itself a trusted proxy.
 *
 * Why right-most: every proxy appends the address it received the request from, so only the hops added by
 * proxies we trust are facts; everything left of the first untrusted hop was written by the client and can be
 * anything. Trusting the left-most entry (as RELAY_TRUST_PROXY did) let one client pick a fresh "source" per
 * request and escape every per-source limit.
 *
 * IPv6 sources are grouped by their /64: one host usually holds a whole /64, so a per-address limit would
 * be no limit at all.
 */
import { BlockList, isIP } from 'node:net';
import type { IncomingMessage } from 'node:http';

/** A parsed trusted-proxies setting (e.g. RELAY_TRUSTED_PROXIES): addresses or CIDR blocks, IPv4 or IPv6. */
export class TrustedProxies {
  private readonly list = new BlockList();

  private constructor(readonly entries: readonly string[]) {
    for (const entry of entries) {
      const [address = '', prefix] = entry.split('/');
      const family = isIP(address) === 6 ? 'ipv6' : 'ipv4';
      if (prefix === undefined) this.list.addAddress(address, family);
      else this.list.addSubnet(address, Number(prefix), family);
    }
  }

  static readonly none = new TrustedProxies([]);

  /**
   * Parses a comma-separated list; returns the entries it could not read (never echoing anything else) so
   * the caller can name the variable.
   */
  static parse(text: string): { proxies: TrustedProxies; invalid: string[] } {
    const entries = text.split(',').map((entry) => entry.trim()).filter(Boolean);
    const invalid = entries.filter((entry) => !isAddressOrCidr(entry));
    return { proxies: new TrustedProxies(entries.filter((entry) => isAddressOrCidr(entry))), invalid };
  }

  get isEmpty(): boolean {
    return this.entries.length === 0;
  }

  trusts(address: string): boolean {
    const plain = unmapped(address);
    const family = isIP(plain);
    if (family === 0) return false;
    return this.list.check(plain, family === 6 ? 'ipv6' : 'ipv4');
  }
}

function isAddressOrCidr(entry: string): boolean {
  const [address = '', prefix, extra] = entry.split('/');
  const family = isIP(address);
  if (family === 0 || extra !== undefined) return false;
  if (prefix === undefined) return true;
  if (!/^\d{1,3}$/.test(prefix)) return false;
  return Number(prefix) <= (family === 6 ? 128 : 32);
}

/** `::ffff:1.2.3.4` → `1.2.3.4` (a dual-stack socket reports IPv4 peers that way). */
function unmapped(address: string): string {
  const match = /^::ffff:(\d{1,3}(?:\.\d{1,3}){3})$/i.exec(address);
  return match?.[1] ?? address;
}

/** The address a request came from, following X-Forwarded-For only through trusted proxies. */
export function sourceAddress(request: IncomingMessage, proxies: TrustedProxies): string {
  return sourceAddressOf(request.socket.remoteAddress ?? '', request.headers['x-forwarded-for'], proxies);
}

/**
 * The same rule for transports that are not a Node `IncomingMessage` (another HTTP framework, a gRPC
 * call: see `grpcPeerAddress`): the peer's address and the raw X-Forwarded-For value(s), if any.
 */
export function sourceAddressOf(peerAddress: string, forwardedFor: string | readonly string[] | undefined, proxies: TrustedProxies): string {
  const peer = unmapped(peerAddress);
  if (peer === '' || proxies.isEmpty || !proxies.trusts(peer)) return peer || 'unknown';
  const hops = (typeof forwardedFor === 'string' ? forwardedFor : (forwardedFor ?? []).join(','))
    .split(',')
    .map((hop) => hop.trim())
    .filter(Boolean);
  let source = peer;
  for (let index = hops.length - 1; index >= 0; index -= 1) {
    const hop = unmapped(hops[index] as string);
    // A hop that is not an address was written by someone we do not trust: stop at the last fact.
    if (isIP(hop) === 0) break;
    source = hop;
    if (!proxies.trusts(hop)) break;
  }
  return source;
}

/**
 * The address in a grpc-js peer string (`call.getPeer()`): `ipv4:203.0.113.9:51234`,
 * `ipv6:[2001:db8::1]:51234`, or the bare `203.0.113.9:51234` / `[::1]:51234` forms; '' for anything else
 * (a unix socket, an unknown shape), which `sourceAddressOf` reports as 'unknown'.
 */
export function grpcPeerAddress(peer: string): string {
  const bare = peer.replace(/^ipv[46]:/, '');
  const bracketed = /^\[([^\]]+)\](?::\d+)?$/.exec(bare);
  const candidate = bracketed ? bracketed[1] : /^([^:]+)(?::\d+)?$/.exec(bare)?.[1];
  return candidate !== undefined && isIP(unmapped(candidate)) !== 0 ? unmapped(candidate) : '';
}

/** The key per-source limits count under: the address, or its /64 for IPv6. */
export function sourceKey(address: string): string {
  if (isIP(address) !== 6) return address;
  const [head = '', tail = ''] = address.toLowerCase().split('::');
  const left = head === '' ? [] : head.split(':');
  const right = tail === '' ? [] : tail.split(':');
  const groups = address.includes('::') ? [...left, ...Array<string>(Math.max(0, 8 - left.length - right.length)).fill('0'), ...right] : left;
  return `${groups
    .slice(0, 4)
    .map((group) => group.replace(/^0+(?=.)/, ''))
    .join(':')}::/64`;
}
