// Credentials, Login/Logout/Identify, token authentication, current identity/token, a token's
// built-in permissions and /tokens/self, through the official driver over HTTP/2 and HTTP/1.1.

import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import faunadb, { query as q } from 'faunadb';
import { startFlora, httpRequest, type FloraProcess, ClientPool } from '../helpers/server';
import { failure, statusOf } from '../helpers/faunaErrors';

let srv: FloraProcess;
let root: faunadb.Client;
let pool: ClientPool;

type Doc = Record<string, unknown> & { ref: faunadb.values.Ref };

before(async () => {
  srv = await startFlora();
  pool = new ClientPool(srv.url);
  root = pool.client(srv.secret);
  await root.query(q.CreateCollection({ name: 'users' }));
  await root.query(q.CreateIndex({ name: 'users_by_email', source: q.Collection('users'), terms: [{ field: ['data', 'email'] }], unique: true }));
});
after(async () => {
  await pool.close();
  await srv.stop();
});

function client(secret: string, http1 = false): faunadb.Client {
  return pool.client(secret, http1 ? 'h1' : 'h2');
}

let n = 0;
async function newUser(password: string | undefined, c: faunadb.Client = root): Promise<{ ref: faunadb.values.Ref; email: string }> {
  const email = `user${++n}@example.com`;
  const params: Record<string, unknown> = { data: { email } };
  if (password !== undefined) params.credentials = { password };
  const doc = (await c.query(q.Create(q.Collection('users'), params))) as Doc;
  assert.deepEqual(Object.keys(doc), ['ref', 'ts', 'data']);
  return { ref: doc.ref, email };
}

async function login(ref: faunadb.ExprArg, password: string, extra: Record<string, unknown> = {}, c: faunadb.Client = root): Promise<Doc & { secret: string }> {
  return (await c.query(q.Login(ref, { password, ...extra }))) as Doc & { secret: string };
}

function sameRef(actual: unknown, expected: faunadb.values.Ref): void {
  assert.ok(actual instanceof faunadb.values.Ref, `not a ref: ${String(actual)}`);
  assert.equal(JSON.stringify(actual), JSON.stringify(expected));
}

for (const http1 of [false, true]) {
  describe(`identity over ${http1 ? 'HTTP/1.1' : 'HTTP/2'}`, () => {
    test('credentials are write-only; Login by ref and through a unique index returns an fnE secret', async () => {
      const { ref, email } = await newUser('s3cret');
      const got = (await root.query(q.Get(ref))) as Doc;
      assert.deepEqual(Object.keys(got), ['ref', 'ts', 'data']);
      const updated = (await root.query(q.Update(ref, { credentials: { password: 'other' }, data: { x: 1 } }))) as Doc;
      assert.deepEqual(Object.keys(updated), ['ref', 'ts', 'data']);
      const replaced = (await root.query(q.Replace(ref, { credentials: { password: 's3cret' }, data: { email } }))) as Doc;
      assert.deepEqual(Object.keys(replaced), ['ref', 'ts', 'data']);
      assert.equal(JSON.stringify(replaced).includes('s3cret'), false);

      const byRef = await login(ref, 's3cret', { data: { name: 'app' } });
      assert.deepEqual(Object.keys(byRef), ['ref', 'ts', 'instance', 'data', 'secret']);
      assert.match(byRef.secret, /^fnE[A-Za-z0-9_-]{48}$/);
      assert.equal(byRef.ref.collection!.id, 'tokens');
      sameRef(byRef.instance, ref);
      assert.deepEqual(byRef.data, { name: 'app' });

      const byIndex = await login(q.Match(q.Index('users_by_email'), email), 's3cret');
      assert.deepEqual(Object.keys(byIndex), ['ref', 'ts', 'instance', 'secret']);
      assert.notEqual(byIndex.secret, byRef.secret);

      const tokenClient = client(byIndex.secret, http1);
      sameRef(await tokenClient.query(q.CurrentIdentity()), ref);
      sameRef(await tokenClient.query(q.Identity()), ref);
      assert.equal(await tokenClient.query(q.HasCurrentIdentity()), true);
      assert.equal(await tokenClient.query(q.HasCurrentToken()), true);
      sameRef(await tokenClient.query(q.CurrentToken()), byIndex.ref);

      // A role-less token reads its identity, its credentials and its identity's tokens, nothing
      // else (roleless-token.test.ts has the whole list).
      const cred = (await tokenClient.query(q.Get(q.Ref('credentials/self')))) as Doc;
      assert.deepEqual(Object.keys(cred), ['ref', 'ts', 'instance', 'hashed_password']);
      sameRef(cred.instance, ref);
      assert.match(cred.hashed_password as string, /^\$2[ab]\$05\$/);
      assert.equal(await tokenClient.query(q.Exists(q.Ref('credentials/self'))), true);
      const self = (await tokenClient.query(q.Get(q.Ref('tokens/self')))) as Doc;
      assert.deepEqual(Object.keys(self), ['ref', 'ts', 'instance', 'hashed_secret']);
      sameRef(self.ref, byIndex.ref);
      sameRef(await tokenClient.query(q.Select('ref', q.Get(byIndex.ref))), byIndex.ref);
      sameRef(await tokenClient.query(q.Select('ref', q.Get(ref))), ref);
      sameRef(await tokenClient.query(q.Select('ref', q.Get(byRef.ref))), byRef.ref);
      const stranger = await newUser('pw');
      for (const denied of [q.Get(stranger.ref), q.Paginate(q.Documents(q.Collection('users'))), q.Create(q.Collection('users'), {})]) {
        const f = await failure(tokenClient, denied);
        assert.equal(f.status, 403);
        assert.equal(f.code, 'permission denied');
      }
      assert.equal(await tokenClient.query(q.Add(1, 2)), 3);
    });

    test('Logout(false) ends only the calling token; Logout(true) every token of the identity', async () => {
      const { ref } = await newUser('pw');
      const [a, b, c] = [await login(ref, 'pw'), await login(ref, 'pw'), await login(ref, 'pw')];
      const other = await login((await newUser('pw')).ref, 'pw');
      const ca = client(a.secret, http1);
      const cb = client(b.secret, http1);
      const cc = client(c.secret, http1);
      const co = client(other.secret, http1);
      assert.equal(await ca.query(q.Logout(false)), true);
      assert.equal(await statusOf(ca, q.CurrentIdentity()), 401);
      assert.equal(await statusOf(cb, q.CurrentIdentity()), 200);
      assert.equal(await cb.query(q.Logout(true)), true);
      assert.equal(await statusOf(cb, q.CurrentIdentity()), 401);
      assert.equal(await statusOf(cc, q.CurrentIdentity()), 401);
      assert.equal(await statusOf(co, q.CurrentIdentity()), 200);
      assert.equal(await root.query(q.Exists(c.ref)), false);
      assert.equal(await root.query(q.Exists(other.ref)), true);
      // Not a token: false.
      assert.equal(await root.query(q.Logout(false)), false);
    });

    test('wrong password, unknown user and users without credentials fail to log in', async () => {
      const { ref } = await newUser('right');
      const { ref: noCred } = await newUser(undefined);
      for (const expr of [
        q.Login(ref, { password: 'wrong' }),
        q.Login(q.Match(q.Index('users_by_email'), 'nobody@example.com'), { password: 'right' }),
        q.Login(noCred, { password: 'x' }),
        q.Login(q.Ref(q.Collection('users'), '1234'), { password: 'right' }),
        q.Login(ref, {}),
      ]) {
        const f = await failure(client(srv.secret, http1), expr);
        assert.deepEqual([f.status, f.code, f.description], [400, 'authentication failed', 'The document was not found or provided password was incorrect.']);
      }
    });

    test('changing the password keeps existing tokens; a passed ttl is refused', async () => {
      const { ref } = await newUser('old');
      const t = await login(ref, 'old');
      await root.query(q.Update(ref, { credentials: { password: 'new' } }));
      assert.equal(await statusOf(client(t.secret, http1), q.CurrentIdentity()), 200);
      assert.equal((await failure(root, q.Login(ref, { password: 'old' }))).code, 'authentication failed');
      const fresh = await login(ref, 'new');
      assert.equal(await statusOf(client(fresh.secret, http1), q.CurrentIdentity()), 200);

      const expired = await login(ref, 'new', { ttl: q.Time('2000-01-01T00:00:00Z') });
      assert.equal(await statusOf(client(expired.secret, http1), q.Add(1, 1)), 401);
      const later = await login(ref, 'new', { ttl: q.TimeAdd(q.Now(), 1, 'hour') });
      assert.equal(await statusOf(client(later.secret, http1), q.Add(1, 1)), 200);

      // Deleting the identity ends its tokens.
      await root.query(q.Delete(ref));
      assert.equal(await statusOf(client(later.secret, http1), q.Add(1, 1)), 401);
      assert.equal((await failure(root, q.Login(ref, { password: 'new' }))).code, 'authentication failed');
    });

    test('Identify, CurrentIdentity/CurrentToken without a token', async () => {
      const { ref, email } = await newUser('pw');
      const { ref: noCred } = await newUser(undefined);
      const c = client(srv.secret, http1);
      assert.equal(await c.query(q.Identify(ref, 'pw')), true);
      assert.equal(await c.query(q.Identify(ref, 'nope')), false);
      assert.equal(await c.query(q.Identify(q.Match(q.Index('users_by_email'), email), 'pw')), true);
      assert.equal(await c.query(q.Identify(noCred, 'pw')), false);

      assert.equal(await c.query(q.HasCurrentIdentity()), false);
      assert.equal(await c.query(q.HasCurrentToken()), false);
      const missing = await failure(c, q.CurrentIdentity());
      assert.deepEqual([missing.status, missing.code, missing.description], [400, 'missing identity', 'Authentication does not contain an identity']);
      const invalid = await failure(c, q.CurrentToken());
      assert.deepEqual([invalid.status, invalid.code, invalid.description], [400, 'invalid token', 'Token metadata is not accessible.']);

      const key = (await root.query(q.CreateKey({ role: 'server' }))) as Doc & { secret: string };
      const kc = client(key.secret, http1);
      sameRef(await kc.query(q.CurrentToken()), key.ref);
      assert.equal(await kc.query(q.HasCurrentToken()), true);
      // A server key may log users in (a client key only via a direct ref, without reading the set).
      const viaKey = await login(ref, 'pw', {}, kc);
      assert.match(viaKey.secret, /^fnE/);
      const ck = (await root.query(q.CreateKey({ role: 'client' }))) as Doc & { secret: string };
      assert.match((await login(ref, 'pw', {}, client(ck.secret, http1))).secret, /^fnE/);
    });
  });
}

describe('tokens in a child database', () => {
  test('a token authenticates into the database of its identity', async () => {
    await root.query(q.CreateDatabase({ name: 'app' }));
    const admin = client(`${srv.secret}:app:admin`);
    await admin.query(q.CreateCollection({ name: 'people' }));
    const person = (await admin.query(q.Create(q.Collection('people'), { credentials: { password: 'pw' } }))) as Doc;
    const token = await login(person.ref, 'pw', {}, admin);
    const tc = client(token.secret);
    sameRef(await tc.query(q.CurrentIdentity()), person.ref);
    sameRef(await tc.query(q.Select('instance', q.Get(q.Ref('credentials/self')))), person.ref);
    // Tokens ignore a scope suffix.
    sameRef(await client(`${token.secret}:admin`).query(q.CurrentIdentity()), person.ref);
    // Seen from the parent, the token lives in the child's tokens collection.
    const fromTop = (await root.query(q.Get(q.Ref(q.Tokens(q.Database('app')), token.ref.id)))) as Doc;
    assert.deepEqual(Object.keys(fromTop), ['ref', 'ts', 'instance', 'hashed_secret']);
  });
});

describe('/tokens/self', () => {
  test('returns the calling token; a secret that does not authenticate is 401, one that is no token 404', async () => {
    const { ref } = await newUser('pw');
    const t = await login(ref, 'pw', { data: { a: 1 } });
    for (const http2 of [false, true]) {
      for (const authorization of [`Bearer ${t.secret}`, `Basic ${Buffer.from(`${t.secret}:`).toString('base64')}`]) {
        const res = await httpRequest(srv.url, { path: '/tokens/self', headers: { authorization }, http2 });
        assert.equal(res.status, 200, res.body);
        const body = JSON.parse(res.body) as { resource: Record<string, unknown> };
        assert.deepEqual(Object.keys(body.resource), ['ref', 'ts', 'instance', 'hashed_secret']);
        assert.deepEqual(body.resource.ref, { '@ref': { id: t.ref.id, collection: { '@ref': { id: 'tokens' } } } });
        assert.deepEqual(body.resource.instance, { '@ref': { id: ref.id, collection: { '@ref': { id: 'users', collection: { '@ref': { id: 'collections' } } } } } });
        assert.match(body.resource.hashed_secret as string, /^\$2[ab]\$05\$/);
        assert.equal(typeof body.resource.ts, 'number');
      }
    }
    for (const headers of [{} as Record<string, string>, { authorization: 'Bearer fnEnotasecret' }, { authorization: `Bearer ${t.secret.slice(0, -2)}AA` }]) {
      const res = await httpRequest(srv.url, { path: '/tokens/self', headers });
      assert.equal(res.status, 401, JSON.stringify(headers));
      assert.equal(JSON.parse(res.body).errors[0].code, 'unauthorized');
    }
    // A valid secret that is no token names no token: 404, as Fauna's REST routes answer (FQL1Routes).
    const key = ((await root.query(q.CreateKey({ role: 'server' }))) as { secret: string }).secret;
    for (const secret of [srv.secret, key, `${srv.secret}:@doc/users/${ref.id}`]) {
      const res = await httpRequest(srv.url, { path: '/tokens/self', headers: { authorization: `Bearer ${secret}` } });
      assert.equal(res.status, 404, secret);
      assert.deepEqual(JSON.parse(res.body), { errors: [{ code: 'not found', description: 'Not Found' }] });
    }
  });
});
