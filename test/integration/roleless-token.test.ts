// A token whose identity's collection is in no role's membership (DECISIONS #15, README "Access
// control"): besides Fauna's baseline for an identity's secrets (auth/Permissions.scala
// InstancePermissions: read its credentials, read and delete its identity's tokens) it may read its
// own identity document, and Logout works; everything else is permission denied.

import { before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import faunadb, { query as q } from 'faunadb';
import { serverForFile, ClientPool } from '../helpers/server';
import { failure, statusOf } from '../helpers/faunaErrors';

type Doc = Record<string, unknown> & { ref: faunadb.values.Ref; ts: number };
type Token = Doc & { secret: string; instance: faunadb.values.Ref };

describe('role-less tokens', () => {
  const srv = serverForFile();
  let root: faunadb.Client;
  before(async () => {
    root = srv.drivers.h2;
    await root.query(q.Do(q.CreateCollection({ name: 'users' }), q.CreateCollection({ name: 'posts' }), q.CreateCollection({ name: 'members' })));
    await root.query(
      q.Do(
        q.CreateIndex({ name: 'all_users', source: q.Collection('users') }),
        q.CreateFunction({ name: 'echo', body: q.Query(q.Lambda('x', q.Var('x'))) }),
        // A role for `members` only: `users` stay role-less.
        q.CreateRole({ name: 'member', membership: [{ resource: q.Collection('members') }], privileges: [{ resource: q.Collection('posts'), actions: { read: true } }] }),
      ),
    );
  });

  async function userWithTokens(coll: string, n: number): Promise<{ user: Doc; tokens: Token[] }> {
    const user = (await root.query(q.Create(q.Collection(coll), { credentials: { password: 'pw' }, data: { name: coll } }))) as Doc;
    const tokens: Token[] = [];
    for (let i = 0; i < n; i++) tokens.push((await root.query(q.Login(user.ref, { password: 'pw' }))) as Token);
    return { user, tokens };
  }

  const same = (a: unknown, b: faunadb.values.Ref) => assert.equal(JSON.stringify(a), JSON.stringify(b));

  for (const proto of ['h2', 'h1'] as const) {
    describe(`a role-less token (${proto})`, () => {
      test('reads its own identity document; Identity() and CurrentIdentity() name it', async () => {
        const pool = new ClientPool(srv.flora.url);
        try {
          const { user, tokens } = await userWithTokens('users', 1);
          const c = pool.client(tokens[0].secret, proto);
          const got = (await c.query(q.Get(user.ref))) as Doc;
          assert.deepEqual(got, user);
          same(await c.query(q.Identity()), user.ref);
          same(await c.query(q.CurrentIdentity()), user.ref);
          same(await c.query(q.Select('ref', q.Get(q.CurrentIdentity()))), user.ref);
          assert.equal(await c.query(q.Exists(user.ref)), true);
          assert.deepEqual(await c.query(q.Select('data', q.Get(user.ref, user.ts))), { name: 'users' });
        } finally {
          await pool.close();
        }
      });

      test('reads its credentials and reads and deletes its identity’s tokens, not another identity’s', async () => {
        const pool = new ClientPool(srv.flora.url);
        try {
          const { user, tokens: [mine, sibling] } = await userWithTokens('users', 2);
          const { tokens: [foreign] } = await userWithTokens('users', 1);
          const c = pool.client(mine.secret, proto);
          same(await c.query(q.Select('instance', q.Get(q.Ref('credentials/self')))), user.ref);
          same(await c.query(q.Select('ref', q.Get(q.Ref('tokens/self')))), mine.ref);
          same(await c.query(q.Select('instance', q.Get(sibling.ref))), user.ref);
          assert.equal((await failure(c, q.Get(foreign.ref))).status, 403);
          assert.equal((await failure(c, q.Delete(foreign.ref))).status, 403);
          await c.query(q.Delete(sibling.ref));
          assert.equal(await statusOf(pool.client(sibling.secret, proto), q.Add(1, 1)), 401);
          assert.equal(await statusOf(pool.client(foreign.secret, proto), q.Add(1, 1)), 200);
        } finally {
          await pool.close();
        }
      });

      test('may do nothing else: other documents, writes to itself, history, sets, indexes, functions, schema', async () => {
        const pool = new ClientPool(srv.flora.url);
        try {
          const { user, tokens } = await userWithTokens('users', 1);
          const { user: other } = await userWithTokens('users', 0);
          const post = (await root.query(q.Create(q.Collection('posts'), { data: {} }))) as Doc;
          const c = pool.client(tokens[0].secret, proto);
          const denied: [string, faunadb.ExprArg][] = [
            ['another user', q.Get(other.ref)],
            ['a post', q.Get(post.ref)],
            ['Update itself', q.Update(user.ref, { data: { name: 'x' } })],
            ['Delete itself', q.Delete(user.ref)],
            ['its history', q.Paginate(q.Events(user.ref))],
            ['Documents of its collection', q.Paginate(q.Documents(q.Collection('users')))],
            ['an index', q.Paginate(q.Match(q.Index('all_users')))],
            ['a function', q.Call(q.Function('echo'), 1)],
            ['its collection', q.Get(q.Collection('users'))],
            ['Create', q.Create(q.Collection('users'), { data: {} })],
          ];
          for (const [what, expr] of denied) {
            const f = await failure(c, expr);
            assert.deepEqual([f.status, f.code], [403, 'permission denied'], what);
          }
          // Reads nothing, so nothing to deny.
          assert.equal(await c.query(q.Add(1, 2)), 3);
        } finally {
          await pool.close();
        }
      });

      test('Logout(false) and Logout(true) answer true and end the tokens', async () => {
        const pool = new ClientPool(srv.flora.url);
        try {
          const { tokens: [a, b, c] } = await userWithTokens('users', 3);
          assert.equal(await pool.client(a.secret, proto).query(q.Logout(false)), true);
          assert.equal(await statusOf(pool.client(a.secret, proto), q.Add(1, 1)), 401);
          assert.equal(await pool.client(b.secret, proto).query(q.Logout(true)), true);
          for (const t of [b, c]) assert.equal(await statusOf(pool.client(t.secret, proto), q.Add(1, 1)), 401);
        } finally {
          await pool.close();
        }
      });
    });
  }

  test('a token with a role gets only what its roles (and the baseline) grant: not its identity document', async () => {
    const pool = new ClientPool(srv.flora.url);
    try {
      const { user, tokens } = await userWithTokens('members', 1);
      const c = pool.client(tokens[0].secret);
      assert.deepEqual([(await failure(c, q.Get(user.ref))).status], [403]);
      same(await c.query(q.Select('instance', q.Get(q.Ref('credentials/self')))), user.ref);
      assert.equal(await c.query(q.Logout(true)), true);
    } finally {
      await pool.close();
    }
  });
});
