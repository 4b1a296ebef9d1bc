import { test } from 'node:test';
import assert from 'node:assert/strict';
import { compareValues, valuesEqual } from '../../src/values/order';
import { Bytes, DateV, Lambda, Page, Ref, SetV, Time, TxnTime, obj, type Value } from '../../src/values/types';

const sign = (n: number) => Math.sign(n) || 0;

/** Asserts that `values` is sorted strictly ascending (each pair, not just neighbours). */
function assertAscending(values: Value[], equalNeighbours = false): void {
  for (let i = 0; i < values.length; i++) {
    for (let j = i + 1; j < values.length; j++) {
      const c = sign(compareValues(values[i], values[j]));
      const r = sign(compareValues(values[j], values[i]));
      assert.equal(r, 0 - c, `antisymmetry ${i} vs ${j}`);
      if (equalNeighbours) assert.ok(c <= 0, `expected #${i} <= #${j}`);
      else assert.equal(c, -1, `expected #${i} < #${j}: ${String(values[i])} vs ${String(values[j])}`);
    }
  }
}

test('IndexSpec "mix different types" order', () => {
  const ref = Ref.doc('widgets', '123');
  const mixed: Value[] = [
    1n,
    1.0,
    2n,
    2.0,
    3n,
    3.0,
    3.14,
    3.14,
    4n,
    4.0,
    new Bytes(Uint8Array.of(1, 2)),
    'str',
    ref,
    new Time(1_600_000_000_000_000_000n),
    new DateV(18_000),
  ];
  assertAscending(mixed, true);
  assert.equal(compareValues(1n, 1.0), 0);
  assert.equal(compareValues(3.14, 4n), -1);
  // Shuffle and sort back.
  const shuffled = [...mixed].reverse();
  shuffled.sort(compareValues);
  for (let i = 0; i < mixed.length; i++) assert.equal(compareValues(shuffled[i], mixed[i]), 0);
});

test('cross-type order of every type', () => {
  assertAscending([
    -5n,
    new Bytes(new Uint8Array()),
    '',
    [],
    obj(),
    Ref.native('collections'),
    new Time(0n),
    new DateV(0),
    new Lambda('x', new Map([['var', 'x']]), '4'),
    new Page([]),
    new SetV(obj([['documents', Ref.collection('c')]])),
    TxnTime.instance,
    false,
    true,
    null,
  ]);
});

test('numbers: exact long/double comparison, negatives, infinities, NaN, -0', () => {
  const big = 2n ** 53n;
  assertAscending([
    -Infinity,
    -(2n ** 63n),
    -1e18,
    -(big + 1n),
    -9007199254740992.0,
    -1.5,
    -1n,
    -0.5,
    0n,
    1e-300,
    1n,
    1.1,
    2n,
    9007199254740991n,
    9007199254740992.0,
    big + 1n,
    9007199254740994.0,
    big + 3n,
    2n ** 63n - 1n,
    9223372036854775808.0,
    1e300,
    Infinity,
    NaN,
  ]);
  assert.equal(compareValues(-0, 0), 0);
  assert.equal(compareValues(-0, 0n), 0);
  assert.equal(compareValues(NaN, NaN), 0);
  assert.equal(compareValues(big, 9007199254740992.0), 0);
  assert.equal(compareValues(big + 1n, 9007199254740992.0), 1); // the double nearest big+1 is big
});

test('strings: case-insensitive first, then lowercase before uppercase', () => {
  assertAscending(['', 'a', 'A', 'ab', 'aB', 'Ab', 'AB', 'b', 'B', 'ba', 'c']);
  assertAscending(['a', 'A', 'b', 'B']);
});

test('strings: accents are secondary, case tertiary, bytes break ties, prefix first', () => {
  assertAscending(['resume', 'Resume', 'résumé', 'Résumé', 'resumes']);
  assertAscending(['a', 'A', 'á', 'Á', 'b']);
  assertAscending(['cote', 'coté', 'côte', 'côté']);
  // NFC and NFD spellings collate equal; UTF-8 order breaks the tie.
  const nfc = 'é';
  const nfd = 'e\u0301';
  assert.equal(compareValues(nfd, nfc), -1); // 0x65… < 0xC3…
  assert.equal(compareValues(nfc, nfc), 0);
  // ICU puts punctuation before digits before letters.
  assertAscending([' ', '_', '-', '.', '$', '0', '9', 'a', 'z', 'ω']);
  // Ignorable format characters only differ in the byte tiebreak, where characters above
  // U+FFFF sort by code point (UTF-8 order), not by UTF-16 unit.
  assert.equal(compareValues('a\uFEFF', 'a\u{E0001}'), -1);
  assert.equal(compareValues('a', 'a\uFEFF'), -1);
});

test('bytes: unsigned lexicographic, prefix first', () => {
  assertAscending([
    new Bytes(new Uint8Array()),
    new Bytes(Uint8Array.of(0)),
    new Bytes(Uint8Array.of(0, 0)),
    new Bytes(Uint8Array.of(1)),
    new Bytes(Uint8Array.of(127)),
    new Bytes(Uint8Array.of(128)),
    new Bytes(Uint8Array.of(255)),
  ]);
});

test('arrays and objects', () => {
  assertAscending([[], [1n], [1n, 1n], [1n, 2n], [2n], ['a'], [[]], [null]]);
  assertAscending([
    obj(),
    obj([['a', 1n]]),
    obj([['a', 1n], ['b', 1n]]),
    obj([['a', 2n]]),
    obj([['b', 0n]]),
  ]);
  // Objects compare in stored order; Equals ignores order.
  const ab = obj([['a', 1n], ['b', 2n]]);
  const ba = obj([['b', 2n], ['a', 1n]]);
  assert.equal(compareValues(ab, ba), -1);
  assert.ok(valuesEqual(ab, ba));
});

test('refs: numeric ids as u64 before names, then collection, then database', () => {
  assertAscending([
    Ref.doc('c', '0'),
    Ref.doc('c', '2'),
    Ref.doc('c', '10'),
    Ref.doc('c', '18446744073709551615'),
    Ref.doc('c', '007'), // not canonical: a name
    Ref.doc('c', 'abc'),
  ]);
  assertAscending([
    Ref.doc('a', '5'),
    Ref.doc('b', '5'),
    Ref.doc('b', '5', Ref.native('databases')),
    Ref.doc('b', '5', Ref.schema('databases', 'x')),
  ]);
  assertAscending([Ref.native('collections'), Ref.collection('collections'), Ref.native('widgets')]);
});

test('refs with addresses (all stored ones) order as Fauna: document id, then collection id, not by name', () => {
  const at = (coll: string, id: string, collId: number, db = 0n) => Ref.doc(coll, id).at({ db, coll: collId, id: BigInt(id) });
  assertAscending([at('zebra', '1', 1024), at('aardvark', '1', 1025), at('zebra', '2', 1024), at('aardvark', '2', 1025, 0n), at('aardvark', '2', 1025, 9n)]);
  // Equal by address whatever the names say (a rename between two reads), unequal otherwise.
  assert.ok(valuesEqual(at('old', '3', 1030), at('new', '3', 1030)));
  assert.ok(!valuesEqual(at('same', '3', 1030), at('same', '3', 1031)));
  // Without an address on both sides, names decide.
  assert.ok(valuesEqual(Ref.doc('c', '3'), at('c', '3', 1030)));
});

test('times, dates, booleans, null', () => {
  assertAscending([new Time(-1n), new Time(0n), new Time(1n), new Time(10n ** 30n)]);
  assertAscending([new DateV(-1), new DateV(0), new DateV(1)]);
  assertAscending([false, true, null]);
});

test('valuesEqual', () => {
  assert.ok(valuesEqual(1n, 1.0));
  assert.ok(!valuesEqual(1n, 1.5));
  assert.ok(!valuesEqual('a', 'A'));
  assert.ok(valuesEqual([1n, 'x'], [1.0, 'x']));
  assert.ok(!valuesEqual([1n], [1n, 2n]));
  assert.ok(valuesEqual(obj([['a', [1n]]]), obj([['a', [1.0]]])));
  assert.ok(!valuesEqual(obj([['a', 1n]]), obj([['b', 1n]])));
  assert.ok(valuesEqual(Ref.doc('c', '1'), Ref.doc('c', '1')));
  assert.ok(!valuesEqual(Ref.doc('c', '1'), Ref.doc('d', '1')));
  assert.ok(valuesEqual(new Time(5n), new Time(5n)));
  assert.ok(valuesEqual(new DateV(3), new DateV(3)));
  assert.ok(valuesEqual(new Bytes(Uint8Array.of(1)), new Bytes(Uint8Array.of(1))));
  assert.ok(!valuesEqual(new Bytes(Uint8Array.of(1)), new Bytes(Uint8Array.of(2))));
  assert.ok(valuesEqual(new Lambda('x', 'x', '4'), new Lambda('x', 'x', '4')));
  assert.ok(!valuesEqual(new Lambda('x', 'x', '4'), new Lambda('y', 'y', '4')));
  assert.ok(valuesEqual(new Page([1n], null), new Page([1.0], null)));
  assert.ok(!valuesEqual(new Page([1n]), new Page([1n], null)));
  assert.ok(valuesEqual(TxnTime.instance, TxnTime.instance));
  assert.ok(!valuesEqual(null, false));
  assert.ok(!valuesEqual(1n, '1'));
});
