// What an IP address is, for the rules that depend on it:
//  - which addresses a JWKS fetch may connect to (model/jwks): an access provider's `jwks_uri` is
//    written by a database admin and fetched when anyone presents a JWT; without a check it reaches
//    whatever the server can (loopback services, the LAN, a cloud's metadata address), so addresses
//    that are not globally reachable (IANA special-purpose registries) are refused unless configured;
//  - which client a request's address stands for (the shares of memory and query turns, the
//    failed-login throttle): one host holds a whole IPv6 /64, and this machine's own addresses (a
//    proxy in front of Flora, a local tool) are no client at all.

import { BlockList, isIPv4, isIPv6 } from 'node:net';

type Family = 'ipv4' | 'ipv6';

/** [range name, network, prefix length]: the address blocks a JWKS fetch refuses by default. */
const V4: readonly [string, string, number][] = [
  ['unspecified', '0.0.0.0', 8],
  ['private', '10.0.0.0', 8],
  ['shared (carrier-grade NAT)', '100.64.0.0', 10],
  ['loopback', '127.0.0.0', 8],
  ['link-local', '169.254.0.0', 16],
  ['private', '172.16.0.0', 12],
  ['reserved', '192.0.0.0', 24],
  ['documentation', '192.0.2.0', 24],
  ['reserved', '192.88.99.0', 24],
  ['private', '192.168.0.0', 16],
  ['benchmarking', '198.18.0.0', 15],
  ['documentation', '198.51.100.0', 24],
  ['documentation', '203.0.113.0', 24],
  ['multicast', '224.0.0.0', 4],
  ['reserved', '240.0.0.0', 4],
];

const V6: readonly [string, string, number][] = [
  ['unspecified', '::', 128],
  ['loopback', '::1', 128],
  ['reserved', '::', 96], // IPv4-compatible (deprecated)
  ['private', '64:ff9b:1::', 48], // local-use NAT64
  ['reserved', '100::', 64], // discard-only
  ['reserved', '2001::', 23], // IETF protocol assignments (Teredo, ORCHID, benchmarking)
  ['documentation', '2001:db8::', 32],
  ['documentation', '3fff::', 20],
  ['unique-local', 'fc00::', 7],
  ['link-local', 'fe80::', 10],
  ['site-local', 'fec0::', 10],
  ['multicast', 'ff00::', 8],
];

function blocks(family: Family, ranges: readonly [string, string, number][]): [string, BlockList][] {
  return ranges.map(([name, net, bits]) => {
    const list = new BlockList();
    list.addSubnet(net, bits, family);
    return [name, list];
  });
}

const V4_BLOCKS = blocks('ipv4', V4);
const V6_BLOCKS = blocks('ipv6', V6);

/** The 8 hextets of an IPv6 address (a trailing dotted quad allowed), or undefined. */
export function ipv6Hextets(ip: string): number[] | undefined {
  if (!isIPv6(ip)) return undefined;
  let s = ip;
  const quad = /(\d+)\.(\d+)\.(\d+)\.(\d+)$/.exec(s);
  if (quad) {
    const [a, b, c, d] = quad.slice(1).map(Number);
    s = `${s.slice(0, quad.index)}${((a << 8) | b).toString(16)}:${((c << 8) | d).toString(16)}`;
  }
  const [head, tail] = s.split('::');
  const part = (p: string | undefined) => (p ? p.split(':').map((h) => parseInt(h, 16)) : []);
  const left = part(head);
  const right = part(tail);
  const fill = tail === undefined ? [] : new Array<number>(8 - left.length - right.length).fill(0);
  return [...left, ...fill, ...right];
}

/** The IPv4 address an IPv6 address stands for (IPv4-mapped, NAT64 well-known prefix, 6to4), if any. */
function embeddedIpv4(h: number[]): string | undefined {
  const quad = (hi: number, lo: number) => `${hi >> 8}.${hi & 0xff}.${lo >> 8}.${lo & 0xff}`;
  if (h.slice(0, 5).every((x) => x === 0) && h[5] === 0xffff) return quad(h[6], h[7]);
  if (h[0] === 0x64 && h[1] === 0xff9b && h.slice(2, 6).every((x) => x === 0)) return quad(h[6], h[7]);
  if (h[0] === 0x2002) return quad(h[1], h[2]);
  return undefined;
}

/**
 * The name of the non-public range `ip` falls in ('loopback', 'private', 'link-local', …), or
 * undefined for a globally reachable address. Anything that is not an IP address is refused too.
 */
export function refusedRange(ip: string): string | undefined {
  if (isIPv4(ip)) return V4_BLOCKS.find(([, list]) => list.check(ip, 'ipv4'))?.[0];
  const h = ipv6Hextets(ip);
  if (!h) return 'not an IP address';
  const v4 = embeddedIpv4(h);
  if (v4 !== undefined) return refusedRange(v4);
  return V6_BLOCKS.find(([, list]) => list.check(ip, 'ipv6'))?.[0];
}

/**
 * The client an address stands for: an IPv4-mapped IPv6 address is its IPv4 address, and an IPv6
 * address its /64 (what one host, or one customer of a provider, is given: it can use any of them).
 */
export function addressKey(raw: string | undefined): string | undefined {
  if (!raw) return undefined;
  const mapped = /^::ffff:(\d{1,3}(?:\.\d{1,3}){3})$/i.exec(raw);
  if (mapped) return mapped[1];
  const h = ipv6Hextets(raw);
  return h ? `${h.slice(0, 4).map((x) => x.toString(16)).join(':')}::/64` : raw;
}

/** True for a loopback address as a socket reports it (127.0.0.0/8, ::1, IPv4-mapped 127.x): a string test, for every request. */
export function isLoopbackAddress(raw: string): boolean {
  return raw === '::1' || raw.startsWith('127.') || /^::ffff:127\./i.test(raw);
}

/** The client a request's address counts as (addressKey), or undefined for this machine's own. */
export function clientAddressKey(raw: string | undefined): string | undefined {
  return raw === undefined || isLoopbackAddress(raw) ? undefined : addressKey(raw);
}
