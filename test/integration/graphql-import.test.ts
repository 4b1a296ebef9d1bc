// POST /import (graphql.md A.1.2, A.2–A.4): what an import creates on the FQL side (checked with the
// official driver), merge / replace / override, bad schemas (400 naming the line), authentication,
// the stored schema surviving a restart, and the optional GraphQL-only port.

import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import faunadb, { query as q, values } from 'faunadb';
import { ClientPool, httpRequest, startFlora, type FloraProcess } from '../helpers/server';
import { fails, freePort, gql, importSchema, mustImport, ok } from '../helpers/graphql';

let srv: FloraProcess;
let pool: ClientPool;
let root: faunadb.Client;

before(async () => {
  srv = await startFlora();
  pool = new ClientPool(srv.url);
  root = pool.client(srv.secret);
});
after(async () => {
  await pool.close();
  await srv.stop();
});

let dbCounter = 0;
/** A fresh child database; returns an admin scoped secret for it and a driver client. */
async function freshDb(): Promise<{ secret: string; client: faunadb.Client; name: string }> {
  const name = `gqlimport${++dbCounter}`;
  await root.query(q.CreateDatabase({ name }));
  const secret = `${srv.secret}:${name}:admin`;
  return { secret, client: pool.client(secret), name };
}

interface IndexDoc {
  name: string;
  source: values.Ref;
  terms?: { field: string[] }[];
  values?: { field: string[] }[];
  unique?: boolean;
  data?: { gql?: { ts: values.FaunaTime; meta?: Record<string, any> } };
}

const LIBRARY = `
"An author"
type Author @collection(name: "authors") {
  name: String! @unique
  email: String @unique(index: "author_by_email")
  books: [Book] @relation
  address: Address
  genre: Genre
}
type Book {
  title: String!
  author: Author
  published: Date
}
type Address @embedded { street: String  city: String! }
enum Genre { FICTION  SCIENCE }
type Query {
  booksByTitle(title: String!): [Book!]
  allAuthors: [Author] @index(name: "all_authors")
  authorByName(name: String!): Author
  topAuthors(count: Int!): [Author] @resolver(name: "top_authors", paginated: true)
}
type Mutation { retire(id: ID!): Author @resolver }
`;

describe('import', () => {
  test('creates collections, indexes and functions with data.gql', async () => {
    const { secret, client } = await freshDb();
    const res = await importSchema(srv.url, secret, LIBRARY);
    assert.equal(res.status, 200, res.body);
    assert.match(res.headers['content-type'], /^text\/plain/);
    const lines = res.body.split('\n');
    assert.equal(lines[0], 'Schema imported successfully.');
    assert.equal(lines[1], 'Use the following HTTP header to connect to the Fauna GraphQL API:');
    assert.ok(res.body.includes(`{ "Authorization": "Basic ${Buffer.from(`${secret}:`).toString('base64')}" }`), res.body);

    // Collections: one per non-embedded type, named by @collection.
    const colls = (await client.query(q.Paginate(q.Collections()))) as { data: values.Ref[] };
    assert.deepEqual(colls.data.map((r) => r.id).sort(), ['Book', 'authors']);
    const authors = (await client.query(q.Get(q.Collection('authors')))) as { data: { gql: { ts: unknown; meta: any } } };
    assert.ok(authors.data.gql.ts instanceof values.FaunaTime);
    assert.equal(authors.data.gql.meta.name, 'Author');
    assert.deepEqual(authors.data.gql.meta.directives[0], { name: 'collection', args: { name: 'authors' } });
    const nameField = authors.data.gql.meta.fields.find((f: { name: string }) => f.name === 'name');
    assert.deepEqual(nameField.type, { NotNull: { Named: 'String' } });
    assert.deepEqual(nameField.directives, [{ name: 'unique', args: {} }]);

    // Indexes: queries (terms = arguments), @unique, the relation.
    const idx = async (name: string) => (await client.query(q.Get(q.Index(name)))) as IndexDoc;
    const byTitle = await idx('booksByTitle');
    assert.equal(byTitle.source.id, 'Book');
    assert.deepEqual(byTitle.terms, [{ field: ['data', 'title'] }]);
    assert.equal(byTitle.unique, false);
    assert.equal(byTitle.data!.gql!.meta!.name, 'booksByTitle');
    assert.deepEqual(byTitle.data!.gql!.meta!.directives, [{ name: 'index', args: { name: 'booksByTitle' } }]);
    assert.deepEqual(byTitle.data!.gql!.meta!.type, { List: { NotNull: { Named: 'Book' } } });
    assert.deepEqual(byTitle.data!.gql!.meta!.arguments, [{ name: 'title', type: { NotNull: { Named: 'String' } } }]);
    const all = await idx('all_authors');
    assert.equal(all.source.id, 'authors');
    assert.equal(all.terms, undefined);
    const unique = await idx('unique_Author_name');
    assert.equal(unique.unique, true);
    assert.deepEqual(unique.terms, [{ field: ['data', 'name'] }]);
    assert.deepEqual(Object.keys(unique.data!.gql!), ['ts']);
    assert.equal((await idx('author_by_email')).unique, true);
    const rel = await idx('author_books_by_author');
    assert.equal(rel.source.id, 'Book');
    assert.deepEqual(rel.terms, [{ field: ['data', 'author'] }]);
    assert.equal(rel.unique, false);

    // Stub functions for @resolver fields, with metadata.
    const fns = (await client.query(q.Paginate(q.Functions()))) as { data: values.Ref[] };
    assert.deepEqual(fns.data.map((r) => r.id).sort(), ['retire', 'top_authors']);
    const top = (await client.query(q.Get(q.Function('top_authors')))) as { data: { gql: { meta: any } } };
    assert.equal(top.data.gql.meta.location, 'Query');
    assert.deepEqual(top.data.gql.meta.field.directives, [{ name: 'resolver', args: { name: 'top_authors', paginated: true } }]);
    assert.deepEqual(top.data.gql.meta.field.arguments, [{ name: 'count', type: { NotNull: { Named: 'Int' } } }]);
    // The stub aborts with Fauna's text, and its name is taken.
    const err = await client.query(q.Call(q.Function('retire'), ['1'])).catch((e: any) => e.requestResult.responseContent.errors[0]);
    assert.equal(err.cause[0].code, 'transaction aborted');
    assert.equal(
      err.cause[0].description,
      'Function retire was not implemented yet. Please access your database and provide an implementation for the retire function.',
    );
    const dup = await client
      .query(q.CreateFunction({ name: 'retire', body: q.Query(q.Lambda('x', 1)) }))
      .catch((e: any) => e.requestResult.responseContent.errors[0]);
    assert.equal(dup.code, 'instance already exists');

    // The served API has the generated surface.
    const data = await ok(srv.url, secret, '{ __schema { queryType { fields { name } } mutationType { fields { name } } } }');
    const queries = data.__schema.queryType.fields.map((f: { name: string }) => f.name).sort();
    assert.deepEqual(queries, ['allAuthors', 'authorByName', 'booksByTitle', 'findAuthorByID', 'findBookByID', 'topAuthors']);
    const mutations = data.__schema.mutationType.fields.map((f: { name: string }) => f.name).sort();
    assert.deepEqual(mutations, [
      'createAuthor', 'createBook', 'deleteAuthor', 'deleteBook', 'partialUpdateAuthor', 'partialUpdateBook', 'retire', 'updateAuthor', 'updateBook',
    ]);
  });

  test('an existing function is kept and annotated, not replaced by a stub', async () => {
    const { secret, client } = await freshDb();
    await client.query(q.CreateFunction({ name: 'hello', body: q.Query(q.Lambda('args', q.Concat(['hi ', q.Select(0, q.Var('args'))]))) }));
    await mustImport(srv.url, secret, 'type Thing { x: Int } type Query { hello(name: String!): String! @resolver }');
    const fn = (await client.query(q.Get(q.Function('hello')))) as { data: { gql: { meta: any } } };
    assert.equal(fn.data.gql.meta.field.name, 'hello');
    assert.deepEqual(await ok(srv.url, secret, '{ hello(name: "Bo") }'), { hello: 'hi Bo' });
  });

  test('merge adds to the schema; replace keeps only the new one; data is never touched', async () => {
    const { secret, client } = await freshDb();
    await mustImport(srv.url, secret, 'type Cat { name: String! } type Query { allCats: [Cat] }');
    await ok(srv.url, secret, 'mutation { createCat(data: {name: "Tom"}) { _id } }');
    // merge: Dog is added, Cat and allCats stay.
    await mustImport(srv.url, secret, 'type Dog { name: String! } type Query { allDogs: [Dog] }', 'merge');
    let data = await ok(srv.url, secret, '{ allCats { data { name } } allDogs { data { name } } }');
    assert.deepEqual(data, { allCats: { data: [{ name: 'Tom' }] }, allDogs: { data: [] } });
    // merge with a changed type: the new definition wins.
    await mustImport(srv.url, secret, 'type Cat { name: String!  lives: Int }');
    await ok(srv.url, secret, '{ allCats { data { name lives } } }');

    // replace: only Dog remains in the API; Cat's collection and documents stay, without metadata.
    await mustImport(srv.url, secret, 'type Dog { name: String! } type Query { allDogs: [Dog] }', 'replace');
    const e = await fails(srv.url, secret, '{ allCats { data { name } } }');
    assert.match(e.message, /Cannot query field 'allCats' on type 'Query'/);
    assert.equal(e.response.data, null);
    const cat = (await client.query(q.Get(q.Collection('Cat')))) as { data?: { gql?: unknown } };
    assert.equal(cat.data?.gql, undefined);
    const cats = (await client.query(q.Count(q.Documents(q.Collection('Cat'))))) as number;
    assert.equal(cats, 1);
    const idx = (await client.query(q.Get(q.Index('allCats')))) as { data?: { gql?: unknown } };
    assert.equal(idx.data?.gql, undefined);
    // Re-importing Cat finds its data again.
    await mustImport(srv.url, secret, 'type Cat { name: String! } type Query { allCats: [Cat] }');
    data = await ok(srv.url, secret, '{ allCats { data { name } } }');
    assert.deepEqual(data, { allCats: { data: [{ name: 'Tom' }] } });
  });

  test('a schema whose metadata was nulled everywhere is forgotten: the next merge starts afresh', async () => {
    const { secret, client } = await freshDb();
    await mustImport(srv.url, secret, 'type Cat { name: String! @unique } type Query { allCats: [Cat]  purr: String @resolver }');
    // brainyduck's reset: data.gql set to null on every collection, index and function (graphql.md A.4.1).
    for (const set of [q.Collections(), q.Indexes(), q.Functions()])
      await client.query(q.Map(q.Paginate(set), q.Lambda('r', q.Update(q.Var('r'), { data: { gql: null } }))));
    await mustImport(srv.url, secret, 'type Dog { name: String! } type Query { allDogs: [Dog] }');
    const e = await fails(srv.url, secret, '{ allCats { data { name } } }');
    assert.match(e.message, /Cannot query field 'allCats' on type 'Query'/);
    assert.deepEqual(await ok(srv.url, secret, '{ allDogs { data { name } } }'), { allDogs: { data: [] } });
    // Nothing of the forgotten schema got its metadata back; its resources and data are still there.
    const cat = (await client.query(q.Get(q.Collection('Cat')))) as { data?: { gql?: unknown } };
    assert.equal(cat.data?.gql, undefined);
    assert.equal(await client.query(q.Exists(q.Function('purr'))), true);
  });

  test('override deletes what carries GraphQL metadata, keeps the rest, and names are reusable at once', async () => {
    const { secret, client } = await freshDb();
    await client.query(q.CreateCollection({ name: 'plain' }));
    await client.query(q.Create(q.Collection('plain'), { data: { keep: true } }));
    await mustImport(srv.url, secret, 'type Cat { name: String! } type Query { allCats: [Cat]  purr: String @resolver }');
    await ok(srv.url, secret, 'mutation { createCat(data: {name: "Tom"}) { _id } }');
    await mustImport(srv.url, secret, 'type Cat { name: String!  age: Int } type Query { allCats: [Cat] }', 'override');
    // Cat was re-created empty; its index too; the stub function is gone; `plain` is untouched.
    assert.deepEqual(await ok(srv.url, secret, '{ allCats { data { name age } } }'), { allCats: { data: [] } });
    assert.equal(await client.query(q.Exists(q.Function('purr'))), false);
    assert.equal(await client.query(q.Count(q.Documents(q.Collection('plain')))), 1);
    await ok(srv.url, secret, 'mutation { createCat(data: {name: "Kit", age: 2}) { _id } }');
    assert.deepEqual(await ok(srv.url, secret, '{ allCats { data { name age } } }'), { allCats: { data: [{ name: 'Kit', age: 2 }] } });
  });

  test('an existing index with the generated name and another definition is an error', async () => {
    const { secret, client } = await freshDb();
    await client.query(q.CreateCollection({ name: 'Cat' }));
    await client.query(q.CreateIndex({ name: 'catsByName', source: q.Collection('Cat'), terms: [{ field: ['data', 'nickname'] }] }));
    for (const mode of ['merge', 'replace', 'override']) {
      const res = await importSchema(srv.url, secret, 'type Cat { name: String } type Query { catsByName(name: String!): [Cat] }', mode);
      assert.equal(res.status, 400, res.body);
      assert.match(res.body, /index 'catsByName' already exists with a different definition/);
    }
    // Nothing was deleted by the failed override.
    assert.equal(await client.query(q.Exists(q.Index('catsByName'))), true);
    // @index(name) naming an existing index uses it as it is.
    await mustImport(srv.url, secret, 'type Cat { name: String } type Query { catsByName(name: String!): [Cat] @index(name: "catsByName") }');
  });

  test('invalid schemas are refused with 400 and a message naming the line', async () => {
    const { secret } = await freshDb();
    const cases: [string, RegExp][] = [
      ['type Cat {\n  name: String\n  age: \n}', /Syntax error while parsing the schema: .*\(line 4, column 1\)/s],
      ['type Cat {\n  name: String @searchable\n}', /Unknown directive '@searchable'.*line 2, column 16/s],
      ['directive @auth on OBJECT\ntype Cat { name: String }', /Custom directives are not supported: '@auth'.*line 1/s],
      ['type Cat { name: String }\ninterface Pet { name: String }', /Interfaces are not supported: 'Pet'.*line 2/s],
      ['type Cat { name: String }\nunion Pet = Cat', /Unions are not supported.*line 2/s],
      ['scalar JSON\ntype Cat { name: String }', /Custom scalars are not supported: 'JSON'.*line 1/s],
      ['type Cat { owner: Person }', /The type 'Person' of the field 'Cat.owner' is not declared.*line 1/s],
      ['type Cat { _name: String }', /Names may not start with '_'/],
      ['type Cat @embedded @generateUDFResolvers { name: String }', /cannot have a collection|cannot use @generateUDFResolvers/],
      ['type Cat { name: String @index(name: "x") }', /'@index' cannot be used on field 'Cat.name'/],
      ['type Cat { name: String }\ntype Query { cats: [Cat] @unique }', /'@unique' cannot be used on field 'Query.cats'/],
      ['type Cat { name: String }\ntype Mutation { meow: String }', /needs a @resolver/],
      ['type Cat { name: String }\ntype Query { names: [String] }', /must return a collection type/],
      [
        'type User { cars: [Car] @relation  bikes: [Car] @relation }\ntype Car { owner: User }',
        /Ambiguous relation|Relationships must be made explicit/,
      ],
      ['type Node { parent: Node @relation }', /Relations of a type to itself are not supported/],
      ['type Cat { name: String }\ntype CatInput { x: Int }', /reserved for a generated type/],
      ['type Cat { name: String }\ntype Subscription { cats: [Cat] }', /Subscriptions are not supported/],
      ['', /empty/],
      // Names FQL refuses: the message says which.
      ['type events { x: Int }', /^Cannot import the schema: .*Invalid name events\./],
      ['type Cat @collection(name: "a/b") { x: Int }', /The name a\/b uses invalid characters/],
      ['type Cat { x: Int }\ntype Query { q: String @resolver(name: "a b") }', /The name a b uses invalid characters/],
      // Nesting that would overflow the stack of the parser or of what stores the metadata.
      [`type Cat {\n  x: ${'['.repeat(3000)}Int${']'.repeat(3000)}\n}`, /^The schema is nested too deeply: at most 100 levels are allowed\. \(line 2, column 105\)/],
      [`type Cat @collection(name: ${'['.repeat(5000)}${']'.repeat(5000)}) { x: Int }`, /nested too deeply/],
    ];
    for (const [sdl, expected] of cases) {
      const res = await importSchema(srv.url, secret, sdl);
      assert.equal(res.status, 400, `${sdl}\n→ ${res.status} ${res.body}`);
      assert.match(res.headers['content-type'], /^text\/plain/);
      assert.match(res.body, expected, sdl);
    }
    // Nothing was created by the refused imports.
    const e = await fails(srv.url, secret, '{ __typename }');
    assert.match(e.message, /No GraphQL schema has been imported/);
  });

  test('authentication and privileges', async () => {
    const { client } = await freshDb();
    let res = await importSchema(srv.url, undefined, 'type Cat { name: String }');
    assert.deepEqual([res.status, res.body], [401, 'Missing authorization header.']);
    res = await importSchema(srv.url, 'not-a-secret', 'type Cat { name: String }');
    assert.deepEqual([res.status, res.body], [401, 'Invalid database secret.']);
    res = await httpRequest(srv.url, { method: 'POST', path: '/import', headers: { authorization: 'Weird xyz' }, body: 'type Cat { name: String }' });
    assert.deepEqual([res.status, res.body], [401, 'Invalid authorization header.']);
    const key = (await client.query(q.CreateKey({ role: 'client' }))) as { secret: string };
    res = await importSchema(srv.url, key.secret, 'type Cat { name: String }');
    assert.equal(res.status, 403, res.body);
    // A server key may import (Basic auth too).
    const server = (await client.query(q.CreateKey({ role: 'server' }))) as { secret: string };
    res = await httpRequest(srv.url, {
      method: 'POST',
      path: '/import',
      headers: { authorization: `Basic ${Buffer.from(`${server.secret}:`).toString('base64')}` },
      body: 'type Cat { name: String }',
    });
    assert.equal(res.status, 200, res.body);
    res = await importSchema(srv.url, server.secret, 'type Cat { name: String }', 'sideways');
    assert.equal(res.status, 400);
    assert.match(res.body, /Invalid mode 'sideways'/);
  });

  test('declaring a generated operation without @resolver keeps the generated one', async () => {
    const { secret } = await freshDb();
    await mustImport(
      srv.url,
      secret,
      `type Cat { name: String! }
       type Query { findCatByID(id: ID!): Cat }
       type Mutation { createCat(data: CatInput!): Cat!  deleteCat(id: ID!): Cat }`,
    );
    const cat = (await ok(srv.url, secret, 'mutation { createCat(data: {name: "Tom"}) { _id } }')).createCat;
    assert.deepEqual(await ok(srv.url, secret, `{ findCatByID(id: "${cat._id}") { name } }`), { findCatByID: { name: 'Tom' } });
  });

  test('@resolver on a field of an object type has no effect (graphql.md A.2.5)', async () => {
    const { secret, client } = await freshDb();
    await mustImport(srv.url, secret, 'type Cat { name: String!  nick: String @resolver(name: "cat_nick") }\ntype Query { allCats: [Cat] }');
    // No function is made for it; the field is an ordinary stored field.
    assert.equal(await client.query(q.Exists(q.Function('cat_nick'))), false);
    await ok(srv.url, secret, 'mutation { createCat(data: {name: "Tom", nick: "T"}) { _id } }');
    assert.deepEqual(await ok(srv.url, secret, '{ allCats { data { name nick } } }'), { allCats: { data: [{ name: 'Tom', nick: 'T' }] } });
  });

  test('the schema survives a restart', async () => {
    const own = await startFlora();
    try {
      await mustImport(own.url, own.secret, 'type Cat { name: String! } type Query { allCats: [Cat] }');
      await ok(own.url, own.secret, 'mutation { createCat(data: {name: "Tom"}) { _id } }');
      const again = await own.restart();
      try {
        const data = await ok(again.url, again.secret, '{ allCats { data { name } } }');
        assert.deepEqual(data, { allCats: { data: [{ name: 'Tom' }] } });
      } finally {
        await again.stop();
      }
    } finally {
      await own.stop();
    }
  });
});

describe('GraphQL-only port (FLORA_GRAPHQL_PORT)', () => {
  test('serves /graphql, /import and /ping, and nothing else', async () => {
    const port = await freePort();
    const own = await startFlora({ env: { FLORA_GRAPHQL_PORT: String(port) } });
    try {
      const url = `http://127.0.0.1:${port}`;
      await mustImport(url, own.secret, 'type Cat { name: String! } type Query { allCats: [Cat] }');
      await ok(url, own.secret, 'mutation { createCat(data: {name: "Tom"}) { _id } }');
      // Same database behind both ports.
      assert.deepEqual(await ok(own.url, own.secret, '{ allCats { data { name } } }'), { allCats: { data: [{ name: 'Tom' }] } });
      const ping = await httpRequest(url, { path: '/ping' });
      assert.equal(ping.status, 200);
      assert.equal(JSON.parse(ping.body).resource, 'Scope write is OK');
      const fql = await httpRequest(url, { method: 'POST', path: '/', headers: { authorization: `Bearer ${own.secret}` }, body: '{"now": null}' });
      assert.equal(fql.status, 404);
      // HTTP/2 works there too.
      const h2 = await gql(url, own.secret, '{ allCats { data { name } } }', undefined, { http2: true });
      assert.equal(h2.status, 200, h2.raw);
    } finally {
      await own.stop();
    }
  });
});

describe('concurrent imports', () => {
  test('imports into one database run one after the other: merges of different types both land', async () => {
    const { secret, client } = await freshDb();
    const sdls = ['type Apple { name: String }', 'type Pear { name: String }', 'type Plum { name: String }'];
    const answers = await Promise.all(sdls.map((sdl) => importSchema(srv.url, secret, sdl)));
    for (const a of answers) assert.equal(a.status, 200, a.body);
    const names = ((await client.query(q.Paginate(q.Collections()))) as { data: values.Ref[] }).data.map((r) => r.id).sort();
    assert.deepEqual(names, ['Apple', 'Pear', 'Plum']);
    const types = await ok<{ __schema: { types: { name: string }[] } }>(srv.url, secret, '{ __schema { types { name } } }');
    for (const t of ['Apple', 'Pear', 'Plum']) assert.ok(types.__schema.types.some((x) => x.name === t), t);
  });
});
