// src/fql10/fsl: the FSL grammar's raw nodes and the converter's first errors, ported from the
// core's fql/shared/src/test/scala/parser/FSLNodeParserSpec.scala (trees, spans and messages).

import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import type { ChainComponent, Expr } from '../../../src/fql10/ast';
import { renderSummary } from '../../../src/fql10/diagnostic';
import type { FieldPath, FslNode, FslValue } from '../../../src/fql10/fsl/ast';
import { parseFslNodes, parseSchemaItems } from '../../../src/fql10/fsl';
import type { Span } from '../../../src/fql10/span';

const at = (s: Span) => `@${s.start}:${s.end}`;

function showExpr(e: Expr): string {
  switch (e.kind) {
    case 'Id': return e.str + at(e.span);
    case 'Lit': return (e.value.kind === 'Int' ? `${e.value.value}` : e.value.kind === 'Str' ? JSON.stringify(e.value.value) : e.value.kind.toLowerCase()) + at(e.span);
    case 'OperatorCall': return `(${showExpr(e.e)} ${e.op.str}${at(e.op.span)} ${e.arg === null ? '' : showExpr(e.arg)})${at(e.span)}`;
    case 'ShortLambda': return `short(${showExpr(e.body)})`;
    case 'MethodChain': return `${showExpr(e.e)}${e.chain.map(showLink).join('')}${at(e.span)}`;
    case 'LongLambda': return `(${e.params.map((p) => (p === null ? '_' : p.str + at(p.span))).join(',')})=>${showExpr(e.body)}${at(e.span)}`;
    case 'Tuple': return `(${e.elems.map(showExpr).join(', ')})${at(e.span)}`;
    case 'Block': return `{${e.body.map((s) => (s.kind === 'ExprStmt' ? showExpr(s.expr) : 'let')).join('; ')}}${at(e.span)}`;
    default: return e.kind + at(e.span);
  }
}

function showLink(l: ChainComponent): string {
  switch (l.kind) {
    case 'Select': return `.${l.field.str}${at(l.dotSpan)}${at(l.field.span)}`;
    case 'Access': return `[${l.args.map(showExpr).join(', ')}]${at(l.accSpan)}`;
    case 'Apply': return `(${l.args.map(showExpr).join(', ')})`;
    default: return l.kind;
  }
}

function showPath(p: FieldPath): string {
  return p.elems.map((e) => (e.kind === 'field' ? `.${e.name}` : `[${e.index}]`) + at(e.span)).join('') + at(p.span);
}

function showValue(v: FslValue): string {
  switch (v.kind) {
    case 'Block': return `{${at(v.open)} ${v.items.map(showNode).join(' ; ')} }${at(v.close)}`;
    case 'Paths': return `[${at(v.open)} ${v.paths.map(showExpr).join(', ')} ]${at(v.close)}`;
    case 'Function': {
      const args = v.args.map((a) => a.name.str + at(a.name.span) + (a.ty === null ? '' : `:${at(a.ty.colon)} ${a.ty.ty.kind}${at(a.ty.ty.span)}`));
      if (v.variadic !== null) args.push(`...${at(v.variadic.dots)}${v.variadic.name.str}${at(v.variadic.name.span)}`);
      return `fn(${at(v.open)} ${args.join(', ')} )${at(v.close)}${v.ret === null ? '' : ` : ${v.ret.ty.kind}`} ${showExpr(v.body)}`;
    }
    case 'Field': return `field:${v.fieldKind}(${v.ty === null ? '' : `: ${v.ty.ty.kind}${at(v.ty.span)}`}${v.value === null ? '' : ` = ${showValue(v.value)}`})`;
    case 'Lit': return showExpr(v.expr);
    case 'Invalid': return `invalid${at(v.span)}`;
    case 'Backfill': return `backfill(${showPath(v.path)} = ${showExpr(v.value.expr)})${at(v.span)}`;
    case 'Drop': return `drop(${showPath(v.path)})${at(v.span)}`;
    case 'Split': return `split(${showPath(v.from)} -> ${v.to.map(showPath).join(', ')})${at(v.span)}`;
    case 'Move': return `move(${showPath(v.from)} -> ${showPath(v.to)})${at(v.span)}`;
    case 'Add': return `add(${showPath(v.path)})${at(v.span)}`;
    case 'MoveConflicts': return `move_conflicts(${showPath(v.into)})${at(v.span)}`;
    case 'MoveWildcard': return `move_wildcard(${showPath(v.into)})${at(v.span)}`;
    case 'AddWildcard': return `add_wildcard${at(v.span)}`;
  }
}

function showNode(n: FslNode): string {
  const anns = n.annotations.map((a) => `@${a.keyword.str}${at(a.keyword.span)}(${a.value.str}${at(a.value.span)})${at(a.span)} `).join('');
  return `${anns}${n.keyword.str}${at(n.keyword.span)}${n.name === null ? '' : ` ${n.name.str}${at(n.name.span)}`}${n.body === null ? '' : ` ${showValue(n.body)}`} ${at(n.span)}`;
}

function raw(src: string): string[] {
  const r = parseFslNodes(src);
  assert.ok(r.ok, r.ok ? '' : renderSummary(r.errors));
  return r.value.map(showNode);
}

function rawErr(src: string, expected: string): void {
  const r = parseFslNodes(src);
  assert.ok(!r.ok, `${JSON.stringify(src)} should not parse`);
  assert.equal(renderSummary(r.errors), expected);
}

function schemaErr(src: string, expected: string): void {
  const r = parseSchemaItems(src);
  assert.ok(!r.ok, `${JSON.stringify(src)} should not convert`);
  assert.equal(renderSummary(r.errors), expected);
}

const lines = (...ls: string[]) => ls.join('\n');

describe('fsl raw nodes', () => {
  test('error collections nicely', () => {
    schemaErr('foo', lines('error: Invalid schema item `foo`', 'at *fsl*:1:1', '  |', '1 | foo', '  | ^^^', '  |'));
    schemaErr('foo bar', lines('error: Invalid schema item `foo`', 'at *fsl*:1:1', '  |', '1 | foo bar', '  | ^^^', '  |'));
    schemaErr('collection 3', lines('error: Missing required name', 'at *fsl*:1:1', '  |', '1 | collection 3', '  | ^^^^^^^^^^', '  |'));
    schemaErr('collection Foo 123', lines('error: Expected a block', 'at *fsl*:1:16', '  |', '1 | collection Foo 123', '  |                ^^^', '  |'));
    schemaErr('collection Foo {\n  foo bar\n}', lines('error: Invalid field or member `foo`', 'at *fsl*:2:3', '  |', '2 |   foo bar', '  |   ^^^', '  |'));
    schemaErr('collection Foo {\n  index\n}', lines('error: Missing required name', 'at *fsl*:2:3', '  |', '2 |   index', '  |   ^^^^^', '  |'));
    schemaErr('collection Foo {\n  index bar\n}', lines('error: Missing required value', 'at *fsl*:2:3', '  |', '2 |   index bar', '  |   ^^^^^^^^^', '  |'));
    schemaErr('collection Foo {\n  index bar 3\n}', lines('error: Expected a block', 'at *fsl*:2:13', '  |', '2 |   index bar 3', '  |             ^', '  |'));
    schemaErr('collection Foo {\n  index bar {\n    foo\n  }\n}', lines('error: Invalid member `foo`', 'at *fsl*:3:5', '  |', '3 |     foo', '  |     ^^^', '  |'));
    schemaErr('collection Foo {\n  index bar {\n    terms 3\n  }\n}', lines('error: Expected an array of terms', 'at *fsl*:3:11', '  |', '3 |     terms 3', '  |           ^', '  |'));
    schemaErr('collection Foo {\n  index bar {\n    terms [.a]\n    terms [.b]\n  }\n}', lines(
      'error: Duplicate terms definition', 'at *fsl*:4:5', '  |', '4 |     terms [.b]', '  |     ^^^^^^^^^^', '  |',
      'hint: Originally defined here', 'at *fsl*:3:5', '  |', '3 |     terms [.a]', '  |     ^^^^^^^^^^', '  |'));
  });

  test('disallow duplicates in split migrations', () => {
    schemaErr('collection Foo {\n  migrations {\n    split .x -> .y, .z, .y\n  }\n}', lines(
      'error: Expected list of fields with no duplicates', 'at *fsl*:3:17', '  |', '3 |     split .x -> .y, .z, .y', '  |                 ^^^^^^^^^^', '  |'));
  });

  test('parse raw items', () => {
    assert.deepEqual(raw('collection Foo {}'), ['collection@0:10 Foo@11:14 {@15:16  }@16:17 @0:17']);
    assert.deepEqual(raw('foo bar {}'), ['foo@0:3 invalid@4:10 @0:10']);
  });

  test('parse annotations', () => {
    assert.deepEqual(raw('@alias(foo) @role(bar) baz {}'), ['@alias@1:6(foo@7:10)@0:11 @role@13:17(bar@18:21)@12:22 baz@23:26 invalid@27:29 @0:29']);
  });

  test('parse paths', () => {
    assert.deepEqual(raw('terms [.x, .y, .[3].foo]'), [
      'terms@0:5 [@6:7 short($this@7:7.x@7:8@8:9@7:9), short($this@11:11.y@11:12@12:13@11:13), short($this@15:15[3@17:18]@16:19.foo@19:20@20:23@15:23) ]@23:24 @0:24',
    ]);
  });

  test('parse functions', () => {
    assert.deepEqual(raw('function foo(x, y: Int) { 0 }'), ['function@0:8 foo@9:12 fn(@12:13 x@13:14, y@16:17:@17:18 TypeId@19:22 )@22:23 {0@26:27}@24:29 @0:29']);
    assert.deepEqual(raw('function foo(x, ...y) { 0 }'), ['function@0:8 foo@9:12 fn(@12:13 x@13:14, ...@16:19y@19:20 )@20:21 {0@24:25}@22:27 @0:27']);
    // whitespace before the argument list
    assert.deepEqual(raw('function foo () { 0 }'), ['function@0:8 foo@9:12 fn(@13:14  )@14:15 {0@18:19}@16:21 @0:21']);
  });

  test('parse lits', () => {
    assert.deepEqual(raw('history_days bar 3'), ['history_days@0:12 bar@13:16 3@17:18 @0:18']);
    // The core's span of a binary operator call is its right operand's.
    assert.deepEqual(raw('ttl_days bar 2 + 3'), ['ttl_days@0:8 bar@9:12 (2@13:14 +@15:16 3@17:18)@13:18 @0:18']);
  });

  test('parse access providers', () => {
    assert.deepEqual(raw('access provider foo {}'), ['access provider@0:15 foo@16:19 {@20:21  }@21:22 @0:22']);
    assert.deepEqual(raw('access provider foo { role foo }'), ['access provider@0:15 foo@16:19 {@20:21 role@22:26 foo@27:30 @22:30 }@31:32 @0:32']);
  });

  test('parse predicate and allow newline', () => {
    assert.deepEqual(raw('predicate\n(x => x)'), ['predicate@0:9 ((x@11:12)=>x@16:17@11:17)@10:18 @0:18']);
  });

  test('parse computed fields', () => {
    assert.deepEqual(raw('compute foo = x => x + 3'), ['field@0:8 foo@8:11 field:compute( = (x@14:15)=>(x@19:20 +@21:22 3@23:24)@19:24@14:24) @0:24']);
  });

  test('parse migration blocks', () => {
    const src = lines('collection Foo {', '  migrations {', '    backfill .foo = 3', '', '    split .a -> .B, .C, .X', '    drop .X', '', '    move .foo -> .bar', '', '    add .T', '  }', '}');
    assert.deepEqual(raw(src), [
      'collection@0:10 Foo@11:14 {@15:16 migrations@19:29 {@30:31 '
      + 'backfill@36:44 backfill(.foo@46:49@45:49 = 3@52:53)@36:53 @36:53 ; '
      + 'split@59:64 split(.a@66:67@65:67 -> .B@72:73@71:73, .C@76:77@75:77, .X@80:81@79:81)@59:81 @59:81 ; '
      + 'drop@86:90 drop(.X@92:93@91:93)@86:93 @86:93 ; '
      + 'move@99:103 move(.foo@105:108@104:108 -> .bar@113:116@112:116)@99:116 @99:116 ; '
      + 'add@122:125 add(.T@127:128@126:128)@122:128 @122:128 }@131:132 @19:132 }@133:134 @0:134',
    ]);
  });

  test('parse semicolons like crazy', () => {
    const src = lines(';', 'collection Foo {', '  ;', '  ;', '  history_days 3 ;;', '  ;', '  index byFoo {} ;; /* comment */', '} ;;', '', 'collection Bar { ; };', '');
    assert.deepEqual(raw(src), [
      // Item spans take in the `;`s on their line, not a comment after them.
      'collection@2:12 Foo@13:16 {@17:18 history_days@29:41 3@42:43 @29:46 ; index@53:58 byFoo@59:64 {@65:66  }@66:67 @53:70 }@85:86 @2:89',
      'collection@91:101 Bar@102:105 {@106:107  }@110:111 @91:112',
    ]);
  });

  test('rewinds semicolons correctly', () => {
    assert.deepEqual(raw('collection Foo { index; foo }'), ['collection@0:10 Foo@11:14 {@15:16 index@17:22 @17:23 ; foo@24:27 invalid@28:28 @24:28 }@28:29 @0:29']);
  });

  test('what the grammar cannot read is an Invalid value, for the converter to report', () => {
    for (const src of ['foo', 'foo bar', 'foo bar baz', 'foo bar baz baz', 'foo bar baz {}', 'foo bar baz 3']) raw(src);
  });

  test('parse invalid chars: brackets matched up to the closing brace', () => {
    assert.deepEqual(raw('collection foo { bar {} }'), ['collection@0:10 foo@11:14 {@15:16 bar@17:20 invalid@21:24 @17:24 }@24:25 @0:25']);
    for (const src of [
      'collection foo { bar {}; }', 'collection foo {\nbar {}\n}', 'collection foo {\nbar {}\nfoo{} }', 'collection foo { foo() }',
      'collection foo { foo) }', 'collection foo { foo( }', 'collection foo { foo((( }', 'collection foo { foo(]] }', 'collection foo { foo(])) }',
      'collection foo { foo(\n) }', "collection foo { foo(\n) '}' }", 'collection foo { foo(\n) "}" }', 'collection foo { foo(\n) "foo}" }',
      'collection foo { foo(\n) /* } */ }', 'collection foo { foo(\n) // }\n }', 'collection foo { foo(\n) /* /* */ } */ }',
    ]) raw(src);
    rawErr('collection foo { foo(]} }', lines('error: Expected end-of-input', 'at *fsl*:1:25', '  |', '1 | collection foo { foo(]} }', '  |                         ^', '  |'));
  });

  test('parse invalid function bodies', () => {
    assert.deepEqual(raw('function bar() { 2... }'), ['function@0:8 bar@9:12 invalid@12:23 @0:23']);
    assert.deepEqual(raw('function bar() { if (3..) 4 }'), ['function@0:8 bar@9:12 invalid@12:29 @0:29']);
  });

  test('error paths nicely', () => {
    rawErr('terms: [.bar]', lines('error: Expected `,` or `]`', 'at *fsl*:1:9', '  |', '1 | terms: [.bar]', '  |         ^', '  |'));
    rawErr('terms [.]', lines('error: Expected `]` or expression', 'at *fsl*:1:8', '  |', '1 | terms [.]', '  |        ^', '  |'));
  });

  test('error functions nicely', () => {
    rawErr('function ()', lines('error: Expected name', 'at *fsl*:1:10', '  |', '1 | function ()', '  |          ^', '  |'));
    rawErr('function foo(bar baz)', lines('error: Expected `)`, `,`, or a type annotation', 'at *fsl*:1:18', '  |', '1 | function foo(bar baz)', '  |                  ^', '  |'));
    assert.deepEqual(raw('function foo(): bar baz'), ['function@0:8 foo@9:12 invalid@12:23 @0:23']);
    assert.deepEqual(raw('function foo() bar'), ['function@0:8 foo@9:12 invalid@12:18 @0:18']);
  });

  test('error for access providers nicely', () => {
    rawErr('access foo', lines('error: Expected provider', 'at *fsl*:1:8', '  |', '1 | access foo', '  |        ^', '  |'));
    rawErr('access provider foo', lines('error: Expected expression', 'at *fsl*:1:20', '  |', '1 | access provider foo', '  |                    ^', '  |'));
  });

  test('doc comments belong to the top-level item right below them', () => {
    const fsl = lines('// Foo', 'collection Foo {}', '', '// Free comment', '', 'collection Bar {}', '', '// Baz', '// Fizz', '// Buzz', 'function baz() { 42 }', '');
    const r = parseFslNodes(fsl);
    assert.ok(r.ok);
    const doc = (n: FslNode) => (n.docComment === null ? null : fsl.slice(n.docComment.start, n.docComment.end));
    assert.deepEqual(r.value.map((n) => [n.name?.str, doc(n)]), [['Foo', '// Foo\n'], ['Bar', null], ['baz', '// Baz\n// Fizz\n// Buzz\n']]);
    assert.equal(r.value[0].span.start, 0);
  });

  test('error for migrations', () => {
    const one = (src: string, msg: string, col: number) =>
      rawErr(src, lines(`error: ${msg}`, `at *fsl*:1:${col}`, '  |', `1 | ${src}`, `  | ${' '.repeat(col - 1)}^`, '  |'));
    one('backfill .foo', 'Expected `=`', 14);
    one('backfill .foo =', 'Expected expression', 16);
    one('drop', 'Expected expression', 5);
    one('split', 'Expected expression', 6);
    one('split .foo', 'Expected `->`', 11);
    one('move', 'Expected expression', 5);
    one('move .foo', 'Expected `->`', 10);
    one('move .foo ->', 'Expected expression', 13);
  });

  test('signatures: newlines, commas, a variadic argument last', () => {
    raw('function foo(\n  x: Int\n) {\n  x\n}\n');
    rawErr('function foo(\n  x: Int,\n  ...y: Int,\n  z: Int\n) {\n  x\n}\n', lines(
      'error: Variadic argument must be the last argument.', 'at *fsl*:3:3', '  |', '3 |   ...y: Int,', '  |   ^^^^^^^^^', '  |'));
    rawErr('function foo(\n  x: Int,\n  z: Int\n  ...y: Int\n) {\n  x\n}\n', lines('error: Expected `)`', 'at *fsl*:4:3', '  |', '4 |   ...y: Int', '  |   ^', '  |'));
  });

  test('disallow multiple commas in type exprs', () => {
    rawErr('collection Foo {\n  nested: {\n    foo: Int,,\n    bar: String\n  }\n}\n', lines('error: Expected `}`', 'at *fsl*:3:14', '  |', '3 |     foo: Int,,', '  |              ^', '  |'));
  });

  test('a file keeps its name in every span', () => {
    const r = parseFslNodes('collection Foo {\n  index\n}', 'main.fsl');
    assert.ok(r.ok);
    assert.equal(r.value[0].span.src.name, 'main.fsl');
    const s = parseSchemaItems('collection Foo {\n  index\n}', 'main.fsl');
    assert.ok(!s.ok);
    assert.equal(renderSummary(s.errors), lines('error: Missing required name', 'at main.fsl:2:3', '  |', '2 |   index', '  |   ^^^^^', '  |'));
  });
});

// fql/shared/src/test/scala/error/SchemaErrorSpec.scala: one error, its message and where it points
// (the first occurrence of `at`'s text, or the end for EOF).
describe('fsl schema errors (SchemaErrorSpec)', () => {
  const EOF = '\0';
  const error = (src: string, at: string | [number, number], message: string) => {
    const r = parseSchemaItems(src);
    assert.ok(!r.ok, `${JSON.stringify(src)} should not parse`);
    assert.equal(r.errors.length, 1, renderSummary(r.errors));
    const [start, end] = Array.isArray(at) ? at : at === EOF ? [src.length, src.length + 1] : [src.indexOf(at), src.indexOf(at) + at.length];
    assert.deepEqual([r.errors[0].message, r.errors[0].span.start, r.errors[0].span.end], [message, start, end], src);
  };

  test('look nice', () => {
    error('2', '2', 'Expected end-of-input');
    error('foo', 'foo', 'Invalid schema item `foo`');
    error('collection', 'collection', 'Missing required name');
    error('collection #', '#', 'Expected end-of-input or identifier');
    error('collection {}', 'collection', 'Missing required name');
    error('collection foo { bar }', 'bar', 'Invalid field or member `bar`');
    error('collection foo { index bar { baz } }', 'baz', 'Invalid member `baz`');
    error('collection foo { unique }', 'unique', 'Missing required value');
    error('collection foo { unique [bar] }', 'bar', 'Invalid field path');
    error('function', EOF, 'Expected name');
    error('function #', '#', 'Expected name');
    error('function foo {}', [13, 14], 'Expected `(`');
    error('function foo() {}', '}', 'Unexpected end of block. Expected statement or expression');
    error('function foo(x: y: z) { x }', [17, 18], 'Expected `)`, `,`, or `<`');
    error('role', 'role', 'Missing required name');
    error('role #', '#', 'Expected end-of-input or identifier');
    error('role {}', 'role', 'Missing required name');
    error('role MyRole { foo }', 'foo', 'Invalid member `foo`');
    error('role MyRole { privileges {} }', 'privileges', 'Missing required name');
    error('access provider', EOF, 'Expected name');
    error('access provider #', '#', 'Expected name');
    error("access provider MyAP { issuer ''; jwks_uri ''; foo }", 'foo', 'Invalid member `foo`');
    error("access provider MyAP { issuer; jwks_uri 'foo' }", 'issuer;', 'Missing required value');
    error("access provider MyAP { issuer 'foo' }", [21, 37], 'Missing jwks uri');
  });
});
