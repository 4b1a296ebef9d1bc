// FQL_SHAPE (src/logs/shape.ts): structure kept, literals and secrets gone.

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { SHAPE_MAX_CHARS, SHAPE_MAX_INPUT, shapeFql, shapeGraphQL } from '../../src/logs/shape';
import { prng } from '../helpers/prng';

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

test('a top-level data key is removed; data anywhere else is shaped like any value', () => {
  assert.deepEqual(shape({ data: { email: 'ann@example.com' }, create: { collection: 'users' } }), { create: { collection: 'users' } });
  assert.deepEqual(shape({ create: { collection: 'users' }, data: [1, 2] }), { create: { collection: 'users' } });
  assert.deepEqual(shape({ data: { secret: 'x' } }), {});
  assert.equal(shapeFql('{ "d\\u0061ta" : {"a":1} , "x" : 1 }'), '{"x":"?"}');
  assert.deepEqual(shape({ params: { object: { data: { object: { n: 1 } } } } }), { params: { object: { data: { object: { n: '?' } } } } });
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

test('escapes, whitespace and invalid JSON', () => {
  assert.equal(shapeFql(' { "pass\\u0077ord" : "x" , "a" : [ 1 , "b" ] } '), '{"pass\\u0077ord":"***","a":["?","?"]}');
  assert.equal(shapeFql('{"collection":"we\\"ird"}'), '{"collection":"we\\"ird"}');
  assert.equal(shapeFql('{"a":"x\\\\"}'), '{"a":"?"}');
  assert.equal(shapeFql('{"secret":{"a":["]",{"b":"}"}]},"c":1}'), '{"secret":"***","c":"?"}');
  for (const bad of ['{"a":1,}', '{"a"}', '[1 2]', '"abc', '01', '-', '1.', '{"a":tru}', '{} x', '{"a":1}}', '{"secret":[1,2}']) {
    assert.match(shapeFql(bad), /^<invalid JSON, \d+ bytes>$/, bad);
  }
  const deep = '['.repeat(100) + ']'.repeat(100);
  assert.equal(shapeFql(deep), `${'['.repeat(64)}"…"${']'.repeat(64)}`);
});

/** The shape by the definition: parse, replace, serialise (what the one-pass shaper must agree with). */
function reference(v: unknown, key?: string, top = false): unknown {
  const names = new Set(['collection', 'class', 'index', 'function', 'database', 'role', 'access_provider', 'collections', 'classes', 'indexes', 'functions', 'databases', 'roles', 'access_providers', 'keys', 'tokens', 'credentials', 'var', 'lambda']);
  if (v === null || typeof v === 'boolean') return v;
  if (typeof v === 'number') return '?';
  if (typeof v === 'string') {
    if (key === '@ref') {
      const parts = v.split('/');
      if (!['classes', 'collections'].includes(parts[0])) return '?';
      return parts.map((p, i) => (i >= 2 ? '?' : p)).join('/');
    }
    return key !== undefined && names.has(key) ? v : '?';
  }
  if (Array.isArray(v)) return v.map((x) => reference(x, key === 'lambda' || key === 'var' ? key : undefined));
  return Object.fromEntries(
    Object.entries(v as Record<string, unknown>).filter(([k]) => !(top && k === 'data')).map(([k, x]) => [
      k,
      /password|secret|key_from_secret/i.test(k) ? '***' : ['@ts', '@date', '@bytes'].includes(k) ? '?' : reference(x, k),
    ]),
  );
}

test('the one-pass shaper agrees with parse-and-replace on random expressions', () => {
  const rnd = prng(8);
  const pick = <T>(xs: readonly T[]) => xs[Math.floor(rnd() * xs.length)];
  const keys = ['get', 'collection', 'index', 'var', 'lambda', 'data', 'password', 'x_secret', '@ts', '@ref', 'id', 'object', 'ünï', 'a"b', 'let'];
  const gen = (depth: number): unknown => {
    const r = rnd();
    if (depth > 5 || r < 0.3) return pick([1, -2.5e3, 0, 'ann@example.com', 'classes/users/1', 'collections/x', 'q"uo\\te', true, false, null, 'ü\n']);
    if (r < 0.6) return Array.from({ length: Math.floor(rnd() * 4) }, () => gen(depth + 1));
    return Object.fromEntries(Array.from({ length: Math.floor(rnd() * 4) }, () => [pick(keys), gen(depth + 1)]));
  };
  for (let i = 0; i < 2000; i++) {
    const v = gen(0);
    const text = JSON.stringify(v, null, i % 2 ? 1 : undefined);
    if (text.length > 2000) continue;
    assert.deepEqual(JSON.parse(shapeFql(text)), reference(JSON.parse(text), undefined, true), text);
  }
});
