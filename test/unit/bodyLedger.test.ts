// The accounting of request bodies (src/server/bodyLedger.ts, bodyRate.ts): bytes charged as they
// arrive to the pool and to the shares of a connection, a secret and a client address; released once;
// and the minimum rate a body must keep once its grace has passed.

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { MemoryPool } from '../../src/model/memoryPool';
import { BodyLedger, ledgerOf, secretKey } from '../../src/server/bodyLedger';
import { BODY_RATE_CHECK_MS, nextCheckMs, tooSlow } from '../../src/server/bodyRate';
import { defaultConfig } from '../../src/config';

const MB = 1024 * 1024;
const SHARES = { perConnection: 16 * MB, perSecret: 24 * MB, perAddress: 32 * MB };

function ledger(capacity = 100 * MB, shares = SHARES): BodyLedger {
  return new BodyLedger(new MemoryPool(capacity), shares);
}

test('a body holds what has arrived, in the pool and in each of its shares, until released', () => {
  const l = ledger();
  const conn = {};
  const body = l.open({ connection: conn, secret: 'k', address: '10.0.0.1' });
  assert.equal(l.pool.inUse, 0, 'nothing is taken before a byte arrives');
  assert.ok(body.add(1));
  assert.ok(body.add(3 * MB));
  assert.equal(body.held, 3 * MB + 1);
  assert.equal(l.pool.inUse, 3 * MB + 1);
  assert.deepEqual(l.held({ connection: conn, secret: 'k', address: '10.0.0.1' }), { connection: 3 * MB + 1, secret: 3 * MB + 1, address: 3 * MB + 1 });
  body.release();
  assert.equal(l.pool.inUse, 0);
  assert.deepEqual(l.held({ connection: conn, secret: 'k', address: '10.0.0.1' }), { connection: 0, secret: 0, address: 0 });
});

test('released once: a second release, and bytes offered after it, change nothing', () => {
  const l = ledger();
  const conn = {};
  const a = l.open({ connection: conn, secret: 'k' });
  const b = l.open({ connection: conn, secret: 'k' });
  assert.ok(a.add(MB));
  assert.ok(b.add(2 * MB));
  a.release();
  a.release();
  assert.equal(a.add(MB), false);
  assert.equal(l.pool.inUse, 2 * MB);
  assert.equal(l.held({ connection: conn }).connection, 2 * MB);
  b.release();
  assert.equal(l.pool.inUse, 0);
});

test('one connection holds at most its share; another connection of the same secret and address still fits', () => {
  const l = ledger();
  const one = {};
  const streams = Array.from({ length: 5 }, () => l.open({ connection: one, secret: 'k', address: 'a' }));
  const taken = streams.map((s) => s.add(4 * MB));
  assert.deepEqual(taken, [true, true, true, true, false], 'the fifth 4 MiB body is past 16 MiB');
  assert.equal(streams[4].held, 0, 'a refused chunk takes nothing');
  assert.equal(l.pool.inUse, 16 * MB);
  const other = l.open({ connection: {}, secret: 'k', address: 'a' });
  assert.ok(other.add(4 * MB));
  for (const s of [...streams, other]) s.release();
  assert.equal(l.pool.inUse, 0);
});

test('one secret over many connections holds at most its share; other secrets still fit', () => {
  const l = ledger();
  const bodies = Array.from({ length: 4 }, () => l.open({ connection: {}, secret: 'k' }));
  assert.deepEqual(bodies.map((b) => b.add(8 * MB)), [true, true, true, false]);
  const root = l.open({ connection: {}, secret: 'root' });
  assert.ok(root.add(8 * MB));
  // A scoped form of the key counts as the key.
  assert.equal(secretKey('fnAAA:db:admin'), secretKey('fnAAA'));
});

test('one address over many connections and secrets holds at most its share; other addresses still fit', () => {
  const l = ledger();
  const bodies = Array.from({ length: 5 }, (_, i) => l.open({ connection: {}, secret: `token${i}`, address: '203.0.113.9' }));
  assert.deepEqual(bodies.map((b) => b.add(8 * MB)), [true, true, true, true, false]);
  assert.ok(l.open({ connection: {}, secret: 'other', address: '203.0.113.10' }).add(8 * MB));
});

test('a per-address share of 0 is none (clients behind one proxy)', () => {
  const l = ledger(100 * MB, { ...SHARES, perAddress: 0 });
  const bodies = Array.from({ length: 6 }, (_, i) => l.open({ connection: {}, secret: `s${i}`, address: '127.0.0.1' }));
  assert.ok(bodies.every((b) => b.add(8 * MB)));
  for (const b of bodies) b.release();
  assert.equal(l.pool.inUse, 0);
});

test('a full pool refuses whoever asks, within its shares or not, and takes nothing from the shares', () => {
  const l = ledger(10 * MB);
  const conn = {};
  const a = l.open({ connection: conn });
  assert.ok(a.add(8 * MB));
  const b = l.open({ connection: {} });
  assert.equal(b.add(4 * MB), false);
  assert.equal(l.held({ connection: conn }).connection, 8 * MB);
  assert.equal(l.pool.inUse, 8 * MB);
});

test('the default shares fit a full-size body, and leave most of the pool to the others', () => {
  const c = defaultConfig();
  assert.ok(c.bodyMemoryConnectionMb >= c.maxBodyMb);
  assert.ok(c.bodyMemoryConnectionMb <= c.bodyMemoryAddressMb && c.bodyMemoryConnectionMb <= c.bodyMemorySecretMb);
  assert.ok(Math.max(c.bodyMemorySecretMb, c.bodyMemoryAddressMb) <= c.memoryMb / 2);
});

test('listeners of one pool share one ledger', () => {
  const pool = new MemoryPool(100 * MB);
  assert.equal(ledgerOf(pool, SHARES), ledgerOf(pool, SHARES));
  assert.notEqual(ledgerOf(pool, SHARES), ledgerOf(new MemoryPool(100 * MB), SHARES));
});

test('the minimum rate: no verdict in the grace, then the average since the read began', () => {
  const rate = { minBytesPerSecond: 240, graceMs: 5000 };
  assert.equal(tooSlow(rate, 1, 4999), false, 'within the grace anything goes');
  assert.equal(tooSlow(rate, 1, 5000), true, 'one byte in 5 s');
  assert.equal(tooSlow(rate, 1200, 5000), false, '240 B/s exactly');
  assert.equal(tooSlow(rate, 1200, 6000), true, 'a burst then silence falls below');
  assert.equal(tooSlow(rate, 8 * MB, 29_000), false, 'a full body sent at once never does');
  assert.equal(tooSlow({ minBytesPerSecond: 0, graceMs: 5000 }, 0, 60_000), false, '0 = no minimum');
  assert.equal(nextCheckMs(rate, 0), 5000);
  assert.equal(nextCheckMs(rate, 5003), BODY_RATE_CHECK_MS);
});

test('the default rate lets a slow real uplink through: 2G GPRS (~20 kbit/s) sends 2,500 B/s', () => {
  const c = defaultConfig();
  const rate = { minBytesPerSecond: c.bodyMinRate, graceMs: c.bodyRateGraceMs };
  assert.equal(tooSlow(rate, 2500 * 10, 10_000), false);
  assert.ok(c.bodyMinRate > 0 && c.bodyRateGraceMs + BODY_RATE_CHECK_MS < c.bodyTimeoutMs);
});
