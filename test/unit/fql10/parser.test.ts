// src/fql10/parser: the core's expression grammar and parse errors, ported from
// fql/shared/src/test/scala/parser/ExprParserSpec.scala and error/QueryErrorSpec.scala.

import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import type { ChainComponent, Expr, Stmt } from '../../../src/fql10/ast';
import { renderDiagnostic } from '../../../src/fql10/diagnostic';
import { OPERATOR_PRECEDENCE, parseExpr, parseLambda, parseQuery, parseQueryTemplate } from '../../../src/fql10/parser';
import { querySrc } from '../../../src/fql10/span';

/** A compact form of a tree: kinds, values and spans. */
function show(e: Expr): string {
  const s = `@${e.span.start}:${e.span.end}`;
  switch (e.kind) {
    case 'Id': return `${e.str}${s}`;
    case 'Lit': {
      const v = e.value;
      const text = v.kind === 'Int' ? `${v.value}` : v.kind === 'Float' ? `F${v.text}` : v.kind === 'Str' ? JSON.stringify(v.value) : v.kind.toLowerCase();
      return text + s;
    }
    case 'StrTemplate': return `T[${e.parts.map((p) => (typeof p === 'string' ? JSON.stringify(p) : show(p))).join(' ')}]${s}`;
    case 'If': return `if(${show(e.pred)} ${show(e.then)})${s}`;
    case 'IfElse': return `if(${show(e.pred)} ${show(e.then)} ${show(e.else)})${s}`;
    case 'At': return `at(${show(e.ts)} ${show(e.body)})${s}`;
    case 'Match': return `match(${show(e.e)} ${e.branches.length})${s}`;
    case 'LongLambda': return `(${e.params.map((p) => (p === null ? '_' : p.str)).join(',')}${e.variadic ? ` ...${e.variadic.name?.str ?? '_'}` : ''})=>${show(e.body)}${s}`;
    case 'ShortLambda': return `short(${show(e.body)})`;
    case 'OperatorCall': return `(${e.arg === null ? `${e.op.str}${show(e.e)}` : `${show(e.e)} ${e.op.str} ${show(e.arg)}`})${s}`;
    case 'MethodChain': return `${show(e.e)}${e.chain.map(showLink).join('')}${s}`;
    case 'Project': return `${show(e.e)}{${e.bindings.map(([n, v]) => `${n.str}: ${show(v)}`).join(', ')}}${s}`;
    case 'ProjectAll': return `${show(e.e)}{*}${s}`;
    case 'Object': return `{${e.fields.map(([n, v]) => `${n.str}@${n.span.start}: ${show(v)}`).join(', ')}}${s}`;
    case 'Tuple': return `(${e.elems.map(show).join(', ')})${s}`;
    case 'Array': return `[${e.elems.map(show).join(', ')}]${s}`;
    case 'Block': return `{${e.body.map(showStmt).join('; ')}}${s}`;
  }
}

function showStmt(st: Stmt): string {
  return st.kind === 'Let' ? `let ${st.name.str}${st.tpe ? `: ${st.tpe.kind}` : ''} = ${show(st.value)}@${st.span.start}:${st.span.end}` : show(st.expr);
}

function showLink(l: ChainComponent): string {
  switch (l.kind) {
    case 'Select': return `${l.optional ? '?.' : '.'}${l.field.str}`;
    case 'Bang': return '!';
    case 'Apply': return `${l.optional ? '?.' : ''}(${l.args.map(show).join(', ')})`;
    case 'Access': return `${l.optional ? '?.' : ''}[${l.args.map(show).join(', ')}]`;
    case 'MethodCall': return `${l.selectOptional ? '?.' : '.'}${l.field.str}${l.applyOptional ? '?.' : ''}(${l.args.map(show).join(', ')})`;
  }
}

function expr(q: string): string {
  const r = parseExpr(q);
  assert.ok(r.ok, `${q}: ${r.ok ? '' : r.errors.map((e) => e.message).join('; ')}`);
  return show(r.value);
}

function errors(q: string, parse = parseExpr): string[] {
  const r = parse(q);
  assert.ok(!r.ok, `${q} should not parse`);
  return r.errors.map((e) => `${e.message} ${e.span.start}:${e.span.end}`);
}

describe('fql10 parser: expressions', () => {
  test('literals, consuming trailing whitespace', () => {
    const cases: [string, string][] = [
      ['null  ', 'null@0:4'], ['true  ', 'true@0:4'], ['false ', 'false@0:5'], ['123   ', '123@0:3'],
      ['0.123 ', 'F0.123@0:5'], ["'foo' ", '"foo"@0:5'], ["''", '""@0:2'], ['"foo" ', '"foo"@0:5'],
      ['1_2_3', '123@0:5'], ['0xff', '255@0:4'], ['-0xff', '-255@0:5'], ['0b101', '5@0:5'], ['0o17', '15@0:4'],
      ['1e1', 'F1e1@0:3'], ['1e-1', 'F1e-1@0:4'], ['-1', '-1@0:2'], ['- 1', '-1@0:3'], ['+1', '1@0:2'], ['+ 1', '1@0:3'],
      ['-1e1', 'F-1e1@0:4'], ['123456789012345678901234567890', '123456789012345678901234567890@0:30'],
      ['"\\u{101234}"', `${JSON.stringify('\udbc4\ude34')}@0:12`], ['"\\xff"', '"ÿ"@0:6'], ["'a\\#b'", '"a#b"@0:6'],
    ];
    for (const [q, want] of cases) assert.equal(expr(q), want, q);
  });

  test('string templates keep the core parts (a lone # is a part)', () => {
    assert.equal(expr('"foo#{123}bar" '), 'T["foo" 123@6:9 "bar"]@0:14');
    assert.equal(expr('"foo#{123 }bar" '), 'T["foo" 123@6:9 "bar"]@0:15');
    assert.equal(expr('"foo#{ 123}bar" '), 'T["foo" 123@7:10 "bar"]@0:15');
    assert.equal(expr('"#{123}" '), 'T[123@3:6]@0:8');
    assert.equal(expr('"foo#bar"'), 'T["foo" "#" "bar"]@0:9');
    assert.equal(expr('"foo\\#{bar"'), '"foo#{bar"@0:11');
  });

  test('heredocs', () => {
    assert.equal(expr('<<+END\na multiline\nstring\nEND'), 'T["a multiline" "\\n" "string" "\\n"]@0:29');
    assert.equal(expr('<<-END\na multiline\nstring\nEND'), '"a multiline\\nstring\\n"@0:29');
    assert.equal(expr("<<+END\na multiline\n#{10} #{'str'}\nstring\nEND"), 'T["a multiline" "\\n" 10@21:23 " " "str"@27:32 "\\n" "string" "\\n"]@0:44');
    assert.equal(expr('<<+END\nENDOR\nAPPEND\nEND'), 'T["ENDOR" "\\n" "APPEND" "\\n"]@0:23');
    assert.equal(expr('<<+END\nEND'), '""@0:10');
    assert.equal(expr('<<-END\nEND'), '""@0:10');
    assert.equal(expr('<<+END\na string\nEND\n \t\n \t\n \t'), 'T["a string" "\\n"]@0:19');
    assert.equal(expr('<<-END\na string #{str}\nEND'), '"a string #{str}\\n"@0:26');
    assert.equal(expr("<<+END\n  a multiline\n    #{'str'}\n      string\nEND"), 'T["a multiline" "\\n" "  " "str"@27:32 "\\n" "    string" "\\n"]@0:50');
    assert.equal(expr('<<-END\n  a multiline\n    string\nEND'), '"a multiline\\n  string\\n"@0:35');
  });

  test('arrays, objects, blocks', () => {
    assert.equal(expr('[1,2,3]'), '[1@1:2, 2@3:4, 3@5:6]@0:7');
    assert.equal(expr('\n [ \n 1 \n , \n 2 \n , \n 3 \n ] \n'), '[1@6:7, 2@14:15, 3@22:23]@2:27');
    assert.equal(expr('{a:1,b:2,c:3}'), '{a@1: 1@3:4, b@5: 2@7:8, c@9: 3@11:12}@0:13');
    assert.equal(expr("{'a':1}"), '{a@1: 1@5:6}@0:7');
    assert.equal(expr('{}'), '{}@0:2');
    assert.equal(expr('\n{\na :\n1\n}\n'), '{a@3: 1@7:8}@1:10');
    assert.equal(expr('{"":0}'), '{@1: 0@4:5}@0:6');
    assert.equal(expr("{'a'}"), '{"a"@1:4}@0:5');
    assert.equal(expr('{"a"}'), '{"a"@1:4}@0:5');
    assert.equal(expr("{'a';'b'}"), '{"a"@1:4; "b"@5:8}@0:9');
    assert.equal(expr("\n{//foo\n'a'//bar\n'b'//baz\n}\n"), '{"a"@8:11; "b"@17:20}@1:27');
    assert.equal(expr("\n{/*foo*/\n'a'/*bar*/\n'b'/*baz*/\n}\n"), '{"a"@10:13; "b"@21:24}@1:33');
    assert.equal(expr("{'a';'b';}"), '{"a"@1:4; "b"@5:8}@0:10');
    assert.equal(expr("\n{//foo\n'a';//bar\n'b';//baz\n}\n"), '{"a"@8:11; "b"@18:21}@1:29');
    assert.equal(expr('{ x; }'), '{x@2:3}@0:6');
    assert.equal(expr('{ let a = if (true) 3\na }'), '{let a = if(true@14:18 3@20:21)@10:21@2:21; a@22:23}@0:25');
  });

  test('keywords are field names but not variables', () => {
    const r = parseQuery("{ 'if': 123 }.if");
    assert.ok(r.ok);
    assert.equal(show(r.value), '{{if@2: 123@8:11}@0:13.if@0:16}@0:16');
    assert.ok(parseQuery('true.log').ok);
    assert.ok(parseQuery('FQL.log').ok);
    assert.ok(!parseQuery('let.log').ok);
  });

  test('tuples, lambdas, variadics', () => {
    const cases: [string, string][] = [
      ['(1)', '(1@1:2)@0:3'], ['(a,b)', '(a@1:2, b@3:4)@0:5'], ['foo', 'foo@0:3'],
      ['(a)=>null', '(a)=>null@5:9@0:9'], ['(a,b)=>null', '(a,b)=>null@7:11@0:11'], ['a=>null', '(a)=>null@3:7@0:7'],
      ['(a,_,b,_)=>null', '(a,_,b,_)=>null@11:15@0:15'], ['(...a)=>null', '( ...a)=>null@8:12@0:12'],
      ['(a, ...b)=>null', '(a ...b)=>null@11:15@0:15'], ['(_, ..._)=>null', '(_ ..._)=>null@11:15@0:15'],
      ['_ => 3', '(_)=>3@5:6@0:6'], ['(_) => 3', '(_)=>3@7:8@0:8'],
    ];
    for (const [q, want] of cases) assert.equal(expr(q), want, q);
    for (const q of ["('a') => null", 'a, a => null', '(...a + 1)=>null', '(a + 1, ...b)=>null', '(...a, b)=>null', '(..._, ..._)=>null', '(a, ...b, c)=>null']) {
      assert.ok(!parseExpr(q).ok, q);
    }
  });

  test('if, else on a new line, at', () => {
    assert.equal(expr('if (true) 3'), 'if(true@4:8 3@10:11)@0:11');
    assert.equal(expr('if (true) 3 else 4'), 'if(true@4:8 3@10:11 4@17:18)@0:18');
    assert.equal(expr('if (true) 3\nelse 4'), 'if(true@4:8 3@10:11 4@17:18)@0:18');
    assert.equal(expr('{ if (true) 3\n\nelse 4 }'), '{if(true@6:10 3@12:13 4@20:21)@2:21}@0:23');
    assert.equal(expr('at (ts) x.y'), 'at(ts@4:6 x@8:9.y@8:11)@0:11');
  });

  test('method chains: selects, calls, access, !, ?.', () => {
    const cases: [string, string][] = [
      ['a.foo', 'a@0:1.foo@0:5'], ['a?.foo', 'a@0:1?.foo@0:6'], ['a()', 'a@0:1()@0:3'], ['a?.()', 'a@0:1?.()@0:5'],
      ['a.foo(1,2)', 'a@0:1.foo(1@6:7, 2@8:9)@0:10'], ['a?.foo()', 'a@0:1?.foo()@0:8'], ['a.foo?.()', 'a@0:1.foo?.()@0:9'],
      ['a[1]', 'a@0:1[1@2:3]@0:4'], ['a?.[1]', 'a@0:1?.[1@4:5]@0:6'], ['foo!()!', 'foo@0:3!()!@0:7'],
      ['foo![0]!', 'foo@0:3![0@5:6]!@0:8'], ['foo!.bar!.baz!', 'foo@0:3!.bar!.baz!@0:14'], ['1.foo', '1@0:1.foo@0:5'],
      ['-1.foo', '-1@0:2.foo@0:6'], ['a\n.b', 'a@0:1.b@0:4'], ['"x".length', '"x"@0:3.length@0:10'],
    ];
    for (const [q, want] of cases) assert.equal(expr(q), want, q);
    const r = parseExpr('a?.foo');
    assert.ok(r.ok && r.value.kind === 'MethodChain');
    const sel = r.value.chain[0];
    assert.ok(sel.kind === 'Select');
    assert.deepEqual([sel.dotSpan.start, sel.dotSpan.end, sel.span.start, sel.span.end], [1, 3, 1, 6]);
  });

  test('short lambdas', () => {
    assert.equal(expr('(.foo.bar)'), '(short($this@1:1.foo.bar@1:9))@0:10');
    assert.equal(expr('(.foo())'), '(short($this@1:1.foo()@1:7))@0:8');
    assert.equal(expr("(.['foo'])"), '(short($this@1:1["foo"@3:8]@1:9))@0:10');
    assert.equal(expr('(.())'), '(short($this@1:1()@1:4))@0:5');
    assert.equal(expr('(.foo + (.bar))'), '(short(($this@1:1.foo@1:5 + ($this@9:9.bar@9:13)@8:14)@1:14))@0:15');
    assert.equal(expr('(.foo && .bar)'), '(short(($this@1:1.foo@1:5 && $this@9:9.bar@9:13)@1:13))@0:14');
    assert.equal(expr('(!.foo)'), '(short((!$this@2:2.foo@2:6)@2:6))@0:7');
    assert.equal(expr('(.foo)(x)'), '(short($this@1:1.foo@1:5))@0:6(x@7:8)@0:9');
    assert.deepEqual(errors('.foo'), ['Invalid anonymous field access 0:4']);
    assert.deepEqual(errors('{ let a = .foo; 3 }'), ['Invalid anonymous field access 10:14']);
    assert.deepEqual(errors('2 + .foo'), ['Invalid anonymous field access 0:8']);
    assert.deepEqual(errors('(.foo + .bar) / 3'), ['Invalid anonymous field access 0:17']);
  });

  test('unary operators bind tighter than binary ones; a unary call spans its operand', () => {
    assert.equal(expr('-a'), '(-a@1:2)@1:2');
    assert.equal(expr('!a.b'), '(!a@1:2.b@1:4)@1:4');
    assert.equal(expr('~(1)'), '(~(1@2:3)@1:4)@1:4');
    assert.equal(expr('a - -1'), '(a@0:1 - -1@4:6)@0:6');
    assert.equal(expr('2-1'), '(2@0:1 - 1@2:3)@0:3');
  });

  test('binary operator precedence and associativity', () => {
    const ops = [...OPERATOR_PRECEDENCE.keys()];
    for (const op1 of ops) {
      for (const op2 of ops) {
        const q = `a ${op1} b ${op2} c`;
        const p1 = OPERATOR_PRECEDENCE.get(op1)!;
        const p2 = OPERATOR_PRECEDENCE.get(op2)!;
        const b = 3 + op1.length;
        const cc = b + 3 + op2.length;
        const left = `((a@0:1 ${op1} b@${b}:${b + 1})@0:${b + 1} ${op2} c@${cc}:${cc + 1})@0:${cc + 1}`;
        const right = `(a@0:1 ${op1} (b@${b}:${b + 1} ${op2} c@${cc}:${cc + 1})@${b}:${cc + 1})@0:${cc + 1}`;
        const leftFirst = op1 === op2 ? op1 !== '**' : p1 >= p2;
        assert.equal(expr(q), leftFirst ? left : right, q);
      }
    }
  });

  test('newlines may precede boolean and bitwise operators only', () => {
    for (const op of ['||', '&&', '|', '^', '&', '??']) assert.ok(parseExpr(`a\n${op}b`).ok, op);
    for (const op of ['==', '!=', '=~', '!~', '>', '<', '>=', '<=', '+', '-', '*', '/', '%']) assert.ok(!parseExpr(`a\n${op}b`).ok, op);
    assert.ok(parseExpr('a isa b').ok);
  });

  test('projection', () => {
    assert.equal(expr('x { a, b { c }, d: 1 }'), 'x@0:1{a: $this@4:4.a@4:5, b: $this@7:7.b@7:8{c: $this@11:11.c@11:12}@7:14, d: 1@19:20}@0:22');
    assert.equal(expr('x { * }'), 'x@0:1{*}@0:7');
    assert.equal(expr('x { a: .b }'), 'x@0:1{a: $this@7:7.b@7:9}@0:11');
  });

  test('a long operator chain does not overflow', () => {
    const q = Array.from({ length: 10001 }, (_, i) => i).join('+');
    assert.ok(parseExpr(q).ok);
  });

  test('templated queries read each value placeholder as $0, $1, ...', () => {
    const r = parseQueryTemplate('\0value> + f(\0value>)');
    assert.ok(r.ok);
    assert.equal(show(r.value), '{($0@0:7 + f@10:11($1@12:19)@10:20)@0:20}@0:20');
    assert.ok(!parseQuery('\0value>').ok);
  });

  test('user function bodies must be lambdas', () => {
    const src = { name: '*udf:f*' };
    const ok = parseLambda('(x) => x', src);
    assert.ok(ok.ok && ok.value.kind === 'LongLambda');
    const bad = parseLambda('1 + 1', src);
    assert.ok(!bad.ok);
    assert.equal(renderDiagnostic(bad.errors[0], new Map([['*udf:f*', '1 + 1']])),
      'error: Body must be a lambda expression.\nat *udf:f*:1:1\n  |\n1 | 1 + 1\n  | ^^^^^ Expression is not a lambda.\n  |\nhint: Declare a lambda.\n  |\n1 | () => 1 + 1\n  | ++++++\n  |');
  });
});

describe('fql10 parser: errors', () => {
  // QueryErrorSpec: query, where the error points (a substring's first character, or \0 for the
  // end), and the message.
  const EOF = '\0';
  const table: [string, string, string][] = [
    ['', '', 'Unexpected end of query. Expected statement or expression'],
    ['2 3', '3', 'Expected end-of-input'],
    ['{', EOF, 'Unexpected end of block. Expected statement or expression'],
    ['{ a:', EOF, 'Expected expression'],
    ['{ a: }', '}', 'Expected expression'],
    ['{ a: (3 }', '}', 'Expected `)`, `,`, or `...`'],
    ['{ a: [3 }', '}', 'Expected `,` or `]`'],
    ['if', EOF, 'Expected `(`'],
    ['if true', 't', 'Expected `(`'],
    ['if true 3 else', 't', 'Expected `(`'],
    ['if (true)', EOF, 'Expected expression'],
    ['if (true) 3 else', EOF, 'Expected expression'],
    ['##', '#', 'Unexpected end of query. Expected statement or expression'],
    ['let', EOF, 'Expected identifier'],
    ['let.foo', '.', 'Expected identifier'],
    ['let a', EOF, 'Expected `:` or `=`'],
    ['let a:', EOF, 'Expected type'],
    ['let a: int', EOF, 'Expected `<` or `=`'],
    ['let a =', EOF, 'Expected expression'],
    ['let a: int =', EOF, 'Expected expression'],
    ['3.', EOF, 'Expected digit or identifier'],
    ['foo(,)', ',', 'Expected `)` or expression'],
    ['foo(', EOF, 'Expected `)` or expression'],
    ['foo(a', EOF, 'Expected `)` or `,`'],
    ['foo(3', EOF, 'Expected `)` or `,`'],
    ["'\\uz'", 'z', 'Expected `{` or hex digit'],
    ["'\\3'", '3', 'Expected escape code'],
    ['foo { 3 }', '3', 'Expected `*` or identifier'],
    ['foo { foo: }', '}', 'Expected expression'],
    ['foo { foo: 3 bar }', 'b', 'Expected `,` or `}`'],
  ];
  test('the core messages at the core positions', () => {
    for (const [q, at, msg] of table) {
      const i = at === EOF ? q.length : q.indexOf(at === '' ? q[0] ?? '' : at);
      assert.deepEqual(errors(q, parseQuery), [`${msg} ${Math.max(i, 0)}:${Math.max(i, 0) + 1}`], q);
    }
    assert.deepEqual(errors("'\\u12'", parseQuery), ['Expected hex digit 5:6']);
    assert.deepEqual(errors("'\\u{1234'", parseQuery), ['Expected `}` or hex digit 8:9']);
    assert.deepEqual(errors('}', parseQuery), ['Unexpected end of query. Expected statement or expression 0:1']);
  });

  test('grammar errors with hints', () => {
    assert.deepEqual(errors('{ a: 2, a: 3 }'), ['Duplicate key 8:9']);
    assert.deepEqual(errors('{ a: 2, a: 3, a: 4 }'), ['Duplicate key 8:9', 'Duplicate key 14:15']);
    assert.deepEqual(errors('(x, x, x) => x'), ['Duplicate lambda argument 4:5', 'Duplicate lambda argument 7:8']);
    assert.deepEqual(errors('{ x; let y = "foo" }'), ['Missing return expression 19:20']);
    assert.deepEqual(errors('{\n  x\n  let x = \'foo\' \n}'), ['Missing return expression 23:24']);
    assert.deepEqual(errors('"\\udc00"'), ['Invalid escape 1:7']);
    assert.deepEqual(errors('"\\u{11ffff}"'), ['Invalid escape 1:11']);
    assert.deepEqual(errors('let let = 3', parseQuery), ['Invalid identifier 4:7']);
    assert.deepEqual(errors('let true = 3', parseQuery), ['Invalid identifier 4:8']);
    assert.deepEqual(errors('let FQL = 3', parseQuery), ['Invalid identifier 4:7']);
    const r = parseExpr('{ "#{3}": 2 }');
    assert.ok(!r.ok);
    assert.equal(renderDiagnostic(r.errors[0]),
      'error: Object keys do not support interpolation\nat *query*:1:6\n  |\n1 | { "#{3}": 2 }\n  |      ^\n  |\n' +
      'hint: Add a backslash to ignore the interpolation\n  |\n1 | { "\\#{3}": 2 }\n  |    +\n  |\n' +
      'hint: Use Object.fromEntries if you need a dynamic key\n  |\n1 | { "#{3}": 2 }\n  |   ^^^^^^\n  |');
  });

  test('reserved words render with their annotation', () => {
    for (const [q, kw] of [['{ let join = 3; join }', 'join'], ['{ let of = 3; of }', 'of'], ['{ let on = 3; on }', 'on']]) {
      const r = parseExpr(q);
      assert.ok(!r.ok);
      assert.equal(renderDiagnostic(r.errors[0]),
        `error: Invalid identifier\nat *query*:1:7\n  |\n1 | ${q}\n  |       ${'^'.repeat(kw.length)} \`${kw}\` is a keyword\n  |`);
    }
    const m = parseQuery('{ x; let y = "foo" }');
    assert.ok(!m.ok);
    assert.equal(renderDiagnostic(m.errors[0]),
      'error: Missing return expression\nat *query*:1:20\n  |\n1 | { x; let y = "foo" }\n  |                    ^\n  |\n' +
      'cause: Statement does not return a value\n  |\n1 | { x; let y = "foo" }\n  |      ^^^^^^^^^^^^^\n  |');
  });

  test('hostile input fails cleanly', () => {
    const deep = (open: string, close: string) => open.repeat(5000) + '1' + close.repeat(5000);
    for (const q of [deep('[', ']'), deep('(', ')'), deep('{', '}'), '!'.repeat(5000) + 'x', 'x => '.repeat(5000) + '1', deep('"#{', '}"')]) {
      const r = parseQuery(q);
      assert.ok(!r.ok);
      assert.match(r.errors[0].message, /nesting/);
    }
    for (const q of ['"abc', "'abc", '/* never closed', '<<-END\nabc', '"' + 'a'.repeat(1_000_000), '0x', '1e', '/*'.repeat(10000)]) {
      const r = parseQuery(q);
      assert.ok(!r.ok, q.slice(0, 20));
    }
  });
});

describe('fql10 diagnostics', () => {
  const at = (start: number, end: number, text: string) => ({ start, end, src: querySrc(text) });
  test('render like the core (HintSpec)', () => {
    const hint = (message: string, start: number, end: number, text = 'hello world', suggestion?: string) =>
      renderDiagnostic({ name: 'error', message: 'x', span: at(0, 0, text), hints: [{ message, span: at(start, end, text), ...(suggestion === undefined ? {} : { suggestion }) }] })
        .split('\n').slice(6).join('\n');
    assert.equal(hint('this is at the EOF', 11, 12), 'hint: this is at the EOF\nat *query*:1:12\n  |\n1 | hello world\n  |            ^\n  |'.replace('at *query*:1:12\n', ''));
    assert.equal(renderDiagnostic({ name: 'error', message: 'this is near the EOF', span: at(9, 11, 'hello\nworld') }),
      'error: this is near the EOF\nat *query*:2:4\n  |\n2 | world\n  |    ^^\n  |');
    assert.equal(renderDiagnostic({ name: 'error', message: 'this is at the EOF', span: at(11, 12, 'foo\n   ') }),
      'error: this is at the EOF\nat *query*:1:4\n  |\n1 | foo\n  |    ^\n  |');
    assert.equal(renderDiagnostic({ name: 'error', message: 'this is a hint', span: at(10, 11, '') }),
      'error: this is a hint\nat *query*:1:1\n  |\n1 |\n  | ^\n  |');
    assert.equal(hint('this is a hint', 1, 3, 'hello world', ''), 'hint: this is a hint\n  |\n1 | hello world\n  |  --\n  |');
    assert.equal(hint('this is a hint', 5, 5, 'hello world', ' 123'), 'hint: this is a hint\n  |\n1 | hello 123 world\n  |      ++++\n  |');
    assert.equal(hint('this is a hint', 6, 11, 'hello world', 'foo'), 'hint: this is a hint\n  |\n1 | hello foo\n  |       ~~~\n  |');
    assert.equal(renderDiagnostic({ name: 'error', message: 'm', span: { start: 0, end: 0, src: { name: '*null*' } } }), 'error: m\nat <no source>');
  });

  test('multi-line spans draw a bracket; placeholders show as <value>', () => {
    assert.equal(renderDiagnostic({ name: 'error', message: 'm', span: at(2, 9, 'a(b,\n c)\nd') }),
      'error: m\nat *query*:1:3\n  |\n1 |   a(b,\n  |  ___^\n2 | |  c)\n  | |____^\n  |');
    assert.equal(renderDiagnostic({ name: 'error', message: 'm', span: at(4, 11, '1 + \0value>') }),
      'error: m\nat *query*:1:5\n  |\n1 | 1 + <value>\n  |     ^^^^^^^\n  |');
  });
});
