// Schema migrations (issue 33) through plain HTTP and the `fauna` driver, against a real server:
// a pushed `migrations` block is checked against the live schema with the core's errors
// (MigrationValidator, SchemaEndpointStagedSpec), and its new steps rewrite the documents already
// there (add with backfill, drop, split, move, move_conflicts, move_wildcard, add_wildcard) so that
// reads, indexes and unique constraints see the migrated values at once; steps a collection has
// run are not run again, and documents written afterwards obey the new schema.

import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { fql, type Client } from 'fauna';
import { startFlora, type FloraProcess } from '../helpers/server';
import { schemaCall, serviceFailure, V10Clients } from '../helpers/v10';

let flora: FloraProcess;
const clients = new V10Clients(() => flora.url);

before(async () => {
  flora = await startFlora();
});
after(async () => {
  clients.closeAll();
  await flora?.stop();
});

type Answer = { status: number; message: string | undefined };

/** A database of its own for one test: its admin client and a push of one file to it. */
async function database(name: string): Promise<{ v10: Client; push: (fsl: string, query?: string) => Promise<Answer> }> {
  await clients.client(flora.secret).query(fql`Database.create({ name: ${name} })`);
  const secret = `${flora.secret}:${name}:admin`;
  /** An update (`query`: its parameters), or with 'validate' a validate of the same files. */
  const push = async (fsl: string, query = 'force=true'): Promise<Answer> => {
    const path = query === 'validate' ? '/schema/1/validate?force=true' : `/schema/1/update?${query}`;
    const a = await schemaCall(flora.url, secret, 'POST', path, { 'main.fsl': fsl });
    return { status: a.status, message: (a.json.error as { message?: string } | undefined)?.message };
  };
  return { v10: clients.client(secret), push };
}

const ok = (a: Answer) => assert.deepEqual(a, { status: 200, message: undefined });

test('add with a backfill fills the documents already there (their ts kept); an index of the push sees it; new documents obey the new schema', async () => {
  const { v10, push } = await database('add');
  ok(await push('collection User {\n  name: String\n}\n'));
  await v10.query(fql`User.create({ id: "1", name: "a" }); User.create({ id: "2", name: "b" })`);
  const ts = (await v10.query(fql`User.byId("1")!.ts`)).data;
  ok(await push('collection User {\n  name: String\n  age: Int\n\n  index byAge {\n    terms [.age]\n  }\n\n  migrations {\n    add .age\n    backfill .age = 7\n  }\n}\n'));
  assert.deepEqual((await v10.query(fql`User.all().map(u => [u.name, u.age]).toArray()`)).data, [['a', 7], ['b', 7]]);
  assert.deepEqual((await v10.query(fql`User.byId("1")!.ts`)).data, ts);
  assert.equal((await v10.query(fql`User.byAge(7).count()`)).data, 2);
  const refused = await serviceFailure(v10.query(fql`User.create({ name: "c" })`));
  assert.equal(refused.code, 'constraint_failure');
  assert.equal((await v10.query(fql`User.create({ name: "c", age: 1 }).age`)).data, 1);
});

test('a non-nullable field added to a collection with documents needs a backfill; an empty collection does not', async () => {
  const { v10, push } = await database('refuse');
  ok(await push('collection Foo {}'));
  await v10.query(fql`Foo.create({ id: 0, foo: 3 })`);
  assert.deepEqual(await push('collection Foo { name: String }'), {
    status: 400,
    message: [
      'error: Field `.name` is not present in the live schema',
      'at main.fsl:1:18',
      '  |',
      '1 | collection Foo { name: String }',
      '  |                  ^^^^',
      '  |',
      'hint: Provide an `add` migration for this field',
      '  |',
      '1 |   collection Foo { migrations {',
      '  |  __________________+',
      '2 | |     add .name',
      '3 | |     backfill .name = <expr>',
      '4 | |   }',
      '  | |____^',
      '  |',
      'hint: Add a default value to this field',
      '  |',
      '1 | collection Foo { name: String = <expr> }',
      '  |                              +++++++++',
      '  |',
      'hint: Make the field nullable',
      '  |',
      '1 | collection Foo { name: String? }',
      '  |                              +',
      '  |',
      'error: Missing wildcard definition',
      'at main.fsl:1:1',
      '  |',
      '1 | collection Foo { name: String }',
      '  | ^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^',
      '  |',
      'hint: Collections with no fields defined allow arbitrary fields by default. To keep this behavior, add a wildcard declaration to the schema definition',
      '  |',
      '1 | collection Foo { *: Any',
      '  |                  +++++++',
      '  |',
    ].join('\n'),
  });
  const noBackfill = await push('collection Foo {\n  name: String\n  *: Any\n\n  migrations {\n    add .name\n  }\n}\n');
  assert.equal(noBackfill.status, 400);
  assert.match(noBackfill.message ?? '', /^error: Cannot declare non-nullable field `\.name`: it has no default and no backfill value\nat main\.fsl:6:9\n/);
  // validate checks the files as a push would, the migrations against the live data included.
  assert.deepEqual(await push('collection Foo {\n  name: String\n  *: Any\n\n  migrations {\n    add .name\n  }\n}\n', 'validate'), noBackfill);
  ok(await push('collection Foo {}\ncollection Baz {}\n', 'validate'));
  assert.equal((await v10.query(fql`Foo.byId(0)!.name`)).data, null, 'a validate writes nothing');
  assert.equal((await v10.query(fql`Foo.byId(0)!.name`)).data, null);
  // An empty collection takes the same schema without migrations.
  ok(await push('collection Foo {}\ncollection Bar {}'));
  ok(await push('collection Foo {}\ncollection Bar { name: String }'));
});

test('drop removes the field; migrations already run are not run again on the next push', async () => {
  const { v10, push } = await database('drop');
  ok(await push('collection T {\n  a: Int?\n  b: Int?\n}\n'));
  await v10.query(fql`T.create({ id: "1", a: 1, b: 2 })`);
  ok(await push('collection T {\n  b: Int?\n\n  migrations {\n    drop .a\n  }\n}\n'));
  assert.deepEqual((await v10.query(fql`T.byId("1")!.data`)).data, { b: 2 });
  // `a` comes back as a String: only the new `add` runs, the `drop` has run already.
  const back = 'collection T {\n  a: String?\n  b: Int?\n\n  migrations {\n    drop .a\n    add .a\n  }\n}\n';
  ok(await push(back));
  await v10.query(fql`T.byId("1")!.update({ a: "kept" })`);
  ok(await push(back.replace('  b: Int?\n', '  b: Int?\n\n  index byB {\n    terms [.b]\n  }\n')));
  assert.deepEqual((await v10.query(fql`T.byId("1")!.data`)).data, { a: 'kept', b: 2 });
});

test('split sends each value to the field of its type', async () => {
  const { v10, push } = await database('split');
  ok(await push('collection S {\n  a: Int | String\n}\n'));
  await v10.query(fql`S.create({ id: "1", a: 1 }); S.create({ id: "2", a: "x" })`);
  ok(await push('collection S {\n  a: Int?\n  b: String?\n\n  migrations {\n    split .a -> .a, .b\n  }\n}\n'));
  assert.deepEqual((await v10.query(fql`[S.byId("1")!.data, S.byId("2")!.data]`)).data, [{ a: 1 }, { b: 'x' }]);
});

test('move renames the field; a unique constraint of the push sees the moved values', async () => {
  const { v10, push } = await database('move');
  ok(await push('collection M {\n  name: String\n}\n'));
  await v10.query(fql`M.create({ id: "1", name: "ann" })`);
  ok(await push('collection M {\n  fullName: String\n\n  unique [.fullName]\n\n  migrations {\n    move .name -> .fullName\n  }\n}\n'));
  assert.deepEqual((await v10.query(fql`M.byId("1")!.data`)).data, { fullName: 'ann' });
  assert.equal((await serviceFailure(v10.query(fql`M.create({ fullName: "ann" })`))).code, 'constraint_failure');
  assert.equal((await v10.query(fql`M.where(.fullName == "ann").count()`)).data, 1);
});

test('move_conflicts keeps what an added field displaces; move_wildcard takes the rest when the wildcard goes; add_wildcard brings one back', async () => {
  const { v10, push } = await database('wild');
  ok(await push('collection W {\n  name: String?\n  *: Any\n}\n'));
  await v10.query(fql`W.create({ id: "1", name: "a", age: "old", extra: 1 }); W.create({ id: "2", age: 3 })`);
  const conflicts = 'collection W {\n  name: String?\n  age: Int?\n  conflicts: { *: Any }?\n  *: Any\n\n  migrations {\n    add .conflicts\n    add .age\n    move_conflicts .conflicts\n  }\n}\n';
  ok(await push(conflicts));
  assert.deepEqual((await v10.query(fql`[W.byId("1")!.data, W.byId("2")!.data]`)).data, [{ name: 'a', extra: 1, conflicts: { age: 'old' } }, { age: 3 }]);
  const noWildcard = conflicts.replace('  *: Any\n', '').replace('    move_conflicts .conflicts\n', '    move_conflicts .conflicts\n    move_wildcard .conflicts\n');
  ok(await push(noWildcard));
  assert.deepEqual((await v10.query(fql`[W.byId("1")!.data, W.byId("2")!.data]`)).data, [{ name: 'a', conflicts: { age: 'old', extra: 1 } }, { age: 3 }]);
  assert.equal((await serviceFailure(v10.query(fql`W.create({ other: 1 })`))).code, 'constraint_failure');
  // A wildcard comes back only with add_wildcard.
  const withWildcard = noWildcard.replace('  conflicts: { *: Any }?\n', '  conflicts: { *: Any }?\n  *: Any\n');
  const refused = await push(withWildcard);
  assert.equal(refused.status, 400);
  assert.match(refused.message ?? '', /^error: Wildcard was not present in the live schema\n/);
  ok(await push(withWildcard.replace('    move_wildcard .conflicts\n', '    move_wildcard .conflicts\n    add_wildcard\n')));
  assert.equal((await v10.query(fql`W.create({ other: 1 }).other`)).data, 1);
});

test('a staged push migrates the documents when it is committed', async () => {
  const { v10, push } = await database('staged');
  ok(await push('collection U {\n  name: String\n}\n'));
  await v10.query(fql`U.create({ id: "1", name: "a" })`);
  ok(await push('collection U {\n  name: String\n  n: Int\n\n  migrations {\n    add .n\n    backfill .n = 1\n  }\n}\n', 'staged=true&force=true'));
  assert.deepEqual((await v10.query(fql`U.byId("1")!.data`)).data, { name: 'a' });
  const res = await fetch(new URL('/schema/1/staged/commit?force=true', flora.url), { method: 'POST', headers: { authorization: `Bearer ${flora.secret}:staged:admin` } });
  assert.equal(res.status, 200);
  assert.deepEqual((await v10.query(fql`U.byId("1")!.data`)).data, { name: 'a', n: 1 });
});

test('a backfill value not of its field type refuses the push (SchemaCollectionSpec)', async () => {
  const { v10, push } = await database('convert');
  ok(await push('collection Foo {\n  a: Int\n}'));
  await v10.query(fql`Foo.create({ a: 3 })`);
  const fsl = "collection Foo {\n  a: Int\n  b: Int\n\n  migrations {\n    add .b\n    backfill .b = { let x: Any = '0'; x }\n  }\n}";
  assert.deepEqual(await push(fsl), {
    status: 400,
    message: [
      'error: Invalid database schema update.',
      '    error: Failed to convert backfill value.',
      '    constraint failures:',
      '      b: Expected Int, provided String',
      '    at <no source>',
      'at main.fsl:1:1',
      '  |',
      '1 |   collection Foo {',
      '  |  _^',
      '2 | |   a: Int',
      '3 | |   b: Int',
      '4 | |',
      '5 | |   migrations {',
      '6 | |     add .b',
      "7 | |     backfill .b = { let x: Any = '0'; x }",
      '8 | |   }',
      '9 | | }',
      '  | |_^',
      '  |',
    ].join('\n'),
  });
  assert.deepEqual((await v10.query(fql`Foo.all().map(.data).toArray()`)).data, [{ a: 3 }]);
});

test("validate's semantic diff lists a collection's migrations under `Defined fields` (SchemaDiffSpec); an empty collection has none", async () => {
  const { v10, push } = await database('difflines');
  ok(await push('collection D {\n  a: Int\n}\n'));
  await v10.query(fql`D.create({ a: 1 })`);
  const diff = async (fsl: string) => {
    return (await schemaCall(flora.url, `${flora.secret}:difflines:admin`, 'POST', '/schema/1/validate', { 'main.fsl': fsl })).json.diff;
  };
  const moved = 'collection D {\n  b: Int\n  c: String = "hello"\n\n  migrations {\n    move .a -> .b\n    add .c\n  }\n}';
  assert.equal(await diff(moved), '* Modifying collection `D` at main.fsl:1:1:\n  * Defined fields:\n  ~ move field `.a` to field `.b`\n  + add field `.c` with backfill `"hello"`\n\n');
  await v10.query(fql`D.all().forEach(.delete())`);
  assert.equal(await diff(moved), '* Modifying collection `D` at main.fsl:1:1:\n  No semantic changes.\n\n');
});

test('Collection.byName(..).replace with migrations migrates the documents as a push does (FQL2MigrationValidatorSpec)', async () => {
  const { v10 } = await database('viafql');
  await v10.query(fql`Collection.create({ name: "Foo", fields: { foo: { signature: "Int | String" } }, migrations: [{ add: { field: "foo" } }, { backfill: { field: "foo", value: "3" } }] })`);
  await v10.query(fql`Foo.create({ id: 1, foo: 3 }); Foo.create({ id: 2, foo: 5 }); Foo.create({ id: 3, foo: 'hello' }); Foo.create({ id: 4, foo: 'world' })`);
  await v10.query(fql`Collection.byName("Foo")!.replace({
    name: "Foo",
    fields: { bar: { signature: "Int" }, baz: { signature: "String" } },
    migrations: [
      { split: { field: "foo", to: ["bar", "baz"] } },
      { backfill: { field: "bar", value: "0" } },
      { backfill: { field: "baz", value: "''" } }
    ]
  })`);
  assert.deepEqual((await v10.query(fql`[1, 2, 3, 4].map(id => Foo.byId(id) { bar, baz })`)).data, [
    { bar: 3, baz: '' },
    { bar: 5, baz: '' },
    { bar: 0, baz: 'hello' },
    { bar: 0, baz: 'world' },
  ]);
  // Steps already run are not run again, and two updates in one query migrate once, from before the first.
  await v10.query(fql`
    Collection.byName("Foo")!.update({ fields: { n: { signature: "Int" } }, migrations: [{ split: { field: "foo", to: ["bar", "baz"] } }, { backfill: { field: "bar", value: "0" } }, { backfill: { field: "baz", value: "''" } }, { add: { field: "n" } }, { backfill: { field: "n", value: "7" } }] })
    Collection.byName("Foo")!.update({ indexes: { byN: { terms: [{ field: ".n" }] } } })
  `);
  assert.deepEqual((await v10.query(fql`[Foo.byId(3) { bar, baz, n }, Foo.byN(7).count()]`)).data, [{ bar: 0, baz: 'hello', n: 7 }, 4]);
});

test('Collection.update (or create) with a migration that does not fit refuses the query (invalid_schema) and changes nothing', async () => {
  const { v10 } = await database('fqlrefused');
  await v10.query(fql`Collection.create({ name: "Foo", fields: { a: { signature: "Int" } } })`);
  await v10.query(fql`Foo.create({ id: 1, a: 3 })`);
  const noBackfill = await serviceFailure(v10.query(fql`Collection.byName("Foo")!.update({ fields: { a: { signature: "Int" }, b: { signature: "Int" } }, migrations: [{ add: { field: ".b" } }] })`));
  assert.equal(noBackfill.code, 'invalid_schema');
  assert.match(noBackfill.message, /^Invalid database schema update\.\n {4}error: Cannot declare non-nullable field `\.b`: it has no default and no backfill value\n/);
  const mismatch = await serviceFailure(v10.query(fql`Collection.byName("Foo")!.update({ fields: { a: { signature: "Int" }, b: { signature: "Int" } }, migrations: [{ add: { field: ".b" } }, { backfill: { field: ".b", value: "'0'" } }] })`));
  assert.equal(mismatch.code, 'invalid_schema');
  assert.equal(mismatch.message, 'Invalid database schema update.\n    error: Failed to convert backfill value.\n    constraint failures:\n      b: Expected Int, provided String\n    at <no source>');
  assert.deepEqual((await v10.query(fql`[Foo.byId(1)!.data, Collection.byName("Foo")!.fields.b]`)).data, [{ a: 3 }, null]);
  // A new collection's block is checked on its own.
  const created = await serviceFailure(v10.query(fql`Collection.create({ name: "Bar", migrations: [{ drop: { field: ".foo" } }, { drop: { field: ".foo" } }] })`));
  assert.equal(created.code, 'invalid_schema');
  assert.match(created.message, /^Invalid database schema update\.\n {4}error: Cannot drop field `\.foo`/);
  assert.equal((await v10.query(fql`Collection.byName("Bar") == null`)).data, true);
});
