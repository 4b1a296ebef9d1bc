// Issue 30, row 2: BCrypt through queries. Every BCrypt run (Identify, Login, KeyFromSecret, a new
// password, a new key or token secret) is charged 1,000 compute ops (model/secrets.ts
// BCRYPT_COMPUTE_OPS), so a query makes about ten at the default limit of 12,000 and then gets
// Fauna's 400 `bad request` "Transaction does too much compute". The torture attack (bcrypt-query)
// runs at its test size; the exact answers are asserted here.

import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { httpRequest, startFlora, type FloraProcess, type RawResponse } from '../helpers/server';
import { bcryptQuery } from '../../torture/targeted/bcryptQuery';
import { whilePinging } from '../../torture/targeted/pingWatch';

const PASSWORD = 'correct horse battery staple';
const user = (id: string) => ({ ref: { collection: 'users' }, id });

function post(srv: FloraProcess, secret: string, body: unknown): Promise<RawResponse> {
  return httpRequest(srv.url, {
    method: 'POST',
    http2: true,
    headers: { authorization: `Bearer ${secret}`, 'x-faunadb-api-version': '4', 'x-query-timeout': '600000' },
    body: JSON.stringify(body),
  });
}

function errorOf(res: RawResponse): { code: string; description: string } {
  return (JSON.parse(res.body) as { errors: { code: string; description: string }[] }).errors[0];
}

function assertTooMuchCompute(res: RawResponse): void {
  assert.equal(res.status, 400, res.body.slice(0, 200));
  const e = errorOf(res);
  assert.equal(e.code, 'bad request');
  const m = /^Transaction does too much compute: got (\d+), limit: 12000$/.exec(e.description);
  assert.ok(m, e.description);
  // Stopped at the run that went over: twelve BCrypt runs' worth, not hundreds.
  assert.ok(Number(m[1]) > 12_000 && Number(m[1]) < 13_000, e.description);
}

describe('BCrypt charged as compute (issue 30 row 2)', () => {
  let srv: FloraProcess;
  let client: string;
  before(async () => {
    // The failed-login throttle (its own test) is opened wide: here the compute charge answers.
    srv = await startFlora({ args: ['--failed-login-burst', '100000', '--address-failed-login-burst', '100000'] });
    await post(srv, srv.secret, { create_collection: { object: { name: 'users' } } });
    for (const id of ['1', '2'])
      await post(srv, srv.secret, { create: user(id), params: { object: { credentials: { object: { password: PASSWORD } } } } });
    client = JSON.parse((await post(srv, srv.secret, { create_key: { object: { role: 'client' } } })).body).resource.secret;
  });
  after(async () => {
    await srv?.stop();
  });

  test('the bcrypt-query attack at test size: no violations', { timeout: 120_000 }, async () => {
    const result = await bcryptQuery.run({ size: 'test', log: () => {} });
    assert.equal(result.violations, 0, result.details.join('\n'));
  });

  test('a Map of 3,000 Identify with a client key stops at the compute limit, promptly, /ping answered', { timeout: 60_000 }, async () => {
    const body = { map: { lambda: 'x', expr: { identify: user('1'), password: 'wrong' } }, collection: Array.from({ length: 3000 }, (_, i) => i) };
    const started = Date.now();
    const { value: res, ping } = await whilePinging(srv.url, () => post(srv, client, body), 'test');
    assertTooMuchCompute(res);
    assert.ok(Date.now() - started < 10_000, `took ${Date.now() - started} ms`);
    assert.equal(ping.slow, 0, `pings: max ${ping.maxMs} ms`);
  });

  test('a handful fits: ten Identify in one query answer, charged 1,000 ops each', { timeout: 60_000 }, async () => {
    const res = await post(srv, client, Array.from({ length: 10 }, () => ({ identify: user('2'), password: PASSWORD })));
    assert.equal(res.status, 200, res.body.slice(0, 200));
    assert.deepEqual(JSON.parse(res.body).resource, Array(10).fill(true));
    const ops = Number(res.headers['x-compute-ops']);
    assert.ok(ops >= 10_000 && ops < 10_100, `x-compute-ops ${ops}`);
  });

  test('new passwords, keys and tokens are charged too', { timeout: 60_000 }, async () => {
    const many = (expr: unknown) => ({ map: { lambda: 'x', expr }, collection: Array.from({ length: 20 }, (_, i) => i) });
    assertTooMuchCompute(await post(srv, srv.secret, many({ create_key: { object: { role: 'client' } } })));
    assertTooMuchCompute(await post(srv, srv.secret, many({ create: { collection: 'users' }, params: { object: { credentials: { object: { password: 'pw' } } } } })));
    assertTooMuchCompute(await post(srv, srv.secret, many({ login: user('2'), params: { object: { password: PASSWORD } } })));
    assertTooMuchCompute(await post(srv, srv.secret, many({ create: { tokens: null }, params: { object: { instance: user('2') } } })));
    // Nothing of a refused query was written.
    const keys = await post(srv, srv.secret, { count: { keys: null } });
    assert.equal(JSON.parse(keys.body).resource, 1);
  });
});
