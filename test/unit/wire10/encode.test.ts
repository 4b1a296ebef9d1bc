// Materialized values in the simple, tagged and decorated formats (FQL2ValueEncoderSpec,
// FQL2ValueRoundtripSpec, FQL2ValueDecoratedSpec).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { encodeValue } from '../../../src/wire/v10/encode';
import { decorate } from '../../../src/wire/v10/decorated';
import {
  Doc,
  DocRef,
  FunctionValue,
  LegacyRef,
  Module,
  NamedRef,
  NullDoc,
  SetPage,
  SetToken,
  StreamToken,
  type MValue,
} from '../../../src/wire/v10/model';
import { Bytes, DateV, Time, TxnTime } from '../../../src/values/types';

const TXN = 1_700_000_000_123_456n; // µs
const simple = (v: MValue) => encodeValue(v, 'simple', TXN);
const tagged = (v: MValue) => encodeValue(v, 'tagged', TXN);
const dec = (v: MValue) => decorate(v, TXN);
const obj = (...entries: [string, MValue][]) => new Map<string, MValue>(entries);

const User = new Module('User');
const Collection = new Module('Collection');

test('numbers', () => {
  assert.equal(simple(3n), '3');
  assert.equal(tagged(3n), '{"@int":"3"}');
  assert.equal(tagged(-1n), '{"@int":"-1"}');
  assert.equal(tagged(2147483647n), '{"@int":"2147483647"}');
  assert.equal(tagged(2147483648n), '{"@long":"2147483648"}');
  assert.equal(tagged(-2147483649n), '{"@long":"-2147483649"}');
  assert.equal(simple(2147483648n), '2147483648');
  assert.equal(simple(22.2), '22.2');
  assert.equal(simple(1), '1.0');
  assert.equal(simple(1e21), '1.0E21');
  assert.equal(tagged(22.2), '{"@double":"22.2"}');
  assert.equal(tagged(3), '{"@double":"3.0"}');
  assert.equal(tagged(1e-5), '{"@double":"1.0E-5"}');
  assert.equal(simple(NaN), '"NaN"');
  assert.equal(simple(Infinity), '"Infinity"');
  assert.equal(simple(-Infinity), '"-Infinity"');
  assert.equal(tagged(NaN), '{"@double":"NaN"}');
  assert.equal(tagged(Infinity), '{"@double":"Infinity"}');
  assert.equal(tagged(-Infinity), '{"@double":"-Infinity"}');
});

test('scalars', () => {
  assert.equal(tagged('hilo'), '"hilo"');
  assert.equal(tagged('a"b\\\n\u0001'), '"a\\"b\\\\\\n\\u0001"');
  assert.equal(tagged(true), 'true');
  assert.equal(simple(false), 'false');
  assert.equal(tagged(null), 'null');
  assert.equal(tagged(new Time(63_000_000_000n)), '{"@time":"1970-01-01T00:01:03Z"}');
  assert.equal(simple(new Time(63_000_000_001n)), '"1970-01-01T00:01:03.000000001Z"');
  assert.equal(tagged(new Time(1_500_000n)), '{"@time":"1970-01-01T00:00:00.001500Z"}');
  assert.equal(tagged(TxnTime.instance), '{"@time":"2023-11-14T22:13:20.123456Z"}');
  assert.equal(tagged(new DateV(19341)), '{"@date":"2022-12-15"}');
  assert.equal(simple(new DateV(19341)), '"2022-12-15"');
  assert.equal(tagged(new Bytes(new Uint8Array([1, 2, 3]))), '{"@bytes":"AQID"}');
  assert.equal(simple(new Bytes(new Uint8Array([1, 2, 3]))), '"AQID"');
});

test('arrays and structs, @object around @ keys', () => {
  assert.equal(tagged(['hello', 'hello', 'moon']), '["hello","hello","moon"]');
  assert.equal(tagged([]), '[]');
  const struct = obj(['one', 'two'], ['three', 'four'], ['five', obj(['a', 'b'], ['c', 'd'])]);
  assert.equal(tagged(struct), '{"one":"two","three":"four","five":{"a":"b","c":"d"}}');
  assert.equal(simple(struct), '{"one":"two","three":"four","five":{"a":"b","c":"d"}}');
  assert.equal(tagged(obj(['@foo', 'one'], ['bar', 'two'])), '{"@object":{"@foo":"one","bar":"two"}}');
  assert.equal(tagged(obj(['@foo', 'bar'], ['three', 5n])), '{"@object":{"@foo":"bar","three":{"@int":"5"}}}');
  assert.equal(simple(obj(['@foo', 'one'])), '{"@foo":"one"}');
  assert.equal(tagged(obj()), '{}');
});

test('modules and references', () => {
  assert.equal(tagged(obj(['name', 'User'], ['coll', Collection])), '{"name":"User","coll":{"@mod":"Collection"}}');
  assert.equal(simple(obj(['name', 'User'], ['coll', Collection])), '{"name":"User","coll":"Collection"}');
  assert.equal(tagged(new NamedRef(Collection, 'User')), '{"@ref":{"name":"User","coll":{"@mod":"Collection"}}}');
  assert.equal(tagged(new DocRef(User, '1234')), '{"@ref":{"id":"1234","coll":{"@mod":"User"}}}');
  assert.equal(simple(new DocRef(User, '1234')), '{"id":"1234","coll":"User"}');
  for (const cause of ['deleted', 'not found', 'permission denied', 'collection deleted'] as const) {
    assert.equal(
      tagged(new NullDoc(new DocRef(User, '1234'), cause)),
      `{"@ref":{"id":"1234","coll":{"@mod":"User"},"exists":false,"cause":"${cause}"}}`,
    );
    assert.equal(simple(new NullDoc(new DocRef(User, '1234'), cause)), 'null');
  }
});

test('documents: @doc of their fields, documents inside them as @ref', () => {
  const ts = new Time(1_000_000_000n);
  const other = new Doc(new DocRef(User, '2'), obj(['id', '2'], ['coll', User], ['ts', ts]));
  const missing = new NullDoc(new DocRef(User, '3'), 'deleted');
  const doc = new Doc(
    new DocRef(User, '1'),
    obj(['id', '1'], ['coll', User], ['ts', ts], ['a', new NamedRef(Collection, 'User')], ['other', other], ['gone', missing]),
  );
  assert.equal(
    tagged(doc),
    '{"@doc":{"id":"1","coll":{"@mod":"User"},"ts":{"@time":"1970-01-01T00:00:01Z"},' +
      '"a":{"@ref":{"name":"User","coll":{"@mod":"Collection"}}},' +
      '"other":{"@ref":{"id":"2","coll":{"@mod":"User"}}},"gone":{"@ref":{"id":"3","coll":{"@mod":"User"}}}}}',
  );
  assert.equal(
    simple(doc),
    '{"id":"1","coll":"User","ts":"1970-01-01T00:00:01Z","a":{"name":"User","coll":"Collection"},' +
      '"other":{"id":"2","coll":"User"},"gone":{"id":"3","coll":"User"}}',
  );
  // a document with a field starting with @
  assert.equal(tagged(new Doc(new DocRef(User, '1'), obj(['id', '1'], ['@x', 1n]))), '{"@doc":{"@object":{"id":"1","@x":{"@int":"1"}}}}');
  // documents in an array or a set are expanded
  assert.equal(tagged([other]), '[{"@doc":{"id":"2","coll":{"@mod":"User"},"ts":{"@time":"1970-01-01T00:00:01Z"}}}]');
});

test('sets, streams, functions, legacy refs', () => {
  assert.equal(tagged(new SetPage([1n, 2n], 'abc')), '{"@set":{"data":[{"@int":"1"},{"@int":"2"}],"after":"abc"}}');
  assert.equal(tagged(new SetPage([])), '{"@set":{"data":[]}}');
  assert.equal(simple(new SetPage([1n], 'abc')), '{"data":[1],"after":"abc"}');
  assert.equal(tagged(new SetToken('tok')), '{"@set":"tok"}');
  assert.equal(simple(new SetToken('tok')), '"tok"');
  assert.equal(tagged(new StreamToken('s')), '{"@stream":"s"}');
  assert.equal(simple(new StreamToken('s')), '"s"');
  assert.equal(tagged(new FunctionValue()), '"[function <lambda>]"');
  assert.equal(tagged(new FunctionValue('abs')), '"[function abs()]"');
  assert.equal(tagged(new LegacyRef('index', 'myIndex')), '"[legacy index myIndex]"');
});

test('decorated: numbers, strings, scalars', () => {
  assert.equal(dec(3n), '3');
  assert.equal(dec(3), '3.0');
  assert.equal(dec(3e3), '3000.0');
  assert.equal(dec(Infinity), 'Math.Infinity');
  assert.equal(dec(-Infinity), '-Math.Infinity');
  assert.equal(dec(NaN), 'Math.NaN');
  assert.equal(dec('hello'), '"hello"');
  assert.equal(dec(''), '""');
  assert.equal(dec('escaping: \u0000'), '"escaping: \\0"');
  assert.equal(dec('new\nline\n'), '<<-END\n  new\n  line\nEND');
  assert.equal(dec('new\nEND\n'), '<<-END0\n  new\n  END\nEND0');
  assert.equal(dec('END\nEND0\n'), '<<-END1\n  END\n  END0\nEND1');
  const ends = Array.from({ length: 10 }, (_, i) => `END${i}`);
  assert.equal(dec(`END\n${ends.join('\n')}`), `"END\\n${ends.join('\\n')}"`);
  assert.equal(dec('hi\nhello'), '<<-END\n  hi\n  hello\nEND');
  assert.equal(dec(true), 'true');
  assert.equal(dec(null), 'null');
  assert.equal(dec(new Time(63_000_000_000n)), 'Time("1970-01-01T00:01:03Z")');
  assert.equal(dec(new DateV(19341)), 'Date("2022-12-15")');
  assert.equal(dec(new Bytes(new Uint8Array([1, 2, 3]))), 'Bytes("AQID")');
});

test('decorated: containers and references', () => {
  assert.equal(dec(['hello', 'hello', 'moon']), '[\n  "hello",\n  "hello",\n  "moon"\n]');
  assert.equal(dec([]), '[]');
  assert.equal(dec(obj()), '{}');
  const struct = obj(['one', 'two'], ['three', 'four'], ['five', obj(['a', 'b'], ['c', 'd'])]);
  assert.equal(dec(struct), '{\n  one: "two",\n  three: "four",\n  five: {\n    a: "b",\n    c: "d"\n  }\n}');
  assert.equal(dec(obj(['name', 'User'], ['coll', Collection])), '{\n  name: "User",\n  coll: Collection\n}');
  assert.equal(dec(obj(['a b', 1n], ['_x', 2n], ['é1', 3n])), '{\n  "a b": 1,\n  "_x": 2,\n  é1: 3\n}');
  const ts = new Time(63_000_000_000n);
  const user = new Doc(
    new DocRef(User, '1'),
    obj(['id', '1'], ['coll', User], ['ts', ts], ['other', new DocRef(User, '2')], ['schema', new NamedRef(Collection, 'User')]),
  );
  assert.equal(
    dec(user),
    '{\n  id: "1",\n  coll: User,\n  ts: Time("1970-01-01T00:01:03Z"),\n  other: User("2"),\n  schema: Collection.byName("User")\n}',
  );
  // a document met again inside itself renders as its reference
  const fields = obj(['id', '0'], ['coll', new Module('Loop')]);
  const loop = new Doc(new DocRef(new Module('Loop'), '0'), fields);
  fields.set('self', loop);
  assert.equal(dec(loop), '{\n  id: "0",\n  coll: Loop,\n  self: Loop("0")\n}');
  assert.equal(dec(new NullDoc(new DocRef(new Module('TestCol'), '1234'), 'not found')), 'TestCol("1234") /* not found */');
  assert.equal(
    dec(obj(['deleted', new NullDoc(new DocRef(new Module('TestCol'), '1234'), 'deleted')])),
    '{\n  deleted: TestCol("1234") /* deleted */\n}',
  );
  assert.equal(dec(new DocRef(new Module('Deleted', Collection), '5')), 'Collection.Deleted("5")');
  assert.equal(dec(new LegacyRef('index', 'myIndex')), '[legacy index myIndex]');
  assert.equal(dec(new FunctionValue('abs')), '"[function abs]"');
  assert.equal(dec(new SetPage(['a'], 'tok')), '{\n  data: [\n    "a"\n  ],\n  after: "tok"\n}');
  // empty lines of a heredoc keep their indent, as the core writes them
  assert.equal(dec(['a\n\nb']), '[\n  <<-END\n    a\n    \n    b\n  END\n]');
});
