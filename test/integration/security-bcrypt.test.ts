// Issue 30, row 2: BCrypt through queries. Every BCrypt run (Identify, Login, KeyFromSecret, a new
// password, a new key or token secret) is charged 1,000 compute ops (model/secrets.ts
// BCRYPT_COMPUTE_OPS), so a query makes about ten at the default limit of 12,000 and then gets
// Fauna's 400 `bad request` "Transaction does too much compute". The torture attack (bcrypt-query)
// runs at its test size; the exact answers are asserted here.

import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { makeKey, startFlora, type FloraProcess, type RawResponse } from '../helpers/server';
import { bcryptQuery } from '../../torture/targeted/bcryptQuery';
import { createUsers, docRef, firstError, FqlSession, PASSWORD } from '../../torture/targeted/fqlSession';
import { whilePinging } from '../../torture/targeted/pingWatch';

function assertTooMuchCompute(res: RawResponse): void {
  assert.equal(res.status, 400, res.body.slice(0, 200));
  const e = firstError(res);
  assert.ok(e, res.body.slice(0, 200));
  assert.equal(e.code, 'bad request');
  const m = /^Transaction does too much compute: got (\d+), limit: 12000$/.exec(e.description);
  assert.ok(m, e.description);
  // Stopped at the run that went over: twelve BCrypt runs' worth, not hundreds.
  assert.ok(Number(m[1]) > 12_000 && Number(m[1]) < 13_000, e.description);
}

describe('BCrypt charged as compute (issue 30 row 2)', () => {
  let srv: FloraProcess;
  let session: FqlSession;
  let client: string;
  /** The compute charge, not the time, must stop these queries. */
  const post = (secret: string, body: unknown) => session.post(secret, body, { 'x-query-timeout': '600000' });
  before(async () => {
    // The failed-login throttle (its own test) is opened wide: here the compute charge answers.
    srv = await startFlora({ args: ['--failed-login-burst', '100000', '--address-failed-login-burst', '100000'] });
    session = new FqlSession(srv.url);
    await createUsers(session, srv.secret, ['1', '2']);
    client = await makeKey(srv, 'client');
  });
  after(async () => {
    session?.close();
    await srv?.stop();
  });

  test('the bcrypt-query attack at test size: no violations', { timeout: 120_000 }, async () => {
    const result = await bcryptQuery.run({ size: 'test', log: () => {} });
    assert.equal(result.violations, 0, result.details.join('\n'));
  });

  test('a Map of 3,000 Identify with a client key stops at the compute limit, promptly, /ping answered', { timeout: 60_000 }, async () => {
    const body = { map: { lambda: 'x', expr: { identify: docRef('users', '1'), password: 'wrong' } }, collection: Array.from({ length: 3000 }, (_, i) => i) };
    const started = Date.now();
    const { value: res, ping } = await whilePinging(srv.url, () => post(client, body), 'test');
    assertTooMuchCompute(res);
    assert.ok(Date.now() - started < 10_000, `took ${Date.now() - started} ms`);
    assert.equal(ping.slow, 0, `pings: max ${ping.maxMs} ms`);
  });

  test('a handful fits: ten Identify in one query answer, charged 1,000 ops each', { timeout: 60_000 }, async () => {
    const res = await post(client, Array.from({ length: 10 }, () => ({ identify: docRef('users', '2'), password: PASSWORD })));
    assert.equal(res.status, 200, res.body.slice(0, 200));
    assert.deepEqual(JSON.parse(res.body).resource, Array(10).fill(true));
    const ops = Number(res.headers['x-compute-ops']);
    assert.ok(ops >= 10_000 && ops < 10_100, `x-compute-ops ${ops}`);
  });

  test('new passwords, keys and tokens are charged too', { timeout: 60_000 }, async () => {
    const many = (expr: unknown) => ({ map: { lambda: 'x', expr }, collection: Array.from({ length: 20 }, (_, i) => i) });
    assertTooMuchCompute(await post(srv.secret, many({ create_key: { object: { role: 'client' } } })));
    assertTooMuchCompute(await post(srv.secret, many({ create: { collection: 'users' }, params: { object: { credentials: { object: { password: 'pw' } } } } })));
    assertTooMuchCompute(await post(srv.secret, many({ login: docRef('users', '2'), params: { object: { password: PASSWORD } } })));
    assertTooMuchCompute(await post(srv.secret, many({ create: { tokens: null }, params: { object: { instance: docRef('users', '2') } } })));
    // Nothing of a refused query was written.
    const keys = await post(srv.secret, { count: { keys: null } });
    assert.equal(JSON.parse(keys.body).resource, 1);
  });
});
