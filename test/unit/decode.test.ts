import { test } from 'node:test';
import assert from 'node:assert/strict';
import { decodeExpr, decodeLiteral, decodeQueryBody, decodeBase64 } from '../../src/wire/decode';
import { parseJson } from '../../src/wire/json';
import type { CallExpr, Expr } from '../../src/wire/expr';
import { QueryError, type Position } from '../../src/values/errors';
import { Bytes, DateV, Lambda, Ref, SetV, Time, type Value } from '../../src/values/types';

const d = (text: string): Expr => decodeQueryBody(text);
const lit = (text: string): Value => {
  const e = d(text);
  assert.equal(e.t, 'lit', text);
  return (e as { v: Value }).v;
};

function fails(text: string, description: string, position: Position = []): void {
  assert.throws(
    () => d(text),
    (e: unknown) => {
      assert.ok(e instanceof QueryError, String(e));
      assert.equal(e.code, 'invalid expression', text);
      assert.equal(e.description, description, text);
      assert.deepEqual(e.position, position, text);
      return true;
    },
  );
}

const call = (e: Expr): CallExpr => {
  assert.equal(e.t, 'call');
  return e as CallExpr;
};

test('scalars become literals with their exact types', () => {
  assert.equal(lit('1'), 1n);
  assert.equal(lit('1.0'), 1);
  assert.equal(lit('"s"'), 's');
  assert.equal(lit('true'), true);
  assert.equal(lit('null'), null);
});

test('positions of nested calls and arrays', () => {
  const e = call(d('{"add":[1,{"multiply":[2,{"var":"x"}]}]}'));
  assert.equal(e.fn, 'add');
  assert.deepEqual(e.pos, []);
  const arr = e.args.get('add')!;
  assert.equal(arr.t, 'array');
  if (arr.t !== 'array') return;
  assert.deepEqual(arr.pos, ['add']);
  assert.deepEqual(arr.items[0].pos, ['add', 0]);
  const mul = call(arr.items[1]);
  assert.deepEqual(mul.pos, ['add', 1]);
  const inner = mul.args.get('multiply')!;
  assert.equal(inner.t, 'array');
  if (inner.t === 'array') {
    assert.deepEqual(inner.items[1], { t: 'var', name: 'x', pos: ['add', 1, 'multiply', 1] });
  }
  const sel = call(d('{"select":["a"],"from":{"get":{"var":"r"}},"default":null}'));
  assert.deepEqual([...sel.args.keys()], ['select', 'from', 'default']);
  assert.deepEqual(sel.args.get('from')!.pos, ['from']);
  assert.deepEqual(call(sel.args.get('from')!).args.get('get')!.pos, ['from', 'get']);
  assert.deepEqual(sel.args.get('default'), { t: 'lit', v: null, pos: ['default'] });
});

test('let: array form and object form', () => {
  const a = d('{"let":[{"x":1},{"y":{"var":"x"}}],"in":{"var":"y"}}');
  assert.equal(a.t, 'let');
  if (a.t !== 'let') return;
  assert.deepEqual(a.bindings.map(([n, e]) => [n, e.pos]), [['x', ['let', 0, 'x']], ['y', ['let', 1, 'y']]]);
  assert.deepEqual(a.body, { t: 'var', name: 'y', pos: ['in'] });

  const o = d('{"let":{"x":1,"y":2},"in":3}');
  assert.equal(o.t, 'let');
  if (o.t !== 'let') return;
  assert.deepEqual(o.bindings.map(([n, e]) => [n, e.pos]), [['x', ['let', 'x']], ['y', ['let', 'y']]]);
  assert.deepEqual(o.body.pos, ['in']);

  // several keys in one array element are bound in order
  const m = d('{"let":[{"a":1,"b":2}],"in":3}');
  assert.ok(m.t === 'let' && m.bindings.map((b) => b[0]).join() === 'a,b');
  fails('{"let":"x","in":1}', 'Object or Array expected, String provided.', ['let']);
  fails('{"let":[1],"in":1}', 'Object expected, Integer provided.', ['let', 0]);
});

test('var, lambda and their errors', () => {
  fails('{"var":1}', 'String expected, Integer provided.', ['var']);
  const l = d('{"lambda":["a",["b","_"]],"expr":{"var":"a"}}');
  assert.equal(l.t, 'lambda');
  if (l.t === 'lambda') {
    assert.deepEqual(l.params, ['a', ['b', '_']]);
    assert.deepEqual(l.raw, new Map([['var', 'a']]));
    assert.deepEqual(l.body.pos, ['expr']);
  }
  fails('{"lambda":1,"expr":1}', 'Invalid lambda.', ['lambda']);
  fails('{"lambda":["a",2],"expr":1}', 'Invalid lambda.', ['lambda']);
});

test('object literals', () => {
  const o = d('{"object":{"a":{"add":[1,2]},"@b":1,"add":3}}');
  assert.equal(o.t, 'object');
  if (o.t !== 'object') return;
  assert.deepEqual(o.pos, []);
  assert.deepEqual(call(d('{"add":[{"object":{"a":{"var":"x"}}}]}')).args.get('add')!.t, 'array');
  assert.deepEqual(o.entries.map(([k, e]) => [k, e.t, e.pos]), [
    ['a', 'call', ['object', 'a']],
    ['@b', 'lit', ['object', '@b']],
    ['add', 'lit', ['object', 'add']],
  ]);
  // {"object": {"@obj": {...}}} protects odd keys
  const p = d('{"object":{"@obj":{"@ref":{"var":"x"}}}}');
  assert.ok(p.t === 'object' && p.entries[0][0] === '@ref' && p.entries[0][1].t === 'var');
  if (p.t === 'object') assert.deepEqual(p.entries[0][1].pos, ['object', '@obj', '@ref']);
  const nested = d('{"to_array":{"object":{"a":1}}}');
  assert.ok(nested.t === 'call');
  if (nested.t === 'call') assert.deepEqual(nested.args.get('to_array')!.pos, ['to_array']);
  fails('{"object":[1]}', 'Object expected, Array provided.', ['object']);
});

test('constant arrays and objects decode to one constant node', () => {
  const arr = d('[1,"a",null,[2,[3]]]');
  assert.equal(arr.t, 'lit');
  if (arr.t === 'lit') assert.deepEqual(arr.v, [1n, 'a', null, [2n, [3n]]]);
  const o = d('{"object":{"a":1,"b":{"object":{"c":[true]}},"t":{"@ts":"1970-01-01T00:00:00Z"}}}');
  assert.equal(o.t, 'lit');
  if (o.t === 'lit') {
    assert.ok(o.v instanceof Map && (o.v.get('b') as Map<string, Value>).get('c') !== undefined);
    assert.ok(o.v.get('t') instanceof Time);
  }
  // One non-constant element keeps the array an expression.
  assert.equal(d('[1,{"var":"x"}]').t, 'array');
  assert.equal(d('{"object":{"a":1,"b":{"var":"x"}}}').t, 'object');
  // The operand list of do/and/or stays a list: its array-ness decides what the call means.
  for (const head of ['do', 'and', 'or']) {
    const c = call(d(`{"${head}":[true,false]}`));
    assert.equal(c.args.get(head)!.t, 'array', head);
  }
});

test('@obj in expression position', () => {
  const a = d('{"@obj":{"object":{"a":{"var":"x"}}}}');
  assert.ok(a.t === 'object' && a.entries[0][0] === 'a');
  const b = d('{"@obj":{"@ts":{"var":"x"},"k":1}}');
  assert.ok(b.t === 'object');
  if (b.t === 'object') {
    assert.deepEqual(b.entries.map(([k, e]) => [k, e.t, e.pos]), [
      ['@ts', 'var', ['@obj', '@ts']],
      ['k', 'lit', ['@obj', 'k']],
    ]);
  }
  const c = d('{"@obj":{"add":[1,2]}}');
  assert.ok(c.t === 'call' && c.fn === 'add');
  assert.deepEqual(c.pos, ['@obj']);
  fails('{"@obj":1}', 'Invalid object.');
});

test('quote returns literal data', () => {
  const v = lit('{"quote":{"add":[1,{"@ts":"1970-01-01T00:00:00Z"}],"@obj":1}}');
  assert.ok(v instanceof Map);
  const add = (v as Map<string, Value>).get('add') as Value[];
  assert.equal(add[0], 1n);
  assert.ok(add[1] instanceof Time && add[1].nanos === 0n);
});

test('@ref object form', () => {
  const doc = lit('{"@ref":{"id":"123","collection":{"@ref":{"id":"widgets","collection":{"@ref":{"id":"collections"}}}}}}');
  assert.ok(doc instanceof Ref && doc.equals(Ref.doc('widgets', '123')));
  assert.ok(doc instanceof Ref && doc.isUserDocument);
  const native = lit('{"@ref":{"id":"collections"}}');
  assert.ok(native instanceof Ref && native.equals(Ref.native('collections')));
  // legacy `class` key and `classes` native, integer id
  const legacy = lit('{"@ref":{"id":123,"class":{"@ref":{"id":"w","class":{"@ref":{"id":"classes"}}}}}}');
  assert.ok(legacy instanceof Ref && legacy.equals(Ref.doc('w', '123')));
  // child database refs
  const db = Ref.schema('databases', 'child-db');
  const scoped = lit(
    '{"@ref":{"id":"a_collection","collection":{"@ref":{"id":"collections"}},"database":{"@ref":{"id":"child-db","collection":{"@ref":{"id":"databases"}}}}}}',
  );
  assert.ok(scoped instanceof Ref && scoped.equals(Ref.schema('collections', 'a_collection', db)));
  const key = lit(
    '{"@ref":{"id":"1","collection":{"@ref":{"id":"keys","database":{"@ref":{"id":"child-db","collection":{"@ref":{"id":"databases"}}}}}}}}',
  );
  assert.ok(key instanceof Ref && key.equals(new Ref('1', Ref.native('keys'), db)), 'key database moves onto the key ref');
  const nativeScoped = lit('{"@ref":{"id":"indexes","database":{"@ref":{"id":"child-db","collection":{"@ref":{"id":"databases"}}}}}}');
  assert.ok(nativeScoped instanceof Ref && nativeScoped.equals(Ref.native('indexes', db)));
  for (const bad of [
    '{"@ref":{"id":"nope"}}',
    '{"@ref":{"collection":{"@ref":{"id":"collections"}}}}',
    '{"@ref":{"id":true}}',
    '{"@ref":{"id":"1","collection":"c"}}',
    '{"@ref":{"id":"1","x":1}}',
    '{"@ref":1}',
  ]) {
    fails(bad, 'Invalid ref.');
  }
  fails('{"add":[{"@ref":"nope"}]}', 'Invalid ref.', ['add', 0]);
});

test('@ref legacy string paths', () => {
  const cases: [string, Ref][] = [
    ['collections/widget/123', Ref.doc('widget', '123')],
    ['classes/widget/123', Ref.doc('widget', '123')],
    ['collections/widget', Ref.collection('widget')],
    ['classes/widget', Ref.collection('widget')],
    ['indexes/by_x', Ref.schema('indexes', 'by_x')],
    ['databases/db1', Ref.schema('databases', 'db1')],
    ['functions/f', Ref.schema('functions', 'f')],
    ['roles/r', Ref.schema('roles', 'r')],
    ['access_providers/ap', Ref.schema('access_providers', 'ap')],
    ['keys/123', new Ref('123', Ref.native('keys'))],
    ['tokens/123', new Ref('123', Ref.native('tokens'))],
    ['credentials/123', new Ref('123', Ref.native('credentials'))],
    ['credentials/self', new Ref('self', Ref.native('credentials'))],
    ['tokens/self', new Ref('self', Ref.native('tokens'))],
    ['collections', Ref.native('collections')],
    ['classes', Ref.native('collections')],
    ['indexes', Ref.native('indexes')],
    ['keys', Ref.native('keys')],
    ['access_providers', Ref.native('access_providers')],
  ];
  for (const [path, ref] of cases) {
    const v = lit(`{"@ref":${JSON.stringify(path)}}`);
    assert.ok(v instanceof Ref && v.equals(ref), path);
  }
  for (const bad of [
    'databases/self', 'keys/self', 'widgets/1', 'collections/', 'collections/w/abc', 'collections/w/1/2',
    'keys/abc', 'indexes/a/b', '', 'nope',
  ]) {
    fails(`{"@ref":${JSON.stringify(bad)}}`, 'Invalid ref.');
  }
});

test('@ts', () => {
  const t = (s: string) => (lit(`{"@ts":"${s}"}`) as Time).nanos;
  assert.equal(t('1970-01-01T00:00:00Z'), 0n);
  assert.equal(t('1970-01-01T00:00:12Z'), 12_000_000_000n);
  assert.equal(t('1970-01-01T00:00:00.123456789Z'), 123456789n);
  assert.equal(t('1970-01-01T00:00:00.5Z'), 500_000_000n);
  assert.equal(t('1970-01-01T01:00:00+01:00'), 0n);
  assert.equal(t('1969-12-31T23:00:00-01:00'), 0n);
  assert.equal(t('1969-12-31T23:59:59.999999999Z'), -1n);
  assert.equal(t('2020-02-29T12:00:00Z'), 1582977600_000_000_000n);
  for (const bad of [
    '1970-01-01T00:00:00', '1970-01-01', '1970-13-01T00:00:00Z', '2019-02-29T00:00:00Z',
    '1970-01-01T24:00:00Z', '1970-01-01T00:00:00.1234567891Z', '1970-01-01T00:00:00.Z', 'now', 'x',
  ]) {
    fails(`{"@ts":"${bad}"}`, 'Invalid time.');
  }
  fails('{"@ts":1}', 'Invalid time.');
});

test('@date', () => {
  const v = (s: string) => (lit(`{"@date":"${s}"}`) as DateV).days;
  assert.equal(v('1970-01-01'), 0);
  assert.equal(v('1970-01-02'), 1);
  assert.equal(v('1969-12-31'), -1);
  assert.equal(v('2000-03-01'), 11017);
  for (const bad of ['1970-1-01', '1970-02-30', '1970-01-01T00:00:00Z', '', 'x']) {
    fails(`{"@date":"${bad}"}`, 'Invalid date.');
  }
  fails('{"@date":null}', 'Invalid date.');
});

test('@bytes accepts standard and url-safe base64 with optional padding', () => {
  const b = (s: string) => [...(lit(`{"@bytes":"${s}"}`) as Bytes).bytes];
  assert.deepEqual(b('AQIDBA=='), [1, 2, 3, 4]);
  assert.deepEqual(b('AQIDBA'), [1, 2, 3, 4]);
  assert.deepEqual(b('-_8='), [0xfb, 0xff]);
  assert.deepEqual(b('+/8'), [0xfb, 0xff]);
  assert.deepEqual(b(''), []);
  for (const bad of ['A', 'AQID*A==', 'AQ=D', 'AQI===', '+_8=', 'AQIDB===']) {
    assert.equal(decodeBase64(bad), undefined, bad);
    fails(`{"@bytes":"${bad}"}`, 'Invalid bytes.');
  }
});

test('@set', () => {
  const s = lit('{"@set":{"match":{"@ref":{"id":"by_x","collection":{"@ref":{"id":"indexes"}}}},"terms":["a",1]}}');
  assert.ok(s instanceof SetV);
  const expr = (s as SetV).expr;
  assert.ok(expr.get('match') instanceof Ref);
  assert.deepEqual(expr.get('terms'), ['a', 1n]);
  const u = lit('{"@set":{"union":[{"@set":{"documents":{"@ref":{"id":"c","collection":{"@ref":{"id":"collections"}}}}}}]}}');
  assert.ok(u instanceof SetV && ((u.expr.get('union') as Value[])[0] instanceof SetV));
  fails('{"@set":1}', 'Invalid set.');
  fails('{"@set":{"add":[1]}}', 'Invalid set.');
  fails('{"@set":{"foo":1}}', 'Invalid set.');
});

test('@query', () => {
  const q = lit('{"@query":{"api_version":"4","lambda":"x","expr":{"add":[{"var":"x"},1]}}}');
  assert.ok(q instanceof Lambda);
  assert.equal((q as Lambda).apiVersion, '4');
  assert.equal((q as Lambda).params, 'x');
  assert.deepEqual((q as Lambda).body, parseJson('{"add":[{"var":"x"},1]}'));
  const old = lit('{"@query":{"lambda":["a","b"],"expr":{"let":{"c":{"var":"a"}},"in":{"var":"c"}}}}');
  assert.ok(old instanceof Lambda && old.apiVersion === undefined);
  fails('{"@query":{"lambda":"x","expr":{"var":"y"}}}', 'Invalid lambda.'); // free variable
  fails('{"@query":{"lambda":"_","expr":{"var":"_"}}}', 'Invalid lambda.');
  fails('{"@query":{"lambda":1,"expr":1}}', 'Invalid lambda.');
  fails('{"@query":{"expr":1}}', 'Invalid lambda.');
  fails('{"@query":{"lambda":"x","expr":1,"extra":1}}', 'Invalid lambda.');
  fails('{"@query":{"lambda":"x","expr":1,"api_version":4}}', 'Invalid lambda.');
  fails('{"@query":"x"}', 'Invalid lambda.');
});

test('escapes need a single key; literals inside escapes are data', () => {
  fails('{"@ts":"1970-01-01T00:00:00Z","a":1}', 'No form/function found, or invalid argument keys: { @ts, a }.');
  fails('{"@foo":1}', 'No form/function found, or invalid argument keys: { @foo }.');
  fails('{}', 'No form/function found, or invalid argument keys: {  }.');
});

test('decodeLiteral: bare objects are data, @obj keys are literal', () => {
  const v = decodeLiteral(parseJson('{"add":[1],"x":{"@obj":{"@ref":"nope"}},"t":{"@date":"1970-01-02"}}')) as Map<string, Value>;
  assert.deepEqual(v.get('add'), [1n]);
  assert.deepEqual(v.get('x'), new Map([['@ref', 'nope']]));
  assert.ok(v.get('t') instanceof DateV);
});

test('empty expression lists are parse errors', () => {
  fails('{"do":[]}', 'Expression list cannot be empty.', ['do']);
  fails('{"and":[]}', 'Expression list cannot be empty.', ['and']);
  assert.equal(call(d('{"do":[1]}')).fn, 'do');
});

test('deprecated heads decode to canonical calls, keeping their keys', () => {
  const c = call(d('{"create_class":{"object":{"name":"c"}}}'));
  assert.equal(c.fn, 'create_collection');
  assert.deepEqual([...c.args.keys()], ['create_class']);
  assert.equal(call(d('{"contains":"a","in":{"object":{}}}')).fn, 'contains_path');
});

test('decodeExpr takes a base position', () => {
  const e = decodeExpr(parseJson('{"add":[1]}'), ['expr']);
  assert.deepEqual(e.pos, ['expr']);
});

test('a large body decoded a slice at a time gives the same tree as decoding it at once', async () => {
  const { decodeRequest } = await import('../../src/wire/decode');
  let pauses = 0;
  let charged = 0;
  const pacer = { sliceMs: 0, pause: async () => void pauses++, alloc: (n: number) => void (charged += n) };
  const item = (i: number) => ({ let: [{ x: i }], in: { object: { n: { var: 'x' }, s: `v${i}`, t: { '@ts': '2020-01-01T00:00:00Z' }, a: [1, { var: 'x' }] } } });
  const shapes = [
    { do: Array.from({ length: 20_000 }, (_, i) => item(i)) },
    { add: Array.from({ length: 200_000 }, (_, i) => i) },
    { quote: Array.from({ length: 20_000 }, (_, i) => ({ k: [i, { '@ref': 'collections/c/1' }] })) },
    Array.from({ length: 5_000 }, (_, i) => ({ map: { lambda: 'x', expr: [{ var: 'x' }, i] }, collection: [[i], [i, { object: { a: { var: 'y' } } }]] })),
  ];
  for (const shape of shapes) {
    const text = JSON.stringify(shape);
    assert.deepEqual(await decodeRequest(text, pacer), decodeQueryBody(text));
  }
  assert.ok(pauses > 10, `pauses: ${pauses}`);
  assert.ok(charged > 0);
  // Errors are the same too, at the same position.
  const bad = JSON.stringify({ do: [...Array.from({ length: 30_000 }, (_, i) => item(i)), { nope: 1 }] });
  await assert.rejects(async () => decodeRequest(bad, pacer), (e: unknown) => e instanceof QueryError && e.description === 'No form/function found, or invalid argument keys: { nope }.' && JSON.stringify(e.position) === JSON.stringify(['do', 30_000]));
});
