// The native collections over a real store, both languages through one executor: functions
// (and calling them, with their role), roles with v10 predicates, keys, databases, access
// providers, credentials and tokens, Query.identity; what v4 sees of what v10 made and back.

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { ExecStore } from './executorHarness';

const drop = (o: any, ...keys: string[]) => {
  for (const k of keys) delete o[k];
  return o;
};

test('Function: create, byName, update, delete, and calls by name', async () => {
  const s = await ExecStore.open();
  try {
    const made = await s.json('Function.create({ name: "AddTwo", body: "x => x + 2" })');
    assert.deepEqual(drop(made, 'ts'), { name: 'AddTwo', coll: 'Function', body: 'x => x + 2' });
    assert.equal(await s.ok('Function.byName("AddTwo").exists()'), 'true');
    assert.equal(await s.ok('Function.byName("AddTwo") == null'), 'false');
    assert.equal(await s.ok('AddTwo.definition.name'), '"AddTwo"');
    assert.equal(await s.ok('AddTwo(3)'), '5');
    assert.equal(await s.ok('Function("AddTwo")(1)'), '3');
    assert.equal(await s.ok('AddTwo isa Function'), 'true');
    assert.equal(await s.ok('Function.byName("AddTwo")!.update({ body: "x => x * 10", data: { v: 1 } }).data'), '{"v":1}');
    assert.equal(await s.ok('AddTwo(3)'), '30');
    assert.deepEqual(await s.json('Function.all().map(.name).toArray()'), ['AddTwo']);
    await s.ok('AddTwo.definition.delete()');
    assert.equal(await s.ok('Function.byName("AddTwo").exists()'), 'false');
    assert.equal(await s.ok('Function.byName("AddTwo") == null'), 'true');
    // .name comes from the reference, so it works when the function is gone.
    assert.equal(await s.ok('Function.byName("AddTwo").name'), '"AddTwo"');
    const unbound = await s.err('AddTwo.definition.name');
    assert.equal(unbound.message, 'Unbound variable `AddTwo`');
    const none = await s.err('Function("Foo")');
    assert.equal(
      none.summary,
      'error: invalid argument `function`: No such user function `Foo`.\nat *query*:1:9\n  |\n1 | Function("Foo")\n  |         ^^^^^^^\n  |',
    );
  } finally {
    await s.close();
  }
});

test('Function: bodies are checked; failures inside point into *udf:name*; recursion and the stack limit', async () => {
  const s = await ExecStore.open();
  try {
    const short = await s.err("Function.create({ name: 'noShortLambdas', body: '(.x)' })");
    assert.equal(short.code, 'constraint_failure');
    assert.equal(short.message, 'Failed to create Function.');
    assert.deepEqual(JSON.parse(short.failures!), [
      { paths: [['body']], message: 'Unable to parse FQL source code.\nerror: Short form lambdas are not allowed here\nat *body*:1:2\n  |\n1 | (.x)\n  |  ^^\n  |' },
    ]);
    const dup = await s.err("Function.create({ name: 'f', body: 'x => x' }); Function.create({ name: 'f', body: 'x => x' })");
    assert.equal(dup.code, 'constraint_failure');
    assert.deepEqual(JSON.parse(dup.failures!), [{ paths: [['name']], message: 'A Function already exists with the name `f`' }]);

    await s.ok('Function.create({ name: "boom", body: "x => x.nope()" })');
    const boom = await s.err('boom(1)');
    assert.equal(boom.code, 'invalid_function_invocation');
    assert.match(boom.summary, /at \*udf:boom\*:1:8/);
    assert.match(boom.summary, /at \*query\*:1:5/);
    const arity = await s.err('boom()');
    assert.equal(arity.message, 'callee function expects exactly 1 argument, but 0 were provided.');

    await s.ok('Function.create({ name: "fact", body: "x => if (x == 0) 0 else x + fact(x - 1)" })');
    assert.equal(await s.ok('fact(10)'), '55');
    const deep = await s.err('fact(5000)');
    assert.equal(deep.code, 'stack_overflow');
  } finally {
    await s.close();
  }
});

test('Function: a role runs the body with its privileges; a call privilege with a v10 predicate', async () => {
  const s = await ExecStore.open();
  try {
    await s.ok('Collection.create({ name: "Secret" })');
    await s.ok('Secret.create({ id: "1", v: 42 })');
    await s.ok('Function.create({ name: "peek", role: "admin", body: "_ => Secret.byId(\\"1\\")!.v" })');
    await s.ok('Function.create({ name: "peekAsCaller", body: "_ => Secret.byId(\\"1\\").v" })');
    await s.ok(`Role.create({ name: "caller", privileges: [
      { resource: "peek", actions: { call: "x => x > 0" } },
      { resource: "peekAsCaller", actions: { call: true } }
    ] })`);
    const secret = JSON.parse(await s.ok('Key.create({ role: "caller" }).secret'));
    const direct = await s.err('Secret.byId("1").v', secret);
    assert.equal(direct.code, 'permission_denied');
    assert.equal(await s.ok('peek(1)', secret), '42');
    const refused = await s.err('peek(0)', secret);
    assert.deepEqual([refused.code, refused.message], ['permission_denied', 'Insufficient privileges to perform the action.']);
    // Without a role, the body runs with the caller's privileges.
    assert.equal((await s.err('peekAsCaller(1)', secret)).code, 'permission_denied');
  } finally {
    await s.close();
  }
});

test('Role: a v10 read predicate refuses documents, for v10 and v4 requests alike', async () => {
  const s = await ExecStore.open();
  try {
    await s.ok('Collection.create({ name: "Book" })');
    await s.ok('Book.create({ id: "1", open: true }); Book.create({ id: "2", open: false })');
    const role = await s.json('Role.create({ name: "reader", privileges: [{ resource: "Book", actions: { read: "doc => doc.open" } }] })');
    assert.deepEqual(drop(role, 'ts'), { name: 'reader', coll: 'Role', privileges: [{ resource: 'Book', actions: { read: 'doc => doc.open' } }] });
    const secret = JSON.parse(await s.ok('Key.create({ role: "reader" }).secret'));
    assert.equal(await s.ok('Book.byId("1")!.open', secret), 'true');
    const denied = await s.err('Book.byId("2").open', secret);
    assert.deepEqual([denied.code, denied.message], ['permission_denied', 'Insufficient privileges to perform the action.']);
    const bang = await s.err('Book.byId("2")!', secret);
    assert.deepEqual([bang.code, bang.message], ['null_value', 'Null value, due to permission denied']);
    assert.equal(await s.ok('Book.byId("2").exists()', secret), 'false');
    const v4ok = await s.v4({ get: { ref: { collection: 'Book' }, id: '1' } }, secret);
    assert.equal(v4ok.status, 200);
    const v4denied = await s.v4({ get: { ref: { collection: 'Book' }, id: '2' } }, secret);
    assert.equal(v4denied.status, 403);
    // A predicate that does not parse is refused when the role is written.
    const bad = await s.err('Role.create({ name: "bad", privileges: [{ resource: "Book", actions: { read: "doc =>" } }] })');
    assert.equal(bad.code, 'constraint_failure');
    assert.equal(bad.message, 'Failed to create Role.');
    const noResource = await s.err('Role.create({ name: "bad", privileges: [{ resource: "Nope", actions: { read: true } }] })');
    assert.deepEqual(JSON.parse(noResource.failures!), [{ paths: [['privileges', 0, 'resource']], message: 'Resource `Nope` does not exist.' }]);
    assert.deepEqual(await s.json('Role.all().map(.name).toArray()'), ['reader']);
    await s.ok('Role.byName("reader")!.update({ privileges: [{ resource: "Book", actions: { read: true } }] })');
    assert.equal(await s.ok('Book.byId("2")!.open', secret), 'false');
  } finally {
    await s.close();
  }
});

test('Credential and Token: login makes a token whose secret is the identity; verify; Query.identity and token', async () => {
  const s = await ExecStore.open();
  try {
    await s.ok('Collection.create({ name: "User" }); Collection.create({ name: "Book" })');
    await s.ok('User.create({ id: "7", name: "ann" }); Book.create({ id: "1", t: "x" })');
    const cred = await s.json('Credential.create({ document: User.byId("7"), password: "sekret" })');
    assert.deepEqual(drop(cred, 'id', 'ts'), { coll: 'Credential', document: { id: '7', coll: 'User' } });
    assert.equal(await s.ok('Credentials.byDocument(User.byId("7"))!.verify("sekret")'), 'true');
    assert.equal(await s.ok('Credential.byDocument(User.byId("7"))!.verify("nope")'), 'false');
    const wrong = await s.err('Credential.byDocument(User.byId("7"))!.login("nope")');
    assert.deepEqual([wrong.code, wrong.message], ['invalid_secret', 'Provided secret did not match.']);
    const token = await s.json('Credential.byDocument(User.byId("7"))!.login("sekret")');
    assert.deepEqual(Object.keys(token), ['id', 'coll', 'ts', 'document', 'secret']);
    assert.deepEqual([token.coll, token.document], ['Token', { id: '7', coll: 'User' }]);
    assert.equal(await s.ok(`Token.byId("${token.id}")!.secret`), 'null');
    assert.deepEqual(await s.json('Token.byDocument(User.byId("7")).map(.id).toArray()'), [token.id]);
    assert.deepEqual(await s.json('Query.identity()', token.secret), { id: '7', coll: 'User', ts: (await s.json('User.byId("7")')).ts, name: 'ann' });
    assert.equal((await s.json('Query.token()', token.secret)).id, token.id);
    assert.equal(await s.ok('Query.identity()'), 'null');
    assert.equal(await s.ok('Query.token()'), 'null');
    // A v10 membership predicate gives the token's identity a role.
    await s.ok('Role.create({ name: "member", membership: [{ resource: "User", predicate: "u => u.name == \\"ann\\"" }], privileges: [{ resource: "Book", actions: { read: true } }] })');
    assert.equal(await s.ok('Book.byId("1")!.t', token.secret), '"x"');
    // The token works for v4 requests too, with the same identity.
    const v4 = await s.v4({ current_identity: null }, token.secret);
    assert.equal(v4.status, 200);
    assert.deepEqual(v4.body.resource, { '@ref': { id: '7', collection: { '@ref': { id: 'User', collection: { '@ref': { id: 'collections' } } } } } });
    // Token.create, update, delete.
    const made = await s.json('Token.create({ document: User.byId("7"), data: { a: 1 } })');
    assert.deepEqual(Object.keys(made), ['id', 'coll', 'ts', 'document', 'secret', 'data']);
    assert.equal(await s.ok(`Token.byId("${made.id}")!.update({ data: { b: 2 } }).data`), '{"a":1,"b":2}');
    const ro = await s.err(`Token.byId("${made.id}")!.update({ secret: "x" })`);
    assert.deepEqual(JSON.parse(ro.failures!), [{ paths: [['secret']], message: 'Failed to update field because it is readonly' }]);
    assert.equal(ro.message, `Failed to update Token with id ${made.id}.`);
    await s.ok(`Token.byId("${made.id}")!.delete()`);
    assert.equal(await s.ok(`Token.byId("${made.id}").exists()`), 'false');
    assert.equal((await s.v4({ add: [1, 1] }, made.secret)).status, 401);
  } finally {
    await s.close();
  }
});

test('Key and Database: keys made by either language authenticate the other; nested databases', async () => {
  const s = await ExecStore.open();
  try {
    const key = await s.json('Key.create({ role: "server", data: { by: "v10" } })');
    assert.deepEqual(Object.keys(key), ['id', 'coll', 'ts', 'role', 'secret', 'data']);
    assert.equal((await s.v4({ add: [1, 2] }, key.secret)).body.resource, 3);
    assert.equal(await s.ok(`Key.byId("${key.id}")!.secret`), 'null');
    const v4key = await s.v4({ create_key: { object: { role: 'admin' } } });
    assert.equal(v4key.status, 201);
    assert.equal(await s.ok('1 + 1', v4key.body.resource.secret), '2');
    assert.deepEqual((await s.json('Key.all().map(.role).toArray()')).sort(), ['admin', 'server']);
    // A page of keys ends in a cursor that a later request pages on with.
    const first = await s.json('Key.all().pageSize(1)');
    assert.equal(first.data.length, 1);
    const next = await s.json(`Set.paginate("${first.after}")`);
    assert.equal(next.data.length, 1);
    assert.notEqual(next.data[0].id, first.data[0].id);
    // A server key may not manage keys.
    assert.equal((await s.err('Key.create({ role: "admin" })', key.secret)).code, 'permission_denied');

    const db = await s.json('Database.create({ name: "child", data: { x: 1 } })');
    assert.deepEqual(Object.keys(db), ['name', 'coll', 'ts', 'global_id', 'data']);
    const child = JSON.parse(await s.ok('Key.create({ role: "admin", database: "child" }).secret'));
    assert.equal(await s.ok('Key.all().toArray().length'), '3');
    await s.ok('Collection.create({ name: "Inner" })', child);
    assert.deepEqual(await s.json('Collection.all().map(.name).toArray()', child), ['Inner']);
    assert.deepEqual(await s.json('Collection.all().map(.name).toArray()'), []);
    assert.equal(await s.ok('Database.byName("child")!.update({ data: { x: 2 } }).data.x'), '2');
    assert.deepEqual(await s.json('Database.all().map(.name).toArray()'), ['child']);
    await s.ok('Database.byName("child")!.delete()');
    assert.equal(await s.ok('Database.byName("child").exists()'), 'false');
    assert.equal((await s.v4({ add: [1, 1] }, child)).status, 401);
  } finally {
    await s.close();
  }
});

test('v4 sees v10 functions and roles, and calls v10 functions; v10 calls v4 functions', async () => {
  const s = await ExecStore.open();
  try {
    await s.ok('Function.create({ name: "double", body: "x => x * 2" }); Function.create({ name: "pair", body: "(x, y) => [x, y]" })');
    const got = await s.v4({ get: { function: 'double' } });
    assert.equal(got.status, 200);
    assert.equal(got.body.resource.body, 'x => x * 2');
    assert.equal(got.body.resource.name, 'double');
    assert.equal((await s.v4({ call: 'double', arguments: 10 })).body.resource, 20);
    assert.deepEqual((await s.v4({ call: 'pair', arguments: [1, 2] })).body.resource, [1, 2]);
    const arity = await s.v4({ call: 'double', arguments: [] });
    assert.equal(arity.body.errors[0].description, 'callee function expects exactly 1 argument, but 0 were provided.');

    const v4fn = await s.v4({ create_function: { object: { name: 'inc', body: { '@query': { lambda: 'x', expr: { add: [{ var: 'x' }, 1] } } } } } });
    assert.equal(v4fn.status, 201, JSON.stringify(v4fn.body));
    assert.equal(await s.ok('inc(41)'), '42');
    const v4role = await s.v4({ create_role: { object: { name: 'v4role', privileges: [{ object: { resource: { function: 'double' }, actions: { object: { call: true } } } }] } } });
    assert.equal(v4role.status, 201, JSON.stringify(v4role.body));
    assert.deepEqual(await s.json('Role.byName("v4role")!.privileges'), [{ resource: 'double', actions: { call: true } }]);
    const secret = JSON.parse(await s.ok('Key.create({ role: "v4role" }).secret'));
    assert.equal(await s.ok('double(4)', secret), '8');
    assert.equal((await s.err('inc(4)', secret)).code, 'permission_denied');
  } finally {
    await s.close();
  }
});

test('AccessProvider: create, read, update, delete', async () => {
  const s = await ExecStore.open();
  try {
    await s.ok('Role.create({ name: "r" })');
    const ap = await s.json('AccessProvider.create({ name: "auth0", issuer: "https://example.com/", jwks_uri: "https://example.com/.well-known/jwks.json", roles: ["r", { role: "r", predicate: "jwt => true" }] })');
    assert.deepEqual(Object.keys(ap), ['name', 'coll', 'ts', 'issuer', 'jwks_uri', 'roles', 'audience']);
    assert.deepEqual(ap.roles, ['r', { role: 'r', predicate: 'jwt => true' }]);
    assert.match(ap.audience, /^https:\/\/db\.fauna\.com\/db\//);
    assert.equal(await s.ok('AccessProvider.byName("auth0")!.update({ data: { a: 1 } }).data.a'), '1');
    await s.ok('AccessProvider.byName("auth0")!.delete()');
    assert.equal(await s.ok('AccessProvider.all().toArray()'), '[]');
  } finally {
    await s.close();
  }
});
