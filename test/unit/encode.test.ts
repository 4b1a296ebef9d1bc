import { test } from 'node:test';
import assert from 'node:assert/strict';
import { encodeValue, encodeValueSliced, encodeJson, formatDouble, encodeAsExpr } from '../../src/wire/encode';
import { decodeExpr, decodeLiteral } from '../../src/wire/decode';
import { parseJson } from '../../src/wire/json';
import { formatTime, formatDate, parseIsoTime, parseDate, daysFromCivil } from '../../src/wire/time';
import { Bytes, DateV, Lambda, Page, Ref, SetV, Time, TxnTime, obj, type Value } from '../../src/values/types';

const ctx = { txnTs: 1700000000000000n };
const enc = (v: Value) => encodeValue(v, ctx);

test('scalars', () => {
  assert.equal(enc(null), 'null');
  assert.equal(enc(true), 'true');
  assert.equal(enc(false), 'false');
  assert.equal(enc(9223372036854775807n), '9223372036854775807');
  assert.equal(enc(-9223372036854775808n), '-9223372036854775808');
  assert.equal(enc(0n), '0');
  assert.equal(enc('a"b\\\n\u0001é'), JSON.stringify('a"b\\\n\u0001é'));
  assert.equal(enc('x\ud800'), '"x?"');
});

test('doubles render as Java Double.toString', () => {
  const cases: [number, string][] = [
    [10, '10.0'], [1, '1.0'], [-1, '-1.0'], [0, '0.0'], [-0, '-0.0'], [3.14, '3.14'], [0.5, '0.5'],
    [100.25, '100.25'], [0.001, '0.001'], [1e-4, '1.0E-4'], [1.5e-7, '1.5E-7'], [9999999, '9999999.0'],
    [1e7, '1.0E7'], [1e10, '1.0E10'], [1e21, '1.0E21'], [123456789.5, '1.234567895E8'],
    [-2.5e-5, '-2.5E-5'], [1.7976931348623157e308, '1.7976931348623157E308'], [0.1 + 0.2, '0.30000000000000004'],
  ];
  for (const [x, s] of cases) {
    assert.equal(enc(x), s, String(x));
    assert.equal(formatDouble(x), s);
  }
  assert.equal(enc(NaN), '"NaN"');
  assert.equal(enc(Infinity), '"Infinity"');
  assert.equal(enc(-Infinity), '"-Infinity"');
  assert.equal(formatDouble(NaN), 'NaN');
  // Doubles parse back as Doubles
  assert.equal(typeof parseJson(enc(10)), 'number');
  assert.equal(typeof parseJson(enc(1e21)), 'number');
});

test('arrays and objects; @obj wraps only the level with @ keys', () => {
  assert.equal(enc([]), '[]');
  assert.equal(enc([1n, 'a', [2.5]]), '[1,"a",[2.5]]');
  assert.equal(enc(obj()), '{}');
  assert.equal(enc(obj([['b', 1n], ['a', 2n]])), '{"b":1,"a":2}');
  assert.equal(enc(obj([['@ref', 'x'], ['a', 1n]])), '{"@obj":{"@ref":"x","a":1}}');
  assert.equal(enc(obj([['a', obj([['@ts', 1n]])], ['b', obj([['c', 1n]])]])), '{"a":{"@obj":{"@ts":1}},"b":{"c":1}}');
  assert.equal(enc(obj([['__proto__', 1n]])), '{"__proto__":1}');
});

test('refs', () => {
  const colls = '{"@ref":{"id":"collections"}}';
  assert.equal(enc(Ref.native('collections')), colls);
  assert.equal(enc(Ref.native('keys')), '{"@ref":{"id":"keys"}}');
  assert.equal(enc(Ref.collection('widgets')), `{"@ref":{"id":"widgets","collection":${colls}}}`);
  assert.equal(
    enc(Ref.doc('widgets', '123')),
    '{"@ref":{"id":"123","collection":{"@ref":{"id":"widgets","collection":{"@ref":{"id":"collections"}}}}}}',
  );
  assert.equal(enc(new Ref('1', Ref.native('keys'))), '{"@ref":{"id":"1","collection":{"@ref":{"id":"keys"}}}}');
  assert.equal(
    enc(Ref.schema('indexes', 'by_x')),
    '{"@ref":{"id":"by_x","collection":{"@ref":{"id":"indexes"}}}}',
  );
});

test('refs in child databases (wire.md §2.3)', () => {
  const db = Ref.schema('databases', 'child-db');
  const dbJson = '{"@ref":{"id":"child-db","collection":{"@ref":{"id":"databases"}}}}';
  assert.equal(
    enc(Ref.schema('collections', 'a_collection', db)),
    `{"@ref":{"id":"a_collection","collection":{"@ref":{"id":"collections"}},"database":${dbJson}}}`,
  );
  // user documents carry the database on the collection ref
  assert.equal(
    enc(Ref.doc('c', '1', db)),
    `{"@ref":{"id":"1","collection":{"@ref":{"id":"c","collection":{"@ref":{"id":"collections"}},"database":${dbJson}}}}}`,
  );
  // keys carry it on the native keys ref
  const key = new Ref('123', Ref.native('keys'), db);
  const keyJson = `{"@ref":{"id":"123","collection":{"@ref":{"id":"keys","database":${dbJson}}}}}`;
  assert.equal(enc(key), keyJson);
  assert.equal(enc(Ref.native('collections', db)), `{"@ref":{"id":"collections","database":${dbJson}}}`);
  // grandchildren nest
  const grand = Ref.schema('databases', 'g', db);
  assert.equal(
    enc(Ref.native('indexes', grand)),
    `{"@ref":{"id":"indexes","database":{"@ref":{"id":"g","collection":{"@ref":{"id":"databases"}},"database":${dbJson}}}}}`,
  );
  // and they all round-trip through the decoder
  for (const r of [key, Ref.doc('c', '1', db), Ref.schema('collections', 'a_collection', db), Ref.native('indexes', grand)]) {
    const back = decodeLiteral(parseJson(enc(r)));
    assert.ok(back instanceof Ref && back.equals(r), enc(r));
  }
});

test('times (wire.md §2.4) and dates', () => {
  const ts = (n: bigint) => enc(new Time(n));
  assert.equal(ts(12_000_000_000n), '{"@ts":"1970-01-01T00:00:12Z"}');
  assert.equal(ts(123456789n), '{"@ts":"1970-01-01T00:00:00.123456789Z"}');
  assert.equal(ts(3600_000_000_000n), '{"@ts":"1970-01-01T01:00:00Z"}');
  assert.equal(ts(0n), '{"@ts":"1970-01-01T00:00:00Z"}');
  assert.equal(ts(123_000_000n), '{"@ts":"1970-01-01T00:00:00.123Z"}');
  assert.equal(ts(123_456_000n), '{"@ts":"1970-01-01T00:00:00.123456Z"}');
  assert.equal(ts(100_000_000n), '{"@ts":"1970-01-01T00:00:00.100Z"}');
  assert.equal(ts(-1n), '{"@ts":"1969-12-31T23:59:59.999999999Z"}');
  assert.equal(ts(1582977600_000_000_000n), '{"@ts":"2020-02-29T12:00:00Z"}');
  const y10000 = BigInt(daysFromCivil(10000, 1, 1)) * 86_400_000_000_000n;
  assert.equal(formatTime(y10000), '+10000-01-01T00:00:00Z');
  const yMinus1 = BigInt(daysFromCivil(-1, 1, 1)) * 86_400_000_000_000n;
  assert.equal(formatTime(yMinus1), '-0001-01-01T00:00:00Z');
  assert.equal(formatTime(BigInt(daysFromCivil(0, 1, 1)) * 86_400_000_000_000n), '0000-01-01T00:00:00Z');
  for (const n of [0n, -1n, 123456789n, y10000 + 5n, yMinus1, 253402300799_999_999_999n]) {
    assert.equal(parseIsoTime(formatTime(n)), n, formatTime(n));
  }
  assert.equal(parseIsoTime('2020-01-01T00:00+0100'), parseIsoTime('2019-12-31T23:00:00Z'));
  assert.equal(parseIsoTime('2020-01-01T00:00:00+01:00:30'), parseIsoTime('2019-12-31T22:59:30Z'));
  assert.equal(parseIsoTime('2020-01-01T00:00:00+01:0030'), undefined);
  assert.equal(parseIsoTime('2020-01-01T00:00:00+19:00'), undefined);

  assert.equal(enc(new DateV(0)), '{"@date":"1970-01-01"}');
  assert.equal(enc(new DateV(-1)), '{"@date":"1969-12-31"}');
  assert.equal(enc(new DateV(18321)), '{"@date":"2020-02-29"}');
  assert.equal(formatDate(daysFromCivil(12345, 6, 7)), '+12345-06-07');
  for (const days of [0, -1, 18321, -719528, 2932896, -1000000]) assert.equal(parseDate(formatDate(days)), days);
});

test('bytes, sets, pages, txn time', () => {
  assert.equal(enc(new Bytes(new Uint8Array([1, 2, 3, 4]))), '{"@bytes":"AQIDBA=="}');
  assert.equal(enc(new Bytes(new Uint8Array([0xfb, 0xff]))), '{"@bytes":"+/8="}');
  const set = new SetV(obj([['match', Ref.schema('indexes', 'i')], ['terms', 'a']]));
  assert.equal(
    enc(set),
    '{"@set":{"match":{"@ref":{"id":"i","collection":{"@ref":{"id":"indexes"}}}},"terms":"a"}}',
  );
  assert.equal(enc(new Page([1n])), '{"data":[1]}');
  assert.equal(enc(new Page([1n], [0n], [2n])), '{"before":[0],"after":[2],"data":[1]}');
  assert.equal(enc(new Page([], undefined, [2n])), '{"after":[2],"data":[]}');
  assert.equal(enc(TxnTime.instance), '1700000000000000');
  assert.equal(enc(obj([['ts', TxnTime.instance]])), '{"ts":1700000000000000}');
});

test('lambdas render as @query', () => {
  const body = parseJson('{"add":[{"var":"x"},1.0]}');
  assert.equal(
    enc(new Lambda('x', body, '4')),
    '{"@query":{"api_version":"4","lambda":"x","expr":{"add":[{"var":"x"},1.0]}}}',
  );
  // A legacy lambda (no version) is 2.12, and versions below it count as 2.12; API 4 responses name it.
  assert.equal(enc(new Lambda(['a', ['b', '_']], 1n, undefined)), '{"@query":{"api_version":"2.12","lambda":["a",["b","_"]],"expr":1}}');
  assert.equal(enc(new Lambda('x', 1n, '2.12')), '{"@query":{"api_version":"2.12","lambda":"x","expr":1}}');
  assert.equal(enc(new Lambda('x', 1n, '2.7')), '{"@query":{"api_version":"2.12","lambda":"x","expr":1}}');
  assert.equal(enc(new Lambda('x', 1n, '3')), '{"@query":{"api_version":"3","lambda":"x","expr":1}}');
  const closure = new Map<string, Value>([
    ['y', obj([['a', 1n], ['@b', [obj([['c', 2n]])]]])],
    ['z', Ref.collection('c')],
  ]);
  const withClosure = enc(new Lambda('x', parseJson('[{"var":"x"},{"var":"y"},{"var":"z"}]'), '4', closure));
  assert.equal(
    withClosure,
    '{"@query":{"api_version":"4","lambda":"x","expr":{"let":{' +
      '"y":{"object":{"@obj":{"a":1,"@b":[{"object":{"c":2}}]}}},' +
      '"z":{"@ref":{"id":"c","collection":{"@ref":{"id":"collections"}}}}' +
      '},"in":[{"var":"x"},{"var":"y"},{"var":"z"}]}}}',
  );
  // it decodes back into a closed lambda value
  const back = decodeLiteral(parseJson(withClosure));
  assert.ok(back instanceof Lambda && back.apiVersion === '4');
  // A captured variable whose name starts with @ keeps the array form (an object would read as an escape).
  const at = enc(new Lambda('x', parseJson('{"var":"@v"}'), '4', new Map<string, Value>([['@v', 1n]])));
  assert.equal(at, '{"@query":{"api_version":"4","lambda":"x","expr":{"let":[{"@v":1}],"in":{"var":"@v"}}}}');
});

test('let bindings in a lambda body render as one object (DECISIONS #16)', () => {
  const body = (json: string) => {
    const out = enc(new Lambda('x', parseJson(json), '4'));
    return out.slice('{"@query":{"api_version":"4","lambda":"x","expr":'.length, -2);
  };
  // Arrays of one-key (or several-key) objects become one object, in order; objects stay objects.
  assert.equal(body('{"let":[{"a":1},{"b":{"var":"a"}}],"in":{"var":"b"}}'), '{"let":{"a":1,"b":{"var":"a"}},"in":{"var":"b"}}');
  assert.equal(body('{"let":[{"a":1,"b":2}],"in":3}'), '{"let":{"a":1,"b":2},"in":3}');
  assert.equal(body('{"let":{"a":1},"in":{"var":"a"}}'), '{"let":{"a":1},"in":{"var":"a"}}');
  // `in` first on the wire: rendered let, then in.
  assert.equal(body('{"in":{"var":"a"},"let":[{"a":1}]}'), '{"let":{"a":1},"in":{"var":"a"}}');
  // Nested, inside other forms, objects and lambdas.
  assert.equal(
    body('{"map":{"lambda":"y","expr":{"let":[{"z":{"var":"y"}}],"in":{"var":"z"}}},"collection":{"object":{"k":{"let":[{"q":1}],"in":2}}}}'),
    '{"map":{"lambda":"y","expr":{"let":{"z":{"var":"y"}},"in":{"var":"z"}}},"collection":{"object":{"k":{"let":{"q":1},"in":2}}}}',
  );
  // A rebinding keeps the array (an object cannot hold it); data is not rewritten.
  assert.equal(body('{"let":[{"a":1},{"a":2}],"in":{"var":"a"}}'), '{"let":[{"a":1},{"a":2}],"in":{"var":"a"}}');
  assert.equal(body('{"quote":{"let":[{"a":1}],"in":2}}'), '{"quote":{"let":[{"a":1}],"in":2}}');
  assert.equal(body('{"object":{"let":[{"a":1}],"in":2}}'), '{"object":{"let":[{"a":1}],"in":2}}');
});

test('encodeAsExpr produces expressions that evaluate to the value', () => {
  const v = obj([['a', [obj([['b', 1n]])]], ['p', new Page([1n], undefined, [2n])]]);
  const e = decodeExpr(parseJson(encodeAsExpr(v, ctx)));
  // All constants: one constant node holding the value itself.
  assert.equal(e.t, 'lit');
  if (e.t === 'lit') assert.equal(encodeValue(e.v, ctx), encodeValue(v, ctx));
});

test('encodeJson re-serialises raw JSON trees exactly', () => {
  for (const text of [
    '{"let":[{"x":1}],"in":{"add":[{"var":"x"},2.5,1.0,-0.0,1.0E21]}}',
    '[null,true,false,"s\\"q",{"@ref":"collections/c/1"}]',
    '{"b":1,"a":{"c":[]}}',
  ]) {
    assert.equal(encodeJson(parseJson(text)), text);
  }
});

test('round trip of every value type through the decoder', () => {
  const values: Value[] = [
    Ref.doc('w', '1'), new Time(123n), new DateV(5), new Bytes(new Uint8Array([9, 8])),
    obj([['@weird', 1n], ['n', [1n, 2.5, 'x', null]]]),
  ];
  for (const v of values) {
    const back = decodeLiteral(parseJson(enc(v)));
    assert.equal(enc(back), enc(v));
  }
});

test('encodeValueSliced renders exactly what encodeValue does, a slice at a time', async () => {
  let pauses = 0;
  const pacer = { sliceMs: 0, pause: async () => void pauses++ };
  const long = 'ab"\\\n😀'.repeat(400_000) + '\ud800x'; // escapes, a pair at every boundary, a lone surrogate
  const wide = Array.from({ length: 1000 }, (_, i) => (i % 2 ? new Map<string, Value>([['@k', BigInt(i)]]) : `s${i}`));
  const page = new Page(wide, 1n, 2n);
  for (const v of [long, wide, page, new Map<string, Value>(wide.map((x, i) => [`k${i}`, x]))] as Value[]) {
    const bytes = await encodeValueSliced(v, ctx, pacer, '{"resource":', '}');
    assert.equal(bytes.toString('utf8'), `{"resource":${encodeValue(v, ctx)}}`);
  }
  assert.ok(pauses > 0);
});
