// FQL v10 collections and documents through the official `fauna` driver against a real server (on
// one process, and again on a tier of two workers in the runner's tier pass): schema written through
// FQL, documents created, read, updated and deleted, an index with terms and a range, pagination whose
// cursor is used in later requests (which any worker may answer), constraints answered with the core's
// errors, and the same documents seen through FQL v4.

import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { Client, ConstraintFailureError, fql, type Page, type Document } from 'fauna';
import faunadb, { query as q } from 'faunadb';
import { startFlora, type FloraProcess } from '../helpers/server';
import { serviceFailure } from '../helpers/v10';

let flora: FloraProcess;
let client: Client;
let v4: faunadb.Client;

before(async () => {
  flora = await startFlora();
  client = new Client({ secret: flora.secret, endpoint: new URL(flora.url), max_attempts: 1 });
  const url = new URL(flora.url);
  v4 = new faunadb.Client({ secret: flora.secret, domain: url.hostname, port: Number(url.port), scheme: 'http' });
});

after(async () => {
  client?.close();
  await v4?.close();
  await flora?.stop();
});

describe('FQL v10 collections and documents', () => {
  before(async () => {
    await client.query(fql`Collection.create({
      name: "Book",
      indexes: { byAuthor: { terms: [{ field: ".author" }], values: [{ field: ".year" }] } },
      constraints: [{ unique: [".isbn"] }, { check: { name: "recent", body: "(b) => b.year > 1400" } }]
    })`);
    const books = Array.from({ length: 25 }, (_, i) => ({ title: `Book ${i}`, author: i % 2 ? 'Le Guin' : 'Herbert', year: 1960 + i, isbn: `isbn-${i}` }));
    await client.query(fql`${books}.forEach(b => Book.create(b))`);
  });

  test('a document created through v10 reads back with its fields at the top level', async () => {
    const made = (await client.query<Document>(fql`Book.create({ title: "Dune Messiah", author: "Herbert", year: 1969, isbn: "dm" })`)).data;
    assert.equal(made.coll.name, 'Book');
    assert.equal((made as unknown as { title: string }).title, 'Dune Messiah');
    const read = (await client.query(fql`Book.byId(${made.id})!.title`)).data;
    assert.equal(read, 'Dune Messiah');
    const updated = (await client.query(fql`Book.byId(${made.id})!.update({ year: 1970 }).year`)).data;
    assert.equal(updated, 1970);
    assert.equal((await client.query(fql`Book.byId(${made.id})!.delete(); Book.byId(${made.id}).exists()`)).data, false);
  });

  test('a missing document is a null document; `!` on it is document_not_found', async () => {
    assert.equal((await client.query(fql`Book.byId("404")?.title ?? "none"`)).data, 'none');
    const e = await serviceFailure(client.query(fql`Book.byId("404")!`));
    assert.equal(e.code, 'document_not_found');
    assert.match(e.message, /Collection `Book` does not contain document with id 404/);
  });

  test('an index method with terms, ordered by its values, with a range', async () => {
    const years = (await client.query<number[]>(fql`Book.byAuthor("Le Guin").map(.year).toArray()`)).data;
    assert.deepEqual(years, Array.from({ length: 12 }, (_, i) => 1961 + 2 * i));
    const ranged = (await client.query<number[]>(fql`Book.byAuthor("Le Guin", { from: 1970, to: 1975 }).map(.year).toArray()`)).data;
    assert.deepEqual(ranged, [1971, 1973, 1975]);
  });

  test('pages follow their cursor across requests', async () => {
    const seen: string[] = [];
    let page = (await client.query<Page<string>>(fql`Book.where(.year < 1985).map(.title).pageSize(4)`)).data;
    for (;;) {
      seen.push(...page.data);
      if (page.after === undefined) break;
      page = (await client.query<Page<string>>(fql`Set.paginate(${page.after})`)).data;
    }
    assert.deepEqual(seen.sort(), Array.from({ length: 25 }, (_, i) => `Book ${i}`).sort());
    const bad = await serviceFailure(client.query(fql`Set.paginate("not a cursor")`));
    assert.equal(bad.code, 'invalid_cursor');
  });

  test('unique and check constraints answer constraint_failure', async () => {
    const unique = await serviceFailure(client.query(fql`Book.create({ title: "again", author: "x", year: 2000, isbn: "isbn-1" })`));
    assert.equal(unique.code, 'constraint_failure');
    assert.ok(unique instanceof ConstraintFailureError, 'the driver reads the failures it lists');
    assert.ok(unique.constraint_failures.length > 0);
    const check = await serviceFailure(client.query(fql`Book.create({ title: "old", author: "x", year: 1200, isbn: "old" })`));
    assert.ok(check instanceof ConstraintFailureError);
    assert.match(JSON.stringify(check.constraint_failures), /recent/);
    // A replace is an update in the core's words (its DocAction has no replace).
    const id = (await client.query<string>(fql`Book.create({ title: "new", author: "x", year: 2001, isbn: "new" }).id`)).data;
    const replaced = await serviceFailure(client.query(fql`Book.byId(${id})!.replace({ title: "new", author: "x", year: 1200, isbn: "new" })`));
    assert.equal(replaced.message, `Failed to update document with id ${id} in collection \`Book\`.`);
    const def = await serviceFailure(client.query(fql`Book.definition.replace({ name: "Book", history_days: -1 })`));
    assert.equal(def.message, 'Failed to update Collection `Book`.');
  });

  test('one store, two languages: v4 reads what v10 wrote, and v10 reads what v4 wrote', async () => {
    const id = (await client.query<string>(fql`Book.create({ title: "Both", author: "Both", year: 2001, isbn: "both" }).id`)).data;
    const viaV4 = (await v4.query(q.Get(q.Ref(q.Collection('Book'), id)))) as { data: Record<string, unknown> };
    assert.equal(viaV4.data.title, 'Both');
    const made = (await v4.query(q.Create(q.Collection('Book'), { data: { title: 'From v4', author: 'v4', year: 2002, isbn: 'v4' } }))) as { ref: { id: string } };
    assert.equal((await client.query(fql`Book.byId(${made.ref.id})!.title`)).data, 'From v4');
  });
});

/** A query from source text built at run time. */
function source(text: string) {
  return fql(Object.assign([text], { raw: [text] }));
}

describe('a collection written and used in one query (the core resolves names in the schema the query began with)', () => {
  test('a collection created by a query is not there yet: unbound by name, a hint through Collection(name)', async () => {
    const global = await serviceFailure(client.query(fql`Collection.create({ name: "Fresh" }); Fresh.create({ n: 1 })`));
    assert.equal(global.code, 'unbound_variable');
    assert.equal(global.message, 'Unbound variable `Fresh`');
    // Refused, so nothing was created (FQL2CollectionSpec "give pretty error for collections created in this transaction").
    assert.equal((await client.query(fql`Collection.byName("Foo").exists()`)).data, false);
    const byName = await serviceFailure(client.query(fql`Collection.create({
  name: "Foo"
})
Collection("Foo")`));
    assert.equal(byName.code, 'invalid_argument');
    assert.equal(
      byName.queryInfo?.summary,
      [
        'error: invalid argument `collection`: No such user collection `Foo`.',
        'at *query*:4:11',
        '  |',
        '4 | Collection("Foo")',
        '  |           ^^^^^^^',
        '  |',
        'hint: A collection cannot be created and used in the same query.',
        '  |',
        '4 | Collection("Foo")',
        '  |           ^^^^^^^',
        '  |',
      ].join('\n'),
    );
    const missing = await serviceFailure(client.query(fql`Collection("Foo")`));
    assert.equal(missing.queryInfo?.summary?.includes('hint:'), false);
  });

  test('a query may write a collection or its documents, not both (FQL2CollectionSpec "disallow collection writes and doc writes")', async () => {
    await client.query(fql`Collection.create({ name: "User" })`);
    await client.query(fql`User.create({ id: "1234" })`);
    const docWrites = [`User.create({ foo: 'bar' })`, `User.byId('1234')!.update({ foo: 'bar' })`, `User.byId('1234')!.replace({ foo: 'bar' })`];
    const collWrites = [`Collection.byName('User')!.update({ data: { hi: 3 } })`, `Collection.byName('User')!.replace({ name: 'User', data: { hi: 3 } })`];
    for (const doc of docWrites)
      for (const coll of collWrites)
        for (const query of [`${doc}\n${coll}`, `${coll}\n${doc}`]) {
          const e = await serviceFailure(client.query(source(query)));
          assert.equal(e.code, 'invalid_write', query);
          assert.equal(e.message, 'Cannot modify a document and its collection in the same query.', query);
        }
    const e = await serviceFailure(client.query(fql`User.definition.update({ data: { hi: 3 }})
User.create({ foo: "bar" })`));
    assert.equal(
      e.queryInfo?.summary,
      ['error: Cannot modify a document and its collection in the same query.', 'at *query*:2:12', '  |', '2 | User.create({ foo: "bar" })', '  |            ^^^^^^^^^^^^^^^^', '  |'].join('\n'),
    );
    // Each alone works, and so do writes to two collections' documents and another's definition.
    assert.equal((await client.query(fql`User.byId('1234')!.update({ foo: 'bar' }).foo`)).data, 'bar');
    assert.equal((await client.query(fql`Collection.byName('User')!.update({ data: { hi: 3 } }).data.hi`)).data, 3);
    assert.equal((await client.query(fql`Book.create({ title: "x", author: "y", year: 2000, isbn: "x" }); Collection.byName('User')!.update({ data: { hi: 4 } }).data.hi`)).data, 4);
  });
});
