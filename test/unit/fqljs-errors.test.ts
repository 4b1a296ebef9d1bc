// Every kind of input the parser refuses: a clear reason, the line and column, and the source
// line with a caret under the spot. Never a crash, never a silent drop.

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { FqlJsError, FqlJsSession, parseFqlJs } from '../../src/fqljs';

function fails(source: string, reason: string | RegExp, line: number, column: number): void {
  assert.throws(
    () => parseFqlJs(source),
    (e: unknown) => {
      assert.ok(e instanceof FqlJsError, `${source}: ${String(e)}`);
      if (typeof reason === 'string') assert.equal(e.reason, reason, source);
      else assert.match(e.reason, reason, source);
      assert.deepEqual([e.line, e.column], [line, column], `${source}: ${e.message}`);
      return true;
    },
  );
}

test('the message shows the line with a caret under the column', () => {
  try {
    parseFqlJs('Map(\n  Paginate(Documents(Collection("c"))),\n  x => Gte(x)\n)');
    assert.fail('no error');
  } catch (e) {
    assert.ok(e instanceof FqlJsError);
    assert.equal(e.message, 'unknown FQL function Gte (did you mean GTE?) (line 3, column 8)\n    x => Gte(x)\n         ^');
  }
});

test('unknown functions and names', () => {
  fails('Foo(1)', 'unknown FQL function Foo', 1, 1);
  fails('Paginate(\n  collections())', 'unknown FQL function collections (did you mean Collections?)', 2, 3);
  fails('q.Nope()', 'unknown FQL function Nope', 1, 3);
  fails('Get(x)', 'unknown name x', 1, 5);
  fails('Get(undefined)', 'undefined is not supported: use null', 1, 5);
  fails('Map([1], Get)', 'Get is an FQL function: call it, as Get(…)', 1, 10);
  fails('Map([1], q.Get)', 'q.Get is an FQL function: call it, as q.Get(…)', 1, 10);
  fails('Let({a: 1}, (a, b) => Add(a, b))', 'b has no value here (Let passes one Var per binding)', 1, 30);
  fails('Lambda(x => x(1))', 'x is not a function', 1, 13);
});

test('wrong numbers of arguments, as the driver checks them', () => {
  fails('Get()', 'Get function requires from 1 to 2 argument(s) but 0 were given', 1, 1);
  fails('  If(true, 1)', 'If function requires 3 argument(s) but 2 were given', 1, 3);
  fails('Add()', 'Add function requires at least 1 argument(s) but 0 were given', 1, 1);
  fails('Collections(1, 2)', 'Collections function requires up to 1 argument(s) but 2 were given', 1, 1);
  fails('Now(1)', 'Now function requires 0 argument(s) but 1 were given', 1, 1);
  fails('Pow(2, 3, 4)', 'Pow function requires from 1 to 2 argument(s) but 3 were given', 1, 1);
  fails('Lambda(() => 1)', 'Provided Function must take at least 1 argument.', 1, 1);
  fails('Lambda("x")', 'Lambda function takes either a Function or an Expr.', 1, 1);
});

test('arguments a builder cannot take', () => {
  fails('Bytes(1)', 'Bytes: the argument must be a base64 string', 1, 1);
  fails('Bytes("abc")', 'Bytes: "abc" is not base64 (with padding to a multiple of 4)', 1, 1);
  fails('Let(Var("x"), 1)', 'Let: the bindings must be an object literal', 1, 1);
  fails('Let([1], 1)', 'Let: each binding must be an object literal', 1, 1);
  fails('Object([1])', 'Object: the argument must be an object literal', 1, 1);
  fails('Paginate(Documents(Collection("c")), 5)', 'Paginate: the options must be an object literal', 1, 1);
  fails('Get(q)', 'the query module (q) is not a value', 1, 1);
});

test('JavaScript outside the subset', () => {
  fails('require("fs")', "only require('faunadb') is supported", 1, 1);
  fails('Get(require("x"))', "only require('faunadb') is supported", 1, 5);
  fails('require("faunadb")', 'the faunadb module is not a value', 1, 1);
  fails('const { Client } = require("faunadb"); 1', 'only query can be taken from faunadb', 1, 9);
  fails('const { a } = {a: 1}; a', 'only plain names can be declared (no destructuring)', 1, 7);
  fails('a.b', 'member access (only q.Function(…) calls are allowed) is not supported', 1, 1);
  fails('q["Get"](1)', 'only FQL functions can be called, by name (Get(…)) or as q.Get(…)', 1, 1);
  fails('Get(Collection("c").name)', 'member access (only q.Function(…) calls are allowed) is not supported', 1, 5);
  fails('x.Get(1)', 'only FQL functions can be called, by name (Get(…)) or as q.Get(…)', 1, 1);
  fails('let x = 1; x = 2', 'assignment is not supported', 1, 12);
  fails('Get(x++)', 'assignment is not supported', 1, 5);
  fails('if (true) { Get(1) }', 'only expressions, let/const declarations, imports of faunadb and export default are supported', 1, 1);
  fails('Add(...[1, 2])', 'spread (...) is not supported', 1, 5);
  fails('[...[1]]', 'spread (...) is not supported', 1, 2);
  fails('({...{a: 1}})', 'spread (...) is not supported', 1, 3);
  fails('Get({["a"]: 1})', 'computed keys ([…]) are not supported', 1, 7);
  fails('let a = 1; Get({a})', 'shorthand properties are not supported: write a: …', 1, 17);
  fails('Get({f() { return 1 }})', 'methods and accessors are not supported in object literals', 1, 6);
  fails('Get({__proto__: 1})', 'the key __proto__ is not supported', 1, 6);
  fails('Concat(`a${1}`)', 'template substitutions (${…}) are not supported: use Concat or Format', 1, 12);
  fails('Add(1 + 2)', 'the + operator is not supported: use Add or Concat', 1, 5);
  fails('Not(!true)', 'the ! operator is not supported: use Not', 1, 5);
  fails('Get(a => a, new Date())', '`new` is not supported', 1, 13);
  fails('Get(true ? 1 : 2)', 'the ?: operator (use If) is not supported', 1, 5);
  fails('Get(/a/)', 'regular expression literals are not supported: write the pattern as a string', 1, 5);
  fails('Get([1, , 2])', 'arrays with holes are not supported', 1, 5);
  fails('Map([1], ({a}) => a)', 'only plain parameter names are supported (no defaults, destructuring or rest)', 1, 11);
  fails('Map([1], (a = 1) => a)', 'only plain parameter names are supported (no defaults, destructuring or rest)', 1, 11);
  fails('Map([1], async a => a)', 'async functions and generators are not supported', 1, 10);
  fails('Map([1], function (a, a) { return a })', 'parameter a is declared twice', 1, 10);
  fails('Map([1], x => { Get(x) })', 'a function body holds declarations and ends with return <expression>', 1, 17);
  fails('Map([1], x => { })', 'a function body must end with return <expression>', 1, 15);
  fails('Get(-Var("x"))', 'unary minus applies to numbers only: use Subtract(0, …) for expressions', 1, 5);
  fails('let {a} = {a: 1}', 'only plain names can be declared (no destructuring)', 1, 5);
  fails('let a;', 'a needs a value: let a = …', 1, 5);
  fails('import x from "fs"', 'only the faunadb module can be imported', 1, 15);
  fails('import { Client } from "faunadb"', 'only query can be imported from faunadb', 1, 10);
  fails('export default function () {}', 'only expressions, let/const declarations, imports of faunadb and export default are supported', 1, 1);
});

test('numbers JavaScript cannot carry exactly', () => {
  fails('Add(9007199254740993)', 'integer 9007199254740993 is beyond ±2^53 and loses precision as a JavaScript number: write 9007199254740993n', 1, 5);
  fails('Add(1e20)', 'integer 1e20 is beyond ±2^53 and loses precision as a JavaScript number: write 1e20n', 1, 5);
  fails('Add(1e999)', 'number literal out of range', 1, 5);
  fails('Add(9223372036854775809n)', 'integer 9223372036854775809n is out of the 64-bit range', 1, 5);
  fails('Add(9223372036854775808n)', 'integer 9223372036854775808 is out of the 64-bit range', 1, 1);
});

test('syntax errors at acorn\'s position', () => {
  fails('Add(1,', 'syntax error: Unexpected token', 1, 7);
  fails('Get(Ref(Collection("c"), "1")\n', 'syntax error: Unexpected token', 2, 1);
  fails('Get("unterminated)', 'syntax error: Unterminated string constant', 1, 5);
  fails('let a = 1; let a = 2', "syntax error: Identifier 'a' has already been declared", 1, 16);
  fails('{ a: 1 } Get(1)', 'expected one expression after the object literal, found more', 1, 10);
  fails('{ a: 1, }}', 'syntax error: Unexpected token', 1, 10);
});

test('one expression where one is required', () => {
  fails('Get(1); Get(2)', 'expected one expression, found 2', 1, 9);
  fails('let a = 1;', 'no expression to run', 1, 11);
  fails('', 'no expression to run', 1, 1);
});

test('sizes that would not fit: deep nesting and shared values', () => {
  fails('['.repeat(20000) + ']'.repeat(20000), 'expression nested too deeply', 1, 1);
  fails('Add('.repeat(5000) + '1' + ')'.repeat(5000), 'expression nested too deeply', 1, 1);
  fails('let f = x => f(x); f(1)', 'expression nested too deeply', 1, 1);
  const doubling = Array.from({ length: 40 }, (_, i) => `let a${i + 1} = [a${i}, a${i}];`).join('\n');
  fails(`let a0 = 1;\n${doubling}\na40`, /^expression too large/, 42, 1);
  const sharing = Array.from({ length: 40 }, (_, i) => `let a${i + 1} = Add(a${i}, a${i});`).join('\n');
  fails(`let a0 = Var("x");\n${sharing}\na40`, /^expression too large/, 42, 1);
});

test('a session keeps no bindings from an input that fails', () => {
  const s = new FqlJsSession();
  assert.throws(() => s.parse('let a = 1; Get(b)'), (e: unknown) => e instanceof FqlJsError && e.reason === 'unknown name b');
  assert.throws(() => s.parse('Get(a)'), (e: unknown) => e instanceof FqlJsError && e.reason === 'unknown name a');
});
