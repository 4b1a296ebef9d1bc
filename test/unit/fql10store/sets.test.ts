// Sets over storage: collection scans and index ranges in the core's order, combinators over
// them, and cursors that a new store-open (another process) pages on from.

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { TestStore } from './harness';

async function library(s: TestStore): Promise<void> {
  await s.ok(`Collection.create({
    name: "Book",
    indexes: {
      byGenre: { terms: [{ field: ".genre" }], values: [{ field: ".year", order: "desc" }] },
      byYear: { values: [{ field: ".year" }] }
    }
  })`);
  for (let i = 1; i <= 7; i++) await s.ok(`Book.create({ id: "${i}", n: ${i}, genre: "${i % 2 ? 'sf' : 'crime'}", year: ${1960 + ((i * 3) % 7)} })`);
}

test('sets: a collection in id order, with the set combinators', async () => {
  const s = await TestStore.open();
  try {
    await library(s);
    assert.equal(await s.ok('Book.all().map(.n).toArray()'), '[1,2,3,4,5,6,7]');
    assert.equal(await s.ok('Book.all().reverse().take(2).map(.n).toArray()'), '[7,6]');
    assert.equal(await s.ok('Book.where(.n > 4).map(.n).toArray()'), '[5,6,7]');
    assert.equal(await s.ok('Book.firstWhere(.n > 4)!.n'), '5');
    assert.equal(await s.ok('Book.all().order(desc(.year)).take(3).map(.year).toArray()'), '[1966,1965,1964]');
    assert.equal(await s.ok('Book.all().count()'), '7');
  } finally {
    await s.close();
  }
});

test('sets: index terms, value order and ranges', async () => {
  const s = await TestStore.open();
  try {
    await library(s);
    // Index builds of a collection made with documents already in it complete in the background
    // elsewhere; here the collection is empty when made, so the index is queryable at once.
    assert.equal(await s.ok('Book.byGenre("sf").map(.year).toArray()'), '[1963,1962,1961,1960]');
    assert.equal(await s.ok('Book.byYear().map(.year).toArray()'), '[1960,1961,1962,1963,1964,1965,1966]');
    assert.equal(await s.ok('Book.byYear({ from: 1962, to: 1964 }).map(.year).toArray()'), '[1962,1963,1964]');
    assert.equal(await s.ok('Book.byGenre("crime", { from: 1964 }).map(.year).toArray()'), '[1964]');
  } finally {
    await s.close();
  }
});

test('sets: cursors page on in a new store-open, and bad cursors are refused', async () => {
  const s = await TestStore.open();
  try {
    await library(s);
    const first = await s.json('let min = 2; Book.where(b => b.n > min).map(b => b.n * 10).paginate(2)');
    assert.deepEqual(first.data, [30, 40]);
    await s.reopen();
    const second = await s.json(`Set.paginate("${first.after}")`);
    assert.deepEqual(second.data, [50, 60]);
    const third = await s.json(`Set.paginate("${second.after}")`);
    assert.deepEqual(third.data, [70]);
    assert.equal(third.after, undefined);

    const idx = await s.json('Book.byYear({ from: 1961 }).pageSize(3)');
    assert.equal(idx.data.length, 3);
    await s.reopen();
    const idx2 = await s.json(`Set.paginate("${idx.after}")`);
    assert.deepEqual(idx2.data.map((d: { year: number }) => d.year), [1964, 1965, 1966]);

    const order = await s.json('Book.all().order(.year).map(.n).paginate(4)');
    const order2 = await s.json(`Set.paginate("${order.after}")`);
    assert.deepEqual([...order.data, ...order2.data], [7, 5, 3, 1, 6, 4, 2]);

    for (const bad of ['nonsense', Buffer.from('{"v":1,"s":{"k":"seq"},"n":2}').toString('base64url'), Buffer.from('{"v":1,"s":{"k":"where","i":{"k":"arr","a":[]},"f":{"l":{"src":"(x) => ","short":false,"env":[]}},"vt":null},"c":null,"n":2}').toString('base64url')]) {
      const e = await s.err(`Set.paginate("${bad}")`);
      assert.equal(e.code, 'invalid_cursor');
      assert.equal(e.message, 'Cursor cursor is invalid or expired.');
    }
  } finally {
    await s.close();
  }
});
