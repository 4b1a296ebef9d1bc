import { test } from 'node:test';
import assert from 'node:assert/strict';
import { BUILDER_HEADS, BUILDER_NAMES, FORMS, recognizeForm } from '../../src/wire/builders';
import { decodeExpr } from '../../src/wire/decode';
import { parseJson } from '../../src/wire/json';
import type { Expr } from '../../src/wire/expr';
import { QueryError } from '../../src/values/errors';
import { Bytes, Ref } from '../../src/values/types';

process.noDeprecation = true; // the deprecated builders warn on every call

type Builder = (...args: unknown[]) => unknown;
// eslint-disable-next-line @typescript-eslint/no-require-imports
const q = (require('faunadb') as { query: Record<string, Builder> }).query;
const driverNames = Object.keys(q).filter((k) => k !== 'arity' && k !== 'wrap');

const decodeDriver = (expr: unknown): Expr => decodeExpr(parseJson(JSON.stringify(expr)));
const lambda = () => q.Lambda('x', q.Var('x'));

// Arguments for builders that need more than placeholder `1`s (lambdas, names, arities the
// deprecated wrappers hide behind `arguments`).
const ARGS: Record<string, unknown[]> = {
  Ref: [q.Collection('c'), 1234],
  Bytes: [new Uint8Array([1, 2, 3, 4])],
  Let: [{ x: 1 }, q.Var('x')],
  Var: ['x'],
  Lambda: ['x', q.Var('x')],
  Object: [{ a: 1 }],
  Query: [lambda()],
  Map: [[1], lambda()],
  Foreach: [[1], lambda()],
  Filter: [[1], lambda()],
  Reduce: [q.Lambda(['a', 'b'], q.Var('a')), 0, [1]],
  Merge: [{ a: 1 }, { b: 2 }, q.Lambda(['k', 'a', 'b'], q.Var('b'))],
  Paginate: [q.Documents(q.Collection('c')), { size: 2, after: [1], ts: 5, events: true, sources: true }],
  Do: [1, 2],
  Call: ['f', 1, 2],
  Match: [q.Index('i'), 'a', 'b'],
  Format: ['%s', 1],
  Insert: [q.Ref(q.Collection('c'), 1), 1, 'create', {}],
  Remove: [q.Ref(q.Collection('c'), 1), 1, 'create'],
  CreateClass: [{ name: 'c' }],
  Class: ['c'],
  Classes: [],
  Contains: [['a'], { a: 1 }],
  SelectAll: ['a', [{ a: 1 }]],
  Select: [['a', 0], { a: [1] }, null],
};

function build(name: string): unknown {
  const fn = q[name];
  if (ARGS[name]) return fn(...ARGS[name]);
  // Try the declared arity, then others, until the driver's arity check accepts the call.
  for (const n of [fn.length, 1, 2, 0, 3, 4]) {
    try {
      return fn(...new Array(n).fill(1));
    } catch {
      /* try the next arity */
    }
  }
  throw new Error(`cannot build ${name}`);
}

test('BUILDER_NAMES lists exactly the driver builders', () => {
  assert.equal(driverNames.length, 206);
  assert.deepEqual([...BUILDER_NAMES].sort(), [...driverNames].sort());
});

test('every builder decodes to its form with the right canonical head', () => {
  for (const name of driverNames) {
    const head = BUILDER_HEADS.get(name)!;
    const json = JSON.parse(JSON.stringify(build(name))) as Record<string, unknown>;
    assert.ok(head in json, `${name}: expected head ${head} in ${JSON.stringify(json)}`);
    const e = decodeDriver(build(name));
    if (head === '@bytes') {
      assert.ok(e.t === 'lit' && e.v instanceof Bytes, name);
      continue;
    }
    const spec = FORMS.get(head);
    assert.ok(spec, `${name}: no form for ${head}`);
    const form = recognizeForm(Object.keys(json));
    assert.deepEqual(form, { head, canonical: spec.canonical }, name);
    switch (head) {
      case 'var':
      case 'let':
      case 'lambda':
        assert.equal(e.t, head, name);
        break;
      case 'object':
        // An object of constants is itself a constant.
        assert.ok(e.t === 'object' || (e.t === 'lit' && e.v instanceof Map), name);
        break;
      default:
        assert.equal(e.t, 'call', name);
        if (e.t === 'call') assert.equal(e.fn, spec.canonical, name);
    }
  }
});

test('one-argument Ref sends the legacy string form', () => {
  const e = decodeDriver(q.Ref('collections/widget/123'));
  assert.equal(e.t, 'lit');
  if (e.t === 'lit') assert.ok(e.v instanceof Ref && e.v.equals(Ref.doc('widget', '123')));
});

test('deprecated aliases map to their replacements', () => {
  const canon = (n: string) => FORMS.get(BUILDER_HEADS.get(n)!)!.canonical;
  assert.equal(canon('CreateClass'), 'create_collection');
  assert.equal(canon('Class'), 'collection');
  assert.equal(canon('Classes'), 'collections');
  assert.equal(canon('Identity'), 'current_identity');
  assert.equal(canon('HasIdentity'), 'has_current_identity');
  assert.equal(canon('NextId'), 'new_id');
  assert.equal(canon('Contains'), 'contains_path');
  assert.equal(canon('SelectAll'), 'select_all');
});

test('recognition by whole key set', () => {
  const cases: [string[], string | undefined][] = [
    [['map', 'collection'], 'map'],
    [['collection', 'map'], 'map'],
    [['substring', 'start', 'length'], 'substring'],
    [['length', 'substring', 'start'], 'substring'],
    [['pow', 'exp'], 'pow'],
    [['exp', 'pow'], 'pow'],
    [['ngram', 'min', 'max'], 'ngram'],
    [['max', 'min', 'ngram'], 'ngram'],
    [['merge', 'with', 'lambda'], 'merge'],
    [['lambda', 'with', 'merge'], 'merge'],
    [['collection'], 'collection'],
    [['collection', 'scope'], 'collection'],
    [['match', 'terms'], 'match'],
    [['match', 'index'], 'match'],
    [['index', 'match'], 'match'],
    [['select', 'from', 'default'], 'select'],
    [['select', 'from', 'all'], 'select'],
    [['time_diff', 'other', 'unit'], 'time_diff'],
    [['lambda', 'expr'], 'lambda'],
    [['expr', 'lambda'], 'lambda'],
    [['at', 'expr'], 'at'],
    [['let', 'in'], 'let'],
    [['var'], 'var'],
    [['object'], 'object'],
    [['quote'], 'quote'],
    [['ref', 'id'], 'ref'],
    [['ref', 'id', 'scope'], 'ref'],
    [['paginate', 'size', 'after', 'ts', 'events', 'sources'], 'paginate'],
    [['paginate', 'cursor'], 'paginate'],
    [['range', 'from', 'to'], 'range'],
    [['join', 'with'], 'join'],
    [['move_database', 'to'], 'move_database'],
    [['get', 'ts'], 'get'],
    [['insert', 'ts', 'action', 'params'], 'insert'],
    [['call', 'arguments'], 'call'],
    [['format', 'values'], 'format'],
    [['first'], 'first'],
    // not forms
    [['map'], undefined],
    [['min', 'max'], undefined],
    [['lambda'], undefined],
    [['select', 'default'], undefined],
    [['paginate', 'after', 'before'], undefined],
    [['match', 'terms', 'index'], undefined],
    [['add', 'collection'], undefined],
    [['a'], undefined],
    [[], undefined],
  ];
  for (const [keys, head] of cases) assert.equal(recognizeForm(keys)?.head, head, keys.join(','));
});

test('no key set fits two heads', () => {
  for (const [head, spec] of FORMS) {
    const minimal = [head, ...spec.required];
    const maximal = [head, ...spec.required, ...spec.optional.filter((o) => !spec.exclusive?.includes(o))];
    for (const keys of [minimal, maximal]) {
      const fitting = keys.filter((k) => {
        const s = FORMS.get(k);
        return s && keys.every((x) => s.allowed.has(x)) && s.required.every((r) => keys.includes(r));
      });
      assert.deepEqual(fitting, [head], keys.join(','));
    }
  }
});

test('unknown forms give Fauna\'s exact message', () => {
  const check = (text: string, description: string, position: (string | number)[] = []) =>
    assert.throws(
      () => decodeExpr(parseJson(text)),
      (e: unknown) =>
        e instanceof QueryError &&
        e.code === 'invalid expression' &&
        e.description === description &&
        JSON.stringify(e.position) === JSON.stringify(position),
    );
  check('{"foo":1,"bar":2}', 'No form/function found, or invalid argument keys: { foo, bar }.');
  check('{"a":1}', 'No form/function found, or invalid argument keys: { a }.');
  check('{"add":[1,{"map":1}]}', 'No form/function found, or invalid argument keys: { map }.', ['add', 1]);
  check('{"add":1,"collection":2}', 'No form/function found, or invalid argument keys: { add, collection }.');
  // lambdas are syntactic where a function takes one
  check('{"map":{"var":"f"},"collection":[1]}', 'No form/function found, or invalid argument keys: { map, collection }.');
});
