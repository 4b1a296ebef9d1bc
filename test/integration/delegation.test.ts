// Third-party delegation (service.md "Authentication" item 7): one token per client, tagged through
// Login's `data`, listed through an index over Tokens() by `instance`; a user revokes a client by
// invalidating its token. Through the official driver.

import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import faunadb, { query as q } from 'faunadb';
import { startFlora, type FloraProcess, ClientPool } from '../helpers/server';
import { failure, statusOf } from '../helpers/faunaErrors';

let srv: FloraProcess;
let root: faunadb.Client;
let server: faunadb.Client;
let pool: ClientPool;

type Doc = Record<string, unknown> & { ref: faunadb.values.Ref };
type Page = { data: unknown[] };

function client(secret: string): faunadb.Client {
  return pool.client(secret);
}

before(async () => {
  srv = await startFlora();
  pool = new ClientPool(srv.url);
  root = pool.client(srv.secret);
  await root.query(q.CreateCollection({ name: 'users' }));
  // Created before any token exists: kept up to date by every token write.
  await root.query(
    q.CreateIndex({
      name: 'tokens_by_instance',
      source: q.Tokens(),
      terms: [{ field: ['instance'] }],
      values: [{ field: ['data', 'name'] }, { field: ['ref'] }],
    }),
  );
  const key = (await root.query(q.CreateKey({ role: 'server' }))) as { secret: string };
  server = client(key.secret);
});
after(async () => {
  await pool.close();
  await srv.stop();
});

let n = 0;
async function newUser(): Promise<faunadb.values.Ref> {
  const doc = (await root.query(q.Create(q.Collection('users'), { data: { email: `u${++n}@example.com` }, credentials: { password: 'sekrit' } }))) as Doc;
  return doc.ref;
}

async function loginAs(user: faunadb.values.Ref, name: string): Promise<Doc & { secret: string }> {
  return (await root.query(q.Login(user, { password: 'sekrit', data: { name } }))) as Doc & { secret: string };
}

async function clientNames(user: faunadb.values.Ref, index = 'tokens_by_instance'): Promise<string[]> {
  const page = (await server.query(q.Paginate(q.Match(q.Index(index), user)))) as Page;
  return page.data.map((row) => (row as [string, faunadb.values.Ref])[0]).sort();
}

describe('delegation through an index over Tokens()', () => {
  test('lists one token per client and revokes them one by one', async () => {
    const user = await newUser();
    const other = await newUser();
    const a = await loginAs(user, 'app-a');
    const b = await loginAs(user, 'app-b');
    const c = await loginAs(user, 'app-c');
    await loginAs(other, 'app-x');
    assert.deepEqual(await clientNames(user), ['app-a', 'app-b', 'app-c']);
    assert.deepEqual(await clientNames(other), ['app-x']);

    // The entries carry the token refs.
    const page = (await server.query(q.Paginate(q.Match(q.Index('tokens_by_instance'), user)))) as Page;
    const refs = page.data.map((row) => JSON.stringify((row as unknown[])[1])).sort();
    assert.deepEqual(refs, [a.ref, b.ref, c.ref].map((r) => JSON.stringify(r)).sort());

    const ca = client(a.secret);
    const cb = client(b.secret);
    const cc = client(c.secret);
    assert.equal(JSON.stringify(await ca.query(q.CurrentIdentity())), JSON.stringify(user));

    // Revoking app-b: delete its token.
    await server.query(q.Delete(b.ref));
    assert.deepEqual(await clientNames(user), ['app-a', 'app-c']);
    assert.equal(await statusOf(cb, q.Add(1, 1)), 401);
    assert.equal(await statusOf(ca, q.CurrentIdentity()), 200);

    // Revoking app-c: the client logs itself out.
    assert.equal(await cc.query(q.Logout(false)), true);
    assert.deepEqual(await clientNames(user), ['app-a']);
    assert.equal(await statusOf(cc, q.Add(1, 1)), 401);
    assert.equal(await statusOf(ca, q.CurrentIdentity()), 200);
    assert.deepEqual(await clientNames(other), ['app-x']);
  });

  test('renaming a client, Create(Tokens()) and Logout(true) are indexed', async () => {
    const user = await newUser();
    const a = await loginAs(user, 'app-a');
    await loginAs(user, 'app-b');
    await server.query(q.Update(a.ref, { data: { name: 'app-a2' } }));
    assert.deepEqual(await clientNames(user), ['app-a2', 'app-b']);
    await server.query(q.Replace(a.ref, { instance: user, data: { name: 'app-a3' } }));
    assert.deepEqual(await clientNames(user), ['app-a3', 'app-b']);
    const made = (await server.query(q.Create(q.Tokens(), { instance: user, data: { name: 'app-d' } }))) as Doc & { secret: string };
    assert.deepEqual(await clientNames(user), ['app-a3', 'app-b', 'app-d']);
    assert.equal(await client(made.secret).query(q.Logout(true)), true);
    assert.deepEqual(await clientNames(user), []);
    assert.equal(await statusOf(client(a.secret), q.Add(1, 1)), 401);
  });

  test('an index created after the logins is built from the existing tokens', async () => {
    const user = await newUser();
    await loginAs(user, 'late-a');
    await loginAs(user, 'late-b');
    await root.query(
      q.CreateIndex({ name: 'tokens_by_instance_late', source: q.Tokens(), terms: [{ field: ['instance'] }], values: [{ field: ['data', 'name'] }] }),
    );
    const index = (await root.query(q.Get(q.Index('tokens_by_instance_late')))) as Doc;
    assert.equal(index.active, true);
    assert.equal(JSON.stringify(index.source), JSON.stringify({ '@ref': { id: 'tokens' } }));
    const page = (await server.query(q.Paginate(q.Match(q.Index('tokens_by_instance_late'), user)))) as Page;
    assert.deepEqual([...page.data].sort(), ['late-a', 'late-b']);
  });

  test('secret hashes are never indexed; wildcards and a user collection named tokens do not cover tokens', async () => {
    const user = await newUser();
    await loginAs(user, 'hash-a');
    await root.query(q.CreateCollection({ name: 'tokens' }));
    await root.query(q.CreateIndex({ name: 'user_tokens_by_instance', source: q.Collection('tokens'), terms: [{ field: ['instance'] }] }));
    await root.query(q.CreateIndex({ name: 'everything_by_instance', source: { collection: '_' }, terms: [{ field: ['instance'] }] }));
    await root.query(
      q.CreateIndex({ name: 'tokens_hash', source: q.Tokens(), terms: [{ field: ['instance'] }], values: [{ field: ['hashed_secret'] }, { field: ['ref'] }] }),
    );
    await loginAs(user, 'hash-b');
    for (const name of ['user_tokens_by_instance', 'everything_by_instance']) {
      const page = (await server.query(q.Paginate(q.Match(q.Index(name), user)))) as Page;
      assert.deepEqual(page.data, [], name);
    }
    const hashes = (await server.query(q.Paginate(q.Match(q.Index('tokens_hash'), user)))) as Page;
    assert.equal(hashes.data.length, 2);
    for (const row of hashes.data) assert.equal((row as unknown[])[0], null);
  });

  test('other native collections are still refused as sources', async () => {
    const err = await failure(root, q.CreateIndex({ name: 'keys_idx', source: q.Keys() }));
    assert.equal(err.status, 400);
    assert.equal(err.code, 'validation failed');
    assert.equal(err.failures?.[0].code, 'invalid reference');
  });
});
