// Refs to schema documents that do not exist (fql-v4.md §1.9, DECISIONS #14): a name that resolves
// to nothing is an unresolved ref, and reading or writing it is `invalid ref` (400) at the ref's
// argument, as Fauna's casts answer (Renderable.scala UnresolvedRefError; IndexSpec "Ref refers to
// undefined index 'spells'"). Exists of one is false. A missing document in an existing collection
// stays `instance not found` (404).

import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { query as q, type Expr } from 'faunadb';
import { serverForFile, ClientPool } from '../helpers/server';
import { failure } from '../helpers/faunaErrors';

const srv = serverForFile();

/** Each schema ref constructor with the type name Fauna's description uses. */
const KINDS: [string, (name: string) => Expr][] = [
  ['collection', (n) => q.Collection(n)],
  ['index', (n) => q.Index(n)],
  ['function', (n) => q.Function(n)],
  ['role', (n) => q.Role(n)],
  ['database', (n) => q.Database(n)],
  ['access_provider', (n) => q.AccessProvider(n)],
];

describe('refs to schema documents that do not exist', () => {
  for (const proto of ['h2', 'h1'] as const) {
    test(`Get is invalid ref naming the kind, Exists is false (${proto})`, async () => {
      const c = srv.drivers[proto];
      for (const [kind, make] of KINDS) {
        const f = await failure(c, q.Get(make('nope')));
        assert.deepEqual(
          [f.status, f.code, f.description, f.position],
          [400, 'invalid ref', `Ref refers to undefined ${kind} 'nope'`, ['get']],
          kind,
        );
        assert.equal(await c.query(q.Exists(make('nope'))), false, kind);
      }
    });
  }

  test('Update, Replace and Delete are invalid ref at their ref argument', async () => {
    const c = srv.drivers.h2;
    for (const [kind, make] of KINDS) {
      const want = (verb: string) => [400, 'invalid ref', `Ref refers to undefined ${kind} 'nope'`, [verb]];
      const pick = (f: { status: number; code: string; description: string; position: unknown }) => [f.status, f.code, f.description, f.position];
      assert.deepEqual(pick(await failure(c, q.Update(make('nope'), { data: { a: 1 } }))), want('update'), kind);
      assert.deepEqual(pick(await failure(c, q.Replace(make('nope'), { data: { a: 1 } }))), want('replace'), kind);
      assert.deepEqual(pick(await failure(c, q.Delete(make('nope')))), want('delete'), kind);
    }
  });

  test('a deleted or renamed schema document no longer resolves by its old name', async () => {
    const c = srv.drivers.h2;
    await c.query(q.CreateCollection({ name: 'books' }));
    await c.query(q.CreateIndex({ name: 'spells', source: q.Collection('books') }));
    await c.query(q.Update(q.Index('spells'), { name: 'novels' }));
    const renamed = await failure(c, q.Get(q.Index('spells')));
    assert.deepEqual([renamed.status, renamed.code, renamed.description], [400, 'invalid ref', "Ref refers to undefined index 'spells'"]);
    assert.equal(((await c.query(q.Get(q.Index('novels')))) as { name: string }).name, 'novels');

    await c.query(q.CreateFunction({ name: 'doomed', body: q.Query(q.Lambda('x', q.Var('x'))) }));
    await c.query(q.Delete(q.Function('doomed')));
    const deleted = await failure(c, q.Get(q.Function('doomed')));
    assert.deepEqual([deleted.status, deleted.code, deleted.description], [400, 'invalid ref', "Ref refers to undefined function 'doomed'"]);
    assert.equal(await c.query(q.Exists(q.Function('doomed'))), false);
  });

  test('in a child database: the missing document or the missing database is named', async () => {
    const c = srv.drivers.h2;
    await c.query(q.CreateDatabase({ name: 'child' }));
    const inChild = await failure(c, q.Get(q.Collection('nope', q.Database('child'))));
    assert.deepEqual([inChild.status, inChild.code, inChild.description], [400, 'invalid ref', "Ref refers to undefined collection 'nope'"]);
    const noDb = await failure(c, q.Get(q.Index('x', q.Database('nowhere'))));
    assert.deepEqual([noDb.status, noDb.code, noDb.description], [400, 'invalid ref', "Ref refers to undefined database 'nowhere'"]);
    assert.equal(await c.query(q.Exists(q.Role('nope', q.Database('child')))), false);
  });

  test('Paginate of an unresolved ref is invalid ref too; a key without read access gets false from Exists', async () => {
    const c = srv.drivers.h2;
    const f = await failure(c, q.Paginate(q.Collection('nope')));
    assert.deepEqual([f.status, f.code, f.description, f.position], [400, 'invalid ref', "Ref refers to undefined collection 'nope'", ['paginate']]);
    const pool = new ClientPool(srv.flora.url);
    try {
      const { secret } = (await c.query(q.CreateKey({ role: 'client' }))) as { secret: string };
      assert.equal(await pool.client(secret).query(q.Exists(q.Collection('nope'))), false);
    } finally {
      await pool.close();
    }
  });
});

describe('a missing document in an existing collection', () => {
  test('stays instance not found (404) for Get, Update and Delete; Exists is false', async () => {
    const c = srv.drivers.h2;
    await c.query(q.CreateCollection({ name: 'things' }));
    const ref = q.Ref(q.Collection('things'), '1');
    const pick = (f: { status: number; code: string; description: string }) => [f.status, f.code, f.description];
    const want = [404, 'instance not found', 'Document not found.'];
    assert.deepEqual(pick(await failure(c, q.Get(ref))), want);
    assert.deepEqual(pick(await failure(c, q.Update(ref, { data: {} }))), want);
    assert.deepEqual(pick(await failure(c, q.Delete(ref))), want);
    assert.equal(await c.query(q.Exists(ref)), false);
  });

  test('a schema document that exists reads normally', async () => {
    const c = srv.drivers.h2;
    await c.query(q.CreateRole({ name: 'reader', privileges: [] }));
    assert.equal(((await c.query(q.Get(q.Role('reader')))) as { name: string }).name, 'reader');
    assert.equal(await c.query(q.Exists(q.Role('reader'))), true);
  });
});
