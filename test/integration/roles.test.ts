// User-defined roles (ABAC, fql-v4.md §6.3–§6.5) through the official driver: role documents and
// their validation, keys with user roles, token membership (with and without predicates), write
// predicates, predicates that fail or return non-booleans, UDF roles and `@role/<name>` secrets.

import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import faunadb, { query as q } from 'faunadb';
import { startFlora, type FloraProcess, ClientPool } from '../helpers/server';
import { failure } from '../helpers/faunaErrors';

let srv: FloraProcess;
let root: faunadb.Client;
let pool: ClientPool;

type Doc = Record<string, unknown> & { ref: faunadb.values.Ref };

before(async () => {
  srv = await startFlora();
  pool = new ClientPool(srv.url);
  root = pool.client(srv.secret);
  await root.query(q.CreateCollection({ name: 'users' }));
  await root.query(q.CreateCollection({ name: 'posts' }));
  await root.query(q.CreateCollection({ name: 'secrets' }));
  await root.query(q.CreateCollection({ name: 'admins' }));
  await root.query(q.CreateIndex({ name: 'all_posts', source: q.Collection('posts') }));
});
after(async () => {
  await pool.close();
  await srv.stop();
});

function client(secret: string): faunadb.Client {
  return pool.client(secret);
}

async function denied(c: faunadb.Client, expr: faunadb.ExprArg): Promise<void> {
  const f = await failure(c, expr);
  assert.equal(f.status, 403, JSON.stringify(f));
  assert.equal(f.code, 'permission denied');
}

async function keyWithRole(role: unknown): Promise<faunadb.Client> {
  const key = (await root.query(q.CreateKey({ role } as never))) as { secret: string };
  return client(key.secret);
}

let n = 0;
async function userToken(coll = 'users', data: Record<string, unknown> = {}): Promise<{ ref: faunadb.values.Ref; c: faunadb.Client }> {
  const user = (await root.query(q.Create(q.Collection(coll), { data: { n: ++n, ...data }, credentials: { password: 'pw' } }))) as Doc;
  const tok = (await root.query(q.Login(user.ref, { password: 'pw' }))) as { secret: string };
  return { ref: user.ref, c: client(tok.secret) };
}

describe('role documents', () => {
  test('CreateRole renders name, privileges, membership, data; Update/Replace/Delete work', async () => {
    const r = (await root.query(
      q.CreateRole({
        data: { x: 1 },
        membership: [{ resource: q.Collection('admins') }],
        privileges: [{ resource: q.Collection('posts'), actions: { read: true, write: q.Query(q.Lambda(['o', 'n'], true)) } }],
        name: 'crud',
      }),
    )) as Doc;
    assert.deepEqual(Object.keys(r), ['ref', 'ts', 'name', 'privileges', 'membership', 'data']);
    assert.equal(r.ref.id, 'crud');
    assert.equal(r.ref.collection!.id, 'roles');
    const got = (await root.query(q.Get(q.Role('crud')))) as Doc;
    assert.deepEqual(Object.keys(got), ['ref', 'ts', 'name', 'privileges', 'membership', 'data']);
    const updated = (await root.query(q.Update(q.Role('crud'), { data: { y: 2 }, membership: null }))) as Doc;
    assert.deepEqual(Object.keys(updated), ['ref', 'ts', 'name', 'privileges', 'data']);
    assert.deepEqual(updated.data, { x: 1, y: 2 });
    const replaced = (await root.query(q.Replace(q.Role('crud'), { privileges: [] }))) as Doc;
    assert.deepEqual(Object.keys(replaced), ['ref', 'ts', 'name', 'privileges']);
    assert.equal(replaced.name, 'crud');
    const f = await failure(root, q.CreateRole({ name: 'crud' }));
    assert.equal(f.code, 'instance already exists');
    await root.query(q.Delete(q.Role('crud')));
    assert.equal(await root.query(q.Exists(q.Role('crud'))), false);
  });

  test('validation: types, unknown resources, arity', async () => {
    const cases: [unknown, string, unknown[], string][] = [
      [{}, 'value required', ['name'], 'Required value not found.'],
      [{ name: 'v1', privileges: [{ resource: 'posts', actions: {} }] }, 'invalid type', ['privileges', 0, 'resource'], 'Invalid type String, expected type Ref.'],
      [{ name: 'v2', privileges: [{ resource: q.Collection('nope'), actions: {} }] }, 'invalid reference', ['privileges', 0, 'resource'], 'Cannot read reference.'],
      [
        { name: 'v3', privileges: [{ resource: q.Collection('posts'), actions: { write: q.Query(q.Lambda('x', true)) } }] },
        'invalid arity',
        ['privileges', 0, 'actions', 'write'],
        'Found lambda with arity 1 expected 2 or 3',
      ],
      [
        { name: 'v4', privileges: [{ resource: q.Collection('posts'), actions: { read: q.Query(q.Lambda(['a', 'b'], true)) } }] },
        'invalid arity',
        ['privileges', 0, 'actions', 'read'],
        'Found lambda with arity 2 expected 1',
      ],
      [{ name: 'v5', privileges: [{ resource: q.Collection('posts'), actions: { read: 'yes' } }] }, 'invalid type', ['privileges', 0, 'actions', 'read'], 'Invalid type String, expected type Query.'],
      [{ name: 'v6', membership: { resource: q.Index('all_posts') } }, 'invalid reference', ['membership', 'resource'], 'Cannot read reference.'],
      // Not an action, though every object has it: named as such, not taken for one.
      [{ name: 'v7', privileges: [{ resource: q.Collection('posts'), actions: { constructor: true } }] }, 'invalid field', ['privileges', 0, 'actions', 'constructor'], 'Field not allowed.'],
      [{ name: 'v8', privileges: [{ resource: q.Collection('posts'), actions: { sing: true } }] }, 'invalid field', ['privileges', 0, 'actions', 'sing'], 'Field not allowed.'],
    ];
    for (const [params, code, field, description] of cases) {
      const f = await failure(root, q.CreateRole(params as never));
      assert.equal(f.code, 'validation failed', JSON.stringify(params));
      assert.deepEqual(f.failures, [{ field, code, description }]);
    }
    const k = await failure(root, q.CreateKey({ role: 'nosuchrole' }));
    assert.deepEqual(k.failures, [{ field: ['role'], code: 'validation failure', description: 'Role name `nosuchrole` does not exist.' }]);
  });
});

describe('role evaluation', () => {
  test('a key with a user role can do exactly what the role grants', async () => {
    await root.query(
      q.CreateRole({
        name: 'post_reader',
        privileges: [
          { resource: q.Collection('posts'), actions: { read: true, create: true } },
          { resource: q.Index('all_posts'), actions: { read: true } },
        ],
      }),
    );
    const post = (await root.query(q.Create(q.Collection('posts'), { data: { t: 'hello' } }))) as Doc;
    const secret = (await root.query(q.Create(q.Collection('secrets'), { data: { s: 1 } }))) as Doc;
    for (const role of ['post_reader', q.Role('post_reader'), [q.Role('post_reader')]]) {
      const c = await keyWithRole(role);
      assert.deepEqual(((await c.query(q.Get(post.ref))) as Doc).data, { t: 'hello' });
      const page = (await c.query(q.Paginate(q.Match(q.Index('all_posts'))))) as { data: unknown[] };
      assert.ok(page.data.length >= 1);
      await c.query(q.Create(q.Collection('posts'), { data: { t: 'by key' } }));
      await denied(c, q.Update(post.ref, { data: { t: 'x' } }));
      await denied(c, q.Delete(post.ref));
      await denied(c, q.Get(secret.ref));
      await denied(c, q.Paginate(q.Documents(q.Collection('secrets'))));
      await denied(c, q.CreateCollection({ name: 'nope' }));
      assert.equal(await c.query(q.Add(1, 2)), 3);
    }
  });

  test('a token is a member of roles whose membership names its collection (predicate must return true)', async () => {
    await root.query(
      q.CreateRole({
        name: 'users_read_posts',
        membership: { resource: q.Collection('users') },
        privileges: { resource: q.Collection('posts'), actions: { read: true } },
      }),
    );
    await root.query(
      q.CreateRole({
        name: 'vip_secrets',
        membership: { resource: q.Collection('users'), predicate: q.Query(q.Lambda('u', q.Select(['data', 'vip'], q.Get(q.Var('u')), false))) },
        privileges: { resource: q.Collection('secrets'), actions: { read: true } },
      }),
    );
    const post = (await root.query(q.Create(q.Collection('posts'), { data: {} }))) as Doc;
    const secret = (await root.query(q.Create(q.Collection('secrets'), { data: {} }))) as Doc;
    const plain = await userToken('users');
    const vip = await userToken('users', { vip: true });
    const other = await userToken('admins');
    assert.ok(await plain.c.query(q.Get(post.ref)));
    await denied(plain.c, q.Get(secret.ref));
    assert.ok(await vip.c.query(q.Get(post.ref)));
    assert.ok(await vip.c.query(q.Get(secret.ref)));
    await denied(other.c, q.Get(post.ref));
    await denied(plain.c, q.Update(post.ref, { data: { x: 1 } }));
    // The token's built-in allowances remain.
    assert.ok(await plain.c.query(q.Get(q.Ref('tokens/self'))));
  });

  test('write predicate: a user may write only documents it owns; Documents filters by read', async () => {
    await root.query(q.CreateCollection({ name: 'notes' }));
    await root.query(q.CreateCollection({ name: 'writers' }));
    const owner = q.Query(q.Lambda(['old', 'new'], q.Equals(q.Select(['data', 'owner'], q.Var('old')), q.CurrentIdentity())));
    await root.query(
      q.CreateRole({
        name: 'note_owner',
        membership: [{ resource: q.Collection('writers') }],
        privileges: [
          {
            resource: q.Collection('notes'),
            actions: { write: owner, read: q.Query(q.Lambda('r', q.Equals(q.Select(['data', 'owner'], q.Get(q.Var('r'))), q.CurrentIdentity()))) },
          },
        ],
      }),
    );
    const a = await userToken('writers');
    const b = await userToken('writers');
    const mine = (await root.query(q.Create(q.Collection('notes'), { data: { owner: a.ref } }))) as Doc;
    const theirs = (await root.query(q.Create(q.Collection('notes'), { data: { owner: b.ref } }))) as Doc;
    const updated = (await a.c.query(q.Update(mine.ref, { data: { t: 'ok' } }))) as Doc;
    assert.deepEqual(updated.data, { owner: (mine.data as { owner: unknown }).owner, t: 'ok' });
    await denied(a.c, q.Update(theirs.ref, { data: { t: 'no' } }));
    await denied(a.c, q.Get(theirs.ref));
    const page = (await a.c.query(q.Paginate(q.Documents(q.Collection('notes'))))) as { data: faunadb.values.Ref[] };
    assert.deepEqual(page.data.map((r) => r.id), [mine.ref.id]);
  });

  test('predicates that error, write or return non-booleans deny', async () => {
    await root.query(q.CreateCollection({ name: 'odd' }));
    const doc = (await root.query(q.Create(q.Collection('odd'), { data: {} }))) as Doc;
    const preds = [
      q.Query(q.Lambda('r', 'true')),
      q.Query(q.Lambda('r', 1)),
      q.Query(q.Lambda('r', q.Abort('no'))),
      q.Query(q.Lambda('r', q.Select(['data', 'missing'], q.Get(q.Var('r'))))),
      q.Query(q.Lambda('r', q.Do(q.Create(q.Collection('odd'), {}), true))),
    ];
    for (let i = 0; i < preds.length; i++) {
      await root.query(q.CreateRole({ name: `odd${i}`, privileges: [{ resource: q.Collection('odd'), actions: { read: preds[i] } }] }));
      await denied(await keyWithRole(`odd${i}`), q.Get(doc.ref));
    }
    await root.query(q.CreateRole({ name: 'odd_ok', privileges: [{ resource: q.Collection('odd'), actions: { read: q.Query(q.Lambda('r', q.Exists(q.Var('r')))) } }] }));
    assert.ok(await (await keyWithRole(['odd0', 'odd_ok'])).query(q.Get(doc.ref)));
  });

  test('a function with role server lets a token write what it alone could not; call needs the call action', async () => {
    await root.query(q.CreateCollection({ name: 'logs' }));
    await root.query(q.CreateFunction({ name: 'log_it', role: 'server', body: q.Query(q.Lambda('x', q.Create(q.Collection('logs'), { data: { x: q.Var('x') } }))) }));
    await root.query(q.CreateFunction({ name: 'not_callable', body: q.Query(q.Lambda('x', q.Var('x'))) }));
    await root.query(q.CreateCollection({ name: 'callers' }));
    await root.query(
      q.CreateRole({
        name: 'caller',
        membership: [{ resource: q.Collection('callers') }],
        privileges: [
          { resource: q.Function('log_it'), actions: { call: q.Query(q.Lambda('x', q.IsNumber(q.Var('x')))) } },
        ],
      }),
    );
    const u = await userToken('callers');
    await denied(u.c, q.Create(q.Collection('logs'), { data: { x: 1 } }));
    const created = (await u.c.query(q.Call(q.Function('log_it'), 7))) as Doc;
    assert.deepEqual(created.data, { x: 7 });
    await denied(u.c, q.Call(q.Function('log_it'), 'seven'));
    await denied(u.c, q.Call(q.Function('not_callable'), 1));
  });

  test('a function with a user role runs its body with that role', async () => {
    await root.query(q.CreateCollection({ name: 'vault' }));
    const v = (await root.query(q.Create(q.Collection('vault'), { data: { gold: 1 } }))) as Doc;
    await root.query(q.CreateRole({ name: 'vault_reader', privileges: [{ resource: q.Collection('vault'), actions: { read: true } }] }));
    await root.query(q.CreateFunction({ name: 'peek', role: q.Role('vault_reader'), body: q.Query(q.Lambda('r', q.Select(['data', 'gold'], q.Get(q.Var('r'))))) }));
    await root.query(q.CreateFunction({ name: 'steal', role: q.Role('vault_reader'), body: q.Query(q.Lambda('r', q.Delete(q.Var('r')))) }));
    assert.equal(await root.query(q.Call(q.Function('peek'), v.ref)), 1);
    const f = await failure(root, q.Call(q.Function('steal'), v.ref));
    assert.equal(f.code, 'call error');
  });

  test('@role/<name> scoped secrets act with that role (admin keys only)', async () => {
    await root.query(q.CreateRole({ name: 'scoped_reader', privileges: [{ resource: q.Collection('posts'), actions: { read: true } }] }));
    const post = (await root.query(q.Create(q.Collection('posts'), { data: {} }))) as Doc;
    const c = client(`${srv.secret}:@role/scoped_reader`);
    assert.ok(await c.query(q.Get(post.ref)));
    await denied(c, q.Delete(post.ref));
    const admin = (await root.query(q.CreateKey({ role: 'admin' }))) as { secret: string };
    assert.ok(await client(`${admin.secret}:@role/scoped_reader`).query(q.Get(post.ref)));
    const server = (await root.query(q.CreateKey({ role: 'server' }))) as { secret: string };
    assert.equal((await failure(client(`${server.secret}:@role/scoped_reader`), q.Add(1, 1))).status, 401);
    assert.equal((await failure(client(`${srv.secret}:@role/missing`), q.Add(1, 1))).status, 401);
  });
});

describe('creating with a chosen id', () => {
  test('needs create_with_id, or both create and history_write', async () => {
    const privileges = (actions: Record<string, boolean>) => [{ resource: q.Collection('posts'), actions }];
    await root.query(q.CreateRole({ name: 'create_only', privileges: privileges({ create: true }) }));
    await root.query(q.CreateRole({ name: 'create_and_history', privileges: privileges({ create: true, history_write: true }) }));
    await root.query(q.CreateRole({ name: 'with_id', privileges: privileges({ create_with_id: true }) }));
    const createOnly = await keyWithRole(q.Role('create_only'));
    await createOnly.query(q.Create(q.Collection('posts'), { data: {} }));
    await denied(createOnly, q.Create(q.Ref(q.Collection('posts'), '9001'), { data: {} }));
    await (await keyWithRole(q.Role('create_and_history'))).query(q.Create(q.Ref(q.Collection('posts'), '9002'), { data: {} }));
    await (await keyWithRole(q.Role('with_id'))).query(q.Create(q.Ref(q.Collection('posts'), '9003'), { data: {} }));
  });
});

describe('predicates that write', () => {
  test('deny, and write nothing', async () => {
    await root.query(q.CreateCollection({ name: 'audit' }));
    await root.query(
      q.CreateRole({
        name: 'writes_in_predicate',
        privileges: [{ resource: q.Collection('posts'), actions: { read: q.Query(q.Lambda('r', q.IsObject(q.Create(q.Collection('audit'), {})))) } }],
      }),
    );
    const post = (await root.query(q.Create(q.Collection('posts'), { data: {} }))) as Doc;
    await denied(await keyWithRole(q.Role('writes_in_predicate')), q.Get(post.ref));
    assert.deepEqual(((await root.query(q.Paginate(q.Documents(q.Collection('audit'))))) as { data: unknown[] }).data, []);
  });
});
