// The core language through a real server and the official driver, over HTTP/2 and HTTP/1.1:
// special forms, logic, arithmetic, arrays and selection (fql-v4.md §2.4, §3.1–§3.3, §3.9).
// The driver decodes Longs and Doubles both as JS numbers, so the Long/Double distinction is
// checked separately on the raw response text.

import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { Expr, query as q, type ExprArg } from 'faunadb';
import { rawQuery, serverForFile } from '../helpers/server';

const server = serverForFile();

const add = (a: string, b: string) => q.Add(q.Var(a), q.Var(b));
// The driver's typings omit null from ExprArg, but it sends it as JSON null.
const NULL = null as unknown as ExprArg;

/** [label, expression, expected driver value] */
const VALUES: [string, ExprArg, unknown][] = [
  // arithmetic
  ['Add', q.Add(1, 2), 3],
  ['Add mixed', q.Add(1, 2.5), 3.5],
  ['Add single', q.Add(2), 2],
  ['Add over a var array', q.Let({ xs: [2, 3, 5] }, q.Add(q.Var('xs'))), 10],
  ['Subtract fold', q.Subtract(10, 3, 2), 5],
  ['Subtract single', q.Subtract(2), 2],
  ['Multiply', q.Multiply(2, 3, 4), 24],
  ['Divide truncates', q.Divide(10, 3), 3],
  ['Divide truncates toward zero', q.Divide(-7, 2), -3],
  ['Divide double', q.Divide(10.5, 2), 5.25],
  ['Divide single', q.Divide(2), 2],
  ['Modulo has the dividend sign', q.Modulo(-7, 2), -1],
  ['Modulo double', q.Modulo(7.5, 2), 1.5],
  ['Modulo single', q.Modulo(2), 2],

  // let / lambda
  ['Let sequential', q.Let({ x: 1, y: q.Add(q.Var('x'), 1) }, q.Var('y')), 2],
  ['Let array form', q.Let([{ x: 1 }, { y: q.Multiply(q.Var('x'), 3) }], q.Var('y')), 3],
  ['Map', q.Map([1, 2, 3], q.Lambda('x', q.Multiply(q.Var('x'), 2))), [2, 4, 6]],
  ['Map destructuring', q.Map([[1, 2], [3, 4]], q.Lambda(['a', 'b'], add('a', 'b'))), [3, 7]],
  ['Map ignores _', q.Map([[1, 2], [3, 4]], q.Lambda(['_', 'b'], q.Var('b'))), [2, 4]],
  ['Map with _ param', q.Map([1, 2], q.Lambda('_', 'k')), ['k', 'k']],
  ['single-element pattern takes a scalar', q.Map([1, 2], q.Lambda(['x'], q.Var('x'))), [1, 2]],
  ['lambda closes over let', q.Let({ n: 10 }, q.Map([1, 2], q.Lambda('x', add('x', 'n')))), [11, 12]],
  ['Foreach returns its input', q.Foreach([1, 2], q.Lambda('x', q.Var('x'))), [1, 2]],
  ['Filter', q.Filter([1, 2, 3, 4], q.Lambda('x', q.GT(q.Var('x'), 2))), [3, 4]],
  ['Reduce', q.Reduce(q.Lambda(['acc', 'v'], add('acc', 'v')), 0, [1, 2, 3]), 6],
  ['Reduce strings', q.Reduce(q.Lambda(['acc', 'v'], q.Concat([q.Var('acc'), q.Var('v')])), 'a', ['b', 'c']), 'abc'],
  ['Reduce empty', q.Reduce(q.Lambda(['acc', 'v'], q.Var('v')), 'init', []), 'init'],

  // control
  ['If true', q.If(true, 'yes', 'no'), 'yes'],
  ['If false', q.If(false, 'yes', 'no'), 'no'],
  ['If evaluates one branch', q.If(true, 1, q.Abort('not taken')), 1],
  ['Do returns the last', q.Do(1, 2, 3), 3],
  ['Do single', q.Do(q.Add(1, 1)), 2],
  ['And', q.And(true, true), true],
  ['And false', q.And(true, false), false],
  ['And single', q.And(true), true],
  ['And short-circuits', q.And(false, q.Abort('x')), false],
  ['Or short-circuits', q.Or(true, q.Abort('x')), true],
  ['Or false', q.Or(false, false), false],
  ['Not', q.Not(true), false],

  // comparison
  ['Equals Long and Double', q.Equals(1, q.Divide(2.5, 2.5)), true],
  ['Equals objects ignore order', q.Equals({ a: 1, b: 2 }, { b: 2, a: 1 }), true],
  ['Equals all', q.Equals(1, 1, 2), false],
  ['Equals single', q.Equals('a'), true],
  ['LT across types', q.LT(1, 'a'), true],
  ['LT chain', q.LT(1, 2, 3), true],
  ['LT chain broken', q.LT(1, 3, 2), false],
  ['LT single', q.LT(2), true],
  ['LT collation', q.LT('a', 'A', 'b'), true],
  ['LTE', q.LTE(1, 1, 2), true],
  ['GT', q.GT('b', 'a'), true],
  ['GT null sorts last', q.GT(NULL, true), true],
  ['GTE mixed numbers', q.GTE(2, 2.5), false],

  // selection / objects
  ['Select path', q.Select(['a', 'b'], { a: { b: 1 } }), 1],
  ['Select index', q.Select(['a', 1], { a: [1, 2] }), 2],
  ['Select single key', q.Select('a', { a: 'x' }), 'x'],
  ['Select default', q.Select('x', {}, 'd'), 'd'],
  ['Select default null', q.Select('x', {}, null), null],
  ['Select default unused', q.Select('a', { a: 1 }, 'd'), 1],
  // Fauna evaluates Select's default only when the path is missing (faunadb-fql-lib relies on it).
  ['Select default not evaluated when found', q.Select(['a', 'b'], { a: { b: 2 } }, q.Abort('default taken')), 2],
  ['SelectAll flattens', q.SelectAll(['a', 'b'], [{ a: { b: 1 } }, { a: [{ b: 2 }, { b: [3, 4] }] }]), [1, 2, 3, 4]],
  ['SelectAll missing', q.SelectAll('x', {}), []],
  ['ContainsPath', q.ContainsPath(['a', 0], { a: [1] }), true],
  ['ContainsPath missing', q.ContainsPath('b', { a: 1 }), false],
  ['Contains (deprecated)', q.Contains(['a', 1], { a: [1] }), false],
  ['ContainsField', q.ContainsField('a', { a: 1 }), true],
  ['ContainsField missing', q.ContainsField('b', { a: 1 }), false],
  ['ContainsValue object', q.ContainsValue(2, { a: 2 }), true],
  ['ContainsValue array', q.ContainsValue(3, [1, 2]), false],
  ['Merge', q.Merge({ a: 1, b: 2 }, { b: 3, c: 4 }), { a: 1, b: 3, c: 4 }],
  ['Merge list, null removes', q.Merge({ a: 1, b: 2 }, [{ b: null }, { c: 4 }]), { a: 1, c: 4 }],
  [
    'Merge with resolver',
    q.Merge({ a: 1, b: 2 }, { a: 10, b: 20 }, q.Lambda(['k', 'l', 'r'], add('l', 'r'))),
    { a: 11, b: 22 },
  ],
  [
    'Merge resolver null removes',
    q.Merge({ a: 1, b: 2 }, { a: 5 }, q.Lambda(['k', 'l', 'r'], q.If(q.Equals(q.Var('k'), 'a'), null, q.Var('r')))),
    { b: 2 },
  ],
  ['Concat with separator', q.Concat(['a', 'b'], '-'), 'a-b'],
  ['Concat', q.Concat(['a', 'b']), 'ab'],

  // arrays
  ['Take', q.Take(2, [1, 2, 3]), [1, 2]],
  ['Take negative', q.Take(-1, [1, 2]), []],
  ['Take more than there is', q.Take(5, [1]), [1]],
  ['Drop', q.Drop(1, [1, 2, 3]), [2, 3]],
  ['Drop negative', q.Drop(-1, [1, 2]), [1, 2]],
  ['Prepend', q.Prepend([1, 2], [3]), [1, 2, 3]],
  ['Append', q.Append([4, 5], [3]), [3, 4, 5]],
  ['Append single', q.Append(4, [3]), [3, 4]],
  ['IsEmpty', q.IsEmpty([]), true],
  ['IsEmpty non-empty', q.IsEmpty([1]), false],
  ['IsNonEmpty', q.IsNonEmpty([]), false],
  ['IsNonEmpty non-empty', q.IsNonEmpty([1]), true],
];

interface ExpectedError {
  name: string; // driver error class
  code: string;
  description: string;
  position: (string | number)[];
}

const bad = (description: string, position: (string | number)[], code = 'invalid argument'): ExpectedError => ({
  name: 'BadRequest',
  code,
  description,
  position,
});

const ERRORS: [string, ExprArg, ExpectedError][] = [
  ['Add non-number', q.Add(1, 'a'), bad('Number expected, String provided.', ['add', 1])],
  ['Add empty', q.Add([]), bad('Non-empty array expected.', ['add'])],
  ['Divide by zero', q.Divide(1, 0), bad('Illegal division by zero.', [])],
  ['Modulo by zero', q.Modulo(1.5, 0), bad('Illegal division by zero.', [])],
  ['unbound var', q.Add(1, q.Var('nope')), bad("Variable 'nope' is not defined.", ['add', 1], 'invalid expression')],
  [
    'Select missing path',
    q.Select(['a', 'b', 0], { a: {} }),
    { name: 'NotFound', code: 'value not found', description: 'Value not found at path [a,b,0].', position: ['from'] },
  ],
  ['If non-boolean', q.If(1, 'a', 'b'), bad('Boolean expected, Integer provided.', ['if'])],
  ['And non-boolean', q.And(true, 1), bad('Boolean expected, Integer provided.', ['and', 1])],
  ['Or non-boolean', q.Or(false, 'x'), bad('Boolean expected, String provided.', ['or', 1])],
  ['Not non-boolean', q.Not(1), bad('Boolean expected, Integer provided.', ['not'])],
  [
    'Lambda arity mismatch',
    q.Map([[1, 2, 3]], q.Lambda(['a', 'b'], q.Var('a'))),
    bad('Lambda expects an array with 2 elements. Array contains 3.', ['map']),
  ],
  ['empty Do', new Expr({ do: [] }), bad('Expression list cannot be empty.', ['do'], 'invalid expression')],
  ['Abort', q.Abort('boom'), bad('boom', [], 'transaction aborted')],
  ['Select default evaluated when missing', q.Select('x', {}, q.Abort('needed')), bad('needed', ['default'], 'transaction aborted')],
  ['Abort inside Let', q.Let({ x: 1 }, q.Abort('deep')), bad('deep', ['in'], 'transaction aborted')],
  ['Take non-integer', q.Take(1.5, [1]), bad('Integer expected, Double provided.', ['take'])],
  ['Append to non-array', q.Append(1, 'x'), bad('Array expected, String provided.', ['collection'])],
  ['Map over non-collection', q.Map(1, q.Lambda('x', q.Var('x'))), bad('Array or Page expected, Integer provided.', ['collection'])],
  ['Filter non-boolean', q.Filter([1], q.Lambda('x', 1)), bad('Boolean expected, Integer provided.', ['filter'])],
  [
    'error inside a lambda body',
    q.Map([1], q.Lambda('x', q.Add(q.Var('x'), 'a'))),
    bad('Number expected, String provided.', ['map', 'expr', 'add', 1]),
  ],
  [
    'Map needs a literal lambda',
    q.Let({ f: q.Lambda('x', q.Var('x')) }, q.Map([1], q.Var('f'))),
    bad('No form/function found, or invalid argument keys: { map, collection }.', ['in'], 'invalid expression'),
  ],
  ['ContainsField on an array', q.ContainsField('a', [1]), bad('Object expected, Array provided.', ['in'])],
  ['Merge non-object', q.Merge(1, {}), bad('Object expected, Integer provided.', ['merge'])],
  ['Concat non-string', q.Concat(['a', 1]), bad('String expected, Integer provided.', ['concat', 1])],
  ['IsEmpty on a string', q.IsEmpty('x'), bad('Array, Set, or Page expected, String provided.', ['is_empty'])],
];

/** Exact response text for raw bodies: Long vs Double rendering and error bodies. */
const RAW: [body: string, response: string][] = [
  ['{"add":[1,2]}', '{"resource":3}'],
  ['{"add":[1,2.0]}', '{"resource":3.0}'],
  ['{"subtract":[1,1.0]}', '{"resource":0.0}'],
  ['{"divide":[10,3]}', '{"resource":3}'],
  ['{"multiply":[2,1.5]}', '{"resource":3.0}'],
  ['{"modulo":[-7,2]}', '{"resource":-1}'],
  ['{"add":[9223372036854775807,1]}', '{"resource":-9223372036854775808}'],
  ['{"multiply":[4611686018427387904,2]}', '{"resource":-9223372036854775808}'],
  ['{"divide":[-9223372036854775808,-1]}', '{"resource":-9223372036854775808}'],
  ['{"select":0,"from":[1.0]}', '{"resource":1.0}'],
  ['{"query":{"lambda":"x","expr":{"var":"x"}}}', '{"resource":{"@query":{"api_version":"4","lambda":"x","expr":{"var":"x"}}}}'],
  [
    '{"divide":[1,0.0]}',
    '{"errors":[{"position":[],"code":"invalid argument","description":"Illegal division by zero."}]}',
  ],
];

interface HttpErrorLike {
  name: string;
  message: string;
  description: string;
  requestResult: { responseContent: { errors: { position: (string | number)[] }[] } };
}

for (const proto of ['h2', 'h1'] as const) {
  describe(`core language over ${proto === 'h2' ? 'HTTP/2' : 'HTTP/1.1'}`, () => {
    for (const [label, expr, expected] of VALUES) {
      test(label, async () => {
        assert.deepEqual(await server.drivers[proto].query(expr), expected);
      });
    }

    for (const [label, expr, expected] of ERRORS) {
      test(`error: ${label}`, async () => {
        await assert.rejects(server.drivers[proto].query(expr), (err: HttpErrorLike) => {
          assert.equal(err.name, expected.name);
          assert.equal(err.message, expected.code);
          assert.equal(err.description, expected.description);
          assert.deepEqual(err.requestResult.responseContent.errors[0].position, expected.position);
          return true;
        });
      });
    }

    for (const [body, response] of RAW) {
      test(`raw ${body}`, async () => {
        assert.equal(await rawQuery(server.flora.url, server.flora.secret, body, proto === 'h2'), response);
      });
    }
  });
}
