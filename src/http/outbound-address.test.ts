/**
 * The addresses Latch's own outbound requests may reach (outbound-address.ts), one special-purpose range per
 * row (RFC 6890 and the IANA IPv4/IPv6 special-purpose address registries), both edges of a range where an
 * off-by-one would let an address through.
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { judgeAddress, type RefusedRange } from './outbound-address.js';

const rows: { rule: string; address: string; refused: RefusedRange | null }[] = [
  { rule: 'a public IPv4 address is allowed', address: '93.184.215.14', refused: null },
  { rule: 'a public IPv6 address is allowed', address: '2606:4700:4700::1111', refused: null },
  { rule: 'RFC 1122: 0.0.0.0 (connects to this host on most systems)', address: '0.0.0.0', refused: 'unspecified' },
  { rule: 'RFC 1122: 0.0.0.0/8, its last address', address: '0.255.255.255', refused: 'unspecified' },
  { rule: 'RFC 1122: 127.0.0.0/8 loopback, first address', address: '127.0.0.1', refused: 'loopback' },
  { rule: 'RFC 1122: 127.0.0.0/8 loopback, last address', address: '127.255.255.254', refused: 'loopback' },
  { rule: 'RFC 1918: 10.0.0.0/8', address: '10.1.2.3', refused: 'private' },
  { rule: 'RFC 1918: 172.16.0.0/12, first address', address: '172.16.0.1', refused: 'private' },
  { rule: 'RFC 1918: 172.16.0.0/12, last address', address: '172.31.255.255', refused: 'private' },
  { rule: 'RFC 1918: 172.32.0.0 is outside 172.16.0.0/12', address: '172.32.0.1', refused: null },
  { rule: 'RFC 1918: 192.168.0.0/16', address: '192.168.1.10', refused: 'private' },
  { rule: 'RFC 3927: 169.254.0.0/16 link-local (cloud metadata at 169.254.169.254)', address: '169.254.169.254', refused: 'link-local' },
  { rule: 'RFC 6598: 100.64.0.0/10 shared address space, first address', address: '100.64.0.1', refused: 'shared (CGNAT)' },
  { rule: 'RFC 6598: 100.64.0.0/10, last address', address: '100.127.255.254', refused: 'shared (CGNAT)' },
  { rule: 'RFC 6598: 100.128.0.0 is outside 100.64.0.0/10', address: '100.128.0.1', refused: null },
  { rule: 'RFC 5771: 224.0.0.0/4 multicast', address: '224.0.0.251', refused: 'multicast' },
  { rule: 'RFC 5771: 239.255.255.250 is multicast', address: '239.255.255.250', refused: 'multicast' },
  { rule: 'RFC 1112: 240.0.0.0/4 reserved', address: '240.0.0.1', refused: 'reserved' },
  { rule: 'RFC 919: 255.255.255.255 limited broadcast', address: '255.255.255.255', refused: 'reserved' },
  { rule: 'RFC 6890: 192.0.0.0/24 protocol assignments', address: '192.0.0.8', refused: 'reserved' },
  { rule: 'RFC 2544: 198.18.0.0/15 benchmarking', address: '198.19.255.1', refused: 'reserved' },
  { rule: 'RFC 5737: 192.0.2.0/24 documentation', address: '192.0.2.10', refused: 'documentation' },
  { rule: 'RFC 5737: 203.0.113.0/24 documentation', address: '203.0.113.7', refused: 'documentation' },
  { rule: 'RFC 4291 §2.5.2: :: unspecified', address: '::', refused: 'unspecified' },
  { rule: 'RFC 4291 §2.5.3: ::1 loopback', address: '::1', refused: 'loopback' },
  { rule: 'RFC 4291 §2.5.3: loopback written out in full', address: '0:0:0:0:0:0:0:1', refused: 'loopback' },
  { rule: 'RFC 4193: fc00::/7 unique-local (fd..)', address: 'fd12:3456:789a::1', refused: 'unique-local' },
  { rule: 'RFC 4193: fc00::/7 unique-local (fc..)', address: 'fc00::1', refused: 'unique-local' },
  { rule: 'RFC 4291 §2.5.6: fe80::/10 link-local', address: 'fe80::1', refused: 'link-local' },
  { rule: 'RFC 4291 §2.5.6: fe80::/10, its last block', address: 'febf::1', refused: 'link-local' },
  { rule: 'RFC 3879: fec0::/10 deprecated site-local', address: 'fec0::1', refused: 'link-local' },
  { rule: 'RFC 4291 §2.7: ff00::/8 multicast', address: 'ff02::1', refused: 'multicast' },
  { rule: 'RFC 4291 §2.5.5.2: IPv4-mapped loopback (dotted)', address: '::ffff:127.0.0.1', refused: 'loopback' },
  { rule: 'RFC 4291 §2.5.5.2: IPv4-mapped loopback (hex, as the URL parser writes it)', address: '::ffff:7f00:1', refused: 'loopback' },
  { rule: 'RFC 4291 §2.5.5.2: IPv4-mapped private address', address: '::ffff:10.0.0.1', refused: 'private' },
  { rule: 'RFC 4291 §2.5.5.2: IPv4-mapped link-local (metadata service)', address: '::ffff:a9fe:a9fe', refused: 'link-local' },
  { rule: 'RFC 4291 §2.5.5.2: IPv4-mapped public address is the public address', address: '::ffff:93.184.215.14', refused: null },
  { rule: 'RFC 4291 §2.5.5.1: IPv4-compatible addresses are deprecated', address: '::7f00:1', refused: 'reserved' },
  { rule: 'RFC 6052: NAT64 of a loopback address', address: '64:ff9b::7f00:1', refused: 'loopback' },
  { rule: 'RFC 6052: NAT64 of a private address', address: '64:ff9b::c0a8:101', refused: 'private' },
  { rule: 'RFC 6052: NAT64 of a public address reaches the public address', address: '64:ff9b::5db8:d70e', refused: null },
  { rule: 'RFC 8215: 64:ff9b:1::/48 local-use NAT64', address: '64:ff9b:1::a00:1', refused: 'reserved' },
  { rule: 'RFC 4380: 2001::/32 Teredo tunnels to an address this check cannot see', address: '2001:0:4136:e378::1', refused: 'reserved' },
  { rule: 'RFC 3056: 2002::/16 6to4 tunnels to an address this check cannot see', address: '2002:c0a8:101::1', refused: 'reserved' },
  { rule: 'RFC 6666: 100::/64 discard-only', address: '100::1', refused: 'reserved' },
  { rule: 'RFC 3849: 2001:db8::/32 documentation', address: '2001:db8::1', refused: 'documentation' },
  { rule: 'a host name is not an address: it must be resolved first', address: 'localhost', refused: 'not an IP address' },
  { rule: 'an IPv6 address in brackets is not an address (strip them first)', address: '[::1]', refused: 'not an IP address' },
  { rule: 'the empty string is not an address', address: '', refused: 'not an IP address' },
];

describe('outbound address rules', () => {
  for (const { rule, address, refused } of rows) {
    test(`${rule}: ${address || '(empty)'}`, () => {
      const verdict = judgeAddress(address);
      assert.deepEqual(verdict, refused === null ? { allowed: true } : { allowed: false, range: refused });
    });
  }
});
