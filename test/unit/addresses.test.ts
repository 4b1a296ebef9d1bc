import { test } from 'node:test';
import assert from 'node:assert/strict';
import { addressKey, clientAddressKey, isLoopbackAddress } from '../../src/net/addresses';

test('addressKey: IPv4 as it is, IPv4-mapped IPv6 as IPv4, IPv6 by its /64', () => {
  assert.equal(addressKey('192.0.2.7'), '192.0.2.7');
  assert.equal(addressKey('::ffff:192.0.2.7'), '192.0.2.7');
  assert.equal(addressKey('::FFFF:127.0.0.1'), '127.0.0.1');
  assert.equal(addressKey('2001:db8:1:2:aaaa::1'), '2001:db8:1:2::/64');
  assert.equal(addressKey('2001:db8:1:2::ffff'), '2001:db8:1:2::/64');
  assert.equal(addressKey('2001:0db8:0001:0002:ffff:0:0:9'), '2001:db8:1:2::/64');
  assert.equal(addressKey('2001:db8::1'), '2001:db8:0:0::/64');
  assert.equal(addressKey('::1'), '0:0:0:0::/64');
  assert.equal(addressKey('fe80::1%eth0'), 'fe80:0:0:0::/64');
  assert.equal(addressKey(undefined), undefined);
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
