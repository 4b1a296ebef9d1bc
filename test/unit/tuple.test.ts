import { test } from 'node:test';
import assert from 'node:assert/strict';
import { inspect } from 'node:util';
import { compareValues, valuesEqual } from '../../src/values/order';
import { Bytes, DateV, Lambda, Page, Ref, SetV, Time, TxnTime, type Value } from '../../src/values/types';
import { decodeTuple, encodeTuple, encodeTuplePrefix, encodeU64, prefixEnd } from '../../src/storage/tuple';
import { prng } from '../helpers/prng';


const show = (v: unknown) => inspect(v, { depth: 9 });
const memcmp = (a: Uint8Array, b: Uint8Array) => Math.sign(Buffer.compare(a, b)) || 0;
const sign = (n: number) => Math.sign(n) || 0;

/** Exact identity: Long vs Double, -0, NaN, key order, optional fields. */
function identical(a: unknown, b: unknown): boolean {
  if (typeof a === 'number' && typeof b === 'number') return Object.is(a, b);
  if (typeof a !== 'object' || typeof b !== 'object' || a === null || b === null) return a === b;
  if (a.constructor !== b.constructor) return false;
  if (Array.isArray(a)) return a.length === (b as unknown[]).length && a.every((x, i) => identical(x, (b as unknown[])[i]));
  if (a instanceof Map) {
    const eb = [...(b as Map<string, unknown>)];
    return a.size === eb.length && [...a].every(([k, v], i) => k === eb[i][0] && identical(v, eb[i][1]));
  }
  if (a instanceof Bytes) return Buffer.compare(a.bytes, (b as Bytes).bytes) === 0;
  if (a instanceof Time) return a.nanos === (b as Time).nanos;
  if (a instanceof DateV) return a.days === (b as DateV).days;
  if (a instanceof Ref) {
    // Tuples keep a ref's address only (names are looked up on reads).
    const x = a.addr!;
    const y = (b as Ref).addr!;
    return x.db === y.db && x.coll === y.coll && x.id === y.id;
  }
  if (a instanceof SetV) return identical(a.expr, (b as SetV).expr);
  if (a instanceof Lambda) {
    const l = b as Lambda;
    return identical(a.params, l.params) && identical(a.body, l.body) && a.apiVersion === l.apiVersion && identical(a.closure ?? null, l.closure ?? null);
  }
  if (a instanceof Page) {
    const p = b as Page;
    return identical(a.data, p.data) && identical(a.before, p.before) && identical(a.after, p.after);
  }
  return a === b; // TxnTime
}

function generator(seed: number) {
  const rnd = prng(seed);
  const int = (n: number) => Math.floor(rnd() * n);
  const pick = <T>(xs: readonly T[]): T => xs[int(xs.length)];
  // Small alphabets make collisions and near-ties (case, accents, prefixes) likely.
  const chars = ['a', 'A', 'b', 'B', 'e', 'é', 'É', 'e\u0301', ' ', '-', '_', '0', '9', '\0', '\u00ff', 'ω', '😀', '\uFEFF'];
  const str = () => Array.from({ length: int(5) }, () => pick(chars)).join('');
  const longs = [0n, 1n, -1n, 2n, 3n, 2n ** 53n, 2n ** 53n + 1n, -(2n ** 53n) - 1n, 2n ** 63n - 1n, -(2n ** 63n), 2n ** 62n + 1n, 1000n];
  const doubles = [0, -0, 1, -1, 1.5, 0.1, 2 ** 53, 2 ** 63, -(2 ** 63), 1e300, -1e-300, Infinity, -Infinity, NaN];
  const long = () => (rnd() < 0.5 ? pick(longs) : BigInt.asIntN(64, BigInt(int(2 ** 32)) * BigInt(int(2 ** 32)) - 2n ** 62n));
  const double = () => (rnd() < 0.5 ? pick(doubles) : (rnd() - 0.5) * 10 ** int(20));
  // Refs are addresses: document id, collection id (0 = a native collection itself), database.
  const ref = (_depth: number): Ref =>
    Ref.anonymous({
      db: pick([0n, 1n, 7n, 2n ** 64n - 1n]),
      coll: pick([0, 2, 3, 9, 1024, 1025, 32767]),
      id: pick([0n, 1n, 2n, 10n, 2n ** 64n - 1n, 2n ** 63n]),
    });
  const obj = (depth: number) => new Map(Array.from({ length: int(3) }, () => [pick(['a', 'b', 'B', 'é']), value(depth - 1)] as [string, Value]));
  const value = (depth: number): Value => {
    const k = int(depth > 0 ? 17 : 11);
    switch (k) {
      case 0:
        return long();
      case 1:
        return double();
      case 2:
        return str();
      case 3:
        return new Bytes(Uint8Array.from({ length: int(4) }, () => pick([0, 1, 0x7f, 0x80, 0xff])));
      case 4:
        return ref(2);
      case 5:
        return new Time(pick([0n, 1n, -1n, 10n ** 18n, -(10n ** 20n), 2n ** 90n]) + BigInt(int(3)));
      case 6:
        return new DateV(int(5) - 2);
      case 7:
        return rnd() < 0.5;
      case 8:
        return null;
      case 9:
        return TxnTime.instance;
      case 10:
        return pick([0n, 1n, 1.0, 0, -0, 2n ** 53n + 1n]);
      case 11:
      case 12:
        return Array.from({ length: int(4) }, () => value(depth - 1));
      case 13:
        return obj(depth);
      case 14:
        return new SetV(obj(depth));
      case 15:
        return new Lambda(pick(['x', '_', ['a', 'b']]), value(depth - 1), pick([undefined, '4', '3']), rnd() < 0.5 ? undefined : obj(depth));
      default:
        return new Page(Array.from({ length: int(3) }, () => value(depth - 1)), rnd() < 0.5 ? undefined : value(0), rnd() < 0.5 ? undefined : value(0));
    }
  };
  return { value, int };
}

test('memcmp of encodings agrees with compareValues, and decoding is exact', () => {
  const { value } = generator(42);
  const values = Array.from({ length: 3000 }, () => value(3));
  const encoded = values.map((v) => encodeTuple([v]));
  for (let i = 0; i < values.length; i++) {
    const back = decodeTuple(encoded[i]);
    assert.equal(back.length, 1);
    if (!identical(back[0], values[i])) assert.fail(`round trip: ${show(values[i])} -> ${show(back[0])}`);
  }
  // Sort by the keys, then check every neighbour pair and a sample of random pairs.
  const idx = values.map((_, i) => i).sort((a, b) => Buffer.compare(encoded[a], encoded[b]));
  const check = (i: number, j: number) => {
    const c = sign(compareValues(values[i], values[j]));
    const m = memcmp(encoded[i], encoded[j]);
    if (c !== 0) {
      if (m !== c) assert.fail(`compareValues says ${c}, keys say ${m}: ${show(values[i])} vs ${show(values[j])}`);
    } else if (!valuesEqual(values[i], values[j])) {
      assert.fail(`compare 0 but not equal: ${show(values[i])} vs ${show(values[j])}`);
    }
    if (m === 0 && !identical(values[i], values[j])) assert.fail(`same key: ${show(values[i])} vs ${show(values[j])}`);
  };
  for (let k = 1; k < idx.length; k++) check(idx[k - 1], idx[k]);
  const { int } = generator(7);
  for (let k = 0; k < 200_000; k++) check(int(values.length), int(values.length));
});

test('tuples: element-wise order and prefixes first', () => {
  const { value } = generator(99);
  for (let k = 0; k < 2000; k++) {
    const a = Array.from({ length: 1 + (k % 3) }, () => value(1));
    const b = k % 5 === 0 ? [...a, value(1)] : Array.from({ length: 1 + (k % 4) }, () => value(1));
    let expected = 0;
    for (let i = 0; i < Math.min(a.length, b.length) && expected === 0; i++) expected = sign(compareValues(a[i], b[i]));
    if (expected === 0) expected = sign(a.length - b.length);
    const m = memcmp(encodeTuple(a), encodeTuple(b));
    if (expected !== 0) assert.equal(m, expected);
    else if (m === 0) assert.ok(identical(a, b));
    const back = decodeTuple(encodeTuple(a));
    assert.ok(identical(back, a));
  }
});

test('numbers: Long and Double keep their types; longs beyond 2^53 are exact', () => {
  const values: Value[] = [2n ** 63n - 1n, -(2n ** 63n), 2n ** 53n + 1n, 1n, 1.0, -0, 0, 0n, NaN, Infinity, -Infinity];
  for (const v of values) {
    const [back] = decodeTuple(encodeTuple([v]));
    assert.equal(typeof back, typeof v);
    assert.ok(Object.is(back, v) || back === v, `${String(v)}`);
  }
  assert.notDeepEqual(encodeTuple([1n]), encodeTuple([1.0]));
  assert.equal(memcmp(encodeTuple([2n ** 53n]), encodeTuple([2n ** 53n + 1n])), -1);
  assert.equal(memcmp(encodeTuple([2n ** 63n - 2n]), encodeTuple([2n ** 63n - 1n])), -1);
  assert.equal(memcmp(encodeTuple([2n ** 63n - 1n]), encodeTuple([2 ** 63])), -1);
});

test('numbers inside composites: numeric ties defer to later elements', () => {
  // [1, "b"] vs [1.0, "a"]: the numbers tie, so the strings decide, in keys as in compareValues.
  assert.equal(memcmp(encodeTuple([1n, 'b']), encodeTuple([1.0, 'a'])), 1);
  assert.equal(memcmp(encodeTuple([[0n, 'b']]), encodeTuple([[-0, 'a']])), 1);
  assert.equal(memcmp(encodeTuple([1.0]), encodeTuple([1n, 'a'])), -1);
  // Still distinct keys that decode to their own types.
  assert.notDeepEqual(encodeTuple([1n, 'a']), encodeTuple([1.0, 'a']));
  assert.ok(identical(decodeTuple(encodeTuple([[1.0, 2n], obj1(-0)])), [[1.0, 2n], obj1(-0)]));
  // A prefix covers the numerically equal values of either type.
  const p = encodeTuplePrefix([1n]);
  const end = prefixEnd(p);
  for (const t of [[1n], [1.0], [1n, 'x'], [1.0, null]] as Value[][]) {
    const k = encodeTuple(t);
    assert.ok(memcmp(p, k) <= 0 && memcmp(k, end) < 0);
  }
  assert.equal(memcmp(encodeTuple([2n]), end), 1);
  assert.equal(memcmp(encodeTuple([1.5]), end), 1);
});

function obj1(v: Value): Value {
  return new Map([['k', v]]);
}

test('prefixEnd bounds every key with the prefix', () => {
  const p = encodeTuple(['a', 1n]);
  const end = prefixEnd(p);
  for (const tail of [[], [null], ['zzz'], [Infinity]] as Value[][]) {
    const k = encodeTuple(['a', 1n, ...tail]);
    assert.equal(memcmp(p, k) <= 0 && memcmp(k, end), -1);
  }
  assert.equal(memcmp(encodeTuple(['a', 2n]), end), 1);
  assert.deepEqual(prefixEnd(Uint8Array.of(1, 0xff, 0xff)), Uint8Array.of(2));
  assert.throws(() => prefixEnd(Uint8Array.of(0xff)));
  // A Buffer prefix (whose slice is a view) is left as it was.
  const buf = Buffer.from([1, 2, 3]);
  assert.deepEqual(prefixEnd(buf), Uint8Array.of(1, 2, 4));
  assert.deepEqual([...buf], [1, 2, 3]);
  assert.deepEqual(encodeU64(258n), Uint8Array.of(0, 0, 0, 0, 0, 0, 1, 2));
});
