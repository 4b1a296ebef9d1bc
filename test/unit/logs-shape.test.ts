// FQL_SHAPE (src/logs/shape.ts): structure kept, literals and secrets gone.

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { SHAPE_MAX_CHARS, SHAPE_MAX_INPUT, shapeFql, shapeGraphQL } from '../../src/logs/shape';

const shape = (v: unknown) => JSON.parse(shapeFql(JSON.stringify(v))) as unknown;

test('string and number literals become "?"; booleans and null stay', () => {
  assert.deepEqual(shape({ add: [1, 2.5, '3'] }), { add: ['?', '?', '?'] });
  assert.deepEqual(shape({ equals: [true, null, false] }), { equals: [true, null, false] });
  assert.deepEqual(
    shape({ create: { collection: 'users' }, params: { object: { data: { object: { email: 'ann@example.com', age: 41 } } } } }),
    { create: { collection: 'users' }, params: { object: { data: { object: { email: '?', age: '?' } } } } },
  );
});

test('names of schema and variables are kept; document ids are not', () => {
  assert.deepEqual(shape({ get: { ref: { collection: 'users' }, id: '123' } }), { get: { ref: { collection: 'users' }, id: '?' } });
  assert.deepEqual(shape({ match: { index: 'users_by_email' }, terms: 'ann@example.com' }), { match: { index: 'users_by_email' }, terms: '?' });
  assert.deepEqual(shape({ let: [{ x: 5 }], in: { var: 'x' } }), { let: [{ x: '?' }], in: { var: 'x' } });
  assert.deepEqual(shape({ lambda: ['a', 'b'], expr: { var: 'a' } }), { lambda: ['a', 'b'], expr: { var: 'a' } });
  assert.deepEqual(shape({ call: { function: 'checkout' }, arguments: ['card-4242'] }), { call: { function: 'checkout' }, arguments: ['?'] });
});

test('wire-tagged literals and ref paths', () => {
  assert.deepEqual(shape({ '@ref': 'classes/users/481399028042432512' }), { '@ref': 'classes/users/?' });
  assert.deepEqual(shape({ '@ref': 'collections/users' }), { '@ref': 'collections/users' });
  assert.deepEqual(shape({ '@ref': 'keys/1234' }), { '@ref': 'keys/?' });
  assert.deepEqual(shape({ time: { '@ts': '2024-05-10T18:05:42Z' } }), { time: { '@ts': '?' } });
  assert.deepEqual(shape({ '@bytes': 'AAEC' }), { '@bytes': '?' });
});

test('password, secret and key_from_secret values are hidden whatever they hold', () => {
  assert.deepEqual(shape({ login: { match: { index: 'u' }, terms: 'x' }, params: { object: { password: 'hunter2' } } }), {
    login: { match: { index: 'u' }, terms: '?' },
    params: { object: { password: '***' } },
  });
  assert.deepEqual(shape({ key_from_secret: 'fnAEx' }), { key_from_secret: '***' });
  assert.deepEqual(shape({ object: { client_secret: { object: { a: 1 } }, newPassword: 'x' } }), {
    object: { client_secret: '***', newPassword: '***' },
  });
  const text = shapeFql(JSON.stringify({ identify: [{ '@ref': 'classes/u/1' }, 'hunter2'] }));
  assert.ok(!text.includes('hunter2'));
});

test('empty, invalid, huge and long bodies', () => {
  assert.equal(shapeFql(''), '');
  assert.equal(shapeFql('{nope'), '<invalid JSON, 5 bytes>');
  const huge = JSON.stringify({ add: Array.from({ length: SHAPE_MAX_INPUT / 4 }, () => 12345) });
  assert.match(shapeFql(huge), /^<\d+ bytes, not shaped>$/);
  const long = shapeFql(JSON.stringify({ do: Array.from({ length: 5000 }, () => ({ var: 'x' })) }));
  assert.equal(long.length, SHAPE_MAX_CHARS);
  assert.ok(long.endsWith('…'));
});

test('GraphQL: literals, comments and whitespace go, names and variables stay', () => {
  const q = `# find a user
    query Find($email: String!) {
      userByEmail(email: "ann@example.com", limit: 10, score: -1.5e3) { name, posts(first: 2) { title } }
      other: user(id: $email, note: """block
      text""")
    }`;
  assert.equal(
    shapeGraphQL(q),
    'query Find($email: String!) { userByEmail(email: "?" limit: 0 score: 0) { name posts(first: 0) { title } } other: user(id: $email note: "?") }',
  );
  assert.equal(shapeGraphQL('{ a2b(x: "q\\"uote") }'), '{ a2b(x: "?") }');
});
