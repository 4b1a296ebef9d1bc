import { test } from 'node:test';
import assert from 'node:assert/strict';
import { parseJson, jsonString, MAX_JSON_DEPTH } from '../../src/wire/json';
import { QueryError } from '../../src/values/errors';

function fails(text: string, description: string): void {
  assert.throws(
    () => parseJson(text),
    (e: unknown) =>
      e instanceof QueryError && e.code === 'invalid expression' && e.description === description,
    `expected ${JSON.stringify(description)} for ${JSON.stringify(text.slice(0, 40))}`,
  );
}

test('integers are exact bigints at the 64-bit limits', () => {
  assert.equal(parseJson('9223372036854775807'), 9223372036854775807n);
  assert.equal(parseJson('-9223372036854775808'), -9223372036854775808n);
  assert.equal(parseJson('123456789012345'), 123456789012345n);
  assert.equal(parseJson('1234567890123456789'), 1234567890123456789n);
  assert.equal(parseJson('0'), 0n);
  assert.equal(parseJson('-0'), 0n);
});

test('integers outside 64 bits fail', () => {
  fails('9223372036854775808', 'Request body is not valid JSON.');
  fails('-9223372036854775809', 'Request body is not valid JSON.');
  fails('[1, 99999999999999999999999]', 'Request body is not valid JSON.');
});

test('1 is a Long, 1.0 and exponents are Doubles', () => {
  assert.equal(typeof parseJson('1'), 'bigint');
  assert.equal(parseJson('1.0'), 1);
  assert.equal(typeof parseJson('1.0'), 'number');
  assert.equal(parseJson('1e2'), 100);
  assert.equal(typeof parseJson('1e2'), 'number');
  assert.equal(parseJson('-2.5E-3'), -0.0025);
  assert.equal(parseJson('3.14'), 3.14);
});

test('objects are Maps in document order and the first duplicate key wins', () => {
  const v = parseJson('{"b":1,"a":2,"b":3}') as Map<string, unknown>;
  assert.ok(v instanceof Map);
  assert.deepEqual([...v.keys()], ['b', 'a']);
  assert.equal(v.get('b'), 1n);
  const proto = parseJson('{"__proto__":1}') as Map<string, unknown>;
  assert.equal(proto.get('__proto__'), 1n);
});

test('scalars, arrays, whitespace and strings', () => {
  assert.deepEqual(parseJson(' [true, false, null, "x"] \n'), [true, false, null, 'x']);
  assert.equal(parseJson('"a\\"b\\\\c\\/d\\n\\t\\u00e9\\ud83d\\ude00"'), 'a"b\\c/d\n\té😀');
  assert.equal(parseJson('"plain"'), 'plain');
  assert.equal(parseJson('"\\ud800"'), '\ud800'); // lone surrogates tolerated
  assert.deepEqual(parseJson('[]'), []);
  assert.deepEqual(parseJson('{}'), new Map());
});

test('nesting limit', () => {
  const ok = '['.repeat(MAX_JSON_DEPTH) + ']'.repeat(MAX_JSON_DEPTH);
  assert.ok(Array.isArray(parseJson(ok)));
  fails('['.repeat(MAX_JSON_DEPTH + 1) + ']'.repeat(MAX_JSON_DEPTH + 1), 'Request body JSON exceeds nesting limit.');
  fails('{"a":'.repeat(MAX_JSON_DEPTH + 1) + '1' + '}'.repeat(MAX_JSON_DEPTH + 1), 'Request body JSON exceeds nesting limit.');
  fails('['.repeat(100000), 'Request body JSON exceeds nesting limit.');
});

test('empty body', () => {
  fails('', 'No query provided.');
  fails('  \n ', 'No query provided.');
});

test('malformed inputs', () => {
  for (const bad of [
    '{', '[1,]', '[1 2]', '{"a" 1}', '{"a":1,}', '{a:1}', "'x'", '"abc', '"a\nb"', '"\\x"', '"\\u12g4"',
    '01', '1.', '.5', '1e', '-', '+1', 'tru', 'nul', 'NaN', 'Infinity', '1 2', '{} x', '[1]]', '{"a":1}}',
  ]) {
    fails(bad, 'Request body is not valid JSON.');
  }
});

test('jsonString quotes like JSON.stringify and renders lone surrogates as ?', () => {
  assert.equal(jsonString('a"b\\c\n\u0001é'), JSON.stringify('a"b\\c\n\u0001é'));
  assert.equal(jsonString('x\ud800y'), '"x?y"');
  assert.equal(jsonString('\udc00'), '"?"');
  assert.equal(jsonString('😀'), '"😀"');
});
