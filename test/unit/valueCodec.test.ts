import { test } from 'node:test';
import assert from 'node:assert/strict';
import { decodeLegacyValue, decodeValue, encodeValue } from '../../src/storage/valueCodec';
import { Bytes, DateV, Lambda, Page, Ref, SetV, Time, TxnTime, obj, type Value } from '../../src/values/types';

const roundTrip = (v: Value, commitTs?: bigint) => decodeValue(encodeValue(v, commitTs));

/** deepStrictEqual does not look at Map key order; this does. */
function keyOrder(v: Value): string[] {
  return v instanceof Map ? [...v.keys()] : [];
}

test('scalars round-trip with their exact types', () => {
  const cases: Value[] = [
    null,
    true,
    false,
    0n,
    1n,
    -1n,
    2147483647n,
    -2147483648n,
    2147483648n,
    2n ** 53n + 1n,
    2n ** 63n - 1n,
    -(2n ** 63n),
    0,
    1.0,
    -1.5,
    Number.MAX_VALUE,
    Number.MIN_VALUE,
    Infinity,
    -Infinity,
    '',
    'hello',
    'ünïcödé 😀 ∑',
    'x'.repeat(100_000),
  ];
  for (const v of cases) {
    const back = roundTrip(v);
    assert.equal(typeof back, typeof v, String(v));
    assert.equal(back, v);
  }
  assert.ok(Object.is(roundTrip(-0), -0));
  assert.ok(Number.isNaN(roundTrip(NaN)));
  assert.equal(typeof roundTrip(1.0), 'number');
  assert.equal(typeof roundTrip(1n), 'bigint');
});

test('composites and special values round-trip', () => {
  // Stored refs are addresses; decoding without a namer gives them back anonymous.
  const ref = Ref.anonymous({ db: 5n, coll: 1024, id: 123n });
  const cases: Value[] = [
    [],
    [1n, 1.0, 'a', [null, [true]]],
    obj([['z', 1n], ['a', 2n], ['__proto__', 'safe'], ['', obj()]]),
    ref,
    Ref.anonymous({ db: 0n, coll: 0, id: 2n }),
    Ref.anonymous({ db: 0n, coll: 3, id: 32768n }),
    Ref.anonymous({ db: 2n ** 64n - 1n, coll: 9, id: 2n ** 64n - 1n }),
    new Time(0n),
    new Time(-1_234_567_891n),
    new Time(1_700_000_000_123_456_789n),
    new Time(10n ** 30n), // beyond 64-bit nanos
    new Time(-(10n ** 30n)),
    new DateV(0),
    new DateV(-719_162),
    new DateV(2_932_896),
    new Bytes(new Uint8Array()),
    new Bytes(Uint8Array.of(0, 1, 2, 255)),
    new SetV(obj([['match', Ref.anonymous({ db: 0n, coll: 3, id: 32769n })], ['terms', ['a', 1n]]])),
    new Lambda('x', new Map([['add', [new Map([['var', 'x']]), 1n]]]), '4'),
    new Lambda(['a', ['b', '_']], null, undefined, new Map([['captured', ref]])),
    new Page([1n, 'two'], undefined, [ref]),
    new Page([], null, undefined),
  ];
  for (const v of cases) {
    const back = roundTrip(v);
    assert.deepStrictEqual(back, v);
  }
});

test('object key order is preserved', () => {
  const o = obj([['b', 1n], ['a', obj([['y', 1n], ['x', 2n]])], ['c', 3n]]);
  const back = roundTrip(o);
  assert.deepEqual(keyOrder(back), ['b', 'a', 'c']);
  assert.deepEqual(keyOrder((back as Map<string, Value>).get('a')!), ['y', 'x']);
});

test('TxnTime is written as the commit ts (a Long of µs)', () => {
  const doc = obj([['ts', TxnTime.instance], ['data', obj([['at', TxnTime.instance]])]]);
  const back = roundTrip(doc, 1_700_000_000_000_001n) as Map<string, Value>;
  assert.equal(back.get('ts'), 1_700_000_000_000_001n);
  assert.equal((back.get('data') as Map<string, Value>).get('at'), 1_700_000_000_000_001n);
  assert.throws(() => encodeValue(doc));
});

test('encodings are independent buffers and corrupt input is rejected', () => {
  const a = encodeValue('first');
  const b = encodeValue('second');
  assert.equal(decodeValue(a), 'first');
  assert.equal(decodeValue(b), 'second');
  assert.throws(() => decodeValue(a.subarray(0, a.length - 1)));
  assert.throws(() => decodeValue(Uint8Array.of(250)));
  // Decoding from an offset (the store prefixes an action byte).
  const prefixed = new Uint8Array(b.length + 1);
  prefixed.set(b, 1);
  assert.equal(decodeValue(prefixed, 1), 'second');
});

test('refs are stored by address: a ref without one is refused, a namer names them on decode', () => {
  assert.throws(() => encodeValue(Ref.doc('widgets', '1')), /has no address/);
  const addr = { db: 3n, coll: 1030, id: 77n };
  const bytes = encodeValue(obj([['r', Ref.doc('widgets', '77').at(addr)]]));
  const seen: { addr: unknown; at: bigint }[] = [];
  const names = {
    name: (a: typeof addr, at: bigint) => {
      seen.push({ addr: a, at });
      return new Ref('77', Ref.collection('gadgets'), undefined, a);
    },
  };
  const back = decodeValue(bytes, 0, names, 42n) as Map<string, Value>;
  assert.deepEqual(seen, [{ addr, at: 42n }]);
  assert.equal((back.get('r') as Ref).collection!.id, 'gadgets'); // the name now, not the one written
  // A namer that lacks names stops the decode (the store loads them and decodes again).
  assert.throws(() => decodeValue(bytes, 0, { name: () => { throw new Error('miss'); } }, 0n), /miss/);
});

test('refs by name (format 1) decode only through the migration', () => {
  // Format 1: tag 9, id, flags (1 = has collection), collection ref ('widgets' in 'collections').
  const s = (t: string) => [t.length, ...Buffer.from(t)];
  const legacy = Uint8Array.of(9, ...s('5'), 1, ...s('widgets'), 1, ...s('collections'), 0);
  assert.throws(() => decodeValue(legacy), /stored by name/);
  const given: Ref[] = [];
  const { value, sawRef } = decodeLegacyValue(legacy, 0, (r) => {
    given.push(r);
    return Ref.anonymous({ db: 0n, coll: 1024, id: 5n });
  });
  assert.equal(sawRef, true);
  assert.equal(given[0].toString(), 'collections/widgets/5');
  assert.deepEqual((value as Ref).addr, { db: 0n, coll: 1024, id: 5n });
  assert.equal(decodeLegacyValue(encodeValue('plain'), 0, (r) => r).sawRef, false);
});
