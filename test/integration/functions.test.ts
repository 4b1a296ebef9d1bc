// User-defined functions: CreateFunction / Function / Functions / Update / Delete and Call,
// through the official driver over HTTP/2 and HTTP/1.1.

import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import faunadb, { query as q, values } from 'faunadb';
import { startFlora, type FloraProcess, ClientPool } from '../helpers/server';
import { failure } from '../helpers/faunaErrors';

let srv: FloraProcess;
let root: faunadb.Client;
let pool: ClientPool;

before(async () => {
  srv = await startFlora();
  pool = new ClientPool(srv.url);
  root = pool.client(srv.secret);
});
after(async () => {
  await pool.close();
  await srv.stop();
});

type Proto = 'h2' | 'h1';

function client(secret: string, proto: Proto): faunadb.Client {
  return pool.client(secret, proto);
}

interface FnDoc {
  ref: values.Ref;
  ts: number;
  name: string;
  body: values.Query;
  role?: unknown;
  data?: Record<string, unknown>;
}

interface RawError {
  code: string;
  description: string;
  position: unknown[];
  cause?: RawError[];
}

async function rawError(c: faunadb.Client, expr: faunadb.ExprArg): Promise<{ status: number; error: RawError }> {
  try {
    await c.query(expr);
  } catch (e) {
    const err = e as { requestResult?: { statusCode: number; responseContent: { errors: RawError[] } } };
    assert.ok(err.requestResult, `not a Fauna error: ${String(e)}`);
    return { status: err.requestResult.statusCode, error: err.requestResult.responseContent.errors[0] };
  }
  assert.fail('query unexpectedly succeeded');
}

for (const proto of ['h2', 'h1'] as const) {
  describe(`functions over ${proto}`, () => {
    let db: faunadb.Client;

    before(async () => {
      await root.query(q.CreateDatabase({ name: `fn_${proto}` }));
      db = client(`${srv.secret}:fn_${proto}:admin`, proto);
      await db.query(q.CreateCollection({ name: 'things' }));
    });

    test('CreateFunction result shape; Function, Functions, Get, Update, Replace, Delete', async () => {
      const created = (await db.query(
        q.CreateFunction({ name: 'double', body: q.Query(q.Lambda('x', q.Multiply(q.Var('x'), 2))), data: { a: 1 }, junk: true }),
      )) as FnDoc;
      assert.deepEqual(Object.keys(created), ['ref', 'ts', 'name', 'body', 'data']);
      assert.equal(created.ref.id, 'double');
      assert.equal(created.ref.collection?.id, 'functions');
      assert.equal(created.name, 'double');
      assert.ok(created.body instanceof values.Query, 'body is a Query value');
      const raw = JSON.parse(JSON.stringify(created.body)) as { '@query': Record<string, unknown> };
      assert.deepEqual(raw['@query'], { api_version: '4', lambda: 'x', expr: { multiply: [{ var: 'x' }, 2] } });
      assert.deepEqual(created.data, { a: 1 });

      const got = (await db.query(q.Get(q.Function('double')))) as FnDoc;
      assert.deepEqual(Object.keys(got), ['ref', 'ts', 'name', 'body', 'data']);
      assert.equal(got.ts, created.ts);
      assert.ok(got.body instanceof values.Query);
      assert.equal(await db.query(q.Exists(q.Function('double'))), true);
      assert.equal(await db.query(q.Exists(q.Function('nope'))), false);

      await db.query(q.CreateFunction({ name: 'other', body: q.Query(q.Lambda('_', 1)), role: 'server' }));
      const page = (await db.query(q.Paginate(q.Functions()))) as { data: values.Ref[] };
      assert.deepEqual(page.data.map((r) => r.id).sort(), ['double', 'other']);
      const other = (await db.query(q.Get(q.Function('other')))) as FnDoc;
      assert.deepEqual(Object.keys(other), ['ref', 'ts', 'name', 'body', 'role']);
      assert.equal(other.role, 'server');

      // Update merges data and may rename.
      const upd = (await db.query(q.Update(q.Function('double'), { name: 'twice', data: { b: 2 } }))) as FnDoc;
      assert.equal(upd.name, 'twice');
      assert.equal(upd.ref.id, 'twice');
      assert.deepEqual(upd.data, { a: 1, b: 2 });
      assert.equal(await db.query(q.Call(q.Function('twice'), 21)), 42);
      assert.equal(await db.query(q.Exists(q.Function('double'))), false);
      // Renaming onto an existing name fails.
      const dup = await failure(db, q.Update(q.Function('twice'), { name: 'other' }));
      assert.equal(dup.code, 'instance already exists');
      assert.equal(dup.description, 'Function already exists.');

      // Replace keeps the name, drops what is not given.
      const rep = (await db.query(q.Replace(q.Function('twice'), { body: q.Query(q.Lambda('x', q.Add(q.Var('x'), 1))) }))) as FnDoc;
      assert.equal(rep.name, 'twice');
      assert.deepEqual(Object.keys(rep), ['ref', 'ts', 'name', 'body']);
      assert.equal(await db.query(q.Call('twice', 1)), 2);

      await db.query(q.Delete(q.Function('twice')));
      assert.equal(await db.query(q.Exists(q.Function('twice'))), false);
      const f = await failure(db, q.Get(q.Function('twice')));
      assert.equal(f.status, 400);
      assert.equal(f.description, "Ref refers to undefined function 'twice'");
    });

    test('Call by ref and by name with 0, 1 and 2 arguments', async () => {
      await db.query(q.CreateFunction({ name: 'zero', body: q.Query(q.Lambda([], 'none')) }));
      await db.query(q.CreateFunction({ name: 'ignore', body: q.Query(q.Lambda('_', 'ignored')) }));
      await db.query(q.CreateFunction({ name: 'ident', body: q.Query(q.Lambda('x', q.Var('x'))) }));
      await db.query(q.CreateFunction({ name: 'sum2', body: q.Query(q.Lambda(['a', 'b'], q.Add(q.Var('a'), q.Var('b')))) }));

      assert.equal(await db.query(q.Call(q.Function('zero'))), 'none');
      assert.equal(await db.query(q.Call('zero')), 'none');
      assert.equal(await db.query(q.Call('ignore')), 'ignored');
      // No arguments at all on the wire: [] is passed.
      assert.deepEqual(await db.query(q.Call('ident')), []);
      assert.equal(await db.query(q.Call(q.Function('ident'), 5)), 5);
      assert.equal(await db.query(q.Call('ident', 'five')), 'five');
      // Two arguments arrive as one array for a single-parameter lambda.
      assert.deepEqual(await db.query(q.Call('ident', 1, 2)), [1, 2]);
      assert.equal(await db.query(q.Call(q.Function('sum2'), 3, 4)), 7);
      assert.equal(await db.query(q.Call('sum2', [10, 20])), 30);
      // Arguments computed by expressions, and a name computed by an expression.
      assert.equal(await db.query(q.Let({ n: 'sum2' }, q.Call(q.Var('n'), q.Add(1, 1), 3))), 5);
      // Wrong argument count for an array pattern.
      const wrong = await rawError(db, q.Call('sum2', 1, 2, 3));
      assert.equal(wrong.error.code, 'call error');
      assert.equal(wrong.error.cause?.[0].code, 'invalid argument');
      assert.equal(wrong.error.cause?.[0].description, 'Lambda expects an array with 2 elements. Array contains 3.');
    });

    test('recursion works, and past 200 levels is a stack overflow', async () => {
      await db.query(
        q.CreateFunction({
          name: 'fact',
          body: q.Query(
            q.Lambda('n', q.If(q.LTE(q.Var('n'), 1), 1, q.Multiply(q.Var('n'), q.Call(q.Function('fact'), q.Subtract(q.Var('n'), 1))))),
          ),
        }),
      );
      assert.equal(await db.query(q.Call('fact', 5)), 120);
      assert.equal(await db.query(q.Call('fact', 20)), 2432902008176640000);
      // 199 nested calls are fine.
      await db.query(q.CreateFunction({ name: 'count', body: q.Query(q.Lambda('n', q.If(q.LTE(q.Var('n'), 0), 'done', q.Call('count', q.Subtract(q.Var('n'), 1))))) }));
      assert.equal(await db.query(q.Call('count', 199)), 'done');
      const deep = await rawError(db, q.Call('count', 500));
      assert.equal(deep.status, 400);
      assert.equal(deep.error.code, 'stack overflow');
      assert.equal(deep.error.description, 'Call stack reached the maximum limit of 200.');
    });

    test('errors inside the body are a call error with the cause', async () => {
      await db.query(q.CreateFunction({ name: 'boom', body: q.Query(q.Lambda('x', q.Abort('kaboom'))) }));
      const r = await rawError(db, q.Call('boom', 1));
      assert.equal(r.status, 400);
      assert.equal(r.error.code, 'call error');
      assert.equal(r.error.description, 'Calling the function resulted in an error.');
      assert.deepEqual(r.error.position, []);
      assert.equal(r.error.cause?.length, 1);
      assert.equal(r.error.cause?.[0].code, 'transaction aborted');
      assert.equal(r.error.cause?.[0].description, 'kaboom');

      await db.query(q.CreateFunction({ name: 'div', body: q.Query(q.Lambda('x', q.Divide(1, q.Var('x')))) }));
      const d = await rawError(db, q.Let({ v: q.Call('div', 0) }, q.Var('v')));
      assert.equal(d.error.code, 'call error');
      assert.deepEqual(d.error.position, ['let', 0, 'v']);
      assert.equal(d.error.cause?.[0].code, 'invalid argument');
      assert.equal(d.error.cause?.[0].description, 'Illegal division by zero.');
      // Positions in the cause are relative to the function's lambda.
      assert.deepEqual(d.error.cause?.[0].position, ['expr']);
      const sameTxn = await rawError(
        db,
        q.Do(q.CreateFunction({ name: 'div2', body: q.Query(q.Lambda('x', q.Let({ y: q.Divide(1, q.Var('x')) }, q.Var('y')))) }), q.Call('div2', 0)),
      );
      assert.deepEqual(sameTxn.error.position, ['do', 1]);
      assert.deepEqual(sameTxn.error.cause?.[0].position, ['expr', 'let', 0, 'y']);

      // Writes made before the failure are discarded.
      await db.query(q.CreateFunction({ name: 'writeThenFail', body: q.Query(q.Lambda('x', q.Do(q.Create(q.Collection('things'), { data: { x: q.Var('x') } }), q.Abort('no')))) }));
      const w = await rawError(db, q.Call('writeThenFail', 'lost'));
      assert.equal(w.error.code, 'call error');
      const all = (await db.query(q.Paginate(q.Documents(q.Collection('things'))))) as { data: unknown[] };
      assert.equal(all.data.length, 0);
    });

    test('roles: a function with role server lets a server-readonly key write; no call permission otherwise', async () => {
      await db.query(
        q.CreateFunction({
          name: 'addThing',
          role: 'server',
          body: q.Query(q.Lambda('x', q.Select(['data', 'x'], q.Create(q.Collection('things'), { data: { x: q.Var('x') } })))),
        }),
      );
      await db.query(q.CreateFunction({ name: 'plain', body: q.Query(q.Lambda('x', q.Var('x'))) }));
      await db.query(q.CreateFunction({ name: 'public', body: q.Query(q.Lambda('x', q.Var('x'))), permissions: { call: 'public' } }));

      const roKey = (await db.query(q.CreateKey({ role: 'server-readonly' }))) as { secret: string };
      const ro = client(roKey.secret, proto);
      // The key itself cannot write…
      const direct = await failure(ro, q.Create(q.Collection('things'), { data: { x: 0 } }));
      assert.equal(direct.status, 403);
      // …and has no call permission by itself (Fauna: server-readonly cannot call functions).
      const denied = await failure(ro, q.Call('addThing', 7));
      assert.equal(denied.status, 403);
      assert.equal(denied.code, 'permission denied');
      const plain = await failure(ro, q.Call('plain', 1));
      assert.equal(plain.status, 403);

      // A server key calls the function; the body runs with role server.
      const serverKey = (await db.query(q.CreateKey({ role: 'server' }))) as { secret: string };
      const server = client(serverKey.secret, proto);
      assert.equal(await server.query(q.Call('addThing', 7)), 7);
      assert.equal(await server.query(q.Call('plain', 8)), 8);

      // Client keys: only functions whose permissions make `call` public.
      const clientKey = (await db.query(q.CreateKey({ role: 'client' }))) as { secret: string };
      const cl = client(clientKey.secret, proto);
      assert.equal(await cl.query(q.Call('public', 'ok')), 'ok');
      assert.equal((await failure(cl, q.Call('plain', 1))).status, 403);

      // The role applies only inside the body: it is restored afterwards, even after an error.
      await db.query(
        q.CreateFunction({
          name: 'adminFails',
          role: 'admin',
          body: q.Query(q.Lambda('x', q.Abort('stop'))),
          permissions: { call: 'public' },
        }),
      );
      await db.query(
        q.CreateFunction({ name: 'adminOk', role: 'admin', body: q.Query(q.Lambda('x', q.Count(q.Keys()))), permissions: { call: 'public' } }),
      );
      assert.ok(((await cl.query(q.Call('adminOk', 1))) as number) >= 1);
      const e = await failure(cl, q.Do(q.Call('adminOk', 1), q.Count(q.Keys())));
      assert.equal(e.status, 403);
      const after = await failure(cl, q.Call('adminFails', 1));
      assert.equal(after.code, 'call error');
    });

    test('a function whose role is admin can do admin things for a server key', async () => {
      await db.query(q.CreateFunction({ name: 'listKeys', role: 'admin', body: q.Query(q.Lambda([], q.Count(q.Keys()))) }));
      const serverKey = (await db.query(q.CreateKey({ role: 'server' }))) as { secret: string };
      const server = client(serverKey.secret, proto);
      assert.equal((await failure(server, q.Count(q.Keys()))).status, 403);
      const n = (await server.query(q.Call('listKeys'))) as number;
      assert.ok(n >= 1);
    });

    test('a token (client-like) calls a public function whose role lets it write; CurrentIdentity works inside', async () => {
      await db.query(q.CreateCollection({ name: 'users' }));
      await db.query(
        q.CreateFunction({
          name: 'mk',
          role: 'server',
          permissions: { call: 'public' },
          body: q.Query(q.Lambda([], q.Select(['data'], q.Create(q.Collection('users'), { data: { by: q.CurrentIdentity() } })))),
        }),
      );
      const user = (await db.query(q.Create(q.Collection('users'), { credentials: { password: 'pw' } }))) as { ref: values.Ref };
      const token = (await db.query(q.Login(user.ref, { password: 'pw' }))) as { secret: string };
      const tc = client(token.secret, proto);
      const made = (await tc.query(q.Call('mk'))) as { by: values.Ref };
      assert.equal(made.by.id, user.ref.id);
      assert.equal((await failure(tc, q.Create(q.Collection('users'), {}))).status, 403);
    });

    test('bad inputs', async () => {
      const notLambda = await failure(db, q.CreateFunction({ name: 'bad', body: 'x' }));
      assert.equal(notLambda.code, 'validation failed');
      assert.deepEqual(notLambda.failures, [{ field: ['body'], code: 'invalid type', description: 'Invalid type String, expected type Query.' }]);

      const noName = await failure(db, q.CreateFunction({ body: q.Query(q.Lambda('x', 1)) }));
      assert.equal(noName.code, 'validation failed');
      assert.deepEqual(noName.failures, [{ field: ['name'], code: 'value required', description: 'Required value not found.' }]);

      const noBody = await failure(db, q.CreateFunction({ name: 'nobody' }));
      assert.deepEqual(noBody.failures, [{ field: ['body'], code: 'value required', description: 'Required value not found.' }]);

      const badName = await failure(db, q.CreateFunction({ name: 'a b', body: q.Query(q.Lambda('x', 1)) }));
      assert.equal(badName.failures?.[0].code, 'invalid characters');

      const badRole = await failure(db, q.CreateFunction({ name: 'r', body: q.Query(q.Lambda('x', 1)), role: 'nobody' }));
      assert.deepEqual(badRole.failures, [{ field: ['role'], code: 'validation failure', description: 'Role name `nobody` does not exist.' }]);

      await db.query(q.CreateFunction({ name: 'dupe', body: q.Query(q.Lambda('x', 1)) }));
      const dup = await failure(db, q.CreateFunction({ name: 'dupe', body: q.Query(q.Lambda('x', 2)) }));
      assert.equal(dup.status, 400);
      assert.equal(dup.code, 'instance already exists');
      assert.equal(dup.description, 'Function already exists.');

      const unknown = await failure(db, q.Call('missing', 1));
      assert.equal(unknown.status, 400);
      assert.equal(unknown.code, 'invalid ref');
      assert.equal(unknown.description, "Ref refers to undefined function 'missing'");
      assert.deepEqual(unknown.position, ['call']);
      const unknownRef = await failure(db, q.Call(q.Function('missing')));
      assert.equal(unknownRef.code, 'invalid ref');

      const notFn = await failure(db, q.Call(q.Collection('things')));
      assert.equal(notFn.code, 'invalid argument');
      assert.equal(notFn.description, 'User Function Ref expected, Collection Ref provided.');
      const num = await failure(db, q.Call(5));
      assert.equal(num.description, 'Ref expected, Integer provided.');
    });
  });
}
