// POST /graphql execution (graphql.md A.1.1, A.3, A.5, A.6): generated CRUD, index queries,
// pagination, update / partial update rules, unique violations, scalars (Date, Time, Long), enums
// and embedded types, errors in Fauna's shapes, introspection, and data written through FQL.

import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import faunadb, { query as q, values } from 'faunadb';
import { buildClientSchema, getIntrospectionQuery, printSchema } from 'graphql';
import { ClientPool, httpRequest, rawQuery, startFlora, type FloraProcess } from '../helpers/server';
import { fails, gql, gqlBody, mustImport, ok } from '../helpers/graphql';

let srv: FloraProcess;
let pool: ClientPool;
let secret: string;
let db: faunadb.Client;

const SCHEMA = `
type Todo {
  title: String!
  completed: Boolean!
  priority: Int
  score: Float
  big: Long
  due: Date
  at: Time
  tags: [String!]
  status: Status
  notes: [Note!]
  meta: Meta
}
type Note @embedded { text: String!  stars: Int }
type Meta @embedded { source: String  level: Int!  inner: Inner }
type Inner @embedded { a: String  b: String }
enum Status { OPEN DONE }
type User { email: String! @unique  name: String }
type Query {
  allTodos: [Todo!]
  todosByCompleted(completed: Boolean!): [Todo!]
  todoByTitle(title: String!): Todo
  todosByStatusAndPriority(status: Status!, priority: Int!): [Todo]
}
`;

before(async () => {
  srv = await startFlora();
  pool = new ClientPool(srv.url);
  await pool.client(srv.secret).query(q.CreateDatabase({ name: 'gqlexec' }));
  secret = `${srv.secret}:gqlexec:admin`;
  db = pool.client(secret);
  await mustImport(srv.url, secret, SCHEMA);
});
after(async () => {
  await pool.close();
  await srv.stop();
});

const TODO_FIELDS = '_id _ts title completed priority score big due at tags status notes { text stars } meta { source level inner { a b } }';

async function createTodo(data: string): Promise<any> {
  const r = await ok(srv.url, secret, `mutation { createTodo(data: ${data}) { ${TODO_FIELDS} } }`);
  return r.createTodo;
}

async function deleteAll(): Promise<void> {
  await db.query(q.Map(q.Paginate(q.Documents(q.Collection('Todo')), { size: 1000 }), q.Lambda('r', q.Delete(q.Var('r')))));
}

describe('generated CRUD', () => {
  test('create and find every scalar, enum and embedded type; FQL sees the stored types', async () => {
    const todo = await createTodo(
      '{title: "Buy milk", completed: false, priority: 2, score: 1.5, big: 9007199254740993, due: "2024-02-29", ' +
        'at: "2024-03-01T10:20:30.123+02:00", tags: ["a", "b"], status: OPEN, notes: [{text: "n1", stars: 3}, {text: "n2"}], ' +
        'meta: {source: "web", level: 1, inner: {a: "x"}}}',
    );
    assert.match(todo._id, /^\d+$/);
    assert.equal(typeof todo._ts, 'number');
    assert.equal(todo.title, 'Buy milk');
    assert.equal(todo.priority, 2);
    assert.equal(todo.score, 1.5);
    assert.equal(todo.due, '2024-02-29');
    assert.equal(todo.at, '2024-03-01T08:20:30.123Z');
    assert.deepEqual(todo.tags, ['a', 'b']);
    assert.equal(todo.status, 'OPEN');
    assert.deepEqual(todo.notes, [{ text: 'n1', stars: 3 }, { text: 'n2', stars: null }]);
    assert.deepEqual(todo.meta, { source: 'web', level: 1, inner: { a: 'x', b: null } });

    // Long keeps all 64 bits on the wire (no rounding to a double).
    const raw = await gql(srv.url, secret, `{ findTodoByID(id: "${todo._id}") { big _ts } }`);
    assert.match(raw.raw, /"big":9007199254740993/);

    // The FQL side: the document's ts is _ts, Int stored as a Long, Date/Time as FQL dates and times.
    const doc = (await db.query(q.Get(q.Ref(q.Collection('Todo'), todo._id)))) as { ts: number; data: any };
    assert.equal(doc.ts, todo._ts);
    assert.ok(doc.data.due instanceof values.FaunaDate);
    assert.ok(doc.data.at instanceof values.FaunaTime);
    assert.equal(doc.data.status, 'OPEN');
    assert.deepEqual(doc.data.meta, { source: 'web', level: 1, inner: { a: 'x' } });
    const types = (await db.query(
      q.Let({ d: q.Select('data', q.Get(q.Ref(q.Collection('Todo'), todo._id))) }, [
        q.IsInteger(q.Select('priority', q.Var('d'))),
        q.IsDouble(q.Select('score', q.Var('d'))),
        q.IsDate(q.Select('due', q.Var('d'))),
        q.IsTimestamp(q.Select('at', q.Var('d'))),
      ]),
    )) as boolean[];
    assert.deepEqual(types, [true, true, true, true]);
    const exact = await rawQuery(srv.url, secret, JSON.stringify({ select: ['data', 'big'], from: { get: { ref: { collection: 'Todo' }, id: todo._id } } }));
    assert.equal(exact, '{"resource":9007199254740993}');

    // find…ByID: a missing id and a malformed one are null.
    const data = await ok(srv.url, secret, `{ a: findTodoByID(id: "${todo._id}") { title } b: findTodoByID(id: "1") { title } c: findTodoByID(id: "zz") { title } }`);
    assert.deepEqual(data, { a: { title: 'Buy milk' }, b: null, c: null });
  });

  test('update replaces the declared fields; partialUpdate changes only what is given', async () => {
    const t = await createTodo('{title: "T", completed: false, priority: 1, tags: ["x"], meta: {source: "s", level: 1, inner: {a: "a", b: "b"}}}');
    await db.query(q.Update(q.Ref(q.Collection('Todo'), t._id), { data: { extra: 'not in the schema' } }));

    // update: omitted fields are cleared, the embedded object is replaced whole; undeclared data stays.
    let r = await ok(srv.url, secret, `mutation { updateTodo(id: "${t._id}", data: {title: "T2", completed: true, meta: {level: 2, inner: {b: "B"}}}) { ${TODO_FIELDS} } }`);
    assert.equal(r.updateTodo.title, 'T2');
    assert.equal(r.updateTodo.priority, null);
    assert.equal(r.updateTodo.tags, null);
    assert.deepEqual(r.updateTodo.meta, { source: null, level: 2, inner: { a: null, b: 'B' } });
    let doc = (await db.query(q.Get(q.Ref(q.Collection('Todo'), t._id)))) as { data: any };
    assert.deepEqual(doc.data, { title: 'T2', completed: true, meta: { level: 2, inner: { b: 'B' } }, extra: 'not in the schema' });
    // A required field must be given to update (it is a full <T>Input).
    const e1 = await fails(srv.url, secret, `mutation { updateTodo(id: "${t._id}", data: {title: "T3"}) { title } }`);
    assert.match(e1.message, /completed/);
    assert.equal(e1.response.data, null);

    // partialUpdate: only the given fields; embedded objects merged; arrays replaced whole.
    r = await ok(srv.url, secret, `mutation { partialUpdateTodo(id: "${t._id}", data: {priority: 5, tags: ["p", "q"], meta: {inner: {a: "A"}}}) { ${TODO_FIELDS} } }`);
    assert.equal(r.partialUpdateTodo.title, 'T2');
    assert.equal(r.partialUpdateTodo.completed, true);
    assert.equal(r.partialUpdateTodo.priority, 5);
    assert.deepEqual(r.partialUpdateTodo.tags, ['p', 'q']);
    assert.deepEqual(r.partialUpdateTodo.meta, { source: null, level: 2, inner: { a: 'A', b: 'B' } });
    // null removes a nullable field.
    r = await ok(srv.url, secret, `mutation { partialUpdateTodo(id: "${t._id}", data: {priority: null}) { priority } }`);
    assert.equal(r.partialUpdateTodo.priority, null);
    // Required fields are checked at run time: null is refused and nothing is written.
    const e2 = await fails(srv.url, secret, `mutation { partialUpdateTodo(id: "${t._id}", data: {title: null, priority: 9}) { title } }`);
    assert.match(e2.message, /'Todo.title' is required/);
    assert.deepEqual(e2.path, ['partialUpdateTodo']);
    doc = (await db.query(q.Get(q.Ref(q.Collection('Todo'), t._id)))) as { data: any };
    assert.equal(doc.data.title, 'T2');
    assert.equal(doc.data.priority, undefined);
    // ... but required fields of embedded objects are not enforced by a partial update.
    r = await ok(srv.url, secret, `mutation { partialUpdateTodo(id: "${t._id}", data: {meta: {level: null, source: "z"}}) { meta { source } } }`);
    assert.deepEqual(r.partialUpdateTodo.meta, { source: 'z' });
    // Missing documents: null.
    r = await ok(srv.url, secret, 'mutation { partialUpdateTodo(id: "1", data: {priority: 1}) { title } updateTodo(id: "2", data: {title: "x", completed: true}) { title } }');
    assert.deepEqual(r, { partialUpdateTodo: null, updateTodo: null });
  });

  test('partialUpdate: lists of embedded objects take PartialUpdate<E>Input and are written whole', async () => {
    const t = await createTodo('{title: "L", completed: false, notes: [{text: "a", stars: 1}, {text: "b"}]}');
    // Required fields of embedded objects are not enforced by a partial update (service.md rule 3).
    const r = await ok(srv.url, secret, `mutation { partialUpdateTodo(id: "${t._id}", data: {notes: [{stars: 5}]}) { _id } }`);
    assert.equal(r.partialUpdateTodo._id, t._id);
    const doc = (await db.query(q.Get(q.Ref(q.Collection('Todo'), t._id)))) as { data: any };
    assert.deepEqual(doc.data.notes, [{ stars: 5 }]);
    // create and update still take the full <E>Input.
    const e = await fails(srv.url, secret, `mutation { updateTodo(id: "${t._id}", data: {title: "L", completed: true, notes: [{stars: 1}]}) { _id } }`);
    assert.match(e.message, /Field 'NoteInput.text' of required type 'String!' was not provided/);
  });

  test('delete returns the document as it was, then null', async () => {
    const t = await createTodo('{title: "gone", completed: true}');
    let r = await ok(srv.url, secret, `mutation { deleteTodo(id: "${t._id}") { _id title completed } }`);
    assert.deepEqual(r.deleteTodo, { _id: t._id, title: 'gone', completed: true });
    assert.equal(await db.query(q.Exists(q.Ref(q.Collection('Todo'), t._id))), false);
    r = await ok(srv.url, secret, `mutation { deleteTodo(id: "${t._id}") { _id } }`);
    assert.equal(r.deleteTodo, null);
  });

  test('unique violations are errors with the FQL code, and nothing is written', async () => {
    await ok(srv.url, secret, 'mutation { createUser(data: {email: "a@x.io"}) { _id } }');
    const e = await fails(srv.url, secret, 'mutation { createUser(data: {email: "a@x.io", name: "dup"}) { _id } }');
    assert.equal(e.message, 'Document is not unique.');
    assert.deepEqual(e.extensions, { code: 'instance not unique' });
    assert.deepEqual(e.path, ['createUser']);
    assert.deepEqual(e.locations, [{ line: 1, column: 12 }]);
    // One operation is one transaction: a failing second mutation rolls the first one back.
    const two = await gql(
      srv.url,
      secret,
      'mutation { one: createUser(data: {email: "b@x.io"}) { _id } two: createUser(data: {email: "a@x.io"}) { _id } }',
    );
    assert.equal(two.status, 200);
    assert.equal(two.data, null);
    assert.equal(two.errors![0].extensions!.code, 'instance not unique');
    const emails = (await db.query(q.Paginate(q.Match(q.Index('unique_User_email'), 'b@x.io')))) as { data: unknown[] };
    assert.equal(emails.data.length, 0);
    assert.equal(await db.query(q.Count(q.Documents(q.Collection('User')))), 1);
  });
});

describe('queries backed by indexes', () => {
  test('terms from arguments, single results, documents written through FQL', async () => {
    await deleteAll();
    await createTodo('{title: "a", completed: true, priority: 1, status: OPEN}');
    await createTodo('{title: "b", completed: false, priority: 1, status: OPEN}');
    await createTodo('{title: "c", completed: true, priority: 2, status: DONE}');
    // Written through FQL: visible to GraphQL.
    await db.query(q.Create(q.Collection('Todo'), { data: { title: 'd', completed: true, priority: 1, status: 'OPEN' } }));

    const data = await ok(
      srv.url,
      secret,
      `{ done: todosByCompleted(completed: true) { data { title } after before }
         open1: todosByStatusAndPriority(status: OPEN, priority: 1) { data { title } }
         one: todoByTitle(title: "c") { title status }
         none: todoByTitle(title: "zzz") { title } }`,
    );
    assert.deepEqual(data.done.data.map((t: { title: string }) => t.title).sort(), ['a', 'c', 'd']);
    assert.equal(data.done.after, null);
    assert.equal(data.done.before, null);
    assert.deepEqual(data.open1.data.map((t: { title: string }) => t.title).sort(), ['a', 'b', 'd']);
    assert.deepEqual(data.one, { title: 'c', status: 'DONE' });
    assert.equal(data.none, null);
  });

  test('pagination across several pages, forwards and backwards; default size 50', async () => {
    await deleteAll();
    const ids: string[] = [];
    for (let i = 0; i < 7; i++) ids.push((await createTodo(`{title: "p${i}", completed: false}`))._id);
    const titles = (page: { data: { title: string }[] }) => page.data.map((t) => t.title);

    const p1 = (await ok(srv.url, secret, '{ allTodos(_size: 3) { data { title } after before } }')).allTodos;
    assert.deepEqual(titles(p1), ['p0', 'p1', 'p2']);
    assert.equal(p1.before, null);
    assert.equal(typeof p1.after, 'string');
    const next = async (cursor: string) =>
      (await ok(srv.url, secret, 'query($c: String) { allTodos(_size: 3, _cursor: $c) { data { title } after before } }', { c: cursor })).allTodos;
    const p2 = await next(p1.after);
    assert.deepEqual(titles(p2), ['p3', 'p4', 'p5']);
    assert.equal(typeof p2.before, 'string');
    const p3 = await next(p2.after);
    assert.deepEqual(titles(p3), ['p6']);
    assert.equal(p3.after, null);
    // Back: the page before p3 is p2's items; before p2 is p1's.
    const b2 = await next(p3.before);
    assert.deepEqual(titles(b2), ['p3', 'p4', 'p5']);
    const b1 = await next(b2.before);
    assert.deepEqual(titles(b1), ['p0', 'p1', 'p2']);
    assert.equal(b1.before, null);

    // Default page size is 50.
    for (let i = 7; i < 55; i++) await db.query(q.Create(q.Collection('Todo'), { data: { title: `p${i}`, completed: false } }));
    const big = (await ok(srv.url, secret, '{ allTodos { data { _id } after } }')).allTodos;
    assert.equal(big.data.length, 50);
    assert.equal(typeof big.after, 'string');

    const bad = await fails(srv.url, secret, '{ allTodos(_cursor: "nonsense!") { data { title } } }');
    assert.match(bad.message, /Invalid cursor/);
    assert.deepEqual(bad.path, ['allTodos']);
    const zero = await fails(srv.url, secret, '{ allTodos(_size: 0) { data { title } } }');
    assert.match(zero.message, /_size/);
  });

  test('a document written through FQL that breaks the schema gives a clear error, and the server carries on', async () => {
    await deleteAll();
    await createTodo('{title: "fine", completed: true}');
    const bad = (await db.query(q.Create(q.Collection('Todo'), { data: { title: 42, completed: 'yes', tags: 'not-a-list' } }))) as { ref: values.Ref };
    const res = await gql(srv.url, secret, '{ allTodos { data { title completed tags } } }');
    assert.equal(res.status, 200);
    assert.ok(res.errors && res.errors.length >= 1, res.raw);
    const titleErr = res.errors!.find((e) => e.path?.join('.') === 'allTodos.data.1.title');
    assert.ok(titleErr, res.raw);
    assert.match(titleErr!.message, /'Todo.title' does not match the schema: String expected, Integer found/);
    assert.deepEqual(titleErr!.locations, [{ line: 1, column: 21 }]);
    // Non-null fields that cannot be shown null their parent (standard GraphQL), the rest is served.
    assert.deepEqual(res.data, { allTodos: { data: [{ title: 'fine', completed: true, tags: null }, null] } });
    // A missing required field.
    await db.query(q.Replace(bad.ref, { data: { title: 'no completed' } }));
    const miss = await fails(srv.url, secret, `{ findTodoByID(id: "${bad.ref.id}") { title completed } }`);
    assert.match(miss.message, /Cannot return null for non-nullable field Todo.completed/);
    // Fixing the document through FQL makes it readable again.
    await db.query(q.Update(bad.ref, { data: { completed: false } }));
    assert.deepEqual(await ok(srv.url, secret, `{ findTodoByID(id: "${bad.ref.id}") { title completed } }`), {
      findTodoByID: { title: 'no completed', completed: false },
    });
  });
});

describe('errors', () => {
  test('validation errors: data null, Sangria-style message, locations; suggestions', async () => {
    const res = await gql(srv.url, secret, '{\n  hero {\n    name\n  }\n}');
    assert.equal(res.status, 200);
    assert.equal(res.data, null);
    assert.deepEqual(res.errors, [
      { message: "Cannot query field 'hero' on type 'Query'. (line 2, column 3):\n  hero {\n  ^", locations: [{ line: 2, column: 3 }] },
    ]);
    const sugg = await fails(srv.url, secret, 'mutation { createTodoo(data: {title: "x", completed: true}) { _id } }');
    assert.match(sugg.message, /^Cannot query field 'createTodoo' on type 'Mutation'. Did you mean 'createTodo'/);
  });

  test('syntax errors', async () => {
    const res = await gql(srv.url, secret, '{ allTodos { data { title }');
    assert.equal(res.status, 200);
    assert.equal(res.data, null);
    assert.match(res.errors![0].message, /^Syntax error while parsing GraphQL query\. .*\(line 1, column 28\):\n\{ allTodos/s);
    assert.deepEqual(res.errors![0].locations, [{ line: 1, column: 28 }]);
  });

  test('wrong variable types and wrong argument types', async () => {
    let res = await gql(srv.url, secret, 'query($c: Boolean!) { todosByCompleted(completed: $c) { data { title } } }', { c: 'yes' });
    assert.equal(res.status, 200);
    assert.equal(res.data, null);
    assert.match(res.errors![0].message, /Variable '\$c' got invalid value 'yes'; Boolean cannot represent a non boolean value/);
    assert.deepEqual(res.errors![0].locations, [{ line: 1, column: 7 }]);
    res = await gql(srv.url, secret, 'query($p: Int!) { todosByStatusAndPriority(status: OPEN, priority: $p) { data { title } } }', { p: 2 ** 40 });
    assert.match(res.errors![0].message, /Int cannot represent non 32-bit signed integer value/);
    res = await gql(srv.url, secret, 'mutation($d: Date) { createTodo(data: {title: "x", completed: true, due: $d}) { _id } }', { d: '2024-13-01' });
    assert.equal(res.data, null);
    assert.match(res.errors![0].message, /Date must be a string in the format yyyy-MM-dd/);
    res = await gql(srv.url, secret, '{ todosByCompleted(completed: "yes") { data { title } } }');
    assert.equal(res.data, null);
    assert.match(res.errors![0].message, /Boolean cannot represent a non boolean value: 'yes'/);
    res = await gql(srv.url, secret, 'query($s: String!) { todoByTitle(title: $s) { title } }', { s: 1 });
    assert.match(res.errors![0].message, /String cannot represent a non string value/);
    res = await gql(srv.url, secret, 'mutation($t: Time) { createTodo(data: {title: "x", completed: true, at: $t}) { _id } }', { t: 'yesterday' });
    assert.match(res.errors![0].message, /Time must be a string/);
    res = await gql(srv.url, secret, 'mutation($b: Long) { createTodo(data: {title: "x", completed: true, big: $b}) { _id } }', { b: 1.5 });
    assert.match(res.errors![0].message, /Long cannot represent non-integer value: 1.5/);
    res = await gql(srv.url, secret, 'mutation { createTodo(data: {title: "x", completed: true, big: 1.5}) { _id } }');
    assert.match(res.errors![0].message, /Long cannot represent non-integer value/);
    assert.equal(await db.query(q.Count(q.Match(q.Index('todoByTitle'), 'x'))), 0);
  });

  test('authentication and HTTP-level errors', async () => {
    await deleteAll();
    let res = await gql(srv.url, undefined, '{ allTodos { data { title } } }');
    assert.equal(res.status, 401);
    assert.deepEqual(JSON.parse(res.raw), { errors: [{ message: 'Missing authorization header.' }] });
    res = await gql(srv.url, 'bogus-secret', '{ allTodos { data { title } } }');
    assert.equal(res.status, 200);
    assert.deepEqual(JSON.parse(res.raw), { errors: [{ message: 'Invalid database secret.' }] });
    // Basic auth works like Bearer.
    res = await gql(srv.url, undefined, '{ allTodos { data { title } } }', undefined, {
      headers: { authorization: `Basic ${Buffer.from(`${secret}:`).toString('base64')}` },
    });
    assert.equal(res.status, 200);
    assert.equal(res.errors, undefined, res.raw);
    const badJson = await httpRequest(srv.url, { method: 'POST', path: '/graphql', headers: { authorization: `Bearer ${secret}` }, body: '{"query": ' });
    assert.equal(badJson.status, 400);
    assert.match(JSON.parse(badJson.body).errors[0].message, /not valid JSON/);
    const noQuery = await httpRequest(srv.url, { method: 'POST', path: '/graphql', headers: { authorization: `Bearer ${secret}` }, body: '' });
    assert.equal(noQuery.status, 200);
    assert.match(JSON.parse(noQuery.body).errors[0].message, /No query/);
    res = await gql(srv.url, secret, '{ allTodos { data { title } } }', undefined, { headers: { 'x-schema-preview': 'partial-update-mutation' } });
    assert.equal(res.status, 200);
    res = await gql(srv.url, secret, '{ allTodos { data { title } } }', undefined, { headers: { 'x-schema-preview': 'time-travel' } });
    assert.equal(res.status, 400);
    assert.match(res.errors![0].message, /Invalid schema preview code: 'time-travel'/);
    const put = await httpRequest(srv.url, { method: 'PUT', path: '/graphql', headers: { authorization: `Bearer ${secret}` } });
    assert.equal(put.status, 405);
  });
});

describe('odd input', () => {
  /** A request that must get GraphQL errors and no data (HTTP 200); returns the first error. */
  async function refused(body: string): Promise<{ message: string; locations?: { line: number; column: number }[] }> {
    const res = await gqlBody(srv.url, secret, body);
    assert.equal(res.status, 200, res.raw);
    assert.equal(res.data, null, res.raw);
    assert.ok(res.errors && res.errors.length > 0, res.raw);
    return res.errors[0];
  }

  test('queries nested thousands of levels deep get an error, not a stack overflow', async () => {
    const deep = (n: number) => `{ allTodos { data { ${'notes { '.repeat(n)}text${' }'.repeat(n)} } } }`;
    let e = await refused(JSON.stringify({ query: deep(5000) }));
    assert.match(e.message, /^The query is nested too deeply: at most 100 levels are allowed\. \(line 1, column \d+\)/);
    assert.equal(e.locations!.length, 1);
    // Deep input values, and chains of fragments, too.
    e = await refused(JSON.stringify({ query: `{ allTodos(_cursor: ${'['.repeat(5000)}${']'.repeat(5000)}) { data { title } } }` }));
    assert.match(e.message, /nested too deeply/);
    const chain = Array.from({ length: 3000 }, (_, i) => `fragment F${i} on Todo { ...F${i + 1} }`).join(' ');
    e = await refused(JSON.stringify({ query: `{ allTodos { data { ...F0 } } } ${chain} fragment F3000 on Todo { title }` }));
    assert.match(e.message, /nested too deeply/);
    // Fragments spread many times are measured once (no blow-up), and ordinary depths are served.
    const fan = Array.from({ length: 40 }, (_, i) => `fragment F${i} on Todo { t${i}: title ...F${i + 1} ...F${i + 1} }`).join(' ');
    await ok(srv.url, secret, `{ allTodos { data { ...F0 } } } ${fan} fragment F40 on Todo { title }`);
    await ok(srv.url, secret, `{ __type(name: "Todo") { fields { type { ${'ofType { '.repeat(30)}name${' }'.repeat(30)} } } } }`);
  });

  test('integers beyond 64 bits: Long refuses them, Float takes them, other Longs stay exact', async () => {
    await deleteAll();
    const mutation = 'mutation($b: Long, $s: Float) { createTodo(data: {title: "huge", completed: true, big: $b, score: $s}) { big score } }';
    // Not JSON.stringify: these integers do not fit a JS number.
    let e = await refused(`{"query": ${JSON.stringify(mutation)}, "variables": {"b": 99999999999999999999999}}`);
    assert.match(e.message, /^Variable '\$b' got invalid value .*Long cannot represent value/);
    assert.deepEqual(e.locations, [{ line: 1, column: 10 }]);
    const res = await gqlBody(srv.url, secret, `{"query": ${JSON.stringify(mutation)}, "variables": {"b": 9007199254740993, "s": 99999999999999999999999}}`);
    assert.equal(res.status, 200, res.raw);
    assert.equal(res.raw, '{"data":{"createTodo":{"big":9007199254740993,"score":1e+23}}}');
    // A double that is an integer outside the Long range was stored wrapped around; now it is refused.
    e = await refused(JSON.stringify({ query: mutation, variables: { b: 1e20 } }));
    assert.match(e.message, /Long cannot represent value: 100000000000000000000/);
    // Literals: the error points at the literal.
    e = await refused(JSON.stringify({ query: 'mutation {\n  createTodo(data: {title: "x", completed: true, big: 99999999999999999999999}) { _id }\n}' }));
    assert.match(e.message, /^Long cannot represent value: 99999999999999999999999 \(line 2, column 55\)/);
    assert.deepEqual(e.locations, [{ line: 2, column: 55 }]);
    // 1e400 is Infinity to graphql-js's Float: refused before anything is written.
    const inf = await fails(srv.url, secret, 'mutation { createTodo(data: {title: "inf", completed: true, score: 1e400}) { _id } }');
    assert.equal(inf.message, 'Float cannot represent non numeric value: Infinity');
    assert.deepEqual(inf.extensions, { code: 'invalid argument' });
    const stored = (await db.query(q.Map(q.Paginate(q.Documents(q.Collection('Todo'))), q.Lambda('r', q.Select(['data', 'title'], q.Get(q.Var('r'))))))) as {
      data: string[];
    };
    assert.deepEqual(stored.data, ['huge']);
    assert.equal(await rawQuery(srv.url, secret, JSON.stringify({ select: ['data', 'big'], from: { get: { match: { index: 'todoByTitle' }, terms: 'huge' } } })), '{"resource":9007199254740993}');
  });

  test('JSON integers beyond 2^53: an ID takes its exact digits, a Float the number, inside input objects too', async () => {
    await deleteAll();
    const t = await createTodo('{title: "by number", completed: true}');
    assert.ok(BigInt(t._id) > BigInt(Number.MAX_SAFE_INTEGER), t._id);
    // The id as a JSON number (not a string), as a client with exact integers may send it.
    let res = await gqlBody(srv.url, secret, `{"query": "query($id: ID!) { findTodoByID(id: $id) { title } }", "variables": {"id": ${t._id}}}`);
    assert.equal(res.raw, '{"data":{"findTodoByID":{"title":"by number"}}}');
    const update = 'mutation($id: ID!, $d: PartialUpdateTodoInput!) { partialUpdateTodo(id: $id, data: $d) { score big } }';
    res = await gqlBody(srv.url, secret, `{"query": ${JSON.stringify(update)}, "variables": {"id": ${t._id}, "d": {"score": 12345678901234567, "big": 12345678901234567}}}`);
    assert.equal(res.raw, '{"data":{"partialUpdateTodo":{"score":12345678901234568,"big":12345678901234567}}}');
    // An Int still refuses it.
    const e = await refused(`{"query": "query($s: Int) { allTodos(_size: $s) { data { title } } }", "variables": {"s": 12345678901234567}}`);
    assert.match(e.message, /Int cannot represent non 32-bit signed integer value/);
  });

  test('Date and Time literals that do not fit are errors located at the literal; Date is only yyyy-MM-dd', async () => {
    for (const [field, value, expected] of [
      ['due', '"2024-13-01"', /^Date must be a string in the format yyyy-MM-dd: '2024-13-01' \(line 1, column 64\)/],
      ['due', '"+2024-01-01"', /^Date must be a string in the format yyyy-MM-dd: '\+2024-01-01'/],
      ['due', '20240101', /^Date must be a string in the format yyyy-MM-dd: 20240101 /],
      ['due', 'true', /^Date must be a string in the format yyyy-MM-dd: true /],
      ['due', 'TODAY', /^Date must be a string in the format yyyy-MM-dd: TODAY /],
      ['at', '["2024-01-01T00:00:00Z"]', /^Time must be a string in the format yyyy-MM-ddTHH:mm:ss.SSSZ: \['2024-01-01T00:00:00Z'\] /],
      ['at', '"yesterday"', /^Time must be a string in the format yyyy-MM-ddTHH:mm:ss.SSSZ: 'yesterday' \(line 1, column 63\)/],
    ] as const) {
      const e = await refused(JSON.stringify({ query: `mutation { createTodo(data: {title: "x", completed: true, ${field}: ${value}}) { _id } }` }));
      assert.match(e.message, expected);
      assert.deepEqual(e.locations, [{ line: 1, column: field === 'due' ? 64 : 63 }]);
    }
    assert.equal(await db.query(q.Count(q.Match(q.Index('todoByTitle'), 'x'))), 0);
  });

  test('bodies and parameters of the wrong JSON type get a clear error', async () => {
    for (const [body, status, message] of [
      ['[]', 400, /must be a JSON object/],
      ['"{ allTodos { data { title } } }"', 400, /must be a JSON object/],
      ['null', 400, /must be a JSON object/],
      ['12', 400, /must be a JSON object/],
      ['{"query": "{ __typename }", "variables": [1]}', 400, /`variables` must be an object/],
      ['{"query": "{ __typename }", "variables": "{}"}', 400, /`variables` must be an object/],
      ['{"query": "{ __typename }", "operationName": 5}', 400, /`operationName` must be a string/],
      ['{"query": 5}', 200, /No query was given/],
      ['{"query": "query A { __typename }", "operationName": "B"}', 200, /Unknown operation named 'B'/],
      ['{"query": "query A { __typename } query B { __typename }"}', 200, /Must provide operation name/],
      [`{"query": ${'['.repeat(2000)}${']'.repeat(2000)}}`, 400, /nesting limit/],
    ] as const) {
      const res = await gqlBody(srv.url, secret, body);
      assert.equal(res.status, status, `${body.slice(0, 60)} → ${res.raw}`);
      assert.match(res.errors![0].message, message, body.slice(0, 60));
    }
  });
});

describe('transport', () => {
  test('GET with ?query=, application/graphql bodies, operationName, HTTP/2', async () => {
    await deleteAll();
    await createTodo('{title: "g", completed: true}');
    const get = await httpRequest(srv.url, {
      path: `/graphql?query=${encodeURIComponent('query Q($c: Boolean!) { todosByCompleted(completed: $c) { data { title } } }')}&variables=${encodeURIComponent('{"c": true}')}`,
      headers: { authorization: `Bearer ${secret}` },
    });
    assert.equal(get.status, 200, get.body);
    assert.deepEqual(JSON.parse(get.body), { data: { todosByCompleted: { data: [{ title: 'g' }] } } });
    const getMutation = await httpRequest(srv.url, {
      path: `/graphql?query=${encodeURIComponent('mutation { createTodo(data: {title: "x", completed: true}) { _id } }')}`,
      headers: { authorization: `Bearer ${secret}` },
    });
    assert.equal(getMutation.status, 405);

    const raw = await httpRequest(srv.url, {
      method: 'POST',
      path: '/graphql',
      headers: { authorization: `Bearer ${secret}`, 'content-type': 'application/graphql' },
      body: '{ allTodos { data { title } } }',
    });
    assert.deepEqual(JSON.parse(raw.body), { data: { allTodos: { data: [{ title: 'g' }] } } });
    assert.match(raw.headers['content-type'], /^application\/json/);

    const named = await gql(srv.url, secret, 'query A { allTodos { data { title } } } query B { todoByTitle(title: "g") { completed } }', undefined, {
      operationName: 'B',
    });
    assert.deepEqual(named.data, { todoByTitle: { completed: true } });
    const h2 = await gql(srv.url, secret, '{ allTodos { data { title } } }', undefined, { http2: true });
    assert.deepEqual(h2.data, { allTodos: { data: [{ title: 'g' }] } });
  });
});

describe('introspection', () => {
  test('a full introspection builds a client schema with the generated surface', async () => {
    const data = await ok(srv.url, secret, getIntrospectionQuery({ descriptions: true }));
    const schema = buildClientSchema(data as never);
    const sdl = printSchema(schema);
    for (const part of [
      'directive @embedded on OBJECT',
      'directive @collection(name: String!) on OBJECT',
      'directive @index(name: String!) on FIELD_DEFINITION',
      'directive @resolver(name: String, paginated: Boolean! = false) on FIELD_DEFINITION',
      'directive @relation(name: String) on FIELD_DEFINITION',
      'directive @unique(index: String) on FIELD_DEFINITION',
      'scalar Date',
      'scalar Time',
      'The `Long` scalar type represents non-fractional signed whole numeric values. Long can represent values between -(2^63) and 2^63 - 1.',
      "The document's ID.",
      '_id: ID!',
      '_ts: Long!',
      'allTodos(_size: Int, _cursor: String): TodoPage!',
      'findTodoByID(\n    """The \'Todo\' document\'s ID"""\n    id: ID!\n  ): Todo',
      "createTodo(\n    \"\"\"'Todo' input values\"\"\"\n    data: TodoInput!\n  ): Todo!",
      'partialUpdateTodo(',
      'data: PartialUpdateTodoInput!',
      "The pagination object for elements of type 'Todo'.",
      'input TodoInput {',
      'meta: MetaInput',
      'input PartialUpdateTodoInput {',
      'meta: PartialUpdateMetaInput',
      'notes: [NoteInput!]',
      'notes: [PartialUpdateNoteInput!]',
      'title: String\n',
    ])
      assert.ok(sdl.includes(part), `missing ${JSON.stringify(part)} in\n${sdl}`);
    const page = schema.getType('TodoPage') as never as { getFields(): Record<string, { type: { toString(): string } }> };
    assert.equal(page.getFields().data.type.toString(), '[Todo]!');
    assert.equal(page.getFields().after.type.toString(), 'String');
  });
});
