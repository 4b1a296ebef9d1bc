import { test } from 'node:test';
import assert from 'node:assert/strict';
import { hashValue } from '../../src/values/hash';
import { valuesEqual } from '../../src/values/order';
import { Bytes, DateV, Ref, Time, type Value } from '../../src/values/types';

const obj = (entries: [string, Value][]) => new Map(entries);

test('equal values hash alike: 1 and 1.0, -0 and 0, objects in any key order, refs, times', () => {
  const pairs: [Value, Value][] = [
    [1n, 1],
    [0, -0],
    [-0, 0n],
    [[1n, 'a', null], [1, 'a', null]],
    [obj([['a', 1n], ['b', [true]]]), obj([['b', [true]], ['a', 1]])],
    [Ref.doc('things', '1'), Ref.doc('things', '1')],
    [new Time(5n), new Time(5n)],
    [new DateV(3), new DateV(3)],
    [new Bytes(Uint8Array.of(1, 2)), new Bytes(Uint8Array.of(1, 2))],
  ];
  for (const [a, b] of pairs) {
    assert.ok(valuesEqual(a, b), `${String(a)} = ${String(b)}`);
    assert.equal(hashValue(a), hashValue(b), `${String(a)} ~ ${String(b)}`);
  }
});

test('different values of one shape rarely share a hash', () => {
  const seen = new Set<number>();
  for (let i = 0; i < 100_000; i++) seen.add(hashValue([BigInt(i), BigInt(i % 7)]));
  assert.ok(seen.size > 99_900, `${seen.size} distinct hashes`);
  const maps = new Set<number>();
  for (let i = 0; i < 10_000; i++) maps.add(hashValue(obj([['n', BigInt(i)], ['s', `v${i}`]])));
  assert.ok(maps.size > 9_990, `${maps.size} distinct hashes`);
});

test('a value of shared parts hashes in the time of its slots, and like an equal value built apart', () => {
  // Two 2^60-leaf values made of forty small arrays each: walking either would never end.
  let a: Value = 1n;
  let b: Value = 1;
  for (let i = 0; i < 60; i++) {
    a = [a, a];
    b = [b, b];
  }
  assert.equal(hashValue(a), hashValue(b));
  let c: Value = 2n;
  for (let i = 0; i < 60; i++) c = [c, c];
  assert.notEqual(hashValue(a), hashValue(c));
});
