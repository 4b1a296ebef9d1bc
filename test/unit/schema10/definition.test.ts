// v10 collection definitions and type signatures, validated as the core validates them.

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { parseSignature, signatureFailure } from '../../../src/model/schema10/signature';
import { displayType, validate } from '../../../src/model/schema10/schemaType';
import { validateDefinition } from '../../../src/model/schema10/definition';
import type { Obj, Value } from '../../../src/values/types';

function obj(o: Record<string, unknown>): Obj {
  const conv = (v: unknown): Value =>
    Array.isArray(v) ? v.map(conv) : v !== null && typeof v === 'object' ? obj(v as Record<string, unknown>) : typeof v === 'number' ? BigInt(v) : (v as Value);
  return new Map(Object.entries(o).map(([k, v]) => [k, conv(v)]));
}

test('signatures parse and display as FQL', () => {
  for (const [src, shown] of [
    ['String', 'String'],
    ['Int?', 'Int | Null'],
    ['Array<String | Int>', 'Array<String | Int>'],
    ['{ a: Int, b?: String, *: Any }', '{ a: Int, b: String | Null, *: Any }'],
    ['"asc" | "desc"', '"asc" | "desc"'],
    ['[Int, Boolean]', '[Int, Boolean]'],
    ['Ref<User>', 'User'],
  ])
    assert.equal(displayType(parseSignature(src)), shown);
  assert.match(signatureFailure('^.^', 'signature')!, /^Failed parsing user-provided signature\.\nerror: Expected type\nat \*signature\*:1:1/);
  assert.equal(signatureFailure('Int | String', 'signature'), undefined);
});

test('values are checked with the core failures', () => {
  const t = parseSignature('{ name: String, age: Int?, tags: Array<String> }');
  assert.deepEqual(validate(t, [], obj({ age: 5000000000, tags: ['a', 1], x: true })), [
    { paths: [['age']], message: 'Expected Int | Null, provided Long' },
    { paths: [['tags', 1]], message: 'Expected String, provided Int' },
    { paths: [['x']], message: 'Unexpected field provided' },
    { paths: [['name']], message: 'Missing required field of type String' },
  ]);
  assert.deepEqual(validate(parseSignature('"a" | "b"'), ['k'], 'c'), [{ paths: [['k']], message: 'Expected "a" | "b", provided String' }]);
});

test('definitions report each bad field', () => {
  const failures = validateDefinition(
    obj({
      name: 'C',
      history_days: -1,
      fields: { id: { signature: 'String' }, a: { signature: 'Int' } },
      computed_fields: { a: { body: '(doc) => 1' } },
      indexes: { byA: { terms: [{ field: '.coll' }] }, none: {} },
      constraints: [{ check: { name: 'ok', body: '(d) => true' } }, { check: { name: 'ok', body: '(d) => true' } }, { unique: [] }],
    }),
    undefined,
  );
  assert.deepEqual(failures, [
    { paths: [['history_days']], message: 'Non-negative value required.' },
    { paths: [['fields']], message: "The name 'id' is reserved." },
    { paths: [['indexes', 'byA', 'terms', 0, 'field']], message: '`coll` is not supported as an index term.' },
    { paths: [['indexes', 'none']], message: 'Union requires fields [terms], [values], or [terms, values]' },
    { paths: [['constraints']], message: 'Unique constraints must have at least one term' },
    { paths: [['constraints']], message: "Duplicate check constraint name 'ok'" },
    { paths: [['computed_fields']], message: "Computed field 'a' collides with a defined field" },
  ]);
});
