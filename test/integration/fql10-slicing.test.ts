// A long FQL v10 query does not hold up other clients: the interpreter yields the event loop when
// its slice is used up (hooks.breathe through the query's Budget), so another client's `1 + 1`
// answers while it runs, and the long one ends with the core's error at its deadline or compute
// limit, never a hang. User regexes run in linear time: a pattern that backtracks catastrophically
// in JavaScript answers at once.

import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { Client, fql, QueryTimeoutError, ServiceError } from 'fauna';
import { httpRequest, startFlora, type FloraProcess } from '../helpers/server';

let flora: FloraProcess;
let client: Client;

before(async () => {
  flora = await startFlora();
  client = new Client({ secret: flora.secret, endpoint: new URL(flora.url), max_attempts: 1 });
});

after(async () => {
  client?.close();
  await flora?.stop();
});

async function quick(): Promise<number> {
  const started = performance.now();
  const res = await httpRequest(flora.url, {
    method: 'POST',
    path: '/query/1',
    headers: { authorization: `Bearer ${flora.secret}` },
    body: JSON.stringify({ query: '1 + 1' }),
  });
  assert.equal(res.status, 200);
  assert.equal(JSON.parse(res.body).data, 2);
  return performance.now() - started;
}

test('another client is answered while a long query runs, and the long one times out', async () => {
  await quick(); // a warm connection path, so the numbers below are the query's
  const started = performance.now();
  // No function is called per element: only the set source's pages look at the clock.
  const long = client
    .query(fql`Set.sequence(0, 2000000000).drop(1999999999).first()`, { query_timeout_ms: 3000 })
    .then(
      () => assert.fail('the query should have timed out'),
      (e: unknown) => e,
    )
    .finally(() => (longMs = performance.now() - started));
  let longMs: number | undefined;
  // Sequential quick queries while the long one runs: if it held the event loop, none would be
  // answered before it ended (however loaded the machine, which only stretches both).
  let answeredDuring = 0;
  while (longMs === undefined && answeredDuring < 200) {
    await quick();
    if (longMs === undefined) answeredDuring++;
  }
  const e = await long;
  assert.ok(e instanceof QueryTimeoutError, String(e));
  assert.equal(e.code, 'time_out');
  assert.equal(e.message, 'Read timed out');
  assert.ok(longMs! >= 2500, `the long query ran ${longMs} ms`);
  assert.ok(answeredDuring >= 3, `${answeredDuring} quick queries answered while the long one ran`);
});

test('lambdas applied in a loop yield too; over the compute limit the query ends with the core error', async () => {
  let done = false;
  // A deadline far beyond what the compute limit allows, however loaded the machine.
  const long = client.query(fql`Set.sequence(0, 100000000).map(x => x + 1).count()`, { query_timeout_ms: 120_000 }).then(
    () => assert.fail('the query should have exceeded its compute'),
    (e: unknown) => e,
  );
  void long.finally(() => (done = true));
  let answeredDuring = 0;
  while (!done) {
    await quick();
    if (!done) answeredDuring++;
  }
  const e = await long;
  assert.ok(e instanceof ServiceError, String(e));
  assert.equal(e.code, 'invalid_request');
  assert.equal(e.message, 'Transaction does too much compute: got 12001, limit: 12000');
  assert.ok(answeredDuring >= 1, 'another client was answered while the loop ran');
});

test('a pattern that backtracks catastrophically in JavaScript answers at once', async () => {
  const s = 'a'.repeat(64) + '!';
  const started = performance.now();
  const res = await client.query(fql`[${s}.includesRegex("^(a+)+$"), ${s}.matches("(a|aa)+$"), ${s}.replaceAllRegex("(a*)*b", "x")]`);
  assert.deepEqual(res.data, [false, [], s]);
  // Backtracking would take longer than the universe has left; a linear engine, a moment.
  assert.ok(performance.now() - started < 30_000);
  await quick();
});

test('values a query builds are charged to its memory: a query that would grow the heap by gigabytes is refused, and the server goes on', async () => {
  // A 1.3 MB string, then 3,000 flat copies of it (toLowerCase makes each one): 4 GB unchecked.
  const big = fql`let s = ${'a'.repeat(136)}
    let t = [s, s, s, s, s, s, s, s, s, s].fold("", (a, b) => a + b)
    let u = [t, t, t, t, t, t, t, t, t, t].fold("", (a, b) => a + b)
    let v = [u, u, u, u, u, u, u, u, u, u].fold("", (a, b) => a + b)
    let w = [v, v, v, v, v, v, v, v, v, v].fold("", (a, b) => a + b)
    Set.sequence(0, 3000).map(x => (w + x.toString()).toLowerCase()).toArray().length`;
  const e = await client.query(big, { query_timeout_ms: 120_000 }).then(
    () => assert.fail('the query should have run out of memory'),
    (err: unknown) => err,
  );
  assert.ok(e instanceof ServiceError, String(e));
  assert.equal(e.code, 'invalid_request');
  assert.match(e.message, /^Query uses too much memory: got \d+ bytes, limit \d+ bytes$/);
  await quick(); // the server goes on
});
