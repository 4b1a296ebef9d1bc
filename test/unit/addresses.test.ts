// src/net/addresses.ts: the ranges a JWKS fetch may not connect to, and how a client's address is
// counted (its key for shares and throttles; this machine's own addresses are no client).

import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { addressKey, clientAddressKey, ipv6Hextets, isLoopbackAddress, refusedRange } from '../../src/net/addresses';

describe('refusedRange', () => {
  test('refuses every non-public IPv4 range', () => {
    const refused: [string, string][] = [
      ['0.0.0.0', 'unspecified'],
      ['0.1.2.3', 'unspecified'],
      ['10.0.0.1', 'private'],
      ['100.64.0.1', 'shared (carrier-grade NAT)'],
      ['127.0.0.1', 'loopback'],
      ['127.255.255.254', 'loopback'],
      ['169.254.169.254', 'link-local'],
      ['172.16.0.1', 'private'],
      ['172.31.255.255', 'private'],
      ['192.0.0.8', 'reserved'],
      ['192.0.2.1', 'documentation'],
      ['192.168.1.1', 'private'],
      ['198.18.0.1', 'benchmarking'],
      ['224.0.0.251', 'multicast'],
      ['239.255.255.250', 'multicast'],
      ['240.0.0.1', 'reserved'],
      ['255.255.255.255', 'reserved'],
    ];
    for (const [ip, range] of refused) assert.equal(refusedRange(ip), range, ip);
  });

  test('accepts public IPv4 addresses, including the neighbours of refused ranges', () => {
    for (const ip of ['8.8.8.8', '1.1.1.1', '9.255.255.255', '11.0.0.0', '100.63.255.255', '100.128.0.0', '172.15.255.255', '172.32.0.0', '169.253.0.1', '192.167.1.1', '223.255.255.255'])
      assert.equal(refusedRange(ip), undefined, ip);
  });

  test('refuses every non-public IPv6 range', () => {
    const refused: [string, string][] = [
      ['::', 'unspecified'],
      ['::1', 'loopback'],
      ['0:0:0:0:0:0:0:1', 'loopback'],
      ['::7f00:1', 'reserved'],
      ['fe80::1', 'link-local'],
      ['febf:ffff::1', 'link-local'],
      ['fec0::1', 'site-local'],
      ['fc00::1', 'unique-local'],
      ['fd12:3456::1', 'unique-local'],
      ['ff02::1', 'multicast'],
      ['2001:db8::1', 'documentation'],
      ['2001::1', 'reserved'],
      ['100::1', 'reserved'],
      ['64:ff9b:1::1', 'private'],
    ];
    for (const [ip, range] of refused) assert.equal(refusedRange(ip), range, ip);
  });

  test('IPv6 forms of IPv4 addresses are judged by the IPv4 address', () => {
    const cases: [string, string | undefined][] = [
      ['::ffff:127.0.0.1', 'loopback'],
      ['::ffff:7f00:1', 'loopback'],
      ['0:0:0:0:0:ffff:a00:1', 'private'],
      ['::ffff:169.254.169.254', 'link-local'],
      ['::ffff:8.8.8.8', undefined],
      ['64:ff9b::10.0.0.1', 'private'],
      ['64:ff9b::808:808', undefined],
      ['2002:7f00:1::', 'loopback'],
      ['2002:c0a8:101::1', 'private'],
      ['2002:808:808::1', undefined],
    ];
    for (const [ip, range] of cases) assert.equal(refusedRange(ip), range, ip);
  });

  test('accepts public IPv6 addresses; anything that is not an address is refused', () => {
    for (const ip of ['2606:4700:4700::1111', '2001:4860:4860::8888', '2a00:1450::1']) assert.equal(refusedRange(ip), undefined, ip);
    for (const s of ['', 'localhost', 'example.com', '1.2.3', '256.1.1.1', '[::1]']) assert.equal(refusedRange(s), 'not an IP address', s);
    assert.equal(refusedRange('fe80::1%eth0'), 'link-local');
  });

  test('ipv6Hextets expands :: and a trailing dotted quad', () => {
    assert.deepEqual(ipv6Hextets('::'), [0, 0, 0, 0, 0, 0, 0, 0]);
    assert.deepEqual(ipv6Hextets('1::'), [1, 0, 0, 0, 0, 0, 0, 0]);
    assert.deepEqual(ipv6Hextets('fe80::1:2'), [0xfe80, 0, 0, 0, 0, 0, 1, 2]);
    assert.deepEqual(ipv6Hextets('::ffff:1.2.3.4'), [0, 0, 0, 0, 0, 0xffff, 0x102, 0x304]);
    assert.deepEqual(ipv6Hextets('1:2:3:4:5:6:7:8'), [1, 2, 3, 4, 5, 6, 7, 8]);
    assert.equal(ipv6Hextets('1.2.3.4'), undefined);
  });
});

test('addressKey: IPv4 as it is, IPv4-mapped IPv6 as IPv4, IPv6 by its /64', () => {
  const keys: [string | undefined, string | undefined][] = [
    ['192.0.2.7', '192.0.2.7'],
    ['::ffff:192.0.2.7', '192.0.2.7'],
    ['::FFFF:127.0.0.1', '127.0.0.1'],
    ['2001:db8:1:2:aaaa::1', '2001:db8:1:2::/64'],
    ['2001:db8:1:2::ffff', '2001:db8:1:2::/64'],
    ['2001:0db8:0001:0002:ffff:0:0:9', '2001:db8:1:2::/64'],
    ['2001:db8::1', '2001:db8:0:0::/64'],
    ['::1', '0:0:0:0::/64'],
    ['fe80::1%eth0', 'fe80:0:0:0::/64'],
    [undefined, undefined],
  ];
  for (const [address, key] of keys) assert.equal(addressKey(address), key, address);
});

test("this machine's own addresses are no client: a proxy in front of Flora is every client at once", () => {
  for (const own of ['127.0.0.1', '127.3.2.1', '::1', '::ffff:127.0.0.1', '::FFFF:127.0.0.9']) {
    assert.ok(isLoopbackAddress(own), own);
    assert.equal(clientAddressKey(own), undefined, own);
  }
  for (const other of ['192.0.2.7', '10.0.0.1', '128.0.0.1', '::2', '::ffff:10.0.0.1', '2001:db8::1']) assert.ok(!isLoopbackAddress(other), other);
  assert.equal(clientAddressKey('::ffff:10.0.0.1'), '10.0.0.1');
  assert.equal(clientAddressKey('2001:db8:1:2:aaaa::1'), '2001:db8:1:2::/64');
  assert.equal(clientAddressKey(undefined), undefined);
});
