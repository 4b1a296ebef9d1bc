// Arguments and template values as values, with the core's strings (FQL2ValueDecoderSpec).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { decodeArguments, decodeTemplateValues, TemplateValueError, type ArgResolver, type InputValue, type ModuleKind } from '../../../src/wire/v10/args';
import { ProtocolFailure } from '../../../src/wire/v10/errors';
import { readJson, type UndecidedObject } from '../../../src/wire/v10/json';
import { Module, SmallLong } from '../../../src/wire/v10/model';
import { parseQueryRequest } from '../../../src/wire/v10/request';
import { Bytes, DateV, Ref, Time } from '../../../src/values/types';

const MODULES: Record<string, ModuleKind> = {
  User: { kind: 'collection', name: 'User' },
  People: { kind: 'collection', name: 'User' }, // an alias
  Key: { kind: 'keyed', native: 'keys' },
  Token: { kind: 'keyed', native: 'tokens' },
  Credentials: { kind: 'keyed', native: 'credentials' },
  Collection: { kind: 'schema', native: 'collections' },
  Function: { kind: 'schema', native: 'functions' },
  Math: { kind: 'other' },
};
const resolver: ArgResolver = {
  module: (name) => MODULES[name],
  hasSchemaDoc: (native, name) => native === 'collections' && name === 'User',
};

function decode(json: string, format: 'simple' | 'tagged' = 'tagged'): InputValue {
  const args = readJson(`{"x":${json}}`) as UndecidedObject;
  return decodeArguments(args, format, resolver).get('x')!;
}

function fails(json: string, reason: string): void {
  assert.throws(
    () => decode(json),
    (e: unknown) => {
      assert.ok(e instanceof ProtocolFailure, String(e));
      assert.equal(e.code, 'invalid_request');
      assert.equal(e.message, `Invalid argument 'x': ${reason}`, json);
      return true;
    },
  );
}

test('simple format: plain JSON', () => {
  assert.equal(decode('39', 'simple'), 39n);
  assert.equal(decode('"hilo"', 'simple'), 'hilo');
  assert.equal(decode('3.39E-9', 'simple'), 3.39e-9);
  assert.equal(decode('1.0', 'simple'), 1);
  assert.equal(decode('true', 'simple'), true);
  assert.equal(decode('null', 'simple'), null);
  assert.deepEqual(decode('["hello","moon"]', 'simple'), ['hello', 'moon']);
  assert.deepEqual(decode('{"one":"two","five":{"a":"b"}}', 'simple'), new Map<string, InputValue>([['one', 'two'], ['five', new Map([['a', 'b']])]]));
  // tags are not read
  assert.deepEqual(decode('{"@object":{"a":"b"}}', 'simple'), new Map([['@object', new Map([['a', 'b']])]]));
});

test('tagged format: scalars', () => {
  fails('39', 'numbers must be tagged');
  fails('3.39E-9', 'numbers must be tagged');
  assert.equal(decode('"hilo"'), 'hilo');
  assert.equal(decode('false'), false);
  assert.equal(decode('null'), null);
  assert.equal(decode('{"@int":"1234"}'), 1234n);
  assert.equal(decode('{"@int":"+7"}'), 7n);
  fails('{"@int":"a"}', 'invalid integer');
  fails('{"@int":"4294967296"}', 'invalid integer');
  fails('{"@int":1}', '@int requires a string value');
  // Value.Long(1234): the core keeps it a Long though an Int could hold it.
  assert.deepEqual(decode('{"@long":"1234"}'), new SmallLong(1234n));
  assert.equal(decode('{"@long":"-9223372036854775808"}'), -(2n ** 63n));
  fails('{"@long":"a"}', 'invalid long');
  fails('{"@long":"18446744073709551616"}', 'invalid long');
  assert.equal(decode('{"@double":"12.34"}'), 12.34);
  assert.equal(decode('{"@double":"1"}'), 1);
  assert.equal(decode('{"@double":"Infinity"}'), Infinity);
  assert.equal(decode('{"@double":"-Infinity"}'), -Infinity);
  assert.ok(Number.isNaN(decode('{"@double":"NaN"}')));
  assert.equal(decode('{"@double":"1e3"}'), 1000);
  assert.equal(decode('{"@double":"0x1p3"}'), 8);
  fails('{"@double":"a"}', 'invalid double');
  fails('{"@double":""}', 'invalid double');
});

test('tagged format: dates, times, bytes', () => {
  assert.deepEqual(decode('{"@date":"2022-12-13"}'), new DateV(19339));
  fails('{"@date":"foo"}', 'invalid date');
  fails('{"@date":"2022-02-30"}', 'invalid date');
  assert.deepEqual(decode('{"@time":"1970-01-01T00:01:03Z"}'), new Time(63_000_000_000n));
  assert.deepEqual(decode('{"@time":"1970-01-01T00:01Z"}'), new Time(60_000_000_000n));
  assert.deepEqual(decode('{"@time":"1970-01-01T00:00:00.123456789Z"}'), new Time(123_456_789n));
  assert.deepEqual(decode('{"@time":"1970-01-01T01:00:00+01:00"}'), new Time(0n));
  assert.deepEqual(decode('{"@time":"1970-01-01T01:00:00+0100"}'), new Time(0n));
  assert.deepEqual(decode('{"@time":"1969-12-31T23:00:00-01:00"}'), new Time(0n));
  fails('{"@time":"foo"}', 'invalid time');
  fails('{"@time":"1970-01-01T00:01:03"}', 'invalid time'); // no zone
  fails('{"@time":"1970-01-01T00:01:03+01"}', 'invalid time');
  fails('{"@time":"1970-01-01T24:00:00Z"}', 'invalid time');
  assert.deepEqual(decode('{"@bytes":"AQID"}'), new Bytes(new Uint8Array([1, 2, 3])));
  assert.deepEqual(decode('{"@bytes":"AQI"}'), new Bytes(new Uint8Array([1, 2])));
  assert.deepEqual(decode('{"@bytes":"AQ=="}'), new Bytes(new Uint8Array([1])));
  assert.deepEqual(decode('{"@bytes":""}'), new Bytes(new Uint8Array([])));
  fails('{"@bytes":"1"}', 'invalid bytes');
  fails('{"@bytes":"AQ="}', 'invalid bytes');
  fails('{"@bytes":"AQID="}', 'invalid bytes');
  fails('{"@bytes":"A-_B"}', 'invalid bytes');
});

test('tagged format: objects and tags', () => {
  assert.deepEqual(decode('{"one":"two","five":{"a":"b"}}'), new Map<string, InputValue>([['one', 'two'], ['five', new Map([['a', 'b']])]]));
  assert.deepEqual(decode('{"@object":{"@this is a key":"foo","n":{"@int":"5"}}}'), new Map<string, InputValue>([['@this is a key', 'foo'], ['n', 5n]]));
  fails('{"@object":"a"}', '@object requires an object value');
  fails('{"@foo":"a"}', "invalid tag '@foo'");
  fails('{"@int":"3","@long":4}', 'too many keys in tagged value');
  fails('{"a":"3","@long":"4"}', 'too many keys in tagged value');
  fails('[{"a":[1]}]', 'numbers must be tagged');
  assert.deepEqual(decode('{"@mod":"Math"}'), new Module('Math'));
  fails('{"@mod":"Nope"}', "no such module 'Nope'");
});

test('document references', () => {
  for (const tag of ['@doc', '@ref']) {
    const d = (body: string) => decode(`{"${tag}":${body}}`);
    const f = (body: string, reason: string) => fails(`{"${tag}":${body}}`, reason);
    assert.deepEqual(d('{"coll":{"@mod":"Collection"},"name":"User"}'), Ref.schema('collections', 'User'));
    f('{"coll":{"@mod":"Collection"},"name":"UserTypo"}', "no such schema object 'UserTypo'");
    assert.deepEqual(d('{"coll":{"@mod":"User"},"id":"3"}'), Ref.doc('User', '3'));
    assert.deepEqual(d('{"coll":{"@mod":"People"},"id":"007"}'), Ref.doc('User', '7'));
    assert.deepEqual(d('{"coll":{"@mod":"Key"},"id":"123"}'), new Ref('123', Ref.native('keys')));
    assert.deepEqual(d('{"coll":{"@mod":"Credentials"},"id":"123"}'), new Ref('123', Ref.native('credentials')));
    assert.deepEqual(d('{"coll":{"@mod":"Token"},"id":"123"}'), new Ref('123', Ref.native('tokens')));
    f('true', `${tag} requires an object value`);
    f('{"@int":"1"}', `${tag} requires an object value`);
    f('5', 'numbers must be tagged');
    f('{}', `${tag} field 'coll' is required`);
    f('{"coll":true}', `${tag} field 'coll' requires a module value`);
    f('{"coll":{"@mod":"Math"},"id":"1"}', `${tag} field 'coll' requires a module value`);
    f('{"coll":{"@mod":"Nope"},"id":"1"}', "no such module 'Nope'");
    f('{"coll":{"@mod":"User"}}', `${tag} field 'id' is required`);
    f('{"coll":{"@mod":"Collection"}}', `${tag} field 'name' is required`);
    f('{"coll":{"@mod":"User"},"id":true}', `${tag} field 'id' requires a string value`);
    f('{"coll":{"@mod":"User"},"id":"foo"}', `${tag} field 'id' must be an integer`);
    f('{"coll":{"@mod":"Collection"},"name":true}', `${tag} field 'name' requires a string value`);
    // the older string form
    assert.deepEqual(d('"User:3"'), Ref.doc('User', '3'));
    assert.deepEqual(d('"Key:123"'), new Ref('123', Ref.native('keys')));
    assert.deepEqual(d('"Collection:User"'), Ref.schema('collections', 'User'));
    f('"Collection:Nope"', "no such schema definition document 'Nope'");
    f('"User:abc"', "invalid document id 'abc'");
    f('"User:"', "invalid document id ''");
    f('"Math:1"', "no such collection 'Math'");
    f('"User"', 'doc id must be in the format <coll>:<id>');
    f('"User:1:2"', 'doc id must be in the format <coll>:<id>');
  }
});

test('template values are tagged, and a bad one is located at its placeholder', () => {
  const { query } = parseQueryRequest('{"query":{"fql":["1 + ",{"value":{"@int":"2"}}," + ",{"value":{"@blah":"foo"}}]}}');
  assert.throws(
    () => decodeTemplateValues(query, resolver),
    (e: unknown) => {
      assert.ok(e instanceof TemplateValueError);
      assert.equal(e.message, "invalid tag '@blah'");
      assert.equal(e.offset, 4 + 7 + 3);
      return true;
    },
  );
  const ok = parseQueryRequest('{"query":{"object":{"@ref":{"value":"1234"},"n":{"value":{"@int":"1"}}}}}').query;
  assert.deepEqual(decodeTemplateValues(ok, resolver), [new Map<string, InputValue>([['@ref', '1234'], ['n', 1n]])]);
});
