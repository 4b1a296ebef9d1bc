// src/fql10/schemaFiles/itemChanges.ts, diffRender.ts, lineDiff.ts and colorText.ts: the schema
// diffs in the core's three formats, exact, as its specs have them (fql/shared/src/test/scala/schema/
// SchemaDiffSpec, SchemaDiffTextSpec, SchemaDiffVeryShortSpec, SchemaDiffColorSpec). A modified
// collection's migrations come from migrationValidator.ts, as the core's from its MigrationValidator
// (the specs' diffMigrations: every collection has documents).

import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { renderSummary as renderDiagnostics } from '../../../src/fql10/diagnostic';
import { parseSchemaItems } from '../../../src/fql10/fsl';
import type { ColorKind } from '../../../src/fql10/schemaFiles/colorText';
import { renderSemantic, renderSummary, renderTextual } from '../../../src/fql10/schemaFiles/diffRender';
import { diffSchemaItems, itemView, type Renames, type SchemaItemDiff } from '../../../src/fql10/schemaFiles/itemChanges';
import { deriveMigrations } from '../../../src/fql10/schemaFiles/migrationValidator';
import { diffRows } from '../../../src/fql10/schemaFiles/lineDiff';

const text = (...lines: string[]) => lines.join('\n');

function diffs(before: string, after: string, srcBefore = 'main.fsl', srcAfter = 'main.fsl', renames?: Renames): SchemaItemDiff[] {
  const parse = (t: string, name: string) => {
    const r = parseSchemaItems(t, name);
    assert.ok(r.ok, r.ok ? '' : renderDiagnostics(r.errors));
    return r.value.map((item) => ({ item, view: itemView(item) }));
  };
  return diffSchemaItems(parse(before, srcBefore), parse(after, srcAfter), renames);
}

/** SchemaDiffSpec's `diff`: the semantic format. */
function semantic(before: string, after: string, expected: string, opts: { srcBefore?: string; srcAfter?: string; color?: ColorKind; renames?: Renames } = {}): void {
  assert.equal(renderSemantic(diffs(before, after, opts.srcBefore, opts.srcAfter, opts.renames), opts.color ?? 'none'), expected);
}

/** SchemaDiffSpec's `diffMigrations`: the semantic format, each modified collection with the migrations derived for it. */
function withMigrations(before: string, after: string, expected: string, color: ColorKind = 'none'): void {
  const ds = diffs(before, after).map((d) => {
    if (d.kind !== 'modify' || d.before.kind !== 'collection' || d.item.kind !== 'collection') return d;
    const r = deriveMigrations(d.before, d.item);
    assert.ok(r.ok, r.ok ? '' : renderDiagnostics(r.errors));
    return { ...d, migrations: r.value };
  });
  assert.equal(renderSemantic(ds, color), expected);
}

describe('schema diff: semantic (SchemaDiffSpec)', () => {
  test('additions and removals', () => {
    semantic('', 'collection Foo {\n}\n', '* Adding collection `Foo` to main.fsl:1:1\n\n');
    semantic('collection Foo {\n}\n', '', '* Removing collection `Foo` from main.fsl:1:1\n\n');
  });

  test('annotations', () => {
    semantic('collection Foo {\n}\n', '@alias(Bar)\ncollection Foo {\n}\n', '* Modifying collection `Foo` at main.fsl:1:1:\n  * Configuration:\n  + add alias set to Bar\n\n');
    semantic('@alias(Bar)\ncollection Foo {\n}\n', 'collection Foo {\n}\n', '* Modifying collection `Foo` at main.fsl:1:1:\n  * Configuration:\n  - remove alias set to Bar\n\n');
  });

  test('scalars', () => {
    const foo = (body: string) => `collection Foo {\n${body}}\n`;
    semantic(foo(''), foo('  history_days 42\n'), '* Modifying collection `Foo` at main.fsl:1:1:\n  * Configuration:\n  + add history_days set to 42\n\n');
    semantic(foo('  history_days 42\n'), foo(''), '* Modifying collection `Foo` at main.fsl:1:1:\n  * Configuration:\n  - remove history_days set to 42\n\n');
    semantic(foo('  history_days 0\n'), foo('  history_days 42\n'), '* Modifying collection `Foo` at main.fsl:1:1:\n  * Configuration:\n  ~ change history_days from 0 to 42\n\n');
  });

  test('seqs', () => {
    const foo = (body: string) => `collection Foo {\n${body}}\n`;
    semantic(foo(''), foo('  unique [.bar]\n'), '* Modifying collection `Foo` at main.fsl:1:1:\n  * Constraints:\n  + add unique constraint on [.bar]\n\n');
    semantic(foo('  unique [.bar]\n'), foo(''), '* Modifying collection `Foo` at main.fsl:1:1:\n  * Constraints:\n  - remove unique constraint on [.bar]\n\n');
    semantic(
      foo('  unique [.bar]\n'),
      foo('  unique [.bar, .baz]\n'),
      '* Modifying collection `Foo` at main.fsl:1:1:\n  * Constraints:\n  + add unique constraint on [.bar, .baz]\n  - remove unique constraint on [.bar]\n\n',
    );
  });

  test('blocks', () => {
    const foo = (body: string) => `collection Foo {\n${body}}\n`;
    const index = (terms: string) => `  index byBar {\n    terms ${terms}\n    values [.bar, .baz]\n  }\n`;
    semantic(foo(''), foo(index('[.bar]')), '* Modifying collection `Foo` at main.fsl:1:1:\n  * Indexes:\n  + add index `byBar`\n\n');
    semantic(foo(index('[.bar]')), foo(''), '* Modifying collection `Foo` at main.fsl:1:1:\n  * Indexes:\n  - remove index `byBar`\n\n');
    semantic(
      foo(index('[.bar]')),
      foo(index('[.bar, .baz]')),
      '* Modifying collection `Foo` at main.fsl:1:1:\n  * Indexes:\n  ~ change index `byBar`\n    ~ change terms from [.bar] to [.bar, .baz]\n\n',
    );
  });

  test('optional configs', () => {
    const plain = 'role Foo {\n  membership Bar\n}\n';
    const pred = (body: string) => `role Foo {\n  membership Bar {\n    predicate ((x) => x.${body})\n  }\n}\n`;
    semantic(plain, pred('baz'), '* Modifying role `Foo` at main.fsl:1:1:\n  ~ change membership on `Bar` by adding a predicate\n\n');
    semantic(pred('baz'), plain, '* Modifying role `Foo` at main.fsl:1:1:\n  ~ change membership on `Bar` by removing a predicate\n\n');
    semantic(pred('baz'), pred('fizz'), '* Modifying role `Foo` at main.fsl:1:1:\n  ~ change membership on `Bar` by modifying its predicate\n\n');
  });

  test('blocks with optional configs', () => {
    semantic(
      text('role Foo {', '  privileges Bar {', '    read', '    write', '    create {', '      predicate ((x) => x.fizz)', '    }', '    history_read {', '      predicate ((x) => x.buzz)', '    }', '  }', '}', ''),
      text('role Foo {', '  privileges Bar {', '    write {', '      predicate ((x) => x.fizz)', '    }', '    create', '    history_read {', '      predicate ((x) => x.somethingelse)', '    }', '    read', '  }', '}', ''),
      text(
        '* Modifying role `Foo` at main.fsl:1:1:',
        '  ~ change privileges on `Bar`',
        '    ~ change write by adding a predicate',
        '    ~ change create by removing a predicate',
        '    ~ change history_read by modifying its predicate',
        '',
        '',
      ),
    );
  });

  test('functions: signature, types, body', () => {
    semantic('function foo(a) {\n  42\n}\n', 'function foo(a, b) {\n  42\n}\n', '* Modifying function `foo` at main.fsl:1:1:\n  ~ change signature\n\n');
    semantic('function foo(a: A): A {\n  42\n}\n', 'function foo(a) {\n  42\n}\n', '* Modifying function `foo` at main.fsl:1:1:\n  ~ change signature\n\n');
    semantic('function foo(a) {\n  42\n}\n', 'function foo(a) {\n  43\n}\n', '* Modifying function `foo` at main.fsl:1:1:\n  ~ change body\n\n');
  });

  const BEFORE_MANY = text(
    'collection Foo {',
    '  history_days 10',
    '  index byBar {',
    '    terms [.bar]',
    '    values [.bar, .baz]',
    '  }',
    '  check ok ((doc) => doc.ok)',
    '  check cool ((doc) => doc.colo)',
    '}',
    '',
    'function double(n) {',
    '  2 * n',
    '}',
    '',
  );
  const AFTER_MANY = text(
    '@alias(Bar)',
    'collection Foo {',
    '  compute floof: Int = ((doc) => !doc.notfloof)',
    '  index byBuz {',
    '    terms [.bar]',
    '    values [.bar, .baz]',
    '  }',
    '  unique [mva(.bar)]',
    '  check notok ((doc) => !doc.ok)',
    '  check cool ((doc) => doc.cool)',
    '  history_days 0',
    '  ttl_days 10',
    '}',
    '',
    'function double(a) {',
    '  a * 2',
    '}',
    '',
  );

  test('multiple changes', () => {
    semantic(
      BEFORE_MANY,
      AFTER_MANY,
      text(
        '* Modifying collection `Foo` at main.fsl:1:1:',
        '  * Computed fields:',
        '  + add computed field `floof`',
        '',
        '  * Indexes:',
        '  + add index `byBuz`',
        '  - remove index `byBar`',
        '',
        '  * Constraints:',
        '  + add unique constraint on [mva(.bar)]',
        '  + add check constraint `notok`',
        '  - remove check constraint `ok`',
        '  ~ change check constraint `cool` body',
        '',
        '  * Configuration:',
        '  + add alias set to Bar',
        '  + add ttl_days set to 10',
        '  ~ change history_days from 10 to 0',
        '',
        '* Modifying function `double` at main.fsl:15:1:',
        '  ~ change signature',
        '  ~ change body',
        '',
        '',
      ),
    );
  });

  const FULL = text(
    '@alias(Bar)',
    'collection Foo {',
    '  compute floof: Int = ((doc) => !doc.notfloof)',
    '  index byBuz {',
    '    terms [.bar]',
    '    values [.bar, .baz]',
    '  }',
    '  unique [mva(.bar)]',
    '  check notok ((doc) => !doc.ok)',
    '  check cool ((doc) => doc.cool)',
    '  history_days 0',
    '  ttl_days 10',
    '}',
    '',
    'function double(a) { a * 2 }',
    'function tripple(a) { a * 3 }',
    '',
  );
  const told = (verb: string, sign: string, v: string) =>
    text(
      `* ${verb} collection \`Foo\` ${v} main.fsl:1:1:`,
      '  * Computed fields:',
      `  ${sign} computed field \`floof\``,
      '',
      '  * Indexes:',
      `  ${sign} index \`byBuz\``,
      '',
      '  * Constraints:',
      `  ${sign} unique constraint on [mva(.bar)]`,
      `  ${sign} check constraint \`notok\``,
      `  ${sign} check constraint \`cool\``,
      '',
      '  * Configuration:',
      `  ${sign} alias set to Bar`,
      `  ${sign} ttl_days set to 10`,
      '',
      `* ${verb} function \`double\` ${v} main.fsl:15:1`,
      '',
      `* ${verb} function \`tripple\` ${v} main.fsl:16:1`,
      '',
      '',
    );

  test('an added or removed item is told as changes from an empty one', () => {
    semantic('', FULL, told('Adding', '+ add', 'to'));
    semantic(FULL, '', told('Removing', '- remove', 'from'));
  });

  test('no diff from spans changing, nor from an implicit wildcard made explicit, nor from history_days 0', () => {
    semantic(
      text('collection Foo {', '  compute x = (doc => doc.x)', '  foo: Int = 3', '}', 'role myRole {', '  privileges Foo {', '    read {', '      predicate (doc => doc.foo)', '    }', '  }', '}', 'function foo(x: Int): Int { x }', ''),
      text('collection Foo {', '  compute x = (doc =>  doc.x )', '  foo :  Int  =  3', '}', 'role myRole {', '  privileges Foo {', '    read {', '      predicate (  doc =>  doc.foo )', '    }', '  }', '}', 'function foo( x:  Int ): Int {   x  }', ''),
      '',
    );
    semantic('collection Foo {}', 'collection Foo { *: Any }', '');
    semantic('collection Foo {\n  history_days 0\n}\n', 'collection Foo {\n}\n', '');
    semantic('collection Foo {\n}\n', 'collection Foo {\n  history_days 0\n}\n', '');
  });

  test('an item moved to another file', () => {
    semantic(
      'collection Foo {}',
      'collection Foo {\n  history_days 10\n}\n',
      '* Modifying collection `Foo` at collections.fsl:1:1 (previously defined at main.fsl:1:1):\n  * Configuration:\n  + add history_days set to 10\n\n',
      { srcAfter: 'collections.fsl' },
    );
  });

  test('renames: the renamed item is modified, not removed and added', () => {
    semantic(
      'collection Foo {}\nfunction bar() {42}\n',
      'collection NewFoo {}\nfunction newBar() {42}\n',
      '* Modifying collection `Foo` at main.fsl:1:1:\n  * Configuration:\n  ~ rename to `NewFoo`\n\n* Modifying function `bar` at main.fsl:2:1:\n  ~ rename to `newBar`\n\n',
      { renames: new Map([['collection:NewFoo', 'Foo'], ['function:newBar', 'bar']]) },
    );
    // Without renames, the same files remove the old items and add new ones.
    semantic('collection Foo {}\n', 'collection NewFoo {}\n', '* Adding collection `NewFoo` to main.fsl:1:1\n\n* Removing collection `Foo` from main.fsl:1:1\n\n');
  });

  test('a changed migrations block alone is no semantic change; removing a default is', () => {
    withMigrations(
      'collection Foo {\n  migrations {\n    backfill .foo = 3\n    backfill .bar = 3\n  }\n}\n',
      'collection Foo {\n  migrations {\n    backfill .bar = 3\n  }\n}\n',
      '* Modifying collection `Foo` at main.fsl:1:1:\n  No semantic changes.\n\n',
    );
    semantic('collection Foo {\n  foo: String = ""\n}', 'collection Foo {\n  foo: String\n}', '* Modifying collection `Foo` at main.fsl:1:1:\n  * Configuration:\n  - remove default value from field `.foo`\n\n');
  });

  test('migrations: the defined fields', () => {
    withMigrations(
      'collection Foo {\n  _no_wildcard: Null\n  migrations {\n    add .foo\n  }\n}\n',
      'collection Foo {\n  _no_wildcard: Null\n  bar: Int = 3\n  migrations {\n    add .foo\n    add .bar\n  }\n}\n',
      '* Modifying collection `Foo` at main.fsl:1:1:\n  * Defined fields:\n  + add field `.bar` with backfill `3`\n\n',
    );
    // The backfill the submitted block ends with is the one derived.
    withMigrations(
      'collection Foo {\n  _no_wildcard: Null\n  migrations {\n    add .foo\n    backfill .foo = 3\n  }\n}\n',
      'collection Foo {\n  _no_wildcard: Null\n  foo: Int\n  migrations {\n    add .foo\n    backfill .foo = 5\n  }\n}\n',
      '* Modifying collection `Foo` at main.fsl:1:1:\n  * Defined fields:\n  + add field `.foo` with backfill `5`\n\n',
    );
    withMigrations(
      'collection Foo {\n  a: Int\n}',
      'collection Foo {\n  b: Int\n  c: String = "hello"\n\n  migrations {\n    move .a -> .b\n    add .c\n  }\n}',
      '* Modifying collection `Foo` at main.fsl:1:1:\n  * Defined fields:\n  ~ move field `.a` to field `.b`\n  + add field `.c` with backfill `"hello"`\n\n',
    );
  });

  const MIGRATED_BEFORE = 'collection Foo {\n  migrations {\n    add .foo\n    drop .foo\n  }\n}';
  const MIGRATED_AFTER = text(
    'collection Foo {',
    '  a: Int',
    '  b: String = "hello"',
    '  c: String?',
    '  d: String',
    '  dump: { *: Any }?',
    '',
    '  migrations {',
    '    add .foo',
    '    drop .foo',
    '    add .bye',
    '    drop .bye',
    '    add .a',
    '    backfill .a = 11',
    '    add .b',
    '    add .c',
    '    split .c -> .c, .d',
    '    backfill .d = "split!"',
    '    add .dump',
    '    move_conflicts .dump',
    '    move_wildcard .dump',
    '  }',
    '}',
  );

  test('migrations rendered', () => {
    withMigrations(
      MIGRATED_BEFORE,
      MIGRATED_AFTER,
      text(
        '* Modifying collection `Foo` at main.fsl:1:1:',
        '  * Defined fields:',
        '  - drop field `.bye`',
        '  + add field `.a` with backfill `11`',
        '  + add field `.b` with backfill `"hello"`',
        '  ~ split field `.c` into fields `.c`,`.d`',
        '    - if the value matches type `String | Null`, the value stays in field `.c`',
        '    - else if the value matches type `String`, the value moves to field `.d`',
        '  + backfill field `.d` with value `"split!"`',
        '  ~ move values with type conflicts into `.dump`',
        '  ~ move all fields into the field `.dump` except fields in the list `[.d, .dump, .c, .b, .a]`',
        '',
        '',
      ),
    );
    withMigrations(
      'collection Foo {\n  letters: "A" | "B" | "C" | "D"\n  migrations {\n    add .letters\n  }\n}',
      'collection Foo {\n  a: "A"?\n  b: "B" = "B"\n  c: "C"\n  d: "D"\n\n  migrations {\n    split .letters -> .a, .b, .c, .d\n    backfill .c = "C"\n    backfill .d = "D"\n  }\n}',
      text(
        '* Modifying collection `Foo` at main.fsl:1:1:',
        '  * Defined fields:',
        '  ~ split field `.letters` into fields `.a`,`.b`,`.c`,`.d`',
        '    - if the value matches type `"A" | Null`, the value moves to field `.a`',
        '    - else if the value matches type `"B"`, the value moves to field `.b`',
        '    - else if the value matches type `"C"`, the value moves to field `.c`',
        '    - else if the value matches type `"D"`, the value moves to field `.d`',
        '  + backfill field `.b` with value `"B"`',
        '  + backfill field `.c` with value `"C"`',
        '  + backfill field `.d` with value `"D"`',
        '',
        '',
      ),
    );
  });

  describe('colours (SchemaDiffColorSpec)', () => {
    const reset = '\u001b[0m';
    const r = '\u001b[31m';
    const g = '\u001b[32m';
    const y = '\u001b[33m';
    const boldBlue = '\u001b[1;34m';

    test('titles, a move, a change', () => {
      semantic('', 'collection Foo {\n}\n', `${boldBlue}* Adding collection \`Foo\`${reset} to main.fsl:1:1\n\n`, { color: 'ansi' });
      semantic('collection Foo {\n}\n', '', `${boldBlue}* Removing collection \`Foo\`${reset} from main.fsl:1:1\n\n`, { color: 'ansi' });
      semantic(
        'collection Foo {}',
        'collection Foo {\n  history_days 10\n}\n',
        `${boldBlue}* Modifying collection \`Foo\`${reset} at collections.fsl:1:1 (previously defined at main.fsl:1:1):\n  * Configuration:\n${g}  + add history_days set to 10${reset}\n\n`,
        { srcAfter: 'collections.fsl', color: 'ansi' },
      );
    });

    test('migrations', () => {
      withMigrations(
        MIGRATED_BEFORE,
        MIGRATED_AFTER,
          text(
          `${boldBlue}* Modifying collection \`Foo\`${reset} at main.fsl:1:1:`,
          '  * Defined fields:',
          `${r}  - drop field \`.bye\`${reset}`,
          `${g}  + add field \`.a\` with backfill \`11\`${reset}`,
          `${g}  + add field \`.b\` with backfill \`"hello"\`${reset}`,
          `${y}  ~ split field \`.c\` into fields \`.c\`,\`.d\`${reset}`,
          '    - if the value matches type `String | Null`, the value stays in field `.c`',
          '    - else if the value matches type `String`, the value moves to field `.d`',
          `${y}  + backfill field \`.d\` with value \`"split!"\`${reset}`,
          `${y}  ~ move values with type conflicts into \`.dump\`${reset}`,
          `${y}  ~ move all fields into the field \`.dump\` except fields in the list \`[.d, .dump, .c, .b, .a]\`${reset}`,
          '',
          '',
        ),
        'ansi',
      );
    });

    test('multiple changes', () => {
      semantic(
        BEFORE_MANY,
        AFTER_MANY,
        text(
          `${boldBlue}* Modifying collection \`Foo\`${reset} at main.fsl:1:1:`,
          '  * Computed fields:',
          `${g}  + add computed field \`floof\`${reset}`,
          '',
          '  * Indexes:',
          `${g}  + add index \`byBuz\`${reset}`,
          `${r}  - remove index \`byBar\`${reset}`,
          '',
          '  * Constraints:',
          `${g}  + add unique constraint on [mva(.bar)]${reset}`,
          `${g}  + add check constraint \`notok\`${reset}`,
          `${r}  - remove check constraint \`ok\`${reset}`,
          `${y}  ~ change check constraint \`cool\` body${reset}`,
          '',
          '  * Configuration:',
          `${g}  + add alias set to Bar${reset}`,
          `${g}  + add ttl_days set to 10${reset}`,
          `${y}  ~ change history_days from 10 to 0${reset}`,
          '',
          `${boldBlue}* Modifying function \`double\`${reset} at main.fsl:15:1:`,
          `${y}  ~ change signature${reset}`,
          `${y}  ~ change body${reset}`,
          '',
          '',
        ),
        { color: 'ansi' },
      );
    });
  });
});

describe('schema diff: summary (SchemaDiffVeryShortSpec)', () => {
  test('a line per item, additions first', () => {
    assert.equal(renderSummary(diffs('', 'collection Foo {\n}\n\nfunction foo() { 0 }\n'), 'none'), '* Adding collection `Foo` to main.fsl:1:1\n* Adding function `foo` to main.fsl:4:1\n');
  });

  test('no item\'s own changes', () => {
    const before = 'collection Foo {\n  name: String\n}\n';
    const after = 'collection Foo {\n  name: String\n\n  index byName {\n    terms [.name]\n  }\n}\n';
    assert.equal(renderSummary(diffs(before, after), 'none'), '* Modifying collection `Foo` at main.fsl:1:1\n');
  });
});

describe('schema diff: textual (SchemaDiffTextSpec)', () => {
  const foo = (...fields: string[]) => text('collection Foo {', ...fields.map((f) => `  ${f}: String`), '}', '');
  const textual = (before: string, after: string, expected: string) => assert.equal(renderTextual(new Map([['main.fsl', before]]), new Map([['main.fsl', after]]), 'none'), expected);

  test('hunks', () => {
    textual(
      foo(...'abcdefghijk'),
      foo('a', 'b', 'c', 'd', 'foo', 'f', 'bar', 'h', 'i', 'j', 'k'),
      text('main.fsl', '@ line 3 to 11', '    b: String', '    c: String', '    d: String', '-   e: String', '+   foo: String', '    f: String', '-   g: String', '+   bar: String', '    h: String', '    i: String', '    j: String', ''),
    );
  });

  test('a hunk near the start, near the end', () => {
    textual(foo(...'abcde'), foo('a', 'foo', 'c', 'd', 'e'), text('main.fsl', '@ line 1 to 6', '  collection Foo {', '    a: String', '-   b: String', '+   foo: String', '    c: String', '    d: String', '    e: String', ''));
    textual(foo(...'abcde'), foo('a', 'b', 'c', 'foo', 'e'), text('main.fsl', '@ line 2 to 7', '    a: String', '    b: String', '    c: String', '-   d: String', '+   foo: String', '    e: String', '  }', ''));
  });

  test('two hunks near the end', () => {
    textual(
      foo('a', 'foo', 'c', 'd', 'e', 'f', 'g', 'h', 'i', 'bar', 'k'),
      foo(...'abcdefghijk'),
      text(
        'main.fsl',
        '@ line 1 to 6',
        '  collection Foo {',
        '    a: String',
        '-   foo: String',
        '+   b: String',
        '    c: String',
        '    d: String',
        '    e: String',
        '@ line 8 to 13',
        '    g: String',
        '    h: String',
        '    i: String',
        '-   bar: String',
        '+   j: String',
        '    k: String',
        '  }',
        '',
      ),
    );
  });

  test('appended and removed lines (line numbers of the new file)', () => {
    textual(
      foo(...'abcdefghij'),
      foo('a', 'b', 'b2', 'c', 'd', 'e', 'f', 'g', 'h', 'i', 'foo'),
      text('main.fsl', '@ line 1 to 7', '  collection Foo {', '    a: String', '    b: String', '+   b2: String', '    c: String', '    d: String', '    e: String', '@ line 9 to 13', '    g: String', '    h: String', '    i: String', '-   j: String', '+   foo: String', '  }', ''),
    );
    textual(foo(...'abcdefghi'), foo('a', 'b', 'd', 'e', 'f', 'g', 'h', 'i'), text('main.fsl', '@ line 1 to 6', '  collection Foo {', '    a: String', '    b: String', '-   c: String', '    d: String', '    e: String', '    f: String', ''));
  });

  test('files by name, a blank line between them; a new file, a removed one; colours', () => {
    const before = new Map([
      ['b.fsl', 'collection B {}\n'],
      ['gone.fsl', 'collection Gone {}\n'],
      ['same.fsl', 'collection Same {}\n'],
    ]);
    const after = new Map([
      ['a.fsl', 'collection A {}\n'],
      ['b.fsl', 'collection B {}\n\ncollection B2 {}\n'],
      ['same.fsl', 'collection Same {}\n'],
    ]);
    assert.equal(renderTextual(before, after, 'none'), text('a.fsl', '@ line 1 to 1', '+ collection A {}', '', 'b.fsl', '@ line 1 to 3', '  collection B {}', '+', '+ collection B2 {}', '', 'gone.fsl', '@ line 1 to 1', '- collection Gone {}', ''));
    assert.equal(
      renderTextual(new Map([['main.fsl', 'x\ny\n']]), new Map([['main.fsl', 'x\nz\n']]), 'ansi'),
      '\u001b[1mmain.fsl\u001b[22m\n\u001b[36m@ line 1 to 2\u001b[0m\n  x\n\u001b[31m- y\u001b[0m\n\u001b[32m+ z\u001b[0m\n',
    );
  });

  test('the schema API\'s textual example (schema-openapi.yml)', () => {
    const before = '// a comment\n// another\n\ncollection Customer {\n\n}\n';
    const after = before + '\ncollection Product {\n\n}\n';
    assert.equal(renderTextual(new Map([['main.fsl', before]]), new Map([['main.fsl', after]]), 'none'), 'main.fsl\n@ line 4 to 10\n  collection Customer {\n\n  }\n+\n+ collection Product {\n+\n+ }\n');
  });
});

describe('line diff rows (java-diff-utils 4.12)', () => {
  test('a change of unequal sizes is a change then an insert or a delete', () => {
    assert.deepEqual(
      diffRows(['a', 'b', 'c'], ['a', 'x', 'y', 'z', 'c']).map((r) => `${r.tag}:${r.oldLine}:${r.newLine}`),
      ['equal:a:a', 'change:b:x', 'insert::y', 'insert::z', 'equal:c:c'],
    );
    assert.deepEqual(
      diffRows(['a', 'b', 'c', 'd'], ['a', 'x', 'd']).map((r) => `${r.tag}:${r.oldLine}:${r.newLine}`),
      ['equal:a:a', 'change:b:x', 'delete:c:', 'equal:d:d'],
    );
  });
});
