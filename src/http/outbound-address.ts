/**
 * Which IP addresses Latch may send its own requests to (back-channel logout now; webhooks and metadata fetches
 * later): only addresses on the public internet, so that a URL a client developer registers cannot make Latch
 * reach into the network it runs in (server-side request forgery: OWASP SSRF Prevention Cheat Sheet; RFC 6890
 * and the IANA special-purpose address registries list the ranges below).
 *
 * IPv4-mapped IPv6 addresses (::ffff:a.b.c.d, RFC 4291 §2.5.5.2) are judged as the IPv4 address they carry
 * (node:net's BlockList does so for every IPv4 rule); so are NAT64 addresses (64:ff9b::/96, RFC 6052 §2.1),
 * which reach the IPv4 address in their last 32 bits.
 */
import { BlockList, isIP } from 'node:net';

/** Why an address is refused: the name of its special-purpose range. */
export type RefusedRange =
  | 'unspecified'
  | 'loopback'
  | 'private'
  | 'link-local'
  | 'unique-local'
  | 'shared (CGNAT)'
  | 'multicast'
  | 'reserved'
  | 'documentation'
  | 'not an IP address';

export type AddressVerdict = { allowed: true } | { allowed: false; range: RefusedRange };

type Subnet = readonly [address: string, prefix: number];

const IPV4_RANGES: ReadonlyArray<readonly [RefusedRange, readonly Subnet[]]> = [
  // RFC 1122 §3.2.1.3: "this host on this network"; 0.0.0.0 connects to the local host on most systems.
  ['unspecified', [['0.0.0.0', 8]]],
  ['loopback', [['127.0.0.0', 8]]],
  // RFC 1918.
  ['private', [['10.0.0.0', 8], ['172.16.0.0', 12], ['192.168.0.0', 16]]],
  // RFC 3927; cloud metadata services live at 169.254.169.254.
  ['link-local', [['169.254.0.0', 16]]],
  // RFC 6598: carrier-grade NAT, not reachable from the internet.
  ['shared (CGNAT)', [['100.64.0.0', 10]]],
  ['multicast', [['224.0.0.0', 4]]],
  // RFC 6890: protocol assignments, 6to4 relay, benchmarking, future use and the limited broadcast address.
  ['reserved', [['192.0.0.0', 24], ['192.88.99.0', 24], ['198.18.0.0', 15], ['240.0.0.0', 4]]],
  // RFC 5737.
  ['documentation', [['192.0.2.0', 24], ['198.51.100.0', 24], ['203.0.113.0', 24]]],
];

const IPV6_RANGES: ReadonlyArray<readonly [RefusedRange, readonly Subnet[]]> = [
  ['unspecified', [['::', 128]]],
  ['loopback', [['::1', 128]]],
  // RFC 4193.
  ['unique-local', [['fc00::', 7]]],
  // RFC 4291 §2.5.6, and the deprecated site-local fec0::/10 (RFC 3879) with it.
  ['link-local', [['fe80::', 10], ['fec0::', 10]]],
  ['multicast', [['ff00::', 8]]],
  // IPv4-compatible (deprecated, RFC 4291 §2.5.5.1), discard-only (RFC 6666), local-use NAT64 (RFC 8215),
  // Teredo and 6to4 (they tunnel to IPv4 addresses this check cannot see), ORCHID.
  ['reserved', [['::', 96], ['100::', 64], ['64:ff9b:1::', 48], ['2001::', 32], ['2002::', 16], ['2001:10::', 28], ['2001:20::', 28]]],
  // RFC 3849.
  ['documentation', [['2001:db8::', 32]]],
];

/** The IPv4 subnet a.b.c.d/p as the NAT64 subnet 64:ff9b::a.b.c.d/(96 + p) (RFC 6052 §2.2). */
function nat64(address: string, prefix: number): Subnet {
  const [a, b, c, d] = address.split('.').map(Number) as [number, number, number, number];
  const hex = (high: number, low: number) => ((high << 8) | low).toString(16);
  return [`64:ff9b::${hex(a, b)}:${hex(c, d)}`, 96 + prefix];
}

const RULES: ReadonlyArray<readonly [RefusedRange, BlockList]> = [...new Set([...IPV4_RANGES, ...IPV6_RANGES].map(([range]) => range))].map((range) => {
  const list = new BlockList();
  for (const [name, subnets] of IPV4_RANGES) {
    if (name !== range) continue;
    for (const [address, prefix] of subnets) {
      list.addSubnet(address, prefix, 'ipv4');
      const [mapped, mappedPrefix] = nat64(address, prefix);
      list.addSubnet(mapped, mappedPrefix, 'ipv6');
    }
  }
  for (const [name, subnets] of IPV6_RANGES) {
    if (name !== range) continue;
    for (const [address, prefix] of subnets) list.addSubnet(address, prefix, 'ipv6');
  }
  return [range, list] as const;
});

/**
 * Whether Latch may connect to `address` (an IP address as DNS or a URL gives it; an IPv6 address without
 * brackets). Anything that is not an IP address is refused.
 */
export function judgeAddress(address: string): AddressVerdict {
  const family = isIP(address);
  if (family === 0) return { allowed: false, range: 'not an IP address' };
  const type = family === 4 ? 'ipv4' : 'ipv6';
  for (const [range, list] of RULES) if (list.check(address, type)) return { allowed: false, range };
  return { allowed: true };
}
