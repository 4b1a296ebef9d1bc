import { collRef, docRef } from '../helpers/refs';
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { inspect } from 'node:util';
import { compareValues } from '../../src/values/order';
import { Bytes, DateV, Time, type Value } from '../../src/values/types';
import { encodeTuple, encodeTuplePrefix } from '../../src/storage/tuple';
import { cursorBound, elementBody, entryKey, prefixEnd, termsPrefix } from '../../src/model/indexKeys';
import type { IndexDef, IndexEntryValue } from '../../src/model/indexDef';
import { prng } from '../helpers/prng';


const show = (v: unknown) => inspect(v, { depth: 9 });
const sign = (n: number) => Math.sign(n) || 0;
const memcmp = (a: Uint8Array, b: Uint8Array) => sign(Buffer.compare(a, b));
const startsWith = (key: Uint8Array, prefix: Uint8Array) => Buffer.from(key).subarray(0, prefix.length).equals(prefix);
const bytesEqual = (a: Uint8Array, b: Uint8Array) => Buffer.compare(a, b) === 0;
/** Like assert.equal, but builds the (expensive) message only on failure. */
function expectEqual<T>(actual: T, expected: T, context: () => unknown): void {
  if (actual !== expected) assert.fail(`${show(actual)} !== ${show(expected)} for ${show(context())}`);
}

function makeDef(termCount: number, reverse: boolean[]): IndexDef {
  return {
    db: 0n,
    id: 32768,
    name: 'idx',
    sources: [{ collection: 'c', bindings: new Map() }],
    terms: Array.from({ length: termCount }, (_, i) => ({ field: ['data', `t${i}`], reverse: false, mva: true })),
    values: reverse.map((r, i) => ({ field: ['data', `v${i}`], reverse: r, mva: true })),
    unique: false,
    active: true,
  };
}

/** Small value domains so that ties, numeric equality across types and prefixes are frequent. */
function generator(seed: number) {
  const rnd = prng(seed);
  const int = (n: number) => Math.floor(rnd() * n);
  const pick = <T>(xs: readonly T[]): T => xs[int(xs.length)];
  const scalars: Value[] = [
    0n, 1n, -1n, 2n, 2n ** 62n, -(2n ** 63n), 1, 1.5, 0, -0, -1, 2, NaN, Infinity, -Infinity,
    '', 'a', 'A', 'b', 'ab', 'é', 'a\0', null, true, false,
    new Bytes(Uint8Array.of()), new Bytes(Uint8Array.of(0)), new Bytes(Uint8Array.of(0xff)),
    new Time(0n), new Time(-1000n), new DateV(0), new DateV(-3),
    docRef('c', '1'), docRef('c', '2'), collRef('c'),
  ];
  const value = (depth: number): Value => {
    const k = int(depth > 0 ? 10 : 8);
    if (k < 8) return pick(scalars);
    if (k === 8) return Array.from({ length: int(3) }, () => value(depth - 1));
    return new Map(Array.from({ length: int(3) }, () => [pick(['a', 'b']), value(depth - 1)] as [string, Value]));
  };
  const ref = () => docRef('c', pick(['1', '2', '3', '10']));
  const entry = (def: IndexDef): IndexEntryValue => ({
    terms: def.terms.map(() => value(1)),
    values: def.values.map(() => value(1)),
    ref: ref(),
  });
  return { rnd, int, pick, value, entry };
}

/** The set order of two entries by compareValues: terms, values (reversed where flagged), ref. */
function expectedOrder(def: IndexDef, a: IndexEntryValue, b: IndexEntryValue): number {
  for (let i = 0; i < a.terms.length; i++) {
    const c = sign(compareValues(a.terms[i], b.terms[i]));
    if (c !== 0) return c;
  }
  for (let i = 0; i < a.values.length; i++) {
    const c = sign(compareValues(a.values[i], b.values[i]));
    if (c !== 0) return def.values[i].reverse ? -c : c;
  }
  return sign(compareValues(a.ref, b.ref));
}

/** Exact identity (types included): the full tuple encoding is injective. */
const identical = (a: IndexEntryValue, b: IndexEntryValue) =>
  bytesEqual(encodeTuple([...a.terms, ...a.values, a.ref]), encodeTuple([...b.terms, ...b.values, b.ref]));

test('element bodies concatenate to the tuple prefix and are prefix-free', () => {
  const g = generator(7);
  for (let n = 0; n < 2000; n++) {
    const tuple = Array.from({ length: g.int(4) }, () => g.value(2));
    const joined = Buffer.concat(tuple.map(elementBody));
    expectEqual(joined.equals(encodeTuplePrefix(tuple)), true, () => tuple);
    const [a, b] = [g.value(2), g.value(2)];
    const [ba, bb] = [elementBody(a), elementBody(b)];
    if (bytesEqual(ba, bb)) {
      expectEqual(compareValues(a, b), 0, () => [a, b]);
      continue;
    }
    // Distinct bodies differ before either ends, so complementing them reverses their order.
    expectEqual(startsWith(ba, bb) || startsWith(bb, ba), false, () => [a, b]);
    const inv = (x: Uint8Array) => x.map((byte) => ~byte & 0xff);
    expectEqual(memcmp(inv(ba), inv(bb)), -memcmp(ba, bb), () => [a, b]);
    expectEqual(memcmp(ba, bb), sign(compareValues(a, b)), () => [a, b]);
  }
});

test('memcmp of entry keys follows the set order (random reverse flags)', () => {
  for (let seed = 1; seed <= 40; seed++) {
    const g = generator(seed);
    const def = makeDef(g.int(3), Array.from({ length: g.int(4) }, () => g.rnd() < 0.5));
    const entries = Array.from({ length: 60 }, () => g.entry(def));
    const keys = entries.map((e) => entryKey(def, e));
    for (let i = 0; i < entries.length; i++) {
      for (let j = 0; j < entries.length; j++) {
        const expected = expectedOrder(def, entries[i], entries[j]);
        const actual = memcmp(keys[i], keys[j]);
        const what = () => ({ reverse: def.values.map((v) => v.reverse), a: entries[i], b: entries[j] });
        if (expected !== 0) expectEqual(actual, expected, what);
        else expectEqual(actual === 0, identical(entries[i], entries[j]), what);
      }
    }
  }
});

test('numerically equal Long and Double entries get distinct keys', () => {
  const def = makeDef(1, [false, true]);
  const ref = docRef('c', '1');
  const key = (t: Value, v: Value) => entryKey(def, { terms: [t], values: [v, v], ref });
  assert.ok(!bytesEqual(key(1n, 1n), key(1, 1n)));
  assert.ok(!bytesEqual(key(1n, 1n), key(1n, 1)));
  assert.ok(!bytesEqual(key(1n, [1n]), key(1n, [1])));
  assert.ok(!bytesEqual(key(0, 0), key(0, -0)));
  assert.ok(bytesEqual(key(1n, 1.5), key(1n, 1.5)));
});

test('termsPrefix covers exactly the entries with those terms', () => {
  const g = generator(99);
  const def = makeDef(2, [false, true]);
  const entries = Array.from({ length: 300 }, () => g.entry(def));
  const keys = entries.map((e) => entryKey(def, e));
  for (let n = 0; n < 100; n++) {
    const terms = g.rnd() < 0.5 ? g.pick(entries).terms : [g.value(1), g.value(1)];
    const prefix = termsPrefix(def, terms);
    const end = prefixEnd(prefix);
    entries.forEach((e, i) => {
      const same = e.terms.every((t, k) => compareValues(t, terms[k]) === 0);
      expectEqual(startsWith(keys[i], prefix), same, () => ({ terms, e }));
      expectEqual(memcmp(keys[i], prefix) >= 0 && memcmp(keys[i], end) < 0, same, () => ({ terms, e }));
    });
  }
});

test('cursorBound orders between the right entries, for full and shorter cursors', () => {
  for (let seed = 100; seed < 120; seed++) {
    const g = generator(seed);
    const def = makeDef(1, Array.from({ length: 1 + g.int(3) }, () => g.rnd() < 0.5));
    const terms = [g.value(0)];
    const entries = Array.from({ length: 80 }, () => ({ ...g.entry(def), terms }));
    const keys = entries.map((e) => entryKey(def, e));
    for (let n = 0; n < 60; n++) {
      const length = g.int(def.values.length + 3); // may run past the ref slot
      const from = g.pick(entries);
      const tuple: Value[] = [...from.values, from.ref];
      const cursor = Array.from({ length }, (_, i) => (i < tuple.length && g.rnd() < 0.7 ? tuple[i] : g.value(1)));
      const bound = cursorBound(def, terms, cursor);
      entries.forEach((e, k) => {
        const entryTuple: Value[] = [...e.values, e.ref];
        let c = 0;
        for (let i = 0; i < Math.min(length, entryTuple.length) && c === 0; i++) {
          c = sign(compareValues(entryTuple[i], cursor[i]));
          if (i < def.values.length && def.values[i].reverse) c = -c;
        }
        // Equal on the cursor's positions: the entry is at or after the bound (prefix semantics).
        expectEqual(memcmp(keys[k], bound) >= 0, c >= 0, () => ({ cursor, e }));
      });
    }
  }
});

test('a non-ref in the ref slot places the bound before or after every ref', () => {
  const def = makeDef(0, [false]);
  const keys = ['1', '2', '99'].map((id) => entryKey(def, { terms: [], values: [5n], ref: docRef('c', id) }));
  const below = cursorBound(def, [], [5n, 0n]); // numbers sort before refs
  const above = cursorBound(def, [], [5n, null]); // null sorts after everything
  for (const k of keys) {
    assert.equal(memcmp(below, k), -1);
    assert.equal(memcmp(above, k), 1);
  }
  const next = entryKey(def, { terms: [], values: [6n], ref: docRef('c', '1') });
  assert.equal(memcmp(above, next), -1);
});

test('reverse positions sort descending, terms never reverse', () => {
  const def = makeDef(1, [true, false]);
  const ref = docRef('c', '1');
  const key = (t: Value, a: Value, b: Value) => entryKey(def, { terms: [t], values: [a, b], ref });
  assert.equal(memcmp(key(1n, 2n, 0n), key(1n, 1n, 0n)), -1);
  assert.equal(memcmp(key(1n, 1n, 0n), key(1n, 1n, 1n)), -1);
  assert.equal(memcmp(key(1n, null, 0n), key(1n, 1n, 0n)), -1);
  assert.equal(memcmp(key(1n, 1n, 0n), key(2n, 9n, 0n)), -1);
  const reversedTerm = { ...def, terms: [{ ...def.terms[0], reverse: true }] };
  assert.ok(bytesEqual(termsPrefix(reversedTerm, [1n]), termsPrefix(def, [1n])));
});
