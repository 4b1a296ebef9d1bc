// Defects the torture suite's access matrix found (torture/accessMatrix.ts), each reproduced directly:
// expired keys listed by Paginate(Keys()), a scoped write refused as 403 rather than Fauna's 400,
// role-less tokens unable to log in through a public unique index, and self refs that name nothing.

import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import faunadb, { query as q } from 'faunadb';
import { ClientPool, startFlora, type FloraProcess } from '../helpers/server';
import { failure } from '../helpers/faunaErrors';

type Doc = { ref: faunadb.values.Ref; secret: string };

let srv: FloraProcess;
let pool: ClientPool;
let root: faunadb.Client;

before(async () => {
  srv = await startFlora();
  pool = new ClientPool(srv.url);
  root = pool.client(srv.secret);
  await root.query(q.Do(q.CreateCollection({ name: 'users' }), q.CreateCollection({ name: 'loners' }), q.CreateDatabase({ name: 'other' })));
  await root.query(q.CreateIndex({ name: 'users_by_email', source: q.Collection('users'), terms: [{ field: ['data', 'email'] }], unique: true, permissions: { read: 'public' } }));
});
after(async () => {
  await pool.close();
  await srv.stop();
});

describe('access matrix regressions', () => {
  test('a key or token whose ttl has passed is not listed by Paginate(Keys()) or Paginate(Tokens())', async () => {
    const past = q.TimeSubtract(q.Now(), 1, 'hour');
    const live = (await root.query(q.CreateKey({ role: 'server' }))) as Doc;
    const expired = (await root.query(q.CreateKey({ role: 'server', ttl: past }))) as Doc;
    const user = (await root.query(q.Create(q.Collection('users'), { data: { email: 'ttl@example.com' } }))) as Doc;
    const token = (await root.query(q.Create(q.Tokens(), { instance: user.ref, ttl: past }))) as Doc;
    const ids = async (set: faunadb.ExprArg) => ((await root.query(q.Paginate(set))) as { data: faunadb.values.Ref[] }).data.map((r) => r.id);
    assert.ok((await ids(q.Keys())).includes(live.ref.id));
    assert.ok(!(await ids(q.Keys())).includes(expired.ref.id), 'an expired key is listed');
    assert.ok(!(await ids(q.Tokens())).includes(token.ref.id), 'an expired token is listed');
    // Every key listed can be read.
    await root.query(q.Map(q.Paginate(q.Keys()), q.Lambda('k', q.Get(q.Var('k')))));
  });

  test('a scoped ref is never written: 400 invalid argument whatever the caller may do', async () => {
    const other = pool.client(`${srv.secret}:other:admin`);
    await other.query(q.CreateCollection({ name: 'things' }));
    const doc = (await other.query(q.Create(q.Collection('things'), { data: { n: 1 } }))) as Doc;
    const scoped = q.Ref(q.Collection('things', q.Database('other')), doc.ref.id);
    for (const role of ['admin', 'server', 'server-readonly', 'client']) {
      const key = (await root.query(q.CreateKey({ role }))) as Doc;
      const f = await failure(pool.client(key.secret), q.Update(scoped, { data: { n: 2 } }));
      assert.deepEqual([f.status, f.code, f.description], [400, 'invalid argument', 'Cannot write a scoped ref.'], role);
    }
  });

  test('a role-less token logs in through a public unique index, as a client key does', async () => {
    const user = (await root.query(q.Create(q.Collection('users'), { data: { email: 'u@example.com' }, credentials: { password: 'pw' } }))) as Doc;
    const loner = (await root.query(q.Create(q.Collection('loners'), { credentials: { password: 'pw' } }))) as Doc;
    const token = (await root.query(q.Login(loner.ref, { password: 'pw' }))) as Doc;
    const client = (await root.query(q.CreateKey({ role: 'client' }))) as Doc;
    for (const secret of [token.secret, client.secret]) {
      const c = pool.client(secret);
      const t = (await c.query(q.Login(q.Match(q.Index('users_by_email'), 'u@example.com'), { password: 'pw' }))) as { instance: faunadb.values.Ref };
      assert.equal(t.instance.id, user.ref.id);
      assert.equal(await c.query(q.Identify(q.Match(q.Index('users_by_email'), 'u@example.com'), 'pw')), true);
    }
  });

  test('Ref("tokens/self") and Ref("credentials/self") for a secret that is no token: invalid expression', async () => {
    const key = (await root.query(q.CreateKey({ role: 'server' }))) as Doc;
    for (const secret of [srv.secret, key.secret]) {
      for (const ref of ['tokens/self', 'credentials/self']) {
        const f = await failure(pool.client(secret), q.Get(q.Ref(ref)));
        assert.deepEqual([f.status, f.code, f.description], [400, 'invalid expression', 'Invalid ref.'], ref);
      }
    }
  });
});
