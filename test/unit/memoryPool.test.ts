import { test } from 'node:test';
import assert from 'node:assert/strict';
import { MemoryPool, type HeapWatch } from '../../src/model/memoryPool';

const MB = 1024 * 1024;

/** A heap, collector and clock the test moves by hand. */
function fakeProcess(): HeapWatch & { heap: number; time: number; collections: number; garbage: number } {
  const w = {
    heap: 100 * MB,
    time: 1_000_000,
    collections: 0,
    /** What a collection frees. */
    garbage: 0,
    readHeap: () => w.heap,
    now: () => w.time,
    collect: () => {
      w.collections++;
      w.heap -= w.garbage;
      w.garbage = 0;
    },
  };
  return w;
}

test('reservations fit in the capacity, and are given back', () => {
  const pool = new MemoryPool(10 * MB);
  assert.ok(pool.tryReserve(6 * MB));
  assert.ok(!pool.tryReserve(5 * MB));
  assert.ok(pool.tryReserve(4 * MB));
  assert.equal(pool.inUse, 10 * MB);
  pool.release(6 * MB);
  assert.ok(pool.tryReserve(5 * MB));
  pool.release(100 * MB); // more than held: never below zero
  assert.equal(pool.inUse, 0);
});

test('a live heap past the capacity above idle refuses new work and is collected at most once a second', () => {
  const fake = fakeProcess();
  const pool = new MemoryPool(50 * MB).watch(fake, 0);
  fake.heap += 40 * MB;
  pool.look();
  assert.ok(!pool.pressure);
  assert.ok(pool.tryReserve(1 * MB));
  // Past baseline + capacity, with nothing collectable: pressure, one collection, no new reservation.
  fake.heap += 20 * MB;
  pool.look();
  assert.ok(pool.pressure);
  assert.equal(fake.collections, 1);
  assert.ok(!pool.tryReserve(1));
  fake.time += 500;
  pool.look();
  assert.equal(fake.collections, 1, 'not again within a second');
  // A second later the collection finds garbage: the pressure ends there and then.
  fake.time += 600;
  fake.garbage = 30 * MB;
  pool.look();
  assert.equal(fake.collections, 2);
  assert.ok(!pool.pressure);
  assert.ok(pool.tryReserve(1 * MB));
  pool.stop();
  assert.ok(!pool.pressure, 'a pool that no longer watches only counts');
});

test('once a load is over and the pool has been idle for a while, memory is collected once', () => {
  const fake = fakeProcess();
  const pool = new MemoryPool(40 * MB).watch(fake, 0);
  assert.ok(pool.tryReserve(5 * MB));
  fake.heap += 20 * MB; // a load: over a quarter of the capacity above idle
  pool.look();
  pool.release(5 * MB);
  fake.garbage = 20 * MB;
  fake.time += 1000;
  pool.look();
  assert.equal(fake.collections, 0, 'not idle long enough yet');
  fake.time += 1500;
  pool.look();
  assert.equal(fake.collections, 1);
  fake.time += 10_000;
  pool.look();
  assert.equal(fake.collections, 1, 'once per load');
  pool.stop();
});

test('what the process keeps with nothing in flight (a module loaded on first use) becomes the idle baseline', () => {
  const fake = fakeProcess();
  const pool = new MemoryPool(10 * MB).watch(fake, 0);
  fake.heap += 15 * MB; // live for good, not garbage, and nothing reserved
  pool.look();
  assert.equal(fake.collections, 1);
  assert.ok(!pool.pressure, 'the collection found it live with nothing in flight');
  assert.ok(pool.tryReserve(5 * MB));
  // With a reservation held, what stays after a collection is that work's: still pressure.
  fake.heap += 12 * MB;
  fake.time += 2000;
  pool.look();
  assert.equal(fake.collections, 2);
  assert.ok(pool.pressure);
  assert.ok(!pool.tryReserve(1));
});
