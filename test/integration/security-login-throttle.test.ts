// Issue 30, row 4: failed logins (Login or Identify with a wrong password) are throttled per
// identity and per client address, this machine's own addresses aside (model/loginThrottle.ts):
// past the burst, 429 `too many requests` with Retry-After, before any BCrypt runs; the rightful user
// gets in again within one refill interval. The torture attack (login-flood) runs at its test size;
// the exact answers are asserted here.

import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { httpRequest, makeKey, startFlora, type FloraProcess, type RawResponse } from '../helpers/server';
import { createUsers, docRef, firstError, FqlSession, PASSWORD } from '../../torture/targeted/fqlSession';
import { loginFlood } from '../../torture/targeted/loginFlood';

const user = (id: string) => docRef('users', id);
const login = (id: string, password: string) => ({ login: user(id), params: { object: { password } } });

/** One request on a fresh HTTP/1.1 connection, as a browser's or a server's client may send it. */
function post(srv: FloraProcess, secret: string, body: unknown): Promise<RawResponse> {
  return httpRequest(srv.url, {
    method: 'POST',
    headers: { authorization: `Bearer ${secret}`, 'x-faunadb-api-version': '4' },
    body: JSON.stringify(body),
  });
}

const errorOf = (res: RawResponse) => firstError(res) ?? { code: '', description: res.body };

function assertThrottled(res: RawResponse): number {
  assert.equal(res.status, 429, res.body);
  assert.deepEqual(JSON.parse(res.body), { errors: [{ code: 'too many requests', description: 'Too many failed logins: retry later.' }] });
  assert.match(res.headers['retry-after'] ?? '', /^\d+$/);
  return Number(res.headers['retry-after']);
}

/** Users with PASSWORD, and a client key. */
async function world(srv: FloraProcess, users: string[]): Promise<string> {
  const session = new FqlSession(srv.url);
  try {
    await createUsers(session, srv.secret, users);
  } finally {
    session.close();
  }
  return makeKey(srv, 'client');
}

describe('failed logins throttled per identity (issue 30 row 4)', () => {
  let srv: FloraProcess;
  let client: string;
  before(async () => {
    srv = await startFlora();
    client = await world(srv, ['1', '2']);
  });
  after(async () => {
    await srv?.stop();
  });

  test('the login-flood attack at test size: no violations', { timeout: 120_000 }, async () => {
    const result = await loginFlood.run({ size: 'test', log: () => {} });
    assert.equal(result.violations, 0, result.details.join('\n'));
  });

  test('ten wrong passwords, then 429 with Retry-After, for Login and Identify alike; another identity is not held up', { timeout: 60_000 }, async () => {
    for (let i = 0; i < 10; i++) {
      const res = await post(srv, client, i % 2 ? login('1', `wrong-${i}`) : { identify: user('1'), password: `wrong-${i}` });
      if (i % 2) assert.equal(errorOf(res).code, 'authentication failed', res.body);
      else assert.equal(JSON.parse(res.body).resource, false, res.body);
    }
    const retry = assertThrottled(await post(srv, client, login('1', 'wrong-10')));
    assert.ok(retry >= 1 && retry <= 3, `Retry-After ${retry} (one refill at the default 20 a minute)`);
    // The right password too: a guess cannot be told from the rightful user before it is checked.
    assertThrottled(await post(srv, client, { identify: user('1'), password: PASSWORD }));
    assert.equal((await post(srv, client, login('2', PASSWORD))).status, 200);
    // Past Retry-After, the rightful user is in.
    await new Promise((r) => setTimeout(r, retry * 1000 + 100));
    const res = await post(srv, client, login('1', PASSWORD));
    assert.equal(res.status, 200, res.body);
  });
});

describe('failed logins from this machine are not counted per address (a proxy in front of Flora)', () => {
  let srv: FloraProcess;
  let client: string;
  before(async () => {
    srv = await startFlora({ args: ['--address-failed-login-burst', '5', '--address-failed-logins-per-minute', '1'] });
    client = await world(srv, ['1', '2', '3', '4', '5', '6', '7', '8']);
  });
  after(async () => {
    await srv?.stop();
  });

  // The per-address rule itself is unit-tested (test/unit/loginThrottle.test.ts): every connection
  // here comes from 127.0.0.1, which is what a reverse proxy on the same host looks like.
  test('wrong passwords over many identities from a loopback address never lock the other users out', { timeout: 60_000 }, async () => {
    for (const id of ['1', '2', '3', '4', '5', '6']) assert.equal(errorOf(await post(srv, client, login(id, 'wrong'))).code, 'authentication failed');
    assert.equal((await post(srv, client, login('7', PASSWORD))).status, 200);
    assert.equal(errorOf(await post(srv, client, login('8', 'wrong'))).code, 'authentication failed');
  });
});
