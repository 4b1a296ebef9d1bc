// src/fql10/fsl: schema items (collections, roles, access providers, functions) and the
// converter's errors, ported from the core's fql/shared/src/test/scala/parser/FSLParserSpec.scala.
// Its error cases are kept with their exact texts. Its round trips (parse, then display as FSL) are
// in fslDisplay.test.ts; here the same sources are checked for what each item holds, summed up in
// a compact line.

import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import type { TypeExpr } from '../../../src/fql10/ast';
import { renderSummary } from '../../../src/fql10/diagnostic';
import type { FieldPath, IndexTerm, IndexValue, SchemaItem, SchemaTypeExpr } from '../../../src/fql10/fsl/ast';
import { parseFslNodes, parseSchemaFiles, parseSchemaItems, renderSchemaErrors } from '../../../src/fql10/fsl';
import type { Span } from '../../../src/fql10/span';

const lines = (...ls: string[]) => ls.join('\n');

function ty(t: TypeExpr): string {
  switch (t.kind) {
    case 'TypeId': return t.str;
    case 'Any': return 'Any';
    case 'Nullable': return `${ty(t.base)}?`;
    case 'Union': return t.members.map(ty).join(' | ');
    case 'TypeTuple': return `[${t.elems.map(ty).join(', ')}]`;
    case 'Cons': return `${t.name.str}<${t.targs.map(ty).join(', ')}>`;
    case 'TypeObject': return `{ ${t.fields.map(([n, f]) => `${n.str}: ${ty(f)}`).join(', ')} }`;
    default: return t.kind;
  }
}

function schemaTy(t: SchemaTypeExpr, src: string): string {
  if (t.kind === 'Simple') return ty(t.ty);
  return `{ ${t.fields.map((f) => `${f.name.str}: ${schemaTy(f.ty, src)}${f.default === null ? '' : ` = ${slice(src, f.default.span)}`}`).join(', ')} }`;
}

const slice = (src: string, sp: Span) => src.slice(sp.start, sp.end);
const path = (p: FieldPath) => p.elems.map((e) => (e.kind === 'field' ? (/^[a-zA-Z_]\w*$/.test(e.name) ? `.${e.name}` : `.[${JSON.stringify(e.name)}]`) : `.[${e.index}]`)).join('');
const term = (t: IndexTerm) => (t.mva ? `mva(${path(t.path)})` : path(t.path));
const value = (v: IndexValue) => (v.asc ? term(v) : `desc(${term(v)})`);

/** What an item holds, on one line; expressions as written. */
function summary(item: SchemaItem, src: string): string {
  switch (item.kind) {
    case 'collection': {
      const parts = [`collection ${item.name.str}`];
      if (item.alias !== null) parts.push(`alias=${item.alias.value.str}`);
      for (const f of item.fields) {
        if (f.kind === 'defined') parts.push(`${f.name.str}: ${schemaTy(f.ty, src)}${f.default === null ? '' : ` = ${slice(src, f.default.span)}`}`);
        else if (f.kind === 'computed') parts.push(`compute ${f.name.str}${f.ty === null ? '' : `: ${ty(f.ty)}`} = ${slice(src, f.value.span)}`);
        else parts.push(`*: ${ty(f.ty)}`);
      }
      for (const i of item.indexes) parts.push(`index ${i.name.str} terms [${(i.terms?.terms ?? []).map(term).join(', ')}] values [${(i.values?.values ?? []).map(value).join(', ')}]`);
      for (const u of item.uniques) parts.push(`unique [${u.terms.map(term).join(', ')}]`);
      for (const ch of item.checks) parts.push(`check ${ch.name.str} ${slice(src, ch.predicate.span)}`);
      if (item.historyDays.span !== null) parts.push(`history_days ${item.historyDays.value}`);
      if (item.ttlDays !== null) parts.push(`ttl_days ${item.ttlDays.value}`);
      if (item.documentTTLs !== null) parts.push(`document_ttls ${item.documentTTLs.value}`);
      if (item.migrations !== null) parts.push(`migrations [${item.migrations.items.map((m) => slice(src, m.span)).join('; ')}]`);
      return parts.join(' | ');
    }
    case 'role': {
      const parts = [`role ${item.name.str}`];
      for (const p of item.privileges) parts.push(`privileges ${p.resource.str} ${p.actions.map((a) => a.action + (a.predicate === null ? '' : ` ${slice(src, a.predicate.span)}`)).join(', ')}`);
      for (const m of item.membership) parts.push(`membership ${m.name.str}${m.predicate === null ? '' : ` ${slice(src, m.predicate.span)}`}`);
      return parts.join(' | ');
    }
    case 'access provider': {
      const parts = [`access provider ${item.name.str}`, `issuer ${item.issuer.value}`, `jwks_uri ${item.jwksUri.value}`];
      for (const r of item.roles) parts.push(`role ${r.name.str}${r.predicate === null ? '' : ` ${slice(src, r.predicate.span)}`}`);
      return parts.join(' | ');
    }
    case 'function': {
      const anns = [item.alias, item.role].filter((a) => a !== null).map((a) => `@${a!.keyword.str}(${a!.value.str}) `).join('');
      const args = item.sig.args.map((a) => `${a.variadic ? '...' : ''}${a.name.str}${a.ty === null ? '' : `: ${ty(a.ty)}`}`).join(', ');
      return `${anns}function ${item.name.str}(${args})${item.sig.ret === null ? '' : `: ${ty(item.sig.ret)}`} ${slice(src, item.body.span)}`;
    }
  }
}

function parseOk(src: string): string[] {
  // The raw form never fails where the items parse.
  const raw = parseFslNodes(src);
  assert.ok(raw.ok, raw.ok ? '' : renderSummary(raw.errors));
  const r = parseSchemaItems(src);
  assert.ok(r.ok, r.ok ? '' : renderSummary(r.errors));
  return r.value.map((i) => summary(i, src));
}

function parseErr(src: string, expected: string): void {
  const raw = parseFslNodes(src);
  assert.ok(raw.ok, raw.ok ? '' : renderSummary(raw.errors));
  const r = parseSchemaItems(src);
  assert.ok(!r.ok, `${JSON.stringify(src)} should not convert`);
  assert.equal(r.errors.map((e) => renderSummary([e])).join('\n'), expected);
}

/** The core's error rendering for one line of source, with a hint (its `at` line left out when
 *  on the error's line). */
function dup(msg: string, line: number, text: string, col: number, len: number, hintLine: number, hintText: string, hintCol: number, hintLen: number, hint = 'Originally defined here'): string {
  return lines(
    `error: ${msg}`, `at *fsl*:${line}:${col}`, '  |', `${line} | ${text}`, `  | ${' '.repeat(col - 1)}${'^'.repeat(len)}`, '  |',
    `hint: ${hint}`, ...(hintLine === line ? [] : [`at *fsl*:${hintLine}:${hintCol}`]), '  |', `${hintLine} | ${hintText}`, `  | ${' '.repeat(hintCol - 1)}${'^'.repeat(hintLen)}`, '  |');
}

function one(msg: string, line: number, text: string, col: number, len: number, annotation = ''): string {
  return lines(`error: ${msg}`, `at *fsl*:${line}:${col}`, '  |', `${line} | ${text}`, `  | ${' '.repeat(col - 1)}${'^'.repeat(len)}${annotation === '' ? '' : ` ${annotation}`}`, '  |');
}

describe('fsl collections', () => {
  test('minimal, alias, history_days, ttl_days, document_ttls', () => {
    assert.deepEqual(parseOk('collection Foo {\n}\n'), ['collection Foo']);
    assert.deepEqual(parseOk('@alias(Bar)\ncollection Foo {\n}\n'), ['collection Foo | alias=Bar']);
    assert.deepEqual(parseOk('collection Foo {\n  history_days 32\n}\n'), ['collection Foo | history_days 32']);
    assert.deepEqual(parseOk('collection Foo {\n  ttl_days 33\n}\n'), ['collection Foo | ttl_days 33']);
    assert.deepEqual(parseOk('collection Foo {\n  document_ttls true\n}\n'), ['collection Foo | document_ttls true']);
    assert.deepEqual(parseOk('collection Foo {\n  document_ttls false\n}\n'), ['collection Foo | document_ttls false']);
  });

  test('an index: terms, values, mva, desc (asc is the default)', () => {
    assert.deepEqual(parseOk('collection Foo {\n  index byBar {\n    terms [.bar, mva(.baz)]\n    values [desc(mva(.buz))]\n  }\n}\n'),
      ['collection Foo | index byBar terms [.bar, mva(.baz)] values [desc(mva(.buz))]']);
    assert.deepEqual(parseOk('collection Foo {\n  index byBar {\n    terms [.bar, mva(.baz)]\n    values [asc(mva(.buz))]\n  }\n}\n'),
      ['collection Foo | index byBar terms [.bar, mva(.baz)] values [mva(.buz)]']);
    // mva outside the order is the same
    assert.deepEqual(parseOk('collection Foo {\n  index i {\n    values [mva(desc(.a)), .b, asc(.c), mva(.d)]\n  }\n}'),
      ['collection Foo | index i terms [] values [desc(mva(.a)), .b, .c, mva(.d)]']);
  });

  test('index paths: what may wrap them', () => {
    parseErr('collection Foo {\n  index i {\n    terms [foo(.a)]\n  }\n}', one("Expected 'mva'", 3, '    terms [foo(.a)]', 12, 3));
    parseErr('collection Foo {\n  index i {\n    values [foo(.a)]\n  }\n}', one("Expected 'asc', 'desc', or 'mva'", 3, '    values [foo(.a)]', 13, 3));
    parseErr('collection Foo {\n  index i {\n    values [desc(asc(.a))]\n  }\n}', one("Expected 'asc', 'desc', or 'mva'", 3, '    values [desc(asc(.a))]', 13, 4));
    parseErr('collection Foo {\n  index i {\n    terms [.a.b()]\n  }\n}', one('Invalid field path', 3, '    terms [.a.b()]', 14, 4));
  });

  test('a unique constraint', () => {
    assert.deepEqual(parseOk('collection Foo {\n  unique [.bar, mva(.baz)]\n}\n'), ['collection Foo | unique [.bar, mva(.baz)]']);
  });

  test('fields: types, defaults, computed fields, a wildcard', () => {
    assert.deepEqual(parseOk('collection Foo {\n  compute bar: String = (doc) => doc.baaz + "quux"\n}\n'), ['collection Foo | compute bar: String = (doc) => doc.baaz + "quux"']);
    assert.deepEqual(parseOk('collection Foo {\n  bar: Int = 3\n}\n'), ['collection Foo | bar: Int = 3']);
    assert.deepEqual(parseOk('collection Foo {\n  foo: Int\n  bar: Int = 2 + 3\n  baz: Int = Time.now().month + 3\n  multiline: Int = {\n    let a = 2\n    let b = 3\n    a + b\n  }\n}\n'),
      ['collection Foo | foo: Int | bar: Int = 2 + 3 | baz: Int = Time.now().month + 3 | multiline: Int = {\n    let a = 2\n    let b = 3\n    a + b\n  }']);
    assert.deepEqual(parseOk('collection Foo {short:Int=3}\n'), ['collection Foo | short: Int = 3']);
    // keywords of FSL name fields too
    assert.deepEqual(parseOk('collection Foo {\n  privileges: Int\n}\n'), ['collection Foo | privileges: Int']);
    assert.deepEqual(parseOk('collection Foo {\n  function: Int\n}\n'), ['collection Foo | function: Int']);
    assert.deepEqual(parseOk('collection Foo {\n  bar: (Int, String)\n  baz: (\n    Int,\n    String\n  )\n  opt: Int?\n  many: Int? | String\n}\n'),
      ['collection Foo | bar: [Int, String] | baz: [Int, String] | opt: Int? | many: Int? | String']);
    parseOk('collection Foo { bar : Int = 2 + 3 }');
    assert.deepEqual(parseOk('collection Foo {\n  *: Any\n}\n'), ['collection Foo | *: Any']);
  });

  test('nested defaults: allowed in object types, not under a default, a nullable or a union', () => {
    assert.deepEqual(parseOk('collection Foo {\n  address: { street: String = "", zip: Int? }\n}'), ['collection Foo | address: { street: String = "", zip: Int? }']);
    parseErr('collection Foo {\n  a: { b: Int = 0 } = {b: 1}\n}', dup('Default values are not allowed here', 2, '  a: { b: Int = 0 } = {b: 1}', 17, 1, 2, '  a: { b: Int = 0 } = {b: 1}', 23, 6, 'Parent has a conflicting default value'));
    parseErr('collection Foo {\n  a: { b: Int = 0 }?\n}', dup('Default values are not allowed here', 2, '  a: { b: Int = 0 }?', 17, 1, 2, '  a: { b: Int = 0 }?', 20, 1, 'Parent is nullable'));
  });

  test('nested defaults, from the core\'s SchemaTypeValidatorSpec (main.fsl)', () => {
    const err = (src: string, expected: string) => {
      const r = parseSchemaItems(src, 'main.fsl');
      assert.ok(!r.ok);
      assert.equal(renderSummary(r.errors), expected);
    };
    const head = lines('error: Default values are not allowed here', 'at main.fsl:3:14', '  |', '3 |     b: Int = 3', '  |              ^', '  |');
    err('collection Foo {\n  a: {\n    b: Int = 3\n    c: String\n  } = { b: 4, c: "hi" }\n}', lines(head,
      'hint: Parent has a conflicting default value', 'at main.fsl:5:7', '  |', '5 |   } = { b: 4, c: "hi" }', '  |       ^^^^^^^^^^^^^^^^^', '  |'));
    err('collection Foo {\n  a: {\n    b: Int = 3\n    c: String\n  }?\n}', lines(head,
      'hint: Parent is nullable', 'at main.fsl:5:4', '  |', '5 |   }?', '  |    ^', '  |'));
    for (const [op, why] of [['|', 'Parent is a union'], ['&', 'Parent is not an object']]) {
      err(`collection Foo {\n  a: {\n    b: Int = 3\n    c: String\n  } ${op} {\n    b: String\n  }\n}`, lines(head,
        `hint: ${why}`, 'at main.fsl:2:6', '  |', '2 |     a: {', '  |  ______^', '3 | |     b: Int = 3', '4 | |     c: String', `5 | |   } ${op} {`,
        '6 | |     b: String', '7 | |   }', '  | |___^', '  |'));
    }
  });

  test('field errors', () => {
    parseErr('collection Foo {\n  compute foo\n}', one('Computed fields require a value', 2, '  compute foo', 3, 8));
    parseErr('collection Foo {\n  compute foo = 3\n}', one('Expected lambda', 2, '  compute foo = 3', 17, 1));
    parseErr('collection Foo {\n  id: Int\n}', one('Invalid reserved name `id`', 2, '  id: Int', 3, 7));
    parseErr('collection Foo {\n  a: Int\n  a: String\n}', dup('Duplicate field `a`', 3, '  a: String', 3, 1, 2, '  a: Int', 3, 1));
  });

  test('check constraints', () => {
    assert.deepEqual(parseOk('collection Foo {\n  check a ((doc) => doc.ok)\n  check b (() => 1)\n  check c ((x, y) => {\n    let z = x + y\n    z\n  })\n}\n'),
      ['collection Foo | check a (doc) => doc.ok | check b () => 1 | check c (x, y) => {\n    let z = x + y\n    z\n  }']);
    parseErr('collection Foo {\n  check ((doc) => doc.ok)\n}\n', one('Missing required name', 2, '  check ((doc) => doc.ok)', 3, 5));
    parseErr('collection Foo {\n  check a ((doc) => doc.ok)\n  check a ((doc) => !doc.ok)\n}\n',
      dup('Duplicate check constraint name `a`', 3, '  check a ((doc) => !doc.ok)', 9, 1, 2, '  check a ((doc) => doc.ok)', 9, 1));
    parseErr('collection Foo {\n  check a true\n}\n', one('Expected lambda check predicate', 2, '  check a true', 11, 4));
    parseErr('collection Foo {\n  check a (doc) => doc.ok\n}\n', one('Expected lambda check predicate', 2, '  check a (doc) => doc.ok', 11, 15, 'Check constraints require parenthesis around the lambda'));
  });

  test('special names', () => {
    assert.deepEqual(parseOk('collection "0Foo$" {\n  index byBar {\n    terms [.[0], .["0baz"]]\n  }\n}\n'), ['collection 0Foo$ | index byBar terms [.[0], .["0baz"]] values []']);
    assert.deepEqual(parseOk("collection '0Foo$' {\n  index byBar {\n    terms [.[0], .['0baz']]\n  }\n}\n"), ['collection 0Foo$ | index byBar terms [.[0], .["0baz"]] values []']);
    assert.deepEqual(parseOk('collection Foo {\n  index byBar {\n    terms [.a["a b"][0], .["a b"]]\n  }\n}\n'), ['collection Foo | index byBar terms [.a.["a b"].[0], .["a b"]] values []']);
    parseErr("collection '0Foo$' {\n  index \"0byBar.$\" {}\n}\n", one('Invalid identifier `0byBar.$`', 2, '  index "0byBar.$" {}', 9, 10));
  });

  test('duplicates', () => {
    parseErr('collection Foo {}\ncollection Foo {}\n', dup('Duplicate collection or function `Foo`', 2, 'collection Foo {}', 12, 3, 1, 'collection Foo {}', 12, 3));
    parseErr('collection Foo {\n  index byBar { terms [.bar] }\n  index byBar { terms [.bar] }\n}\n',
      dup('Duplicate index name `byBar`', 3, '  index byBar { terms [.bar] }', 9, 5, 2, '  index byBar { terms [.bar] }', 9, 5));
    parseErr('collection Foo {\n  history_days 42\n  history_days 24\n}\n', dup('Duplicate history days', 3, '  history_days 24', 3, 15, 2, '  history_days 42', 3, 15));
    parseErr('collection Foo {\n  ttl_days 42\n  ttl_days 24\n}\n', dup('Duplicate ttl days', 3, '  ttl_days 24', 3, 11, 2, '  ttl_days 42', 3, 11));
    parseErr('collection Foo {\n  document_ttls false\n  document_ttls true\n}\n', dup('Duplicate document TTLs', 3, '  document_ttls true', 3, 18, 2, '  document_ttls false', 3, 19));
    parseErr('@alias(Bar)\n@alias(Bar)\ncollection Foo {}\n', dup('Duplicate annotation `alias`', 2, '@alias(Bar)', 1, 11, 1, '@alias(Bar)', 1, 11));
  });

  test('duplicate unique constraints: the same fields in any order and spelling', () => {
    const hint = 'This unique constraint covers the same fields.';
    parseErr('collection Foo {\n  unique [.name]\n  unique [.name]\n}\n', dup('Duplicate unique constraint.', 3, '  unique [.name]', 10, 7, 2, '  unique [.name]', 10, 7, hint));
    parseErr('collection Foo {\n  unique [.name]\n  unique [.["name"]]\n}\n', dup('Duplicate unique constraint.', 3, '  unique [.["name"]]', 10, 11, 2, '  unique [.name]', 10, 7, hint));
    assert.deepEqual(parseOk('collection Foo {\n  unique [.name]\n  unique [mva(.name)]\n}\n'), ['collection Foo | unique [.name] | unique [mva(.name)]']);
    parseErr('collection Foo {\n  unique [.foo, .bar]\n  unique [.bar, .foo]\n}\n', dup('Duplicate unique constraint.', 3, '  unique [.bar, .foo]', 10, 12, 2, '  unique [.foo, .bar]', 10, 12, hint));
    parseErr('collection Foo {\n  unique []\n}', one('Expected non-empty terms for a unique constraint', 2, '  unique []', 10, 2));
  });

  test('annotations a collection may not have', () => {
    parseErr('@role(Bar)\ncollection Foo {}\n', one('Annotation not supported here', 1, '@role(Bar)', 1, 10));
  });

  test('complex definition', () => {
    assert.deepEqual(parseOk('@alias(Bar)\ncollection Foo {\n  index byBar {\n    terms [.bar, mva(.baz)]\n    values [desc(mva(.buz))]\n  }\n  unique [.bar, mva(.baz)]\n  history_days 32\n  ttl_days 33\n  document_ttls true\n}\n'),
      ['collection Foo | alias=Bar | index byBar terms [.bar, mva(.baz)] values [desc(mva(.buz))] | unique [.bar, mva(.baz)] | history_days 32 | ttl_days 33 | document_ttls true']);
  });

  test('migrations', () => {
    assert.deepEqual(parseOk('collection Foo {\n  migrations {\n    backfill .c = 3\n    drop .bar\n    move .a -> .b\n    split .a -> .b, .c, .d, .e, .f, .g, .h\n    add .a\n    move_conflicts .conflicts\n    move_wildcard .rest\n    add_wildcard\n  }\n}\n'),
      ['collection Foo | migrations [backfill .c = 3; drop .bar; move .a -> .b; split .a -> .b, .c, .d, .e, .f, .g, .h; add .a; move_conflicts .conflicts; move_wildcard .rest; add_wildcard]']);
    parseErr('collection Foo {\n  migrations {\n    backfill .c = 3\n  }\n  migrations {\n    drop .bar\n  }\n}\n', lines(
      'error: Duplicate migration block', 'at *fsl*:5:3', '  |', '5 |     migrations {', '  |  ___^', '6 | |     drop .bar', '7 | |   }', '  | |___^', '  |',
      'hint: Originally defined here', 'at *fsl*:2:3', '  |', '2 |     migrations {', '  |  ___^', '3 | |     backfill .c = 3', '4 | |   }', '  | |___^', '  |'));
    parseErr('collection Foo {\n  migrations "i am named" {\n    backfill .c = 3\n  }\n}\n', one('Name is not allowed here', 2, '  migrations "i am named" {', 14, 12));
    parseErr('collection Foo {\n  migrations {\n  }\n}\n', lines('error: Empty migration blocks are not allowed', 'at *fsl*:2:3', '  |', '2 |     migrations {', '  |  ___^', '3 | |   }', '  | |___^', '  |'));
    parseErr('collection Foo {\n  migrations {\n    split .a -> .b\n  }\n}', one('Expected at least two fields to split into', 3, '    split .a -> .b', 5, 14));
    parseErr('collection Foo {\n  migrations {\n    drop .a[0]\n  }\n}', one('Cannot index into an item in a migration path', 3, '    drop .a[0]', 13, 1));
    parseErr('collection Foo {\n  migrations {\n    history_days 3\n  }\n}', one('Only migrations are allowed in migration blocks', 3, '    history_days 3', 18, 1));
  });
});

describe('fsl roles', () => {
  test('minimal, privileges (one line too), membership, predicates', () => {
    assert.deepEqual(parseOk('role Foo {\n}\n'), ['role Foo']);
    assert.deepEqual(parseOk('role Foo {\n  privileges Bar {\n    create\n    create_with_id\n    delete\n    read\n    write\n    history_read\n    history_write\n    unrestricted_read\n    call\n  }\n}\n'),
      ['role Foo | privileges Bar create, create_with_id, delete, read, write, history_read, history_write, unrestricted_read, call']);
    assert.deepEqual(parseOk('role Foo {\n  privileges Bar {\n    create; delete; read; write; history_read;\n    history_write; unrestricted_read; call\n  }\n}\n'),
      ['role Foo | privileges Bar create, delete, read, write, history_read, history_write, unrestricted_read, call']);
    assert.deepEqual(parseOk('role Foo {\n  privileges Bar {\n    create {\n      predicate ((x) => x.bar)\n    }\n  }\n}\n'), ['role Foo | privileges Bar create (x) => x.bar']);
    assert.deepEqual(parseOk('role Foo {\n  membership Bar\n}\n'), ['role Foo | membership Bar']);
    assert.deepEqual(parseOk('role Foo {\n  membership Bar {\n    predicate ((x) => x.bar)\n  }\n}\n'), ['role Foo | membership Bar (x) => x.bar']);
    assert.deepEqual(parseOk('role Foo {\n  privileges Bar {\n    create {\n      predicate ((x) => {\n        x.isVip\n      })\n    }\n    read\n  }\n  privileges Baz {\n    read\n    write\n  }\n  membership Fiz\n  membership Buz {\n    predicate ((x) => {\n      x.canLogin\n    })\n  }\n}\n'),
      ['role Foo | privileges Bar create (x) => {\n        x.isVip\n      }, read | privileges Baz read, write | membership Fiz | membership Buz (x) => {\n      x.canLogin\n    }']);
  });

  test('errors', () => {
    parseErr('role Foo {\n  privileges Bar {\n    invalid\n  }\n}\n', one('Invalid action `invalid`', 3, '    invalid', 5, 7));
    parseErr('role Foo {\n  privileges Bar {\n    create {\n      predicate 42\n    }\n  }\n}\n', one('Expected lambda predicate', 4, '      predicate 42', 17, 2));
    parseErr('role Foo {\n  membership Bar {\n    predicate 42\n  }\n}\n', one('Expected lambda predicate', 3, '    predicate 42', 15, 2));
    parseErr('role Foo {}\nrole Foo {}\n', dup('Duplicate role `Foo`', 2, 'role Foo {}', 6, 3, 1, 'role Foo {}', 6, 3));
    parseErr('role Bar {\n  privileges Foo { create }\n  privileges Foo { create }\n}\n', dup('Duplicate privileges `Foo`', 3, '  privileges Foo { create }', 14, 3, 2, '  privileges Foo { create }', 14, 3));
    parseErr('role Foo {\n  privileges A {\n    read\n    read\n  }\n}\n', dup('Duplicate action `read`', 4, '    read', 5, 4, 3, '    read', 5, 4));
    parseErr('role Foo {\n  membership A\n  membership A\n}\n', dup('Duplicate membership `A`', 3, '  membership A', 14, 1, 2, '  membership A', 14, 1));
    parseErr('@alias(Bar) role Foo {}\n', one('Annotations are not allowed here', 1, '@alias(Bar) role Foo {}', 1, 11));
  });
});

describe('fsl access providers', () => {
  test('issuer, jwks_uri, roles with predicates', () => {
    assert.deepEqual(parseOk('access provider Foo {\n  issuer "bar"\n  jwks_uri "baz"\n}\n'), ['access provider Foo | issuer bar | jwks_uri baz']);
    assert.deepEqual(parseOk('access provider Foo {\n  issuer "bar";  jwks_uri "baz"\n}\n'), ['access provider Foo | issuer bar | jwks_uri baz']);
    assert.deepEqual(parseOk('access provider Foo {\n  issuer "bar"\n  jwks_uri "baz"\n  role Fizz\n}\n'), ['access provider Foo | issuer bar | jwks_uri baz | role Fizz']);
    assert.deepEqual(parseOk('access provider Foo {\n  issuer "bar"\n  jwks_uri "baz"\n  role Fizz {\n    predicate ((x) => x.buzz)\n  }\n  role AnotherRole\n}\n'),
      ['access provider Foo | issuer bar | jwks_uri baz | role Fizz (x) => x.buzz | role AnotherRole']);
  });

  test('errors', () => {
    parseErr('access provider Foo {\n  issuer "bar"\n  jwks_uri "baz"\n  role Fizz {\n    predicate 42\n  }\n}\n', one('Expected lambda predicate', 5, '    predicate 42', 15, 2));
    parseErr('access provider Foo {\n  issuer "bar"\n  jwks_uri "baz"\n}\naccess provider Foo {\n  issuer "bar"\n  jwks_uri "baz"\n}\n',
      dup('Duplicate access provider `Foo`', 5, 'access provider Foo {', 17, 3, 1, 'access provider Foo {', 17, 3));
    parseErr('access provider Foo {\n  issuer "bar"\n  jwks_uri "baz"\n  role Bar\n  role Bar\n}\n', dup('Duplicate role `Bar`', 5, '  role Bar', 8, 3, 4, '  role Bar', 8, 3));
    parseErr('@alias(Bar) access provider Foo {\n  issuer "bar"\n  jwks_uri "baz"\n}\n', one('Annotations are not allowed here', 1, '@alias(Bar) access provider Foo {', 1, 11));
    parseErr('access provider Foo {\n  issuer "a#{1}"\n  jwks_uri 3\n}', lines(
      one('Cannot interpolate values in a string literal', 2, '  issuer "a#{1}"', 14, 1), one('Expected string literal', 3, '  jwks_uri 3', 12, 1)));
    parseErr('access provider Foo { issuer "a" }', one('Missing jwks uri', 1, 'access provider Foo { issuer "a" }', 21, 14));
  });
});

describe('fsl functions', () => {
  test('arguments, types, annotations', () => {
    assert.deepEqual(parseOk('function foo() {\n  42\n}\n'), ['function foo() {\n  42\n}']);
    assert.deepEqual(parseOk('function foo(a) {\n  42\n}\n'), ['function foo(a) {\n  42\n}']);
    assert.deepEqual(parseOk('function foo(a, b, ...c) {\n  42\n}\n'), ['function foo(a, b, ...c) {\n  42\n}']);
    assert.deepEqual(parseOk('function foo(a: Int, b: String, ...c: Char): Int {\n  42\n}\n'), ['function foo(a: Int, b: String, ...c: Char): Int {\n  42\n}']);
    assert.deepEqual(parseOk('@alias(bar)\nfunction foo(a: Int): Int {\n  42\n}\n'), ['@alias(bar) function foo(a: Int): Int {\n  42\n}']);
    assert.deepEqual(parseOk('@role(admin)\nfunction foo(a: Int): Int {\n  42\n}\n'), ['@role(admin) function foo(a: Int): Int {\n  42\n}']);
    assert.deepEqual(parseOk('@alias(bar) @role(admin)\nfunction foo(a: Int): Int { 42 }\n'), ['@alias(bar) @role(admin) function foo(a: Int): Int { 42 }']);
    assert.deepEqual(parseOk('@alias(bar)\n@role(admin)\nfunction foo(a: Int, ...b: String): Int {\n  if (a < 0) "invalid" else b\n}\n'),
      ['@alias(bar) @role(admin) function foo(a: Int, ...b: String): Int {\n  if (a < 0) "invalid" else b\n}']);
  });

  test('a function item spans from its doc comment or first annotation to its body', () => {
    const src = '// doc\n@role(admin)\nfunction foo() { 1 };\n';
    const r = parseSchemaItems(src);
    assert.ok(r.ok);
    assert.equal(src.slice(r.value[0].span.start, r.value[0].span.end), '// doc\n@role(admin)\nfunction foo() { 1 }');
  });

  test('errors', () => {
    parseErr('@alias(Bar)\n@alias(Baz)\nfunction foo(a) { 42 }\n', dup('Duplicate annotation `alias`', 2, '@alias(Baz)', 1, 11, 1, '@alias(Bar)', 1, 11));
    parseErr('function f(x): Int { x }', lines(
      'error: Return type is not allowed when arguments do not have a type', 'at *fsl*:1:16', '  |', '1 | function f(x): Int { x }', '  |                ^^^', '  |',
      'hint: Expecting no types due to this argument not having a type', '  |', '1 | function f(x): Int { x }', '  |            ^', '  |'));
    parseErr('function f(x: Int) { x }', lines(
      'error: Return type is required when arguments have a type', 'at *fsl*:1:18', '  |', '1 | function f(x: Int) { x }', '  |                  ^', '  |',
      'hint: Expecting types due to this type annotation', '  |', '1 | function f(x: Int) { x }', '  |               ^^^', '  |'));
    parseErr('function f(x: Int, ...y): Int { x }', lines(
      'error: All or no arguments must have a type', 'at *fsl*:1:23', '  |', '1 | function f(x: Int, ...y): Int { x }', '  |                       ^', '  |',
      'hint: Expecting types due to this type annotation', '  |', '1 | function f(x: Int, ...y): Int { x }', '  |               ^^^', '  |'));
    parseErr('function foo() {42}\nfunction foo() {42}\n', dup('Duplicate collection or function `foo`', 2, 'function foo() {42}', 10, 3, 1, 'function foo() {42}', 10, 3));
  });

  test('names shared with collections and aliases', () => {
    parseErr('@alias(fun1)\ncollection coll1 {}\nfunction fun1() { 0 }\n', dup('Duplicate collection or function `fun1`', 3, 'function fun1() { 0 }', 10, 4, 1, '@alias(fun1)', 8, 4));
    parseErr('collection coll1 {}\n@alias(coll1)\nfunction fun1() { 0 }\n', dup('Duplicate collection or function `coll1`', 2, '@alias(coll1)', 8, 5, 1, 'collection coll1 {}', 12, 5));
    parseErr('collection foo {}\nfunction foo() { 0 }\n', dup('Duplicate collection or function `foo`', 2, 'function foo() { 0 }', 10, 3, 1, 'collection foo {}', 12, 3));
    // With an alias the function may share the collection's name: the collection wins name resolution.
    assert.deepEqual(parseOk('collection foo {\n}\n\n@alias(bar)\nfunction foo() {\n  0\n}\n'), ['collection foo', '@alias(bar) function foo() {\n  0\n}']);
    parseErr('@alias(bar)\ncollection foo {}\nfunction foo() { 0 }\n', dup('Duplicate collection or function `foo`', 3, 'function foo() { 0 }', 10, 3, 2, 'collection foo {}', 12, 3));
    parseErr('@alias(bar)\nfunction foo() { 0 }\n@alias(baz)\nfunction foo() { 0 }\n', dup('Duplicate collection or function `foo`', 4, 'function foo() { 0 }', 10, 3, 2, 'function foo() { 0 }', 10, 3));
  });
});

describe('fsl schemas of several files', () => {
  test('items of all files, each naming its file; a name in two files is a duplicate', () => {
    const r = parseSchemaFiles([{ name: 'a.fsl', text: 'collection Foo {}\n' }, { name: 'b.fsl', text: 'role R {}\n' }]);
    assert.ok(r.ok);
    assert.deepEqual(r.value.map((i) => [i.kind, i.name.str, i.span.src.name]), [['collection', 'Foo', 'a.fsl'], ['role', 'R', 'b.fsl']]);
    const d = parseSchemaFiles([
      { name: 'a.fsl', text: 'collection Foo {}\nrole R {}\n' },
      { name: 'b.fsl', text: '\nfunction Foo() { 1 }\nrole R {}\nrole S {}' },
      { name: 'c.fsl', text: 'role S {}' },
    ]);
    assert.ok(!d.ok);
    assert.deepEqual(renderSchemaErrors(d.errors), [
      'Duplicate collection or function `Foo` in b.fsl (originally seen in a.fsl)',
      'Duplicate role `R` in b.fsl (originally seen in a.fsl)',
      'Duplicate role `S` in c.fsl (originally seen in b.fsl)',
    ]);
  });

  test('the errors of every file that does not parse, with its name', () => {
    const r = parseSchemaFiles([{ name: 'bad1.fsl', text: 'role R { foo }' }, { name: 'ok.fsl', text: 'role R {}' }, { name: 'bad2.fsl', text: 'access foo' }]);
    assert.ok(!r.ok);
    assert.deepEqual(renderSchemaErrors(r.errors), [
      lines('error: Invalid member `foo`', 'at bad1.fsl:1:10', '  |', '1 | role R { foo }', '  |          ^^^', '  |'),
      lines('error: Expected provider', 'at bad2.fsl:1:8', '  |', '1 | access foo', '  |        ^', '  |'),
    ]);
  });
});
