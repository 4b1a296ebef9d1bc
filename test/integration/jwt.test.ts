// Access providers and JWT authentication (fql-v4.md §4.3, §6.4) through the official driver: a
// local HTTP server serves the JWKS; tokens are signed here with node:crypto (RS256).

import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { generateKeyPairSync, sign, type KeyObject } from 'node:crypto';
import faunadb, { query as q } from 'faunadb';
import { startFlora, type FloraProcess, ClientPool } from '../helpers/server';
import { failure, statusOf } from '../helpers/faunaErrors';

let srv: FloraProcess;
let root: faunadb.Client;
let admin: faunadb.Client;
let jwks: http.Server;
let jwksUri = '';
let jwksHits = 0;
let audience = '';
let pool: ClientPool;

const signing = generateKeyPairSync('rsa', { modulusLength: 2048 });
const other = generateKeyPairSync('rsa', { modulusLength: 2048 });
const ISSUER = 'https://issuer.example.com/';

type Doc = Record<string, unknown> & { ref: faunadb.values.Ref };

before(async () => {
  // The JWKS server below listens on loopback, which JWKS fetches refuse unless allowed.
  srv = await startFlora({ env: { FLORA_JWKS_ALLOW_PRIVATE: 'true' } });
  pool = new ClientPool(srv.url);
  root = pool.client(srv.secret);
  const jwk = { ...signing.publicKey.export({ format: 'jwk' }), kid: 'k1', alg: 'RS256', use: 'sig' };
  jwks = http.createServer((req, res) => {
    jwksHits++;
    if (req.url !== '/jwks') return void res.writeHead(404).end();
    res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ keys: [jwk] }));
  });
  await new Promise<void>((resolve) => jwks.listen(0, '127.0.0.1', resolve));
  jwksUri = `http://127.0.0.1:${(jwks.address() as AddressInfo).port}/jwks`;
  const db = (await root.query(q.CreateDatabase({ name: 'jwtdb' }))) as Doc;
  audience = `https://db.fauna.com/db/${db.global_id as string}`;
  admin = pool.client(`${srv.secret}:jwtdb:admin`);
});
after(async () => {
  await pool.close();
  await srv.stop();
  jwks.close();
});

function jwt(claims: Record<string, unknown>, opts: { kid?: string | null; key?: KeyObject; alg?: string } = {}): string {
  const header: Record<string, unknown> = { alg: opts.alg ?? 'RS256', typ: 'JWT' };
  if (opts.kid !== null) header.kid = opts.kid ?? 'k1';
  const enc = (o: unknown) => Buffer.from(JSON.stringify(o)).toString('base64url');
  const input = `${enc(header)}.${enc(claims)}`;
  return `${input}.${sign('RSA-SHA256', Buffer.from(input), opts.key ?? signing.privateKey).toString('base64url')}`;
}

function claims(extra: Record<string, unknown> = {}): Record<string, unknown> {
  const now = Math.floor(Date.now() / 1000);
  return { iss: ISSUER, sub: 'user-42', aud: audience, iat: now, exp: now + 600, ...extra };
}

function client(secret: string): faunadb.Client {
  return pool.client(secret);
}

describe('access providers', () => {
  test('CreateAccessProvider renders name, issuer, jwks_uri, audience, data; AccessProvider(s)', async () => {
    const created = (await admin.query(
      q.CreateAccessProvider({ name: 'idp', issuer: ISSUER, jwks_uri: jwksUri, data: { a: 1 } }),
    )) as Doc;
    assert.deepEqual(Object.keys(created), ['ref', 'ts', 'name', 'issuer', 'jwks_uri', 'audience', 'data']);
    assert.equal(created.audience, audience);
    assert.equal(created.jwks_uri, jwksUri);
    const got = (await admin.query(q.Get(q.AccessProvider('idp')))) as Doc;
    assert.deepEqual(got, created);
    const page = (await admin.query(q.Paginate(q.AccessProviders()))) as { data: faunadb.values.Ref[] };
    assert.equal(page.data.length, 1);
    assert.equal(page.data[0].id, 'idp');
  });

  test('names and issuers are unique ("other already exists.")', async () => {
    const sameName = await failure(admin, q.CreateAccessProvider({ name: 'idp', issuer: 'https://x.example/', jwks_uri: jwksUri }));
    assert.deepEqual([sameName.code, sameName.description], ['instance already exists', 'other already exists.']);
    const sameIssuer = await failure(admin, q.CreateAccessProvider({ name: 'idp2', issuer: ISSUER, jwks_uri: jwksUri }));
    assert.equal(sameIssuer.code, 'instance already exists');
  });

  test('bad provider inputs are validation failures', async () => {
    const noIssuer = await failure(admin, q.CreateAccessProvider({ name: 'a', jwks_uri: jwksUri }));
    assert.equal(noIssuer.code, 'validation failed');
    assert.deepEqual(noIssuer.failures?.map((f) => [f.field, f.code]), [[['issuer'], 'value required']]);
    const noUri = await failure(admin, q.CreateAccessProvider({ name: 'a', issuer: 'i' }));
    assert.deepEqual(noUri.failures?.map((f) => [f.field, f.code]), [[['jwks_uri'], 'value required']]);
    for (const uri of ['not a uri', 'ftp://example.com/jwks', 'http://example.com/jwks']) {
      const bad = await failure(admin, q.CreateAccessProvider({ name: 'a', issuer: 'i', jwks_uri: uri }));
      assert.deepEqual(bad.failures?.map((f) => [f.field, f.code]), [[['jwks_uri'], 'invalid uri']], uri);
    }
    const badRole = await failure(admin, q.CreateAccessProvider({ name: 'a', issuer: 'i', jwks_uri: jwksUri, roles: ['admin'] }));
    assert.equal(badRole.code, 'validation failed');
    const missingRole = await failure(admin, q.CreateAccessProvider({ name: 'a', issuer: 'i', jwks_uri: jwksUri, roles: [q.Role('nope')] }));
    assert.deepEqual(missingRole.failures?.map((f) => [f.field, f.code]), [[['roles', 0], 'invalid reference']]);
    const noName = await failure(admin, q.CreateAccessProvider({ issuer: 'i', jwks_uri: jwksUri }));
    assert.equal(noName.code, 'validation failed');
  });

  test('Update merges data; Replace keeps name, issuer, jwks_uri and audience', async () => {
    await admin.query(q.CreateAccessProvider({ name: 'upd', issuer: 'https://upd.example/', jwks_uri: jwksUri, data: { a: 1 } }));
    const updated = (await admin.query(q.Update(q.AccessProvider('upd'), { data: { b: 2 } }))) as Doc;
    assert.deepEqual(updated.data, { a: 1, b: 2 });
    const replaced = (await admin.query(q.Replace(q.AccessProvider('upd'), { data: { c: 3 } }))) as Doc;
    assert.deepEqual(Object.keys(replaced), ['ref', 'ts', 'name', 'issuer', 'jwks_uri', 'audience', 'data']);
    assert.deepEqual([replaced.issuer, replaced.audience, replaced.data], ['https://upd.example/', audience, { c: 3 }]);
    await admin.query(q.Delete(q.AccessProvider('upd')));
  });

  test('roles: role refs or {role, predicate}, rendered before audience', async () => {
    await admin.query(q.CreateRole({ name: 'jwt_reader', privileges: [] }));
    const predicate = q.Query(q.Lambda('x', true));
    const p = (await admin.query(
      q.CreateAccessProvider({ name: 'withroles', issuer: 'https://roles.example/', jwks_uri: jwksUri, roles: [q.Role('jwt_reader'), { role: q.Role('jwt_reader'), predicate }] }),
    )) as Doc;
    assert.deepEqual(Object.keys(p), ['ref', 'ts', 'name', 'issuer', 'jwks_uri', 'roles', 'audience']);
    const roles = p.roles as unknown[];
    assert.equal(roles.length, 2);
    assert.equal((roles[0] as faunadb.values.Ref).id, 'jwt_reader');
    const badPredicate = await failure(admin, q.CreateAccessProvider({ name: 'bp', issuer: 'bp', jwks_uri: jwksUri, roles: [{ role: q.Role('jwt_reader'), predicate: 1 }] }));
    assert.deepEqual(badPredicate.failures?.map((f) => [f.field, f.code]), [[['roles', 0, 'predicate'], 'invalid type']]);
    await admin.query(q.Delete(q.AccessProvider('withroles')));
  });

  test('server keys cannot manage access providers', async () => {
    const server = client(`${srv.secret}:jwtdb:server`);
    assert.equal(await statusOf(server, q.CreateAccessProvider({ name: 's', issuer: 's', jwks_uri: jwksUri })), 403);
  });
});

describe('JWT authentication', () => {
  test('a valid JWT: CurrentIdentity is sub, CurrentToken the payload', async () => {
    const payload = claims({ scope: ['read'], n: 1.5 });
    const c = client(jwt(payload));
    assert.equal(await c.query(q.CurrentIdentity()), 'user-42');
    assert.equal(await c.query(q.HasCurrentIdentity()), true);
    assert.equal(await c.query(q.HasCurrentToken()), true);
    assert.deepEqual(await c.query(q.CurrentToken()), payload);
  });

  test('a JWT client reads a public collection', async () => {
    await admin.query(q.CreateCollection({ name: 'pub', permissions: { read: 'public' } }));
    const doc = (await admin.query(q.Create(q.Collection('pub'), { data: { x: 1 } }))) as Doc;
    const c = client(jwt(claims()));
    assert.deepEqual(((await c.query(q.Get(doc.ref))) as Doc).data, { x: 1 });
  });

  test("a JWT without a kid is checked against the set's only key", async () => {
    const c = client(jwt(claims({ sub: 'no-kid' }), { kid: null }));
    assert.equal(await c.query(q.CurrentIdentity()), 'no-kid');
  });

  test('the JWKS is fetched once and cached', async () => {
    const before = jwksHits;
    for (let i = 0; i < 5; i++) await client(jwt(claims({ sub: `u${i}` }))).query(q.CurrentIdentity());
    assert.equal(jwksHits, before);
  });

  test('expired, not yet valid, wrong issuer/audience, bad signature, unknown kid, other alg → 401', async () => {
    const now = Math.floor(Date.now() / 1000);
    const bad: [string, string][] = [
      ['expired', jwt(claims({ exp: now - 10 }))],
      ['no exp', jwt(claims({ exp: undefined }))],
      ['not yet valid', jwt(claims({ nbf: now + 600 }))],
      ['wrong issuer', jwt(claims({ iss: 'https://evil.example/' }))],
      ['wrong audience', jwt(claims({ aud: 'https://db.fauna.com/db/ybndrfg8ejkmc' }))],
      ['bad signature', jwt(claims(), { key: other.privateKey })],
      ['unknown kid', jwt(claims(), { kid: 'k2' })],
      ['HS256', jwt(claims(), { alg: 'HS256' })],
      ['garbage', 'eyJhbGciOiJSUzI1NiJ9.bm9wZQ.c2ln'],
    ];
    for (const [what, token] of bad) assert.equal(await statusOf(client(token), q.CurrentIdentity()), 401, what);
  });

  test('KeyFromSecret of a JWT names the database it authenticates into', async () => {
    const token = jwt(claims({ sub: 'kfs' }));
    const fromRoot = (await root.query(q.KeyFromSecret(token))) as { database: faunadb.values.Ref };
    assert.deepEqual(Object.keys(fromRoot), ['database']);
    assert.equal(fromRoot.database.id, 'jwtdb');
    assert.equal(fromRoot.database.collection?.id, 'databases');
    // From inside the database itself there is no database ref to give, as for a key document.
    assert.deepEqual(await admin.query(q.KeyFromSecret(token)), {});
    // A JWT that does not authenticate is not found, with the secret echoed as Fauna does.
    const expired = jwt(claims({ exp: Math.floor(Date.now() / 1000) - 10 }));
    const f = await failure(root, q.KeyFromSecret(expired));
    assert.deepEqual([f.status, f.code, f.description], [400, 'instance not found', `No key found for secret ${expired}.`]);
  });

  test('deleting the provider revokes its JWTs', async () => {
    const token = jwt(claims({ sub: 'gone' }));
    const c = client(token);
    assert.equal(await c.query(q.CurrentIdentity()), 'gone');
    await admin.query(q.CreateAccessProvider({ name: 'idp-b', issuer: 'https://b.example/', jwks_uri: jwksUri }));
    const b = client(jwt(claims({ iss: 'https://b.example/', sub: 'b' })));
    assert.equal(await b.query(q.CurrentIdentity()), 'b');
    await admin.query(q.Delete(q.AccessProvider('idp-b')));
    assert.equal(await statusOf(b, q.CurrentIdentity()), 401);
    assert.equal(await c.query(q.CurrentIdentity()), 'gone');
  });
});
