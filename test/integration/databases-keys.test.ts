// Nested databases, keys, built-in roles and scoped secrets, through the official driver.

import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import faunadb, { query as q } from 'faunadb';
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

function client(secret: string, http1 = false): faunadb.Client {
  return pool.client(secret, http1 ? 'h1' : 'h2');
}


describe('databases', () => {
  test('nested databases, Database(name, scope), Databases(), update, delete', async () => {
    const a = (await root.query(q.CreateDatabase({ name: 'a', data: { team: 'x' } }))) as Record<string, unknown>;
    assert.deepEqual(Object.keys(a), ['ref', 'ts', 'name', 'global_id', 'data']);
    assert.match(a.global_id as string, /^[ybndrfg8ejkmcpqxot1uwisza345h769]{13}$/);
    const inA = client(`${srv.secret}:a:admin`);
    await inA.query(q.CreateDatabase({ name: 'b' }));
    const inB = client(`${srv.secret}:a/b:admin`);
    await inB.query(q.CreateDatabase({ name: 'c' }));
    await inB.query(q.CreateCollection({ name: 'things' }));

    // The parent sees children through scoped refs.
    assert.equal(await root.query(q.Exists(q.Database('c', q.Database('b', q.Database('a'))))), true);
    const page = (await root.query(q.Paginate(q.Databases(q.Database('b', q.Database('a')))))) as { data: { id: string }[] };
    assert.deepEqual(page.data.map((r) => r.id), ['c']);
    const coll = (await root.query(q.Get(q.Collection('things', q.Database('b', q.Database('a')))))) as { name: string };
    assert.equal(coll.name, 'things');

    const updated = (await root.query(q.Update(q.Database('a'), { data: { team: 'y' }, priority: 5 }))) as { data: unknown; priority: number };
    assert.deepEqual(updated.data, { team: 'y' });
    assert.equal(updated.priority, 5);

    await root.query(q.CreateDatabase({ name: 'gone' }));
    const gone = client(`${srv.secret}:gone:admin`);
    await gone.query(q.CreateCollection({ name: 'inside' }));
    await root.query(q.Delete(q.Database('gone')));
    assert.equal(await root.query(q.Exists(q.Database('gone'))), false);
    const f = await failure(gone, q.Paginate(q.Collections()));
    assert.equal(f.status, 401);
  });

  test('MoveDatabase moves a database with its contents', async () => {
    await root.query(q.CreateDatabase({ name: 'src' }));
    await root.query(q.CreateDatabase({ name: 'dst' }));
    await client(`${srv.secret}:src:admin`).query(q.CreateCollection({ name: 'kept' }));
    await root.query(q.MoveDatabase(q.Database('src'), q.Database('dst')));
    assert.equal(await root.query(q.Exists(q.Database('src'))), false);
    const moved = (await client(`${srv.secret}:dst/src:admin`).query(q.Get(q.Collection('kept')))) as { name: string };
    assert.equal(moved.name, 'kept');
    const f = await failure(root, q.MoveDatabase(q.Database('dst'), q.Database('src', q.Database('dst'))));
    assert.deepEqual([f.status, f.code, f.description], [400, 'move database error', "Cannot move database 'dst' into parent 'src': Cannot move database from ancestor to descendant."]);
  });

  test('MoveDatabase takes nested refs on both sides: a database moves up and across the tree (as the core does)', async () => {
    await root.query(q.CreateDatabase({ name: 'top' }));
    const top = client(`${srv.secret}:top:admin`);
    await top.query(q.CreateDatabase({ name: 'mid' }));
    await client(`${srv.secret}:top/mid:admin`).query(q.CreateDatabase({ name: 'leaf' }));
    await client(`${srv.secret}:top/mid/leaf:admin`).query(q.CreateCollection({ name: 'kept' }));
    const leaf = q.Database('leaf', q.Database('mid', q.Database('top')));
    // Up two levels and across: top/mid/leaf into side, both named from the root.
    await root.query(q.CreateDatabase({ name: 'side' }));
    const moved = (await root.query(q.MoveDatabase(leaf, q.Database('side')))) as { ref: { id: string }; name: string };
    assert.equal(moved.name, 'leaf');
    assert.equal(await root.query(q.Exists(leaf)), false);
    assert.equal(((await client(`${srv.secret}:side/leaf:admin`).query(q.Get(q.Collection('kept')))) as { name: string }).name, 'kept');
    // Up one level: top/mid/deep becomes top/deep.
    await client(`${srv.secret}:top/mid:admin`).query(q.CreateDatabase({ name: 'deep' }));
    await root.query(q.MoveDatabase(q.Database('deep', q.Database('mid', q.Database('top'))), q.Database('top')));
    const children = (await top.query(q.Select('data', q.Map(q.Paginate(q.Databases()), q.Lambda('d', q.Select('id', q.Var('d'))))))) as string[];
    assert.deepEqual(children.sort(), ['deep', 'mid']);
    // What is refused: a nested source into its own descendant; an undefined nested source; a non-admin key.
    const down = await failure(root, q.MoveDatabase(q.Database('top'), q.Database('deep', q.Database('top'))));
    assert.deepEqual([down.code, down.description], ['move database error', "Cannot move database 'top' into parent 'deep': Cannot move database from ancestor to descendant."]);
    const missing = await failure(root, q.MoveDatabase(q.Database('nope', q.Database('top')), q.Database('side')));
    assert.deepEqual([missing.code, missing.description], ['invalid ref', "Ref refers to undefined database 'nope'"]);
    const serverSecret = (await root.query(q.Select('secret', q.CreateKey({ role: 'server' })))) as string;
    const denied = await failure(client(serverSecret), q.MoveDatabase(q.Database('deep', q.Database('top')), q.Database('side')));
    assert.deepEqual([denied.status, denied.code], [403, 'permission denied']);
  });

  test('bad database inputs', async () => {
    const dup = await failure(root, q.CreateDatabase({ name: 'a' }));
    assert.deepEqual([dup.code, dup.description], ['instance already exists', 'Database already exists.']);
    const missing = await failure(root, q.Get(q.Database('nope')));
    assert.deepEqual([missing.status, missing.code, missing.description], [400, 'invalid ref', "Ref refers to undefined database 'nope'"]);
    const scoped = await failure(root, q.Get(q.Collection('x', q.Database('nope'))));
    assert.deepEqual([scoped.code, scoped.description], ['invalid ref', "Ref refers to undefined database 'nope'"]);
    const priority = await failure(root, q.CreateDatabase({ name: 'p', priority: 1000 }));
    assert.equal(priority.code, 'validation failed');
  });
});

describe('keys', () => {
  test('CreateKey shows the secret once; hashed_secret on reads; Keys(); KeyFromSecret', async () => {
    const key = (await root.query(q.CreateKey({ role: 'server', data: { name: 'k1' } }))) as Record<string, unknown>;
    assert.match(key.secret as string, /^fnA[A-Za-z0-9_-]{37}$/);
    assert.match(key.hashed_secret as string, /^\$2[aby]\$05\$/);
    const ref = key.ref as faunadb.values.Ref;
    const got = (await root.query(q.Get(ref))) as Record<string, unknown>;
    assert.equal(got.secret, undefined);
    assert.equal(got.hashed_secret, key.hashed_secret);
    const keys = (await root.query(q.Paginate(q.Keys()))) as { data: faunadb.values.Ref[] };
    assert.ok(keys.data.some((r) => r.id === ref.id));
    const fromSecret = (await root.query(q.KeyFromSecret(key.secret as string))) as { ref: faunadb.values.Ref };
    assert.equal(fromSecret.ref.id, ref.id);
    const unknown = await failure(root, q.KeyFromSecret('fnAnotasecret'));
    assert.deepEqual([unknown.status, unknown.code, unknown.description], [400, 'instance not found', 'No key found for secret fnAnotasecret.']);
  });

  test('a server key works over both protocols and cannot touch keys or databases', async () => {
    const { secret } = (await root.query(q.CreateKey({ role: 'server' }))) as { secret: string };
    for (const c of [client(secret), client(secret, true)]) {
      await c.query(q.CreateCollection({ name: `srv_${Math.random().toString(36).slice(2, 8)}` }));
      assert.equal((await failure(c, q.Paginate(q.Keys()))).status, 403);
      const denied = await failure(c, q.CreateDatabase({ name: 'nope' }));
      assert.deepEqual([denied.status, denied.code, denied.description], [403, 'permission denied', 'Insufficient privileges to perform the action.']);
    }
  });

  test('server-readonly reads but cannot write; client can do nothing but what is public', async () => {
    await root.query(q.CreateCollection({ name: 'pub', permissions: { read: 'public' } }));
    await root.query(q.CreateCollection({ name: 'priv' }));
    const pubDoc = (await root.query(q.Create(q.Collection('pub'), { data: { x: 1 } }))) as { ref: faunadb.values.Ref };
    const privDoc = (await root.query(q.Create(q.Collection('priv'), { data: { x: 1 } }))) as { ref: faunadb.values.Ref };

    const ro = client(((await root.query(q.CreateKey({ role: 'server-readonly' }))) as { secret: string }).secret);
    assert.deepEqual(((await ro.query(q.Get(privDoc.ref))) as { data: unknown }).data, { x: 1 });
    assert.equal((await failure(ro, q.Create(q.Collection('priv'), {}))).status, 403);

    const cl = client(((await root.query(q.CreateKey({ role: 'client' }))) as { secret: string }).secret);
    assert.deepEqual(((await cl.query(q.Get(pubDoc.ref))) as { data: unknown }).data, { x: 1 });
    assert.equal((await failure(cl, q.Get(privDoc.ref))).status, 403);
    assert.equal((await failure(cl, q.Create(q.Collection('pub'), {}))).status, 403);
    assert.equal(await cl.query(q.Add(1, 2)), 3);
  });

  test('a key for a child database acts inside it; deleting a key revokes it at once', async () => {
    await root.query(q.CreateDatabase({ name: 'kdb' }));
    const key = (await root.query(q.CreateKey({ database: q.Database('kdb'), role: 'admin' }))) as { ref: faunadb.values.Ref; secret: string };
    const inChild = client(key.secret);
    await inChild.query(q.CreateCollection({ name: 'child_coll' }));
    assert.equal(await root.query(q.Exists(q.Collection('child_coll', q.Database('kdb')))), true);
    assert.equal(await root.query(q.Exists(q.Collection('child_coll'))), false);
    await root.query(q.Delete(key.ref));
    const f = await failure(inChild, q.Add(1, 1));
    assert.deepEqual([f.status, f.code, f.description], [401, 'unauthorized', 'Unauthorized']);
  });

  test('a key whose ttl has passed is refused', async () => {
    const past = (await root.query(q.CreateKey({ role: 'server', ttl: q.Time('2000-01-01T00:00:00Z') }))) as { secret: string };
    assert.equal((await failure(client(past.secret), q.Add(1, 1))).status, 401);
    const live = (await root.query(q.CreateKey({ role: 'server', ttl: q.Time('2999-01-01T00:00:00Z') }))) as { ref: faunadb.values.Ref; secret: string };
    const c = client(live.secret);
    assert.equal(await c.query(q.Add(1, 1)), 2);
    await root.query(q.Update(live.ref, { ttl: q.Time('2000-01-01T00:00:00Z') }));
    assert.equal((await failure(c, q.Add(1, 1))).status, 401);
  });

  test('bad secrets are 401 unauthorized', async () => {
    for (const secret of ['wrong', 'fnAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA', `${srv.secret}:nope:admin`]) {
      const f = await failure(client(secret), q.Add(1, 1));
      assert.deepEqual([f.status, f.code, f.description], [401, 'unauthorized', 'Unauthorized']);
    }
    const { secret } = (await root.query(q.CreateKey({ role: 'server' }))) as { secret: string };
    const f = await failure(client(`${secret}:admin`), q.Add(1, 1));
    assert.equal(f.status, 401, 'a server key may not raise itself to admin');
  });

  test('bad key inputs', async () => {
    const noRole = await failure(root, q.CreateKey({}));
    assert.equal(noRole.code, 'validation failed');
    const badRole = await failure(root, q.CreateKey({ role: 'superuser' }));
    assert.equal(badRole.code, 'validation failed');
    const badDb = await failure(root, q.CreateKey({ role: 'admin', database: q.Database('missing') }));
    assert.equal(badDb.code, 'validation failed');
  });
});
