// The parser against the official driver: for every builder the driver exports and every number
// of arguments it accepts, the same text gives the same wire JSON as evaluating it with the
// driver (`JSON.stringify(q.wrap(…))`, what Client.query sends); arities it rejects fail the same
// way; and every result renders back (renderExpr) to text that parses to the same JSON.

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { FqlJsError, FUNCTION_NAMES, parseFqlJs, renderExpr, wireText } from '../../src/fqljs';
import { SHAPES, SPECIAL_BUILDERS } from '../../src/fqljs/shapes';
import { BUILDER_HEADS, FORMS } from '../../src/wire/builders';
import { parseJson } from '../../src/wire/json';

process.noDeprecation = true; // the deprecated builders warn on every call

type Builder = (...args: unknown[]) => unknown;
// eslint-disable-next-line @typescript-eslint/no-require-imports
const q = (require('faunadb') as { query: Record<string, Builder> }).query;
const driverNames = Object.keys(q).filter((k) => k !== 'arity' && k !== 'wrap');

/** What the driver sends for `text` (evaluated with its builders in scope, as the tools do). */
function driverWire(text: string): string {
  // eslint-disable-next-line @typescript-eslint/no-implied-eval
  const f = new Function('q', ...driverNames, `return (${text});`) as (...a: unknown[]) => unknown;
  return JSON.stringify(q.wrap(f(q, ...driverNames.map((n) => q[n]))));
}

function driverError(text: string): string {
  try {
    driverWire(text);
  } catch (e) {
    // The driver names two builders by their internal function names in its messages.
    return (e as Error).message.split('\n')[0].replace(/^objectFunction /, 'Object ').replace(/^FunctionFn /, 'Function ');
  }
  return '';
}

/** Checks one text against the driver, and that its rendering parses back to the same JSON. */
function same(text: string): void {
  const tree = parseFqlJs(text);
  const ours = wireText(tree);
  assert.equal(ours, driverWire(text), text);
  // The tree is what Flora's own JSON parser reads from that text (Longs bigint, Doubles number).
  assert.deepEqual(tree, parseJson(ours), text);
  const rendered = renderExpr(parseFqlJs(text));
  assert.equal(wireText(parseFqlJs(rendered)), ours, `${text} rendered as ${rendered}`);
}

// Argument texts, rotated through the positions of each call: every kind of value the driver
// wraps (numbers that stay Longs or Doubles, nested arrays and objects, functions, Exprs, null).
const POOLS = [
  ['"s"', '1', '2.5', '[1, "a", [true]]', '{a: 1, "b-c": [2], 10: 3, 2: null}', 'Var("v")', '-7', '1.0'],
  ['null'],
  ['x => Add(x, 1)', '(a, b) => Concat([a, b], " ")', 'function (a) { return Get(a) }', 'Collection("c")', 'false', '`t\\n`', '1e21', '0.1'],
];

/** Argument lists for the builders the generic shapes do not cover. */
const SPECIAL_ARGS: Record<string, string[]> = {
  Ref: ['"collections/c/1"', 'Collection("c"), "1"', 'Var("c"), 2'],
  Bytes: ['"AQID"', '"AQIDBA=="', '""', '"-_8="'],
  Let: [
    '{a: 1, b: Var("a")}, Var("b")',
    '[{a: 1}, {b: 2}], Add(Var("a"), Var("b"))',
    '{a: 1, b: 2}, (x, y) => Add(x, y)',
    '[{a: 1}, {b: 2}], (x, y) => [x, y]',
    '{a: 1}, {r: Var("a")}',
  ],
  Lambda: [
    '"x", Var("x")',
    '["a", "b"], Add(Var("a"), 1)',
    'x => x',
    '(a, b) => [a, b]',
    'function (a, b) { const s = Add(a, b); return s }',
    'Lambda("x", Var("x"))',
    'Get(Var("x"))',
    'x => y => [x, y]',
  ],
  Object: ['{a: 1, b: {c: x => x}}', 'null', '{}'],
  Paginate: ['Documents(Collection("c"))', 'Match(Index("i")), {size: 2, after: [1], ts: 5, events: true}', 'Var("s"), null'],
};

/** The numbers of arguments to try: all the driver accepts, up to three beyond the minimum. */
function arities(name: string): number[] {
  const shape = SHAPES.get(name)!;
  const top = Math.min(shape.maxArgs, shape.minArgs + 3);
  return Array.from({ length: top - shape.minArgs + 1 }, (_, i) => shape.minArgs + i);
}

test('the function list is exactly the driver builders', () => {
  assert.equal(driverNames.length, 206);
  assert.deepEqual([...FUNCTION_NAMES], [...driverNames].sort());
  for (const name of driverNames) assert.ok(SHAPES.has(name) || SPECIAL_BUILDERS.has(name), name);
});

test('every key a shape writes is a key of its form in the server table', () => {
  for (const shape of SHAPES.values()) {
    assert.equal(shape.head, BUILDER_HEADS.get(shape.name));
    const form = FORMS.get(shape.head)!;
    for (const p of shape.params) assert.ok(form.allowed.has(p.key), `${shape.name}: ${p.key}`);
  }
});

test('every builder, every accepted arity: the driver\'s wire JSON', () => {
  let checked = 0;
  for (const name of driverNames) {
    if (SPECIAL_BUILDERS.has(name)) {
      for (const args of SPECIAL_ARGS[name]) {
        same(`${name}(${args})`);
        same(`q.${name}(${args})`);
        checked += 2;
      }
      continue;
    }
    for (const n of arities(name)) {
      POOLS.forEach((pool, k) => {
        const args = Array.from({ length: n }, (_, i) => pool[(i + k) % pool.length]);
        same(`${name}(${args.join(', ')})`);
        checked++;
      });
    }
  }
  assert.ok(checked > 700, `only ${checked} calls`);
});

// The driver ignores arguments past the ones these declare (it checks only a minimum); here they
// are an error, and the message gives the range.
const STRICTER = new Set(['Concat', 'Casefold', 'Round', 'Trunc', 'Hypot', 'Pow']);

test('arities the driver rejects fail with its message', () => {
  for (const name of driverNames) {
    const shape = SHAPES.get(name);
    const [min, max] = shape ? [shape.minArgs, shape.maxArgs] : name === 'Bytes' || name === 'Object' ? [1, 1] : name === 'Let' ? [2, 2] : [1, 2];
    for (const n of [min - 1, max + 1]) {
      if (n < 0 || n === Infinity) continue;
      const text = `${name}(${Array.from({ length: n }, () => '1').join(', ')})`;
      const expected = STRICTER.has(name) ? `${name} function requires from 1 to 2 argument(s) but ${n} were given` : driverError(text);
      assert.notEqual(expected, '', `the driver accepts ${text}`);
      assert.throws(() => parseFqlJs(text), (e: unknown) => e instanceof FqlJsError && e.reason === expected && e.column === 1, text);
    }
  }
});

test('literals: numbers as JSON.stringify writes them, strings, keys in JavaScript\'s order', () => {
  for (const text of [
    '[1, 1.0, -0, 2.5, -2.5, 1e3, 1e21, 1.5e-7, 0x1f, 1_000, 9007199254740991, 0.1]',
    '["a\\u00e9\\n\\t\\"", \'single\', `template`, "\\ud800", "😀", ""]',
    '{b: 1, 2: "two", 1: "one", a: 2, "x y": 3, 1.5: 4}',
    '{a: 1, b: 2, a: 3}',
    '[true, false, null, [], {}]',
    'Add(1, 2.5, -3)',
  ]) {
    same(text);
  }
});

test('functions: arrows, function expressions, nesting, and Let passing one Var per binding', () => {
  for (const text of [
    'Map(Paginate(Documents(Collection("c"))), x => Get(x))',
    'Map(Paginate(Documents(Collection("c"))), (x) => Get(x))',
    'Map([[1, 2]], (a, b) => Add(a, b))',
    'Map([1], function (x) { return Add(x, 1) })',
    'Map([1], x => { return Map([2], y => [x, y]) })',
    'Reduce((acc, v) => Add(acc, v), 0, [1, 2])',
    'Let({a: 1, b: 2}, (p, r) => Add(p, r))',
    'Filter([1], x => GT(x, 0))',
    'Query(x => Get(x))',
    'Merge({a: 1}, {b: 2}, (k, a, b) => b)',
    'Foreach(Paginate(Documents(Collection("c"))), x => Update(x, {data: {seen: true}}))',
    'Call(Function("f"), 1, [2], {a: x => x})',
  ]) {
    same(text);
  }
});

test('whole-object sources read as one object, as fauna-schema-migrate reads them', () => {
  same('{ name: "users", history_days: 30 }');
  assert.equal(wireText(parseFqlJs('\n  // a comment\n  { a: 1 } ;\n')), driverWire('{ a: 1 }'));
});
