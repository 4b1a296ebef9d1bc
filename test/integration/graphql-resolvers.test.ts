// @resolver (stubs, user functions, paginated resolvers, results of every shape),
// @generateUDFResolvers, and ABAC: a token limited by a role sees and does only what its role grants.

import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import faunadb, { query as q } from 'faunadb';
import { ClientPool, startFlora, type FloraProcess } from '../helpers/server';
import { fails, gql, importSchema, mustImport, ok } from '../helpers/graphql';

let srv: FloraProcess;
let pool: ClientPool;

before(async () => {
  srv = await startFlora();
  pool = new ClientPool(srv.url);
});
after(async () => {
  await pool.close();
  await srv.stop();
});

let dbCounter = 0;
async function freshDb(): Promise<{ secret: string; db: faunadb.Client }> {
  const name = `gqlres${++dbCounter}`;
  await pool.client(srv.secret).query(q.CreateDatabase({ name }));
  const secret = `${srv.secret}:${name}:admin`;
  return { secret, db: pool.client(secret) };
}

const SCHEMA = `
type Todo { title: String!  secret: Boolean }
type Config @embedded { version: Int!  modes: [String!] }
type Query {
  allTodos: [Todo!]
  sayHello(name: String!, times: Int): String! @resolver(name: "say_hello")
  todoTitles: [String!] @resolver(name: "todo_titles", paginated: true)
  todosByTitles(titles: [String!]!): [Todo] @resolver(name: "todos_by_titles")
  notYet: String @resolver(name: "not_yet")
  config: Config @resolver(name: "get_config")
}
type Mutation {
  bulkCreate(titles: [String!]!): [Todo!]! @resolver(name: "bulk_create")
  partialUpdateTodo(id: ID!, data: PartialUpdateTodoInput!): Todo @resolver(name: "block_partial")
}
`;

describe('@resolver', () => {
  test('stubs abort with the not-implemented message; implementations take the arguments as one array', async () => {
    const { secret, db } = await freshDb();
    await mustImport(srv.url, secret, SCHEMA);

    // A stub: a resolver error with the FQL code of Abort, the field null, the rest served.
    const res = await gql(srv.url, secret, '{ notYet allTodos { data { title } } }');
    assert.equal(res.status, 200);
    assert.deepEqual(res.data, { notYet: null, allTodos: { data: [] } });
    assert.deepEqual(res.errors, [
      {
        message: 'Function not_yet was not implemented yet. Please access your database and provide an implementation for the not_yet function.',
        extensions: { code: 'transaction aborted' },
        locations: [{ line: 1, column: 3 }],
        path: ['notYet'],
      },
    ]);

    // A @resolver on a generated mutation replaces it: partial updates are blocked.
    const t = (await ok(srv.url, secret, 'mutation { createTodo(data: {title: "x"}) { _id } }')).createTodo;
    const blocked = await fails(srv.url, secret, `mutation { partialUpdateTodo(id: "${t._id}", data: {title: "y"}) { title } }`);
    assert.match(blocked.message, /^Function block_partial was not implemented yet/);
    assert.equal(blocked.response.data!.partialUpdateTodo, null);

    // Implementing the functions through FQL (Update keeps the metadata and the wiring).
    await db.query(
      q.Update(q.Function('say_hello'), {
        body: q.Query(q.Lambda(['name', 'times'], q.Concat([q.Repeat('hello ', q.If(q.IsNull(q.Var('times')), 1, q.Var('times'))), q.Var('name')]))),
      }),
    );
    await db.query(
      q.Update(q.Function('todos_by_titles'), {
        body: q.Query(
          q.Lambda(
            'args',
            q.Map(
              q.Select(0, q.Var('args')),
              q.Lambda('t', q.Select(0, q.Select('data', q.Paginate(q.Filter(q.Documents(q.Collection('Todo')), q.Lambda('r', q.Equals(q.Var('t'), q.Select(['data', 'title'], q.Get(q.Var('r')))))))), null)),
            ),
          ),
        ),
      }),
    );
    await db.query(q.Update(q.Function('get_config'), { body: q.Query(q.Lambda('_', { version: 3, modes: ['a', 'b'] })) }));
    await db.query(
      q.Update(q.Function('bulk_create'), {
        body: q.Query(q.Lambda(['titles'], q.Map(q.Var('titles'), q.Lambda('t', q.Create(q.Collection('Todo'), { data: { title: q.Var('t') } }))))),
      }),
    );
    const fn = (await db.query(q.Get(q.Function('say_hello')))) as { data: { gql: { meta: { field: { name: string } } } } };
    assert.equal(fn.data.gql.meta.field.name, 'sayHello');

    assert.deepEqual(await ok(srv.url, secret, '{ a: sayHello(name: "Al") b: sayHello(name: "Bo", times: 2) }'), { a: 'hello Al', b: 'hello hello Bo' });
    const made = (await ok(srv.url, secret, 'mutation { bulkCreate(titles: ["b1", "b2"]) { _id title } }')).bulkCreate;
    assert.deepEqual(made.map((x: { title: string }) => x.title), ['b1', 'b2']);
    // Refs returned by a function resolve to documents; nulls stay null.
    const found = (await ok(srv.url, secret, '{ todosByTitles(titles: ["b2", "nope", "x"]) { title } }')).todosByTitles;
    assert.deepEqual(found, [{ title: 'b2' }, null, { title: 'x' }]);
    // Objects for embedded types.
    assert.deepEqual(await ok(srv.url, secret, '{ config { version modes } }'), { config: { version: 3, modes: ['a', 'b'] } });
  });

  test('paginated resolvers get size, after and before and return a page', async () => {
    const { secret, db } = await freshDb();
    await mustImport(srv.url, secret, SCHEMA);
    for (const title of ['t1', 't2', 't3', 't4', 't5']) await db.query(q.Create(q.Collection('Todo'), { data: { title } }));
    await db.query(
      q.Update(q.Function('todo_titles'), {
        body: q.Query(
          q.Lambda(
            ['size', 'after', 'before'],
            q.Let(
              {
                set: q.Match(q.Index('allTodos')),
                page: q.If(
                  q.IsNull(q.Var('before')),
                  q.If(q.IsNull(q.Var('after')), q.Paginate(q.Var('set'), { size: q.Var('size') }), q.Paginate(q.Var('set'), { size: q.Var('size'), after: q.Var('after') })),
                  q.Paginate(q.Var('set'), { size: q.Var('size'), before: q.Var('before') }),
                ),
              },
              q.Map(q.Var('page'), q.Lambda('r', q.Select(['data', 'title'], q.Get(q.Var('r'))))),
            ),
          ),
        ),
      }),
    );
    const p1 = (await ok(srv.url, secret, '{ todoTitles(_size: 2) { data after before } }')).todoTitles;
    assert.deepEqual(p1.data, ['t1', 't2']);
    assert.equal(p1.before, null);
    const p2 = (await ok(srv.url, secret, 'query($c: String) { todoTitles(_size: 2, _cursor: $c) { data after before } }', { c: p1.after })).todoTitles;
    assert.deepEqual(p2.data, ['t3', 't4']);
    const back = (await ok(srv.url, secret, 'query($c: String) { todoTitles(_size: 2, _cursor: $c) { data } }', { c: p2.before })).todoTitles;
    assert.deepEqual(back.data, ['t1', 't2']);
    // Default size 50.
    assert.deepEqual((await ok(srv.url, secret, '{ todoTitles { data } }')).todoTitles.data, ['t1', 't2', 't3', 't4', 't5']);
  });
});

describe('@generateUDFResolvers', () => {
  test('creates the five functions and serves the operations through them', async () => {
    const { secret, db } = await freshDb();
    await mustImport(srv.url, secret, 'type Cat @generateUDFResolvers { name: String!  age: Int }');
    const fns = (await db.query(q.Paginate(q.Functions()))) as { data: { id: string }[] };
    assert.deepEqual(fns.data.map((r) => r.id).sort(), ['createCat', 'deleteCat', 'findCatByID', 'listCat', 'updateCat']);
    const meta = (await db.query(q.Select(['data', 'gql', 'meta'], q.Get(q.Function('listCat'))))) as any;
    assert.equal(meta.location, 'Query');
    assert.deepEqual(meta.field.directives, [{ name: 'resolver', args: { name: 'listCat', paginated: true } }]);

    const tom = (await ok(srv.url, secret, 'mutation { createCat(data: {name: "Tom", age: 3}) { _id name age } }')).createCat;
    assert.equal(tom.name, 'Tom');
    for (const name of ['Kit', 'Max']) await ok(srv.url, secret, `mutation { createCat(data: {name: "${name}"}) { _id } }`);
    assert.deepEqual(await ok(srv.url, secret, `{ findCatByID(id: "${tom._id}") { name age } }`), { findCatByID: { name: 'Tom', age: 3 } });
    assert.deepEqual(await ok(srv.url, secret, '{ findCatByID(id: "1") { name } }'), { findCatByID: null });
    const p1 = (await ok(srv.url, secret, '{ listCat(_size: 2) { data { name } after } }')).listCat;
    assert.deepEqual(p1.data.map((c: { name: string }) => c.name), ['Tom', 'Kit']);
    const p2 = (await ok(srv.url, secret, 'query($c: String) { listCat(_size: 2, _cursor: $c) { data { name } after } }', { c: p1.after })).listCat;
    assert.deepEqual(p2.data.map((c: { name: string }) => c.name), ['Max']);
    assert.deepEqual(await ok(srv.url, secret, `mutation { updateCat(id: "${tom._id}", data: {name: "Tom", age: 4}) { age } }`), { updateCat: { age: 4 } });
    assert.deepEqual(await ok(srv.url, secret, `mutation { deleteCat(id: "${tom._id}") { name } }`), { deleteCat: { name: 'Tom' } });
    assert.deepEqual(await ok(srv.url, secret, `mutation { deleteCat(id: "${tom._id}") { name } }`), { deleteCat: null });

    // The functions are the resolvers: editing one changes the API's behaviour.
    await db.query(
      q.Update(q.Function('createCat'), {
        body: q.Query(q.Lambda(['data'], q.Create(q.Collection('Cat'), { data: q.Merge(q.Var('data'), { age: 99 }) }))),
      }),
    );
    assert.deepEqual(await ok(srv.url, secret, 'mutation { createCat(data: {name: "Zed"}) { age } }'), { createCat: { age: 99 } });
    // Re-importing keeps the edited function.
    await mustImport(srv.url, secret, 'type Cat @generateUDFResolvers { name: String!  age: Int }');
    assert.deepEqual(await ok(srv.url, secret, 'mutation { createCat(data: {name: "Zoe"}) { age } }'), { createCat: { age: 99 } });
  });

  test('is refused on a type involved in a relationship', async () => {
    const { secret } = await freshDb();
    const res = await importSchema(srv.url, secret, 'type Cat @generateUDFResolvers { name: String!  owner: Owner }\ntype Owner { cats: [Cat] @relation }');
    assert.equal(res.status, 400);
    assert.match(res.body, /@generateUDFResolvers cannot be used on the type 'Cat'/);
  });
});

describe('ABAC', () => {
  test('a token limited by a role: filtered reads, refused writes and calls', async () => {
    const { secret, db } = await freshDb();
    await mustImport(
      srv.url,
      secret,
      `type Todo { title: String!  secret: Boolean }
       type Account { email: String! @unique }
       type Query { allTodos: [Todo!]  ping: String @resolver(name: "ping")  pick(title: String!): Todo @resolver(name: "pick") }`,
    );
    await db.query(q.Update(q.Function('ping'), { body: q.Query(q.Lambda('_', 'pong')) }));
    await db.query(q.Create(q.Collection('Todo'), { data: { title: 'public' } }));
    const hidden = (await db.query(q.Create(q.Collection('Todo'), { data: { title: 'hidden', secret: true } }))) as { ref: { id: string } };
    // A function running as `server` that returns any document by title.
    await db.query(
      q.Update(q.Function('pick'), {
        role: 'server',
        body: q.Query(
          q.Lambda(['title'], q.Get(q.Select(0, q.Select('data', q.Paginate(q.Filter(q.Documents(q.Collection('Todo')), q.Lambda('r', q.Equals(q.Var('title'), q.Select(['data', 'title'], q.Get(q.Var('r'))))))))))),
        ),
      }),
    );
    await db.query(q.Create(q.Collection('Account'), { data: { email: 'a@x.io' }, credentials: { password: 'pw' } }));
    await db.query(
      q.CreateRole({
        name: 'reader',
        membership: [{ resource: q.Collection('Account') }],
        privileges: [
          { resource: q.Collection('Todo'), actions: { read: q.Query(q.Lambda('ref', q.Not(q.Select(['data', 'secret'], q.Get(q.Var('ref')), false)))) } },
          { resource: q.Index('allTodos'), actions: { read: true } },
          { resource: q.Function('pick'), actions: { call: true } },
        ],
      }),
    );
    const login = (await db.query(q.Login(q.Match(q.Index('unique_Account_email'), 'a@x.io'), { password: 'pw' }))) as { secret: string };
    const token = login.secret;

    // Reads: documents the role may not read are left out of pages.
    assert.deepEqual(await ok(srv.url, token, '{ allTodos { data { title } } }'), { allTodos: { data: [{ title: 'public' }] } });
    // Reading one directly is a permission error.
    const direct = await fails(srv.url, token, `{ findTodoByID(id: "${hidden.ref.id}") { title } }`);
    assert.equal(direct.extensions!.code, 'permission denied');
    assert.equal(direct.message, 'Insufficient privileges to perform the action.');
    // Writes and calls the role does not grant.
    const write = await fails(srv.url, token, 'mutation { createTodo(data: {title: "nope"}) { _id } }');
    assert.equal(write.extensions!.code, 'permission denied');
    assert.deepEqual(write.path, ['createTodo']);
    // A function with its own role may read more, but the caller is shown only what it may read.
    assert.deepEqual(await ok(srv.url, token, '{ pick(title: "public") { title } }'), { pick: { title: 'public' } });
    const picked = await fails(srv.url, token, '{ pick(title: "hidden") { title } }');
    assert.equal(picked.extensions!.code, 'permission denied');
    assert.deepEqual(picked.path, ['pick']);
    const call = await fails(srv.url, token, '{ ping }');
    assert.equal(call.extensions!.code, 'permission denied');
    assert.equal(await db.query(q.Count(q.Documents(q.Collection('Todo')))), 2);
    // Introspection works for any valid secret.
    const intro = await ok(srv.url, token, '{ __type(name: "Todo") { fields { name } } }');
    assert.ok(intro.__type.fields.some((f: { name: string }) => f.name === '_id'));

    // Granting `create` and `call` opens them.
    await db.query(
      q.Update(q.Role('reader'), {
        privileges: [
          { resource: q.Collection('Todo'), actions: { read: true, create: true } },
          { resource: q.Index('allTodos'), actions: { read: true } },
          { resource: q.Function('ping'), actions: { call: true } },
        ],
      }),
    );
    assert.deepEqual(await ok(srv.url, token, 'mutation { createTodo(data: {title: "yes"}) { title } }'), { createTodo: { title: 'yes' } });
    assert.deepEqual(await ok(srv.url, token, '{ ping }'), { ping: 'pong' });
    // A client key sees nothing it is not granted.
    const client = (await db.query(q.CreateKey({ role: 'client' }))) as { secret: string };
    const denied = await fails(srv.url, client.secret, '{ allTodos { data { title } } }');
    assert.equal(denied.extensions!.code, 'permission denied');
  });
});
