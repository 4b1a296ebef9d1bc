// References by identity (issue 13): a rename of any schema document, or a database move, keeps
// every inbound reference working at once, through the driver over HTTP/2 and HTTP/1.1.

import { after, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { query as q, values, type Client } from 'faunadb';
import { clients, serverForFile } from '../helpers/server';
import { failure } from '../helpers/faunaErrors';
import { mustImport, ok as gqlOk } from '../helpers/graphql';

const srv = serverForFile();

type Doc = { ref: values.Ref; ts: number; data: Record<string, any> };
type Page<T = unknown> = { data: T[] };

/** A fresh child database (each test its own) and an admin client in it, on both protocols. */
async function freshDb(name: string): Promise<{ h2: Client; h1: Client }> {
  await srv.drivers.h2.query(q.CreateDatabase({ name }));
  const { secret } = (await srv.drivers.h2.query(q.CreateKey({ database: q.Database(name), role: 'admin' }))) as { secret: string };
  return clientsFor(secret);
}

const opened: { close(): Promise<void> }[] = [];
after(async () => {
  for (const c of opened) await c.close();
});

/** Driver clients for a secret, closed when the file's tests end. */
function clientsFor(secret: string): { h2: Client; h1: Client } {
  const c = clients(srv.flora.url, secret);
  opened.push(c);
  return c;
}

describe('collections renamed', () => {
  test('stored refs, index entries and index sources follow a rename; the old name is free', async () => {
    const { h2, h1 } = await freshDb('coll_rename');
    await h2.query(q.Do(q.CreateCollection({ name: 'authors' }), q.CreateCollection({ name: 'books' })));
    await h2.query(
      q.CreateIndex({ name: 'books_by_author', source: q.Collection('books'), terms: [{ field: ['data', 'author'] }], values: [{ field: ['data', 'title'] }, { field: ['ref'] }] }),
    );
    const author = (await h2.query(q.Create(q.Collection('authors'), { data: { name: 'Le Guin' } }))) as Doc;
    const book = (await h2.query(q.Create(q.Collection('books'), { data: { title: 'Tehanu', author: author.ref, shelf: [{ by: author.ref }] } }))) as Doc;
    const before = (await h2.query(q.Now())) as values.FaunaTime;

    await h2.query(q.Update(q.Collection('authors'), { name: 'writers' }));
    for (const c of [h2, h1]) {
      // The stored ref renders with the new name, at any depth, and works.
      const stored = (await c.query(q.Get(book.ref))) as Doc;
      assert.equal(stored.data.author.collection.id, 'writers');
      assert.equal(stored.data.shelf[0].by.collection.id, 'writers');
      assert.deepEqual(((await c.query(q.Get(q.Select(['data', 'author'], q.Get(book.ref))))) as Doc).data, { name: 'Le Guin' });
      // Match with a ref written under the new name finds the entry written under the old one.
      const page = (await c.query(q.Paginate(q.Match(q.Index('books_by_author'), q.Ref(q.Collection('writers'), author.ref.id))))) as Page<[string, values.Ref]>;
      assert.deepEqual(page.data.map(([title]) => title), ['Tehanu']);
      // The old name names nothing.
      const f = await failure(c, q.Paginate(q.Match(q.Index('books_by_author'), q.Ref(q.Collection('authors'), author.ref.id))));
      assert.deepEqual([f.status, f.code, f.description], [400, 'invalid ref', "Ref refers to undefined collection 'authors'"]);
    }
    // At a time before the rename, the old name shows, and the ref still works there.
    const past = (await h2.query(q.At(before, q.Let({ b: q.Get(book.ref) }, { author: q.Select(['data', 'author'], q.Var('b')), name: q.Select(['data', 'name'], q.Get(q.Select(['data', 'author'], q.Var('b')))) })))) as {
      author: values.Ref;
      name: string;
    };
    assert.equal(past.author.collection!.id, 'authors');
    assert.equal(past.name, 'Le Guin');

    // A new collection may take the freed name without capturing the old references.
    await h2.query(q.CreateCollection({ name: 'authors' }));
    await h2.query(q.Create(q.Ref(q.Collection('authors'), author.ref.id), { data: { name: 'impostor' } }));
    assert.equal(((await h2.query(q.Get(q.Select(['data', 'author'], q.Get(book.ref))))) as Doc).data.name, 'Le Guin');
    assert.deepEqual(((await h2.query(q.Paginate(q.Match(q.Index('books_by_author'), q.Ref(q.Collection('authors'), author.ref.id))))) as Page).data, []);

    // Renaming the source collection keeps it indexed: old and new documents alike.
    await h2.query(q.Update(q.Collection('books'), { name: 'volumes' }));
    const index = (await h2.query(q.Get(q.Index('books_by_author')))) as { source: values.Ref };
    assert.equal(index.source.id, 'volumes');
    await h2.query(q.Create(q.Collection('volumes'), { data: { title: 'Always Coming Home', author: q.Ref(q.Collection('writers'), author.ref.id) } }));
    const titles = (await h1.query(q.Paginate(q.Match(q.Index('books_by_author'), q.Ref(q.Collection('writers'), author.ref.id))))) as Page<[string, values.Ref]>;
    assert.deepEqual(titles.data.map(([t]) => t), ['Always Coming Home', 'Tehanu']);
    assert.ok(titles.data.every(([, r]) => r.collection!.id === 'volumes'));
    assert.equal(((await h2.query(q.Count(q.Documents(q.Collection('volumes')))))), 2);
  });

  test('a ref into a deleted collection renders as Fauna did and fails on use', async () => {
    const { h2 } = await freshDb('coll_deleted');
    await h2.query(q.Do(q.CreateCollection({ name: 'gone' }), q.CreateCollection({ name: 'keep' })));
    const target = (await h2.query(q.Create(q.Collection('gone'), { data: {} }))) as Doc;
    const holder = (await h2.query(q.Create(q.Collection('keep'), { data: { to: target.ref, list: [target.ref, 1] } }))) as Doc;
    await h2.query(q.Delete(q.Collection('gone')));
    const read = (await h2.query(q.Get(holder.ref))) as Doc;
    // Fauna leaves out a field whose ref is gone, and writes null in an array.
    assert.deepEqual(read.data, { list: [null, 1] });
    assert.equal(await h2.query(q.Exists(q.Select(['data', 'to'], q.Get(holder.ref)))), false);
    const f = await failure(h2, q.Get(q.Select(['data', 'to'], q.Get(holder.ref))));
    assert.deepEqual([f.status, f.code], [404, 'instance not found']);
    // A collection created under the freed name does not capture it either.
    await h2.query(q.CreateCollection({ name: 'gone' }));
    assert.deepEqual(((await h2.query(q.Get(holder.ref))) as Doc).data, { list: [null, 1] });
    // Writing the document back keeps the dangling ref as it was (nothing resolved by name).
    await h2.query(q.Update(holder.ref, { data: { touched: true } }));
    assert.deepEqual(((await h2.query(q.Get(holder.ref))) as Doc).data, { list: [null, 1], touched: true });
  });

  test('storing a ref to a schema document that does not exist is invalid ref', async () => {
    const { h2 } = await freshDb('coll_invalid');
    await h2.query(q.CreateCollection({ name: 'things' }));
    const f = await failure(h2, q.Create(q.Collection('things'), { data: { r: q.Ref(q.Collection('nope'), '1') } }));
    assert.deepEqual([f.status, f.code, f.description], [400, 'invalid ref', "Ref refers to undefined collection 'nope'"]);
    const g = await failure(h2, q.Create(q.Collection('things'), { data: { r: q.Index('nope') } }));
    assert.deepEqual([g.status, g.code, g.description], [400, 'invalid ref', "Ref refers to undefined index 'nope'"]);
    // A ref to a missing document of an existing collection is a value like any other.
    const ok = (await h2.query(q.Create(q.Collection('things'), { data: { r: q.Ref(q.Collection('things'), '404') } }))) as Doc;
    assert.equal(ok.data.r.id, '404');
  });
});

describe('indexes, roles, functions and access providers renamed', () => {
  test('roles keep their grants, functions their roles, keys their roles', async () => {
    const { h2, h1 } = await freshDb('schema_rename');
    await h2.query(q.CreateCollection({ name: 'items' }));
    await h2.query(q.CreateIndex({ name: 'items_by_tag', source: q.Collection('items'), terms: [{ field: ['data', 'tag'] }] }));
    // A function body is code (it names collections as written); its role is data.
    await h2.query(q.CreateFunction({ name: 'count_items', body: q.Query(q.Lambda('r', q.Select(['data', 'tag'], q.Get(q.Var('r'))))) }));
    await h2.query(
      q.CreateRole({
        name: 'reader',
        privileges: [
          { resource: q.Index('items_by_tag'), actions: { unrestricted_read: true } },
          { resource: q.Function('count_items'), actions: { call: true } },
        ],
      }),
    );
    await h2.query(q.CreateRole({ name: 'counter', privileges: [{ resource: q.Collection('items'), actions: { read: true } }] }));
    await h2.query(q.Update(q.Function('count_items'), { role: q.Role('counter') }));
    await h2.query(q.CreateAccessProvider({ name: 'idp', issuer: 'https://idp.example/', jwks_uri: 'https://idp.example/.well-known/jwks.json', roles: [q.Role('reader')] }));
    const item = (await h2.query(q.Create(q.Collection('items'), { data: { tag: 'a' } }))) as Doc;
    const { secret } = (await h2.query(q.CreateKey({ role: q.Role('reader') }))) as { secret: string };
    const key = clientsFor(secret);

    await h2.query(q.Update(q.Collection('items'), { name: 'things' }));
    await h2.query(q.Update(q.Index('items_by_tag'), { name: 'things_by_tag' }));
    await h2.query(q.Update(q.Function('count_items'), { name: 'how_many' }));
    await h2.query(q.Update(q.Role('counter'), { name: 'tallier' }));
    await h2.query(q.Update(q.Role('reader'), { name: 'viewer' }));

    const role = (await h2.query(q.Get(q.Role('viewer')))) as { privileges: { resource: values.Ref }[] };
    assert.deepEqual(role.privileges.map((p) => p.resource.id), ['things_by_tag', 'how_many']);
    const fn = (await h2.query(q.Get(q.Function('how_many')))) as { role: values.Ref };
    assert.equal(fn.role.id, 'tallier');
    await h2.query(q.Update(q.AccessProvider('idp'), { name: 'sso' }));
    const idp = (await h2.query(q.Get(q.AccessProvider('sso')))) as { roles: values.Ref[]; issuer: string };
    assert.deepEqual(idp.roles.map((r) => r.id), ['viewer']);
    assert.equal(idp.issuer, 'https://idp.example/');
    assert.equal((await failure(h2, q.Get(q.AccessProvider('idp')))).code, 'invalid ref');
    for (const c of [key.h2, key.h1]) {
      assert.equal(((await c.query(q.Paginate(q.Match(q.Index('things_by_tag'), 'a')))) as Page).data.length, 1);
      // Read through the function's role only: the key's role may call it but not read items.
      const renamed = q.Ref(q.Collection('things'), item.ref.id);
      assert.equal(await c.query(q.Call(q.Function('how_many'), renamed)), 'a');
      assert.equal((await failure(c, q.Get(renamed))).status, 403);
    }
    // The key's own document shows its role by the new name.
    const keys = (await h1.query(q.Map(q.Paginate(q.Keys()), q.Lambda('k', q.Select('role', q.Get(q.Var('k'))))))) as Page<values.Ref>;
    assert.deepEqual(keys.data.map((r) => r.id), ['viewer']);
  });
});

describe('databases renamed and moved', () => {
  test('keys, nested refs and scoped documents follow their database', async () => {
    await srv.drivers.h2.query(q.CreateDatabase({ name: 'outer' }));
    const outer = (await srv.drivers.h2.query(q.CreateKey({ database: q.Database('outer'), role: 'admin' }))) as { secret: string };
    const o = clientsFor(outer.secret);
    await o.h2.query(q.CreateDatabase({ name: 'inner' }));
    await o.h2.query(q.CreateDatabase({ name: 'home' }));
    const innerKey = (await o.h2.query(q.CreateKey({ database: q.Database('inner'), role: 'server' }))) as { secret: string; ref: values.Ref };
    const inner = clientsFor(innerKey.secret);
    await inner.h2.query(q.CreateCollection({ name: 'notes' }));
    const note = (await inner.h2.query(q.Create(q.Collection('notes'), { data: { text: 'hi' } }))) as Doc;
    // The parent keeps a ref into its child.
    await o.h2.query(q.CreateCollection({ name: 'links' }));
    const link = (await o.h2.query(q.Create(q.Collection('links'), { data: { to: q.Ref(q.Collection('notes', q.Database('inner')), note.ref.id) } }))) as Doc;

    await o.h2.query(q.Update(q.Database('inner'), { name: 'renamed' }));
    for (const c of [o.h2, o.h1]) {
      const got = (await c.query(q.Get(link.ref))) as Doc;
      assert.equal(got.data.to.collection.database.id, 'renamed');
      assert.deepEqual(((await c.query(q.Get(q.Select(['data', 'to'], q.Get(link.ref))))) as Doc).data, { text: 'hi' });
      const keyDoc = (await c.query(q.Get(innerKey.ref))) as { database: values.Ref };
      assert.equal(keyDoc.database.id, 'renamed');
    }
    for (const c of [inner.h2, inner.h1]) assert.equal(((await c.query(q.Get(note.ref))) as Doc).data.text, 'hi');

    // Moved under a sibling: the key still opens it, the parent's ref now goes through the sibling.
    await o.h2.query(q.MoveDatabase(q.Database('renamed'), q.Database('home')));
    for (const c of [inner.h2, inner.h1]) assert.equal(((await c.query(q.Get(note.ref))) as Doc).data.text, 'hi');
    const moved = (await o.h2.query(q.Get(link.ref))) as Doc;
    assert.equal(moved.data.to.collection.database.id, 'renamed');
    assert.equal(moved.data.to.collection.database.database.id, 'home');
    assert.deepEqual(((await o.h1.query(q.Get(q.Select(['data', 'to'], q.Get(link.ref))))) as Doc).data, { text: 'hi' });
  });
});

describe('names looked up across databases', () => {
  test('one document naming refs in several databases reads them all, each by its current name', async () => {
    const { h2 } = await freshDb('fanout');
    const refs = [];
    for (const name of ['a', 'b', 'c', 'd']) {
      await h2.query(q.CreateDatabase({ name }));
      const { secret } = (await h2.query(q.CreateKey({ database: q.Database(name), role: 'server' }))) as { secret: string };
      const child = clientsFor(secret);
      await child.h2.query(q.CreateCollection({ name: 'things' }));
      const doc = (await child.h2.query(q.Create(q.Collection('things'), { data: { in: name } }))) as Doc;
      refs.push(q.Ref(q.Collection('things', q.Database(name)), doc.ref.id));
    }
    await h2.query(q.CreateCollection({ name: 'hub' }));
    const hub = (await h2.query(q.Create(q.Collection('hub'), { data: { all: refs } }))) as Doc;
    await h2.query(q.Update(q.Database('c'), { name: 'see' }));
    const read = (await h2.query(q.Get(hub.ref))) as Doc;
    assert.deepEqual(read.data.all.map((r: values.Ref) => r.collection!.database!.id), ['a', 'b', 'see', 'd']);
    const inside = (await h2.query(q.Map(q.Select(['data', 'all'], q.Get(hub.ref)), q.Lambda('r', q.Select(['data', 'in'], q.Get(q.Var('r'))))))) as string[];
    assert.deepEqual(inside, ['a', 'b', 'c', 'd']);
  });
});

describe('identities renamed', () => {
  test('tokens and credentials keep their identity through a rename of its collection', async () => {
    const { h2 } = await freshDb('identity_rename');
    await h2.query(q.CreateCollection({ name: 'users' }));
    await h2.query(q.CreateRole({ name: 'member', membership: [{ resource: q.Collection('users') }], privileges: [{ resource: q.Collection('users'), actions: { read: true } }] }));
    const user = (await h2.query(q.Create(q.Collection('users'), { credentials: { password: 'pw' }, data: { name: 'ada' } }))) as Doc;
    // Data given at login is stored like any other: its refs too.
    const { secret, ref: tokenRef } = (await h2.query(q.Login(user.ref, { password: 'pw', data: { device: user.ref } }))) as { secret: string; ref: values.Ref };
    const token = clientsFor(secret);

    await h2.query(q.Update(q.Collection('users'), { name: 'members' }));
    for (const c of [token.h2, token.h1]) {
      const me = (await c.query(q.CurrentIdentity())) as values.Ref;
      assert.equal(me.collection!.id, 'members');
      assert.equal(((await c.query(q.Get(q.CurrentIdentity()))) as Doc).data.name, 'ada');
    }
    const tokens = (await h2.query(q.Map(q.Paginate(q.Tokens()), q.Lambda('t', q.Select('instance', q.Get(q.Var('t'))))))) as Page<values.Ref>;
    assert.deepEqual(tokens.data.map((r) => r.collection!.id), ['members']);
    assert.equal(((await h2.query(q.Get(tokenRef))) as Doc).data.device.collection.id, 'members');
    // Login under the new name finds the same credentials.
    assert.ok(await h2.query(q.Identify(q.Ref(q.Collection('members'), user.ref.id), 'pw')));
    const role = (await h2.query(q.Get(q.Role('member')))) as { membership: { resource: values.Ref }[] };
    assert.equal(role.membership[0].resource.id, 'members');
  });
});

describe('GraphQL after renames', () => {
  test('the imported API keeps its collections, indexes and functions through renames', async () => {
    const { h2 } = await freshDb('gql_rename');
    const { secret } = (await h2.query(q.CreateKey({ role: 'admin' }))) as { secret: string };
    await mustImport(
      srv.flora.url,
      secret,
      `type Author { name: String!  books: [Book] @relation }
       type Book { title: String!  author: Author! }
       type Query { allBooks: [Book!]  bookByTitle(title: String!): Book @index(name: "book_by_title")  shout(s: String!): String! @resolver(name: "shout") }`,
    );
    await h2.query(q.Update(q.Function('shout'), { body: q.Query(q.Lambda(['s'], q.UpperCase(q.Var('s')))) }));
    const made = await gqlOk(srv.flora.url, secret, `mutation { createBook(data: { title: "Dune", author: { create: { name: "Herbert" } } }) { _id author { _id } } }`);
    const authorId = made.createBook.author._id as string;

    await h2.query(q.Update(q.Collection('Author'), { name: 'writers' }));
    await h2.query(q.Update(q.Collection('Book'), { name: 'volumes' }));
    await h2.query(q.Update(q.Index('book_by_title'), { name: 'volume_by_title' }));
    await h2.query(q.Update(q.Index('allBooks'), { name: 'every_volume' }));
    await h2.query(q.Update(q.Index('author_books_by_author'), { name: 'volumes_by_writer' }));
    await h2.query(q.Update(q.Function('shout'), { name: 'yell' }));

    const read = await gqlOk(
      srv.flora.url,
      secret,
      `{ allBooks { data { title author { name books { data { title } } } } } bookByTitle(title: "Dune") { _id } shout(s: "hi") }`,
    );
    assert.deepEqual(read.allBooks.data, [{ title: 'Dune', author: { name: 'Herbert', books: { data: [{ title: 'Dune' }] } } }]);
    assert.equal(read.bookByTitle._id, made.createBook._id);
    assert.equal(read.shout, 'HI');
    // Writes land in the renamed collections and are found through the renamed indexes.
    await gqlOk(srv.flora.url, secret, `mutation($a: ID!) { createBook(data: { title: "Children of Dune", author: { connect: $a } }) { _id } }`, { a: authorId });
    const author = await gqlOk(srv.flora.url, secret, `query($a: ID!) { findAuthorByID(id: $a) { books { data { title } } } }`, { a: authorId });
    assert.deepEqual(author.findAuthorByID.books.data.map((b: { title: string }) => b.title).sort(), ['Children of Dune', 'Dune']);
    assert.equal(await h2.query(q.Count(q.Documents(q.Collection('volumes')))), 2);
  });
});
