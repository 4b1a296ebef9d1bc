// Documents and collections over a real store: create/read/update/delete, missing documents,
// v4 and v10 seeing the same documents, constraints, at(ts), computed fields.

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { Ref } from '../../../src/values/types';
import { createDocument, getDocument } from '../../../src/model/documents';
import { TestStore } from './harness';

test('documents: create, read, update, replace, delete', async () => {
  const s = await TestStore.open();
  try {
    await s.ok('Collection.create({ name: "Book" })');
    const created = await s.json('Book.create({ id: "12", title: "Dune", year: 1965 })');
    assert.equal(created.id, '12');
    assert.equal(created.coll, 'Book');
    assert.equal(created.title, 'Dune');
    assert.equal(created.year, 1965);
    assert.deepEqual(Object.keys(created), ['id', 'coll', 'ts', 'title', 'year']);
    assert.equal(await s.ok('Book.byId("12")!.title'), '"Dune"');
    assert.equal(await s.ok('Book("12").year + 1'), '1966');
    assert.equal(await s.ok('Book.byId("12")!.exists()'), 'true');
    const updated = await s.json('Book.byId("12")!.update({ year: 1966, tags: ["sf"] })');
    assert.deepEqual([updated.title, updated.year, updated.tags], ['Dune', 1966, ['sf']]);
    const replaced = await s.json('Book.byId("12")!.replace({ title: "Dune Messiah" })');
    assert.deepEqual(Object.keys(replaced), ['id', 'coll', 'ts', 'title']);
    assert.equal(await s.ok('Book.byId("12")!.updateData({ id: 5 }).data'), '{"title":"Dune Messiah","id":5}');
    assert.equal(await s.ok('Book.byId("12")!.delete()'), 'null');
    assert.equal(await s.ok('Book.byId("12").exists()'), 'false');
  } finally {
    await s.close();
  }
});

test('documents: a missing document is a null document with its cause', async () => {
  const s = await TestStore.open();
  try {
    await s.ok('Collection.create({ name: "Book" })');
    assert.equal(await s.ok('Book.byId("404")'), 'null');
    assert.equal((await s.query('Book.byId("404")')).ok && (await s.query('Book.byId("404")') as { tagged: string }).tagged,
      '{"@ref":{"id":"404","coll":{"@mod":"Book"},"exists":false,"cause":"not found"}}');
    const bang = await s.err('Book.byId("404")!');
    assert.equal(bang.code, 'document_not_found');
    assert.equal(bang.message, 'Collection `Book` does not contain document with id 404.');
    const field = await s.err('Book.byId("404").title');
    assert.equal(field.code, 'document_not_found');
    assert.equal(await s.ok('Book.byId("404")?.title'), 'null');
    assert.equal(await s.ok('Book.byId("404") ?? "none"'), '"none"');
    assert.equal(await s.ok('Book.byId("404") == null'), 'true');
    assert.equal(await s.ok('Book.byId("404").exists()'), 'false');
    const upd = await s.err('Book.byId("404").update({ a: 1 })');
    assert.equal(upd.code, 'document_not_found');
    assert.equal(upd.message, 'Collection `Book` does not contain document with id 404.');
    const dup = await s.err('Book.create({ id: "1" }); Book.create({ id: "1" })');
    assert.equal(dup.code, 'document_id_exists');
    assert.equal(dup.message, 'Collection `Book` already contains document with id 1.');
    const unknown = await s.err('Collection("Nope")');
    assert.equal(unknown.code, 'invalid_argument');
    assert.equal(unknown.message, 'invalid argument `collection`: No such user collection `Nope`.');
  } finally {
    await s.close();
  }
});

test('documents: v4 and v10 see the same documents', async () => {
  const s = await TestStore.open();
  try {
    await s.ok('Collection.create({ name: "People" })');
    const v10 = await s.json('People.create({ name: "Ada" })');
    const v4 = await s.txn((tx) => getDocument(tx, Ref.doc('People', v10.id), []));
    assert.deepEqual(v4.get('data'), new Map([['name', 'Ada']]));
    const made = await s.txn((tx) => createDocument(tx, Ref.collection('People'), new Map([['data', new Map([['name', 'Bob'], ['ts', 'x']])]]), []));
    const id = (made.get('ref') as Ref).id;
    const seen = await s.json(`People.byId("${id}")`);
    assert.equal(seen.name, 'Bob');
    // A user field named like a document field stays under `data`.
    assert.deepEqual(seen.data, { ts: 'x' });
    assert.equal(await s.ok(`People.byId("${id}")!.data.ts`), '"x"');
  } finally {
    await s.close();
  }
});

test('documents: writes are refused in set functions and under at()', async () => {
  const s = await TestStore.open();
  try {
    await s.ok('Collection.create({ name: "T" })');
    await s.ok('T.create({ id: "1", n: 1 })');
    const inSet = await s.err('T.all().map(d => d.update({ n: 2 })).toArray()');
    assert.equal(inSet.code, 'invalid_effect');
    assert.equal(inSet.message, '`update` performs a write, which is not allowed in set functions.');
    const past = await s.err('at (Time.now().subtract(1, "day")) { T.create({}) }');
    assert.equal(past.code, 'invalid_write');
    assert.equal(past.message, 'Cannot write at a snapshot time in the past.');
  } finally {
    await s.close();
  }
});

test('documents: at(ts) reads the version of that time', async () => {
  const s = await TestStore.open();
  try {
    await s.ok('Collection.create({ name: "T" })');
    await s.ok('T.create({ id: "1", n: 1 })');
    const before = await s.json('T.byId("1")!.ts');
    await s.ok('T.byId("1")!.update({ n: 2 })');
    assert.equal(await s.ok(`at (Time("${before}")) { T.byId("1")!.n }`), '1');
    assert.equal(await s.ok('T.byId("1")!.n'), '2');
  } finally {
    await s.close();
  }
});

test('documents: check and unique constraints, computed fields', async () => {
  const s = await TestStore.open();
  try {
    await s.ok(`Collection.create({
      name: "Acct",
      computed_fields: { double: { body: "(d) => d.balance * 2" } },
      constraints: [{ check: { name: "positive", body: "(d) => d.balance >= 0" } }, { unique: ["email"] }]
    })`);
    const a = await s.json('Acct.create({ email: "a@x", balance: 10 })');
    assert.equal(a.double, 20);
    assert.equal(await s.ok(`Acct.byId("${a.id}")!.double`), '20');
    const neg = await s.err('Acct.create({ email: "b@x", balance: -1 })');
    assert.equal(neg.code, 'constraint_failure');
    assert.equal(neg.message, 'Failed to create document in collection `Acct`.');
    assert.equal(neg.failures, '[{"paths":[],"message":"Document failed check constraint `positive`"}]');
  } finally {
    await s.close();
  }
});
