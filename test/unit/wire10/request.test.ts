// The /query/1 body and its query templates, with the core's strings (FQL2QueryTemplateSpec,
// FQL2ProtocolSpec, FQL2Endpoint).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { parseQueryRequest, VALUE_SIGIL as V, type FqlQuery } from '../../../src/wire/v10/request';
import { ProtocolFailure } from '../../../src/wire/v10/errors';

const query = (q: string): FqlQuery => parseQueryRequest(`{"query":${q}}`).query;

function rejects(body: string | undefined, message: string): void {
  assert.throws(
    () => parseQueryRequest(body),
    (e: unknown) => {
      assert.ok(e instanceof ProtocolFailure, String(e));
      assert.equal(e.code, 'invalid_request');
      assert.equal(e.status, 400);
      assert.equal(e.message, message, body);
      return true;
    },
  );
}

test('a string query is the text, without values', () => {
  assert.deepEqual(query('"hello world"'), { text: 'hello world', values: [] });
  assert.deepEqual(parseQueryRequest('{"query":"1","arguments":null}'), { query: { text: '1', values: [] } });
  const req = parseQueryRequest('{"arguments":{"x":{"@int":"1"}},"query":"x"}');
  assert.deepEqual(req.arguments, new Map([['x', new Map([['@int', '1']])]]));
});

test('fql fragments concatenate, values become placeholders with their offsets', () => {
  assert.deepEqual(query('{"fql": ["hello", "world"]}'), { text: 'helloworld', values: [] });
  assert.deepEqual(query(`{"fql": ["'hello ' +", { "value": "world" }]}`), {
    text: `'hello ' +${V}`,
    values: [{ value: 'world', offset: 10 }],
  });
  assert.deepEqual(query('{"fql": ["hello ", { "fql": ["foo ", "bar"] }, " world"]}').text, 'hello foo bar world');
  assert.deepEqual(query('{ "fql": ["Author.all().where(.name ==", { "value": "Alice" }, ")"] }'), {
    text: `Author.all().where(.name ==${V})`,
    values: [{ value: 'Alice', offset: 27 }],
  });
  assert.deepEqual(query('{ "value": { "@int": "5" } }'), { text: V, values: [{ value: new Map([['@int', '5']]), offset: 0 }] });
});

test('arrays of values only become one value; text in containers is parenthesised', () => {
  assert.deepEqual(query('{ "array": ["1", "2", "3"] }'), { text: '[(1), (2), (3)]', values: [] });
  assert.deepEqual(query('{ "array": [{ "value": "1" }, { "value": "2" }, { "value": "3" }] }'), {
    text: V,
    values: [{ value: ['1', '2', '3'], offset: 0 }],
  });
  assert.deepEqual(query('{ "array": [{ "value": "1" }, "2", { "value": "3" }] }'), {
    text: `[${V}, (2), ${V}]`,
    values: [
      { value: '1', offset: 1 },
      { value: '3', offset: 15 },
    ],
  });
  assert.deepEqual(
    query('{ "array": ["1", { "array": [{ "value": "1" }, { "value": "2" }, { "value": "3" }] }, "3"] }'),
    { text: `[(1), ${V}, (3)]`, values: [{ value: ['1', '2', '3'], offset: 6 }] },
  );
  assert.deepEqual(query('{ "array": [] }'), { text: V, values: [{ value: [], offset: 0 }] });
  // fql inside a container keeps its scope
  assert.equal(query('{ "array": [{ "fql": ["1 +", "2"] }, "3"] }').text, '[(1 +2), (3)]');
});

test('objects of values only become one @object value', () => {
  assert.deepEqual(query('{ "object": { "a": "1", "b": "2", "c": "3" } }'), { text: '{ "a": (1), "b": (2), "c": (3) }', values: [] });
  const wrapped = (fields: [string, unknown][]) => new Map([['@object', new Map(fields)]]);
  assert.deepEqual(query('{ "object": { "a": { "value": "1" }, "b": { "value": "2" }, "c": { "value": "3" } } }'), {
    text: V,
    values: [{ value: wrapped([['a', '1'], ['b', '2'], ['c', '3']]), offset: 0 }],
  });
  assert.deepEqual(query('{ "object": { "a": { "value": "1" }, "b": "2", "c": { "value": "3" } } }'), {
    text: `{ "a": ${V}, "b": (2), "c": ${V} }`,
    values: [
      { value: '1', offset: 7 },
      { value: '3', offset: 31 },
    ],
  });
  assert.deepEqual(
    query(`{ "object": { "a": "1", "b": { "object": { "a": { "value": "1" }, "b": { "value": "2" }, "c": { "value": "3" } } }, "c": "3" } }`),
    { text: `{ "a": (1), "b": ${V}, "c": (3) }`, values: [{ value: wrapped([['a', '1'], ['b', '2'], ['c', '3']]), offset: 17 }] },
  );
  // keys are FQL string literals
  assert.equal(query('{ "object": { "\\u0000\\"#é\\u2028😀": "2" } }').text, '{ "\\0\\"\\#é\\u2028\\u{01f600}": (2) }');
});

test('template errors', () => {
  rejects('{"query":{ "object": { "a": "1", "a": "2" } }}', 'Invalid request body: Duplicate object field `a`');
  rejects('{"query":{ "object": { "a": { "value": "1" }, "a": { "value": "2" } } }}', 'Invalid request body: Duplicate object field `a`');
  rejects('{"query":{ "fql": [ { "value": { "@int": "5" } }, ".foo\\u0000" ] }}', 'Invalid request body: FQL strings cannot contain NUL characters');
  const single = "Expected an object with a single key 'fql', 'value', 'array', or 'object'.";
  rejects('{"query":{"foo":"1"}}', `Invalid request body: Unexpected JSON Object Field Name. ${single}`);
  rejects('{"query":{"fql":["1"],"value":1}}', `Invalid request body: Unexpected JSON Object Field Name. ${single}`);
  rejects('{"query":{}}', 'Invalid request body: Unexpected JSON Object End.');
  rejects('{"query":{"fql":"1"}}', 'Invalid request body: Unexpected JSON String.');
  rejects('{"query":{"fql":[1]}}', 'Invalid request body: Unexpected JSON Integer. Expected query template.');
  rejects('{"query":5}', 'Invalid request body: Unexpected JSON Integer. Expected query template.');
  rejects('{"query":null}', 'Invalid request body: Unexpected JSON Null. Expected query template.');
  rejects('{"query":[]}', 'Invalid request body: Unexpected JSON Array Start. Expected query template.');
});

test('body errors', () => {
  rejects(undefined, 'No request body provided');
  rejects('', 'No request body provided');
  rejects('  ', 'Invalid request body');
  rejects('{}', 'Invalid request body'); // no field query
  rejects('{"query":"1","foo":1}', 'Invalid request body'); // no case for the key
  rejects('[]', 'Invalid request body: Unexpected JSON Array Start.');
  rejects('"1"', 'Invalid request body: Unexpected JSON String.');
  rejects('{"query":"1","arguments":[]}', 'Invalid request body: Unexpected JSON Array Start. Expected Object.');
  rejects('{"query":"1","arguments":{"a":99999999999999999999}}', 'Invalid request body'); // out of range of long
  rejects('{"query":', 'Invalid request body: Unexpected end-of-input');
  rejects('{"query":x}', "Invalid request body: Unexpected character ('x' (code 120)): expected a valid value (JSON String, Number, Array, Object or token 'null', 'true' or 'false')");
  rejects('{"query" "1"}', "Invalid request body: Unexpected character ('\"' (code 34)): was expecting a colon to separate field name and value");
  rejects('{"query":"1" "x"}', "Invalid request body: Unexpected character ('\"' (code 34)): was expecting comma to separate Object entries");
  rejects('{"query":tru}', "Invalid request body: Unrecognized token 'tru': was expecting (JSON String, Number, Array, Object or token 'null', 'true' or 'false')");
  rejects('{"query":"a\nb"}', 'Invalid request body: Illegal unquoted character ((CTRL-CHAR, code 10)): has to be escaped using backslash to be included in string value');
  rejects('{"query":"1","arguments":{"a":01}}', 'Invalid request body: Invalid numeric value: Leading zeroes not allowed');
});

test('nesting beyond 1000 levels is refused cleanly', () => {
  let q = '{"value":1}';
  for (let i = 0; i < 10000; i++) q = `{"fql":[${q}]}`;
  rejects(`{"query":${q}}`, 'Invalid request body: JSON exceeds nesting limit');
  // 1000 levels are fine
  const deep = '['.repeat(998) + ']'.repeat(998);
  assert.equal(parseQueryRequest(`{"query":"1","arguments":{"a":${deep}}}`).query.text, '1');
});
