// src/fql10/fsl/display.ts and definition.ts: schema items written back as FSL (the round trips of
// the core's FSLParserSpec.scala, exact) and turned into the documents that define them
// (SchemaToStruct.scala), the form `Collection.create` takes.

import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { renderSummary } from '../../../src/fql10/diagnostic';
import { displayItem } from '../../../src/fql10/fsl/display';
import { itemDefinition } from '../../../src/fql10/fsl/definition';
import { accessProviderFromDefinition, collectionFromDefinition, functionFromDefinition, roleFromDefinition } from '../../../src/fql10/fsl/fromDefinition';
import { parseSchemaItems } from '../../../src/fql10/fsl';
import { parseTypeExpr } from '../../../src/fql10/parser';
import type { SchemaItem } from '../../../src/fql10/fsl/ast';
import type { Obj, Value } from '../../../src/values/types';
import { validateDefinition } from '../../../src/model/schema10/definition';

function items(src: string): SchemaItem[] {
  const r = parseSchemaItems(src);
  assert.ok(r.ok, r.ok ? '' : renderSummary(r.errors));
  return r.value;
}

function parseAndRender(src: string, expected: string): void {
  assert.equal(items(src).map(displayItem).join('\n'), expected);
}

const roundtrip = (src: string) => parseAndRender(src, src);

/** A definition as JSON-like data (Longs as `123n`). */
function json(v: Value): unknown {
  if (v instanceof Map) return Object.fromEntries([...v].map(([k, x]) => [k, json(x)]));
  if (Array.isArray(v)) return v.map(json);
  if (typeof v === 'bigint') return `${v}n`;
  return v;
}

const defs = (src: string) => items(src).map((i) => json(itemDefinition(i)));

describe('fsl display: round trips', () => {
  test('collections', () => {
    roundtrip('collection Foo {\n}\n');
    roundtrip('@alias(Bar)\ncollection Foo {\n}\n');
    roundtrip('collection Foo {\n  history_days 32\n}\n');
    roundtrip('collection Foo {\n  ttl_days 33\n}\n');
    roundtrip('collection Foo {\n  document_ttls true\n}\n');
    roundtrip('collection Foo {\n  document_ttls false\n}\n');
    roundtrip('collection Foo {\n  index byBar {\n    terms [.bar, mva(.baz)]\n    values [desc(mva(.buz))]\n  }\n}\n');
    parseAndRender('collection Foo {\n  index byBar {\n    terms [.bar, mva(.baz)]\n    values [asc(mva(.buz))]\n  }\n}\n',
      'collection Foo {\n  index byBar {\n    terms [.bar, mva(.baz)]\n    values [mva(.buz)]\n  }\n}\n');
    roundtrip('collection Foo {\n  unique [.bar, mva(.baz)]\n}\n');
    roundtrip('collection Foo {\n  compute bar: String = (doc) => doc.baaz + "quux"\n}\n');
    roundtrip('collection Foo {\n  bar: Int = 3\n}\n');
    roundtrip('collection Foo {\n  foo: Int\n  bar: Int = 2 + 3\n  baz: Int = Time.now().month + 3\n  multiline: Int = {\n    let a = 2\n    let b = 3\n    a + b\n  }\n}\n');
    parseAndRender('collection Foo {short:Int=3}\n', 'collection Foo {\n  short: Int = 3\n}\n');
    roundtrip('collection Foo {\n  privileges: Int\n}\n');
    roundtrip('collection Foo {\n  function: Int\n}\n');
    parseAndRender('collection Foo {\n  bar: (Int, String)\n  baz: (\n    Int,\n    String\n  )\n  opt: Int?\n  many: Int? | String\n}\n',
      'collection Foo {\n  bar: [Int, String]\n  baz: [Int, String]\n  opt: Int?\n  many: Int? | String\n}\n');
    roundtrip('collection Foo {\n  *: Any\n}\n');
    roundtrip('collection Foo {\n  check a ((doc) => doc.ok)\n  check b (() => 1)\n  check c ((x, y) => {\n    let z = x + y\n    z\n  })\n}\n');
    roundtrip('collection "0Foo$" {\n  index byBar {\n    terms [.[0], .["0baz"]]\n  }\n}\n');
    parseAndRender("collection '0Foo$' {\n  index byBar {\n    terms [.[0], .['0baz']]\n  }\n}\n", 'collection "0Foo$" {\n  index byBar {\n    terms [.[0], .["0baz"]]\n  }\n}\n');
    roundtrip('collection Foo {\n  index byBar {\n    terms [.a["a b"][0], .["a b"]]\n  }\n}\n');
    roundtrip('collection Foo {\n  unique [.name]\n  unique [mva(.name)]\n}\n');
    roundtrip('@alias(Bar)\ncollection Foo {\n  index byBar {\n    terms [.bar, mva(.baz)]\n    values [desc(mva(.buz))]\n  }\n  unique [.bar, mva(.baz)]\n  history_days 32\n  ttl_days 33\n  document_ttls true\n}\n');
    roundtrip('collection Foo {\n  migrations {\n    backfill .c = 3\n    drop .bar\n    move .a -> .b\n    split .a -> .b, .c, .d, .e, .f, .g, .h\n    add .a\n  }\n}\n');
  });

  test('roles', () => {
    roundtrip('role Foo {\n}\n');
    roundtrip('role Foo {\n  privileges Bar {\n    create\n    create_with_id\n    delete\n    read\n    write\n    history_read\n    history_write\n    unrestricted_read\n    call\n  }\n}\n');
    parseAndRender('role Foo {\n  privileges Bar {\n    create; delete; read; write; history_read;\n    history_write; unrestricted_read; call\n  }\n}\n',
      'role Foo {\n  privileges Bar {\n    create\n    delete\n    read\n    write\n    history_read\n    history_write\n    unrestricted_read\n    call\n  }\n}\n');
    roundtrip('role Foo {\n  privileges Bar {\n    create {\n      predicate ((x) => x.bar)\n    }\n  }\n}\n');
    roundtrip('role Foo {\n  membership Bar\n}\n');
    roundtrip('role Foo {\n  membership Bar {\n    predicate ((x) => x.bar)\n  }\n}\n');
    roundtrip('role Foo {\n  privileges Bar {\n    create {\n      predicate ((x) => {\n        x.isVip\n      })\n    }\n    read\n  }\n  privileges Baz {\n    read\n    write\n  }\n  membership Fiz\n  membership Buz {\n    predicate ((x) => {\n      x.canLogin\n    })\n  }\n}\n');
  });

  test('access providers', () => {
    roundtrip('access provider Foo {\n  issuer "bar"\n  jwks_uri "baz"\n}\n');
    parseAndRender('access provider Foo {\n  issuer "bar";  jwks_uri "baz"\n}\n', 'access provider Foo {\n  issuer "bar"\n  jwks_uri "baz"\n}\n');
    roundtrip('access provider Foo {\n  issuer "bar"\n  jwks_uri "baz"\n  role Fizz\n}\n');
    roundtrip('access provider Foo {\n  issuer "bar"\n  jwks_uri "baz"\n  role Fizz {\n    predicate ((x) => x.buzz)\n  }\n}\n');
    roundtrip('access provider Foo {\n  issuer "bar"\n  jwks_uri "baz"\n  role Fizz {\n    predicate ((x) => {\n      x.buzz\n    })\n  }\n  role AnotherRole\n}\n');
  });

  test('functions', () => {
    roundtrip('function foo() {\n  42\n}\n');
    roundtrip('function foo(a) {\n  42\n}\n');
    roundtrip('function foo(a, b) {\n  42\n}\n');
    roundtrip('function foo(a, b, ...c) {\n  42\n}\n');
    roundtrip('function foo(a: Int): Int {\n  42\n}\n');
    roundtrip('function foo(a: Int, b: String): Int {\n  42\n}\n');
    roundtrip('function foo(a: Int, b: String, ...c: Char): Int {\n  42\n}\n');
    roundtrip('@alias(bar)\nfunction foo(a: Int): Int {\n  42\n}\n');
    roundtrip('@role(admin)\nfunction foo(a: Int): Int {\n  42\n}\n');
    parseAndRender('@alias(bar) @role(admin)\nfunction foo(a: Int): Int { 42 }\n', '@alias(bar)\n@role(admin)\nfunction foo(a: Int): Int {\n  42\n}\n');
    roundtrip('@alias(bar)\n@role(admin)\nfunction foo(a: Int, ...b: String): Int {\n  if (a < 0) "invalid" else b\n}\n');
    roundtrip('collection foo {\n}\n\n@alias(bar)\nfunction foo() {\n  0\n}\n');
  });
});

describe('fsl definitions', () => {
  test('functions in UDF form: body and signature', () => {
    assert.deepEqual(defs('function foo(a, b) { 42 }\nfunction bar(a: Int, ...b: Int): Int { 42 }\n'), [
      { name: 'foo', body: '(a, b) => {\n  42\n}' },
      { name: 'bar', body: '(a, ...b) => {\n  42\n}', signature: '(a: Int, b: ...Int) => Int' },
    ]);
    assert.ok(parseTypeExpr('(a: Int, b: ...Int) => Int').ok);
  });

  test('index paths in FQL form', () => {
    assert.deepEqual(defs('collection Foo {\n  index byBar {\n    terms [mva(.baz.bar), .ts]\n    values [mva(.baz.bar), desc(.fizz), .buzz]\n  }\n}\n'), [{
      name: 'Foo', history_days: '0n',
      indexes: { byBar: {
        terms: [{ field: '.baz.bar', mva: true }, { field: '.ts', mva: false }],
        values: [{ field: '.baz.bar', order: 'asc', mva: true }, { field: '.fizz', order: 'desc', mva: false }, { field: '.buzz', order: 'asc', mva: false }],
      } },
      constraints: [],
    }]);
  });

  test('a collection with every member', () => {
    const src = [
      '@alias(Person)', 'collection People {',
      '  name: String', '  age: Int? = 0', '  address: { street: String = "", zip: String? }', '  *: Any',
      '  compute greeting: String = (doc) => "Hi #{doc.name}"', '  compute short = (.name)',
      '  index byName {', '    terms [.name]', '    values [desc(.age), mva(.tags)]', '  }',
      '  unique [.name, mva(.tags)]', '  check adult ((doc) => doc.age >= 18)',
      '  history_days 3', '  ttl_days 5', '  document_ttls true',
      '  migrations {', '    add .age', '    backfill .age = 0', '    split .a -> .b, .c', '    move_conflicts .conflicts', '    add_wildcard', '  }',
      '}',
    ].join('\n');
    assert.deepEqual(defs(src), [{
      name: 'People', alias: 'Person', history_days: '3n', ttl_days: '5n', wildcard: 'Any', document_ttls: true,
      indexes: { byName: { terms: [{ field: '.name', mva: false }], values: [{ field: '.age', order: 'desc', mva: false }, { field: '.tags', order: 'asc', mva: true }] } },
      constraints: [
        { unique: [{ field: '.name', mva: false }, { field: '.tags', mva: true }] },
        { check: { name: 'adult', body: '(doc) => doc.age >= 18' } },
      ],
      computed_fields: { greeting: { body: '(doc) => "Hi #{doc.name}"', signature: 'String' }, short: { body: '(.name)' } },
      fields: {
        name: { signature: 'String' },
        age: { signature: 'Int?', default: '0' },
        address: { signature: '{ street: String = "", zip: String? }' },
      },
      migrations: [
        { add: { field: '.age' } }, { backfill: { field: '.age', value: '0' } }, { split: { field: '.a', to: ['.b', '.c'] } },
        { move_conflicts: { into: '.conflicts' } }, { add_wildcard: {} },
      ],
    }]);
  });

  test('what a pushed collection defines is what Collection.create accepts', () => {
    const [coll] = items([
      '@alias(Person)', 'collection People {', '  name: String', '  age: Int? = 0', '  tags: Array<String>', '  *: Any',
      '  compute greeting: String = (doc) => "Hi #{doc.name}"', '  index byName {', '    terms [.name]', '    values [desc(.age)]', '  }',
      '  unique [.name]', '  check adult ((doc) => doc.age >= 18)', '  history_days 3', '  ttl_days 5',
      '  migrations {', '    add .age', '    backfill .age = 0', '  }', '}',
    ].join('\n'));
    assert.deepEqual(validateDefinition(itemDefinition(coll), undefined), []);
  });

  test('roles and access providers', () => {
    assert.deepEqual(defs('role R {\n  privileges Foo {\n    read\n    write {\n      predicate ((doc) => doc.owner == Query.identity())\n    }\n  }\n  privileges Bar {}\n  membership Users\n  membership Admins {\n    predicate (.isAdmin)\n  }\n}'), [{
      name: 'R',
      privileges: [{ resource: 'Foo', actions: { read: true, write: '(doc) => doc.owner == Query.identity()' } }, { resource: 'Bar' }],
      membership: [{ resource: 'Users' }, { resource: 'Admins', predicate: '(.isAdmin)' }],
    }]);
    assert.deepEqual(defs('access provider AP {\n  issuer "https://example.com"\n  jwks_uri "https://example.com/.well-known/jwks.json"\n  role R\n  role S {\n    predicate ((jwt) => jwt!.scope.includes("s"))\n  }\n}'), [{
      name: 'AP', issuer: 'https://example.com', jwks_uri: 'https://example.com/.well-known/jwks.json',
      roles: ['R', { role: 'S', predicate: '(jwt) => jwt!.scope.includes("s")' }],
    }]);
  });
});

/** An item back from its definition, as `schema pull` would show it. */
function fromDefinition(item: SchemaItem): string {
  const def = itemDefinition(item);
  switch (item.kind) {
    case 'collection': return displayItem(collectionFromDefinition(def));
    case 'function': return displayItem(functionFromDefinition(def, { collections: new Set(), functions: new Set() }));
    case 'role': return displayItem(roleFromDefinition(def));
    case 'access provider': return displayItem(accessProviderFromDefinition(def));
  }
}

describe('fsl from definitions (pull)', () => {
  test('FSL to definitions and back reads the same', () => {
    // Fields in the order a pull shows them: defined, computed, then the wildcard.
    const sources = [
      ['@alias(Person)', 'collection People {', '  name: String', '  age: Int? = 0', '  address: { street: String = "", zip: String? }',
        '  compute greeting: String = (doc) => "Hi #{doc.name}"', '  compute short = (.name)', '  *: Any',
        '  index byName {', '    terms [.name, mva(.tags)]', '    values [desc(.age), mva(.tags), .["a b"][0]]', '  }',
        '  unique [.name, mva(.tags)]', '  check adult ((doc) => doc.age >= 18)', '  history_days 3', '  ttl_days 5', '  document_ttls false',
        '  migrations {', '    add .age', '    backfill .age = 0', '    split .a -> .b, .c', '    move .b -> .d', '    drop .c',
        '    move_conflicts .conflicts', '    move_wildcard .rest', '    add_wildcard', '  }', '}', ''].join('\n'),
      'collection Empty {\n}\n',
      '@alias(bar)\n@role(admin)\nfunction foo(a: Int, ...b: String): Int {\n  if (a < 0) "invalid" else b\n}\n',
      'function noTypes(x, y) {\n  let z = x + y\n  z\n}\n',
      'role R {\n  privileges Foo {\n    read\n    write {\n      predicate ((doc) => doc.owner == Query.identity())\n    }\n  }\n  membership Users\n  membership Admins {\n    predicate ((u) => u.admin)\n  }\n}\n',
      'access provider AP {\n  issuer "https://example.com"\n  jwks_uri "https://example.com/jwks"\n  role R\n  role S {\n    predicate ((jwt) => jwt!.scope.includes("s"))\n  }\n}\n',
    ];
    for (const src of sources) {
      const [item] = items(src);
      assert.equal(fromDefinition(item), displayItem(item));
      assert.equal(displayItem(item), src);
    }
  });

  test('what FQL-made definitions read as', () => {
    const m = (entries: [string, Value][]): Obj => new Map(entries);
    // No history_days: unbounded history. A body without a block gets one. Disabled actions are unset.
    assert.equal(displayItem(collectionFromDefinition(m([['name', 'Legacy'], ['indexes', m([])], ['constraints', []]]))),
      'collection Legacy {\n  history_days 9223372036854775807\n}\n');
    assert.equal(displayItem(functionFromDefinition(m([['name', 'double'], ['body', 'x => x * 2']]), { collections: new Set(), functions: new Set() })),
      'function double(x) {\n  x * 2\n}\n');
    assert.equal(displayItem(roleFromDefinition(m([['name', 'R'], ['privileges', [m([['resource', 'Foo'], ['actions', m([['read', true], ['write', false]])]])]], ['membership', []]]))),
      'role R {\n  privileges Foo {\n    read\n  }\n}\n');
    assert.equal(displayItem(collectionFromDefinition(m([['name', 'C'], ['history_days', 0n], ['constraints', [m([['unique', ['.a', 'b']]])]]]))),
      'collection C {\n  unique [.a, .b]\n}\n');
  });

  test('a function named like a collection gets an alias', () => {
    const def = new Map<string, Value>([['name', 'Users'], ['body', '() => 1']]);
    const fn = functionFromDefinition(def, { collections: new Set(['Users', 'UsersFunction']), functions: new Set(['Users']) });
    assert.equal(displayItem(fn), '@alias(UsersFunctionFunction)\nfunction Users() {\n  1\n}\n');
  });
});
