// The interpreter (FQLInterpreter.scala): failures with the core's codes, messages and spans
// (FQL2InterpreterSpec, QueryFailure.scala), the rendered summary, logs, and hostile queries that
// must end by the budget or a limit.

import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { BudgetExceeded, err, evalQuery, ok, tagged, testHooks } from './harness';
import { parseQuery } from '../../../src/fql10/parser';
import { evaluate, summary } from '../../../src/fql10/eval/evaluate';

describe('values', () => {
  const cases: [string, string][] = [
    ['1 + 2', '3'],
    ['2147483647 + 1', '2147483648'],
    ['9223372036854775807 + 1', '9.223372036854776E18'],
    ['7 / 2', '3'],
    ['-7 % 3', '-1'],
    ['7.0 / 2', '3.5'],
    ['2 ** 10', '1024'],
    ['"a" + 1 + true', '"a1true"'],
    ['"#{1 + 1} and #{[1]}"', '"2 and [1]"'],
    ['let x = 3; if (x > 2) "big" else "small"', '"big"'],
    ['if (false) 1', 'null'],
    ['{ a: 1, b: [1, 2] }.b[1]', '2'],
    ['{ a: { b: 1 } }?.a?.b', '1'],
    ['null?.a.b.c', 'null'],
    ['null ?? 5', '5'],
    ['let f = (x, ...rest) => rest; f(1, 2, 3)', '[2,3]'],
    ['[1, 2, 3].map(.toString())', '["1","2","3"]'],
    ['{ a: 1, b: 2, c: 3 } { a, c }', '{"a":1,"c":3}'],
    ['[{ a: 1, b: 2 }, { a: 3, b: 4 }] { b }', '[{"b":2},{"b":4}]'],
    ['1 isa Int', 'true'],
    ['1.5 isa Int', 'false'],
    ['"s" isa String', 'true'],
    ['[1] == [1]', 'true'],
    ['1 == 1.0', 'true'],
    // Values of unrelated types are neither less nor greater (BaseFieldTable).
    ['1 < "a"', 'false'],
    ['"a" >= 1', 'false'],
    ['true && false || true', 'true'],
    ['Set.sequence(0, 5).where(x => x % 2 == 0).map(x => x * 10).toArray()', '[0,20,40]'],
    ['Set.sequence(0, 100).pageSize(3)', '{"data":[0,1,2],"after":"cursor0"}'],
    ['Set.sequence(0, 10).reverse().take(3).toArray()', '[9,8,7]'],
    ['[3, 1, 2].toSet().order(desc(x => x)).toArray()', '[3,2,1]'],
    ['Set.sequence(0, 40000).count()', '40000'],
    ['Set.sequence(0, 3).flatMap(x => Set.sequence(0, x)).toArray()', '[0,0,1]'],
    ['Set.single(1).concat([2, 3].toSet()).toArray()', '[1,2,3]'],
    ['let p = Set.sequence(0, 5).paginate(2); Set.paginate(p.after)', '{"data":[2,3],"after":"cursor1"}'],
    ['newId()', '"1001"'],
    ['Time.now()', '"2023-11-14T22:13:20Z"'],
    ['Math', '"Math"'],
    ['x => x', '"[function <lambda>]"'],
    ['Math.abs', '"[function abs()]"'],
  ];
  for (const [q, want] of cases) test(q, async () => assert.equal(await ok(q), want));

  test('tagged numbers keep Int, Long and Double apart', async () => {
    assert.equal(await tagged('[1, 3000000000, 1.0]'), '[{"@int":"1"},{"@long":"3000000000"},{"@double":"1.0"}]');
  });
});

describe('failures', () => {
  const cases: [query: string, code: string, message: string][] = [
    ['foo', 'unbound_variable', 'Unbound variable `foo`'],
    ['null.foo', 'invalid_null_access', 'Cannot access `foo` on null.'],
    ['{a: 1}.a.b.c', 'invalid_null_access', 'Cannot access `c` on null.'],
    ['1 / 0', 'divide_by_zero', 'Attempted integer division by zero.'],
    ['if (1) 2', 'type_mismatch', 'expected type: Boolean, received Int'],
    ['1 && true', 'type_mismatch', 'expected type: Boolean, received Int'],
    ['"a".foo()', 'invalid_function_invocation', 'The function `foo` does not exist on `String`'],
    ['[1].length()', 'invalid_function_invocation', '`length`: Expected a function, found `Int`'],
    ['"a" - 1', 'invalid_function_invocation', 'The function `-` does not exist on `String`'],
    ['((x) => x)()', 'invalid_function_invocation', 'callee function expects exactly 1 argument, but 0 were provided.'],
    ['[1].map((a, b) => a)', 'invalid_argument', '`mapper` should accept 1 parameter, provided function requires exactly 2 parameters.'],
    ['"abc".at("x")', 'invalid_argument', 'expected value for `index` of type Int, received String'],
    ['"abc".indexOf(1)', 'invalid_argument', 'expected arguments to `indexOf` of type (String), received (Int)'],
    ['[1, 2].at(2)', 'index_out_of_bounds', 'index 2 out of bounds for length 2'],
    ['1 isa 2', 'invalid_argument', 'invalid argument `type_object`: expected a module object'],
    ['Set.sequence(0, 10).paginate(0)', 'invalid_bounds', 'expected `size` to be between 1 and 16000 (inclusive), received 0'],
    ['Array.sequence(0, 16001)', 'value_too_large', 'Value too large: range size 16001 exceeds limit 16000.'],
    ['Set.sequence(0, 16001).toArray()', 'value_too_large', 'Value too large: exceeded maximum number of elements (limit=16000).'],
    ['Time("nope")', 'invalid_time', '`nope` is not a valid time.'],
    ['Time.now().add(1, "fortnight")', 'invalid_unit', '`fortnight` is not a valid time unit.'],
    ['ID("x")', 'invalid_id', '`"x"` is not a valid ID.'],
    ['Set.paginate("nope")', 'invalid_cursor', 'Cursor cursor is invalid or expired.'],
    ['[1].toSet().eventSource()', 'invalid_receiver', "can't call `.eventSource()` because streaming is not supported on array sets."],
    ['null!', 'null_value', 'Null literal value'],
    ['{}.a!', 'null_value', 'Null value, due to missing field `a`'],
    ['[].first()!', 'null_value', 'Null value, due to empty array'],
    ['match 1 { case _ => 2 }', 'invalid_query', 'The query failed 1 validation check'],
  ];
  for (const [q, code, message] of cases)
    test(q, async () => {
      const r = await err(q);
      assert.deepEqual([r.code, r.message], [code, message]);
    });

  test('the summary renders the error at its span, with the null hint', async () => {
    const r = await err('let foo = null\nfoo.bar');
    assert.equal(
      r.summary,
      'error: Cannot access `bar` on null.\nat *query*:2:5\n  |\n2 | foo.bar\n  |     ^^^\n  |\nhint: Null value created here\nat *query*:1:11\n  |\n1 | let foo = null\n  |           ^^^^\n  |',
    );
  });

  test('a failure inside a function shows the call as a trace', async () => {
    const r = await err('let f = x => x.foo()\nf(1)');
    assert.equal(r.message, 'The function `foo` does not exist on `Int`');
    assert.equal(
      r.summary,
      'error: The function `foo` does not exist on `Int`\nat *query*:1:16\n  |\n1 | let f = x => x.foo()\n  |                ^^^\n  |\nat *query*:2:2\n  |\n2 | f(1)\n  |  ^^^\n  |',
    );
  });

  test('abort returns its value', async () => {
    const r = await err('abort({ a: [1, "x"] })');
    assert.equal(r.code, 'abort');
    assert.equal(r.abort, '{"a":[{"@int":"1"},"x"]}');
  });
});

describe('logs', () => {
  test('log and dbg add info lines after the result', async () => {
    const parsed = parseQuery('log("a", 1)\ndbg([1])');
    assert.ok(parsed.ok);
    const out = await evaluate(parsed.value, new Map(), testHooks());
    assert.equal(summary(out), 'info at *query*:1: a 1\n\ninfo: [1]\nat *query*:2:4\n  |\n2 | dbg([1])\n  |    ^^^^^\n  |');
  });
});

describe('hostile queries end', () => {
  test('unbounded recursion is a stack overflow', async () => {
    // A lambda closes over the variables bound before it, so recursion passes the function along.
    const r = await err('let f = (g, x) => g(g, x + 1)\nf(f, 0)');
    assert.equal(r.code, 'stack_overflow');
    assert.equal(r.message, 'number of stack frames exceeded limit of 2048');
  });

  test('a long lazy loop ends by the compute budget', async () => {
    await assert.rejects(evalQuery('Set.sequence(0, 1000000000).map(x => x + 1).count()', new Map(), testHooks({ computeLimit: 100_000 })), BudgetExceeded);
  });

  test('counting a huge set ends by the compute budget', async () => {
    await assert.rejects(evalQuery('Set.sequence(0, 2147483647).count()', new Map(), testHooks({ computeLimit: 100_000 })), BudgetExceeded);
  });

  test('a string doubling loop ends at the size limit', async () => {
    const r = await err('[0].concat(Array.sequence(0, 30)).fold("ab", (acc, _) => acc + acc)');
    assert.equal(r.code, 'value_too_large');
    assert.equal(r.message, 'Value too large: string size 33554432 exceeds limit 16777216.');
  });
});
