// Identity-scoped secrets (`secret:@doc/<coll>/<id>`, fql-v4.md §6.2), history privileges
// (`history_read`, `history_write` with their predicate arguments, §6.5), per-element filtering of
// native sets by role predicates, and index definitions versus index entries for public reads.

import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import faunadb, { query as q } from 'faunadb';
import { startFlora, type FloraProcess, ClientPool } from '../helpers/server';
import { failure, statusOf } from '../helpers/faunaErrors';

let srv: FloraProcess;
let root: faunadb.Client;
let pool: ClientPool;
let alice: faunadb.values.Ref;
let bob: faunadb.values.Ref;

type Doc = { ref: faunadb.values.Ref; ts: number; name?: string; data: Record<string, unknown> };

before(async () => {
  srv = await startFlora();
  pool = new ClientPool(srv.url);
  root = pool.client(srv.secret);
  await root.query(q.CreateCollection({ name: 'people' }));
  await root.query(q.CreateCollection({ name: 'notes' }));
  alice = ((await root.query(q.Create(q.Ref(q.Collection('people'), '1'), { data: { name: 'alice' } }))) as Doc).ref;
  bob = ((await root.query(q.Create(q.Ref(q.Collection('people'), '2'), { data: { name: 'bob' } }))) as Doc).ref;
  // Members of `people` may read and write only their own document.
  await root.query(
    q.CreateRole({
      name: 'self_only',
      membership: [{ resource: q.Collection('people') }],
      privileges: [
        {
          resource: q.Collection('people'),
          actions: {
            read: q.Query(q.Lambda('r', q.Equals(q.Var('r'), q.CurrentIdentity()))),
            write: q.Query(q.Lambda(['o', 'n', 'r'], q.Equals(q.Var('r'), q.CurrentIdentity()))),
          },
        },
      ],
    }),
  );
});
after(async () => {
  await pool.close();
  await srv.stop();
});

async function key(role: string): Promise<string> {
  return ((await root.query(q.CreateKey({ role }))) as { secret: string }).secret;
}

describe('@doc scoped secrets', () => {
  test('an admin or server key acts as the document: CurrentIdentity and its membership roles', async () => {
    for (const base of [srv.secret, await key('admin'), await key('server')]) {
      const c = pool.client(`${base}:@doc/people/1`);
      assert.deepEqual(await c.query(q.CurrentIdentity()), alice);
      assert.equal(await c.query(q.HasCurrentIdentity()), true);
      // The token is the key used (none for the root secret), as for any key.
      assert.equal(await c.query(q.HasCurrentToken()), base !== srv.secret);
      assert.equal(((await c.query(q.Get(alice))) as Doc).data.name, 'alice');
      assert.equal(await statusOf(c, q.Get(bob)), 403);
      await c.query(q.Update(alice, { data: { seen: true } }));
      assert.equal(await statusOf(c, q.Update(bob, { data: { seen: true } })), 403);
      // The key's own powers are gone: no schema changes, no other collections.
      assert.equal(await statusOf(c, q.CreateCollection({ name: 'nope' })), 403);
      assert.equal(await statusOf(c, q.Paginate(q.Documents(q.Collection('notes')))), 403);
    }
  });

  test('the legacy collections/<c>/<id> and classes/<c>/<id> forms name the same identity', async () => {
    for (const form of ['collections/people/2', 'classes/people/2']) {
      assert.deepEqual(await pool.client(`${srv.secret}:${form}`).query(q.CurrentIdentity()), bob);
    }
  });

  test('refused (401): client and server-readonly keys, a server key with a database path, missing documents', async () => {
    await root.query(q.CreateDatabase({ name: 'child' }));
    const cases: [string, string][] = [
      ['client key', `${await key('client')}:@doc/people/1`],
      ['server-readonly key', `${await key('server-readonly')}:@doc/people/1`],
      ['server key with a path', `${await key('server')}:child:@doc/people/1`],
      ['missing document', `${srv.secret}:@doc/people/999`],
      ['missing collection', `${srv.secret}:@doc/ghosts/1`],
      ['non-numeric id', `${srv.secret}:@doc/people/abc`],
      ['unknown @ form', `${srv.secret}:@thing/people/1`],
    ];
    for (const [what, secret] of cases) assert.equal(await statusOf(pool.client(secret), q.Now()), 401, what);
  });

  test('deleting the identity document refuses the scoped secret on the next request', async () => {
    const carol = ((await root.query(q.Create(q.Collection('people'), { data: { name: 'carol' } }))) as Doc).ref;
    const c = pool.client(`${srv.secret}:@doc/people/${carol.id}`);
    assert.deepEqual(await c.query(q.CurrentIdentity()), carol);
    await root.query(q.Delete(carol));
    assert.equal(await statusOf(c, q.CurrentIdentity()), 401);
  });
});

describe('history privileges', () => {
  let note: faunadb.values.Ref;
  let other: faunadb.values.Ref;
  let created: number;

  before(async () => {
    const n = (await root.query(q.Create(q.Ref(q.Collection('notes'), '10'), { data: { v: 1 } }))) as Doc;
    note = n.ref;
    created = n.ts;
    await root.query(q.Update(note, { data: { v: 2 } }));
    other = ((await root.query(q.Create(q.Ref(q.Collection('notes'), '11'), { data: { v: 1 } }))) as Doc).ref;
    await root.query(
      q.CreateRole({
        name: 'notes_reader',
        privileges: [{ resource: q.Collection('notes'), actions: { read: true } }],
      }),
    );
    await root.query(
      q.CreateRole({
        name: 'notes_historian',
        privileges: [
          {
            resource: q.Collection('notes'),
            actions: {
              read: true,
              // Only note 10's history may be read.
              history_read: q.Query(q.Lambda('r', q.Equals(q.Select('id', q.Var('r')), '10'))),
              // Inserting is allowed for note 10 only, as an update before now, with data.v < 100.
              history_write: q.Query(
                q.Lambda(
                  ['r', 'ts', 'action', 'data'],
                  q.And(
                    q.Equals(q.Select('id', q.Var('r')), '10'),
                    q.IsTimestamp(q.Var('ts')),
                    q.Equals(q.Var('action'), 'update'),
                    q.LT(q.Select('v', q.Var('data'), 0), 100),
                  ),
                ),
              ),
            },
          },
        ],
      }),
    );
  });

  test('read without history_read: Get works, Events and events pagination are denied', async () => {
    const c = pool.client(`${srv.secret}:@role/notes_reader`);
    assert.equal(((await c.query(q.Get(note))) as Doc).data.v, 2);
    for (const expr of [q.Paginate(q.Events(note)), q.Paginate(note, { events: true }), q.Paginate(q.Events(q.Singleton(note)))]) {
      const f = await failure(c, expr);
      assert.deepEqual([f.status, f.code], [403, 'permission denied']);
    }
  });

  test('a history_read predicate receives the ref: note 10 yes, note 11 no', async () => {
    const c = pool.client(`${srv.secret}:@role/notes_historian`);
    const page = (await c.query(q.Paginate(q.Events(note)))) as { data: { action: string }[] };
    assert.deepEqual(page.data.map((e) => e.action), ['create', 'update']);
    assert.equal(await statusOf(c, q.Paginate(q.Events(other))), 403);
  });

  test('a history_write predicate receives [ref, ts, action, data]', async () => {
    const c = pool.client(`${srv.secret}:@role/notes_historian`);
    const at = created + 1;
    const inserted = (await c.query(q.Insert(note, at, 'update', { data: { v: 50 } }))) as { action: string };
    assert.equal(inserted.action, 'create'); // an inserted update is stored as a full version
    assert.equal(((await root.query(q.Get(note, at))) as Doc).data.v, 50);
    assert.equal(await statusOf(c, q.Insert(note, at, 'update', { data: { v: 500 } })), 403);
    assert.equal(await statusOf(c, q.Insert(note, at, 'create', { data: { v: 5 } })), 403);
    assert.equal(await statusOf(c, q.Insert(other, at, 'update', { data: { v: 5 } })), 403);
    // Remove passes null data; with the predicate's Select default that is allowed for update only.
    assert.equal(await statusOf(c, q.Remove(note, at, 'update')), 200);
    assert.equal(((await root.query(q.Get(note, at))) as Doc).data.v, 1);
    assert.equal(await statusOf(pool.client(`${srv.secret}:@role/notes_reader`), q.Insert(note, at, 'update', { data: { v: 1 } })), 403);
  });
});

describe('native sets under roles', () => {
  test('Paginate(Collections()) keeps only the elements a read predicate allows', async () => {
    await root.query(
      q.CreateRole({
        name: 'sees_people_collection',
        privileges: [
          { resource: q.Collections(), actions: { read: q.Query(q.Lambda('r', q.Equals(q.Select('id', q.Var('r')), 'people'))) } },
        ],
      }),
    );
    const c = pool.client(`${srv.secret}:@role/sees_people_collection`);
    const page = (await c.query(q.Paginate(q.Collections()))) as { data: faunadb.values.Ref[] };
    assert.deepEqual(page.data.map((r) => r.id), ['people']);
    assert.equal(((await c.query(q.Get(q.Collection('people')))) as Doc).name, 'people');
    assert.equal(await statusOf(c, q.Get(q.Collection('notes'))), 403);
    // No grant at all on a native collection: the set read itself is denied.
    assert.equal(await statusOf(c, q.Paginate(q.Indexes())), 403);
  });

  test('a static read grant shows every element', async () => {
    await root.query(q.CreateRole({ name: 'sees_collections', privileges: [{ resource: q.Collections(), actions: { read: true } }] }));
    const page = (await pool.client(`${srv.secret}:@role/sees_collections`).query(q.Paginate(q.Collections()))) as { data: faunadb.values.Ref[] };
    assert.deepEqual(page.data.map((r) => r.id).sort(), ['notes', 'people']);
  });
});

describe('index entries versus index definitions', () => {
  test('a client key may read a public index set but not the index definition document', async () => {
    await root.query(q.CreateCollection({ name: 'catalog', permissions: { read: 'public' } }));
    await root.query(q.CreateIndex({ name: 'catalog_all', source: q.Collection('catalog'), permissions: { read: 'public' } }));
    await root.query(q.Create(q.Collection('catalog'), { data: { x: 1 } }));
    const c = pool.client(await key('client'));
    assert.equal(((await c.query(q.Paginate(q.Match(q.Index('catalog_all'))))) as { data: unknown[] }).data.length, 1);
    const f = await failure(c, q.Get(q.Index('catalog_all')));
    assert.deepEqual([f.status, f.code], [403, 'permission denied']);
    assert.equal(await statusOf(c, q.Exists(q.Index('catalog_all'))), 403);
  });

  test('a role with read on an index reads its entries; its definition needs read on Indexes()', async () => {
    await root.query(q.CreateRole({ name: 'catalog_index', privileges: [{ resource: q.Index('catalog_all'), actions: { read: true } }, { resource: q.Collection('catalog'), actions: { read: true } }] }));
    const c = pool.client(`${srv.secret}:@role/catalog_index`);
    assert.equal(((await c.query(q.Paginate(q.Match(q.Index('catalog_all'))))) as { data: unknown[] }).data.length, 1);
    assert.equal(await statusOf(c, q.Get(q.Index('catalog_all'))), 403);
  });
});
