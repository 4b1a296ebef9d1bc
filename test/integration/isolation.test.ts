// Two access rules the service description states outright: a client key can log in through a
// public unique index and do nothing else; a key of one database cannot see another database.

import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import faunadb, { query as q } from 'faunadb';
import { startFlora, clients, type FloraProcess, type DriverClients } from '../helpers/server';
import { failure } from '../helpers/faunaErrors';

let srv: FloraProcess;
let root: DriverClients;
const opened: DriverClients[] = [];

before(async () => {
  srv = await startFlora();
  root = clients(srv.url, srv.secret);
});
after(async () => {
  for (const c of opened) await c.close();
  await root.close();
  await srv.stop();
});

function as(secret: string): DriverClients {
  const c = clients(srv.url, secret);
  opened.push(c);
  return c;
}

describe('a client key', () => {
  test('can log in through a public unique index, and nothing more', async () => {
    await root.h2.query(q.CreateCollection({ name: 'users' }));
    await root.h2.query(
      q.CreateIndex({ name: 'users_by_email', source: q.Collection('users'), terms: [{ field: ['data', 'email'] }], unique: true, permissions: { read: 'public' } }),
    );
    const user = (await root.h2.query(q.Create(q.Collection('users'), { data: { email: 'ann@example.com' }, credentials: { password: 's3cret' } }))) as { ref: faunadb.values.Ref };
    const { secret } = (await root.h2.query(q.CreateKey({ role: 'client' }))) as { secret: string };
    for (const c of [as(secret).h2, as(secret).h1]) {
      const token = (await c.query(q.Login(q.Match(q.Index('users_by_email'), 'ann@example.com'), { password: 's3cret' }))) as { secret: string; instance: faunadb.values.Ref };
      assert.match(token.secret, /^fnE/);
      assert.equal(token.instance.id, user.ref.id);
      const wrong = await failure(c, q.Login(q.Match(q.Index('users_by_email'), 'ann@example.com'), { password: 'nope' }));
      assert.deepEqual([wrong.status, wrong.code], [400, 'authentication failed']);
      for (const denied of [q.Get(user.ref), q.Paginate(q.Documents(q.Collection('users'))), q.Create(q.Collection('users'), {}), q.Paginate(q.Collections()), q.Paginate(q.Keys())]) {
        assert.equal((await failure(c, denied)).status, 403);
      }
    }
  });
});

describe('a key of one database', () => {
  test('sees neither a sibling database nor its parent', async () => {
    await root.h2.query(q.CreateDatabase({ name: 'alpha' }));
    await root.h2.query(q.CreateDatabase({ name: 'beta' }));
    await as(`${srv.secret}:beta:admin`).h2.query(q.CreateCollection({ name: 'beta_things' }));
    await root.h2.query(q.CreateCollection({ name: 'top_things' }));
    const { secret } = (await root.h2.query(q.CreateKey({ database: q.Database('alpha'), role: 'admin' }))) as { secret: string };
    const alpha = as(secret).h2;
    assert.deepEqual(((await alpha.query(q.Paginate(q.Databases()))) as { data: unknown[] }).data, []);
    assert.equal(await alpha.query(q.Exists(q.Database('beta'))), false);
    assert.equal(await alpha.query(q.Exists(q.Collection('top_things'))), false);
    assert.equal((await failure(alpha, q.Get(q.Collection('beta_things', q.Database('beta'))))).code, 'invalid ref');
    assert.deepEqual(((await alpha.query(q.Paginate(q.Collections()))) as { data: unknown[] }).data, []);
    // A scoped secret cannot climb out either.
    assert.equal((await failure(as(`${secret}:beta:admin`).h2, q.Add(1, 1))).status, 401);
  });
});
