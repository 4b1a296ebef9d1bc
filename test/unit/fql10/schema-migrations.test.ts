// src/fql10/schemaFiles/migrationValidator.ts and src/model/schema10/migrations.ts: a collection's
// migrations derived from its live and submitted FSL (cases and exact errors of the core's
// MigrationValidatorSpec, written as SchemaMigration.debug writes them), and each step's rewrite of
// a document's data (the core's repo migration specs: MoveWildcardMigrationSpec and friends).

import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { renderDiagnostic, renderSummary } from '../../../src/fql10/diagnostic';
import { parseSchemaItems } from '../../../src/fql10/fsl';
import type { Collection, FieldPath } from '../../../src/fql10/fsl/ast';
import { displayExpr, displayPath } from '../../../src/fql10/fsl/display';
import { deriveMigrations, type SchemaMigration } from '../../../src/fql10/schemaFiles/migrationValidator';
import { migrateData, type Migration } from '../../../src/model/schema10/migrations';
import { displayType } from '../../../src/model/schema10/schemaType';
import type { Obj, Value } from '../../../src/values/types';

function collection(src: string): Collection {
  const r = parseSchemaItems(src, 'main.fsl');
  assert.ok(r.ok, r.ok ? '' : renderSummary(r.errors));
  assert.equal(r.value[0].kind, 'collection');
  return r.value[0] as Collection;
}

const show = (p: FieldPath) => displayPath(p);
function debug(m: SchemaMigration): string {
  switch (m.kind) {
    case 'add': return `add ${show(m.field)}: ${displayType(m.ty)}${m.backfill ? ` = ${displayExpr(m.backfill)}` : ''}`;
    case 'drop': return `drop ${show(m.field)}`;
    case 'move': return `move ${show(m.field)} -> ${show(m.to)}`;
    case 'split': return `split ${show(m.source)} -> ${m.targets.map((t) => `(${show(t.path)}: ${displayType(t.ty)}${t.backfill ? ` = ${displayExpr(t.backfill)}` : ''})`).join(', ')}`;
    case 'move_conflicts': return `move_conflicts ${show(m.into)}`;
    case 'move_wildcard': return `move_wildcard -> ${show(m.into)} [${m.keep.join(', ')}]`;
    case 'add_wildcard': return 'add_wildcard';
  }
}

/** MigrationSpec.validate: the derived steps, or the errors rendered. */
function validate(from: string, to: string, expected: string): void {
  const r = deriveMigrations(collection(from), collection(to));
  assert.equal(r.ok ? r.value.map(debug).join('\n') : r.errors.map((e) => renderDiagnostic(e)).join('\n'), expected);
}

describe('migrations derived from the live and submitted schema', () => {
  test('add with a backfill, drop', () => {
    validate('collection User {\n  foo: Int\n}', 'collection User {\n  foo: Int\n  bar: Int\n\n  migrations {\n    add .bar\n    backfill .bar = 5\n  }\n}', 'add .bar: Int = 5');
    validate('collection User {\n  foo: Int\n  bar: String\n}', 'collection User {\n  foo: Int\n\n  migrations {\n    drop .bar\n  }\n}', 'drop .bar');
  });

  test('from the continuation point: the migrations the live schema ran are left out', () => {
    const to = 'collection User {\n  foo: Int = 1\n  bar: Int = 0\n\n  migrations {\n    move .foo -> .tmp\n    move .bar -> .foo\n    move .tmp -> .bar\n  }\n}';
    validate('collection User {\n  foo: Int = 0\n  bar: Int = 1\n}', to, 'move .foo -> .tmp\nmove .bar -> .foo\nmove .tmp -> .bar');
    validate('collection User {\n  tmp: Int = 0\n  bar: Int = 1\n\n  migrations {\n    move .foo -> .tmp\n  }\n}', to, 'move .bar -> .foo\nmove .tmp -> .bar');
    validate('collection User {\n  tmp: Int = 0\n  foo: Int = 1\n\n  migrations {\n    move .foo -> .tmp\n    move .bar -> .foo\n  }\n}', to, 'move .tmp -> .bar');
  });

  test('splits', () => {
    validate('collection User {\n  foo: Int | String\n}', 'collection User {\n  bar: String\n  baz: Int\n\n  migrations {\n    split .foo -> .bar, .baz\n    backfill .bar = "default"\n    backfill .baz = 0\n  }\n}', 'split .foo -> (.bar: String = "default"), (.baz: Int = 0)');
    validate('collection User {\n  foo: Int | String\n}', 'collection User {\n  bar: String | Null\n  baz: Int = 0\n\n  migrations {\n    split .foo -> .bar, .baz\n  }\n}', 'split .foo -> (.bar: String | Null), (.baz: Int = 0)');
  });

  test("the core's errors", () => {
    validate('collection User { _no_wildcard: Null }', 'collection User {\n  foo: Int\n\n  migrations {\n    backfill .foo = 0\n  }\n\n  _no_wildcard: Null\n}', [
      'error: Field `.foo` is backfilled without being declared by an `add` or `split` migration',
      'at main.fsl:5:5',
      '  |',
      '5 |     backfill .foo = 0',
      '  |     ^^^^^^^^^^^^^^^^^',
      '  |',
    ].join('\n'));
    validate('collection User {\n  foo: Int\n  bar: String\n}', 'collection User {\n  foo: Int\n  bar: String\n\n  migrations {\n    drop .bar\n  }\n}', [
      'error: Cannot drop field `.bar`. Dropped fields must be removed from schema',
      'at main.fsl:6:10',
      '  |',
      '6 |     drop .bar',
      '  |          ^^^^',
      '  |',
      'hint: Field defined here',
      'at main.fsl:3:3',
      '  |',
      '3 |   bar: String',
      '  |   ^^^',
      '  |',
    ].join('\n'));
    validate('collection User {\n}', 'collection User {\n  migrations {\n    backfill .bar = 5\n  }\n}', [
      'error: Cannot backfill field `.bar`, as it is not in the submitted schema',
      'at main.fsl:3:14',
      '  |',
      '3 |     backfill .bar = 5',
      '  |              ^^^^',
      '  |',
    ].join('\n'));
  });
});

const obj = (o: Record<string, Value | Record<string, Value>>): Obj =>
  new Map(Object.entries(o).map(([k, v]) => [k, v !== null && typeof v === 'object' && !(v instanceof Map) && !Array.isArray(v) ? obj(v as Record<string, Value>) : (v as Value)]));
const plain = (v: Value): unknown => (v instanceof Map ? Object.fromEntries([...v].map(([k, x]) => [k, plain(x)])) : v);
const run = (data: Record<string, Value | Record<string, Value>>, steps: Migration[]) => plain(migrateData(obj(data), steps));

describe('migration steps on a document', () => {
  test('add keeps a value of its type, sends another to the conflicts, which move_conflicts moves', () => {
    const steps: Migration[] = [
      { kind: 'add', path: ['age'], type: 'Int', value: 0n },
      { kind: 'move_conflicts', into: ['conflicts'] },
    ];
    assert.deepEqual(run({ age: 3n }, steps), { age: 3n });
    assert.deepEqual(run({ age: 'old', conflicts: { age: 1n } }, steps), { age: 0n, conflicts: { age: 1n, _age: 'old' } });
    assert.deepEqual(run({}, steps), { age: 0n });
  });

  test('drop, move (refusing to overwrite), split', () => {
    assert.deepEqual(run({ a: 1n, b: 2n }, [{ kind: 'drop', path: ['a'] }]), { b: 2n });
    assert.deepEqual(run({ a: 1n }, [{ kind: 'move', from: ['a'], to: ['x', 'y'] }]), { x: { y: 1n } });
    assert.throws(() => run({ a: 1n, b: 2n }, [{ kind: 'move', from: ['a'], to: ['b'] }]), /Refusing to overwrite existing field at b/);
    // In the background (the push committed), Flora keeps both values and skips only that step,
    // where the core fails every read of the document: nothing is lost, the rest still applies.
    const lenient = plain(migrateData(obj({ a: 1n, b: 2n, c: 3n }), [{ kind: 'move', from: ['a'], to: ['b'] }, { kind: 'drop', path: ['c'] }], true));
    assert.deepEqual(lenient, { a: 1n, b: 2n });
    const split: Migration = { kind: 'split', field: ['a'], spill: ['b'], type: 'Int', fieldBackfill: 0n, spillBackfill: '-' };
    assert.deepEqual(run({ a: 1n }, [split]), { a: 1n, b: '-' });
    assert.deepEqual(run({ a: 'x' }, [split]), { a: 0n, b: 'x' });
    assert.deepEqual(run({}, [split]), { a: 0n, b: '-' });
  });

  test('move_wildcard moves what is not kept, renaming names taken consistently (MoveWildcardMigrationSpec)', () => {
    const step: Migration = { kind: 'move_wildcard', into: ['dump'], keep: ['dump', 'foo', 'bar'] };
    assert.deepEqual(run({ foo: 3n, bar: 4n, baz: 5n, qux: 6n }, [step]), { foo: 3n, bar: 4n, dump: { baz: 5n, qux: 6n } });
    assert.deepEqual(run({ foo: 3n, bar: 4n, dump: { baz: 10n }, baz: 5n, qux: 6n }, [step]), { foo: 3n, bar: 4n, dump: { baz: 10n, _baz: 5n, qux: 6n } });
    const res0 = migrateData(obj({ foo: 3n, bar: 4n, dump: { baz: 10n }, baz: 5n, _baz: 6n }), [step]);
    assert.deepEqual([...(res0.get('dump') as Obj)], [['baz', 10n], ['_baz', 5n], ['__baz', 6n]]);
    assert.deepEqual(run({ foo: 3n, bar: 4n, dump: { baz: 10n }, _baz: 6n, baz: 5n }, [step]), { foo: 3n, bar: 4n, dump: { baz: 10n, _baz: 5n, __baz: 6n } });
    assert.deepEqual(run({ foo: 3n }, [step]), { foo: 3n });
  });
});
