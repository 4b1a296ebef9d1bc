// One request must never freeze, crash or bloat the server. Each case is an input that once did one
// of those; each asserts the answer it gets now and, where the input is heavy, that the server kept
// answering other requests (GET /ping) while it worked. How long the loop may be held, and memory
// under load, are measured by the torture suite (npm run torture), not here.

import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { httpRequest, serverForFile, type FloraProcess, type RawResponse } from '../helpers/server';

const ROOT = 'secret';

function post(srv: FloraProcess, body: string | Buffer, opts: { secret?: string | null; path?: string; http2?: boolean; headers?: Record<string, string> } = {}): Promise<RawResponse> {
  const headers: Record<string, string> = { 'x-faunadb-api-version': '4', ...opts.headers };
  const secret = opts.secret === undefined ? ROOT : opts.secret;
  if (secret !== null) headers.authorization = `Bearer ${secret}`;
  return httpRequest(srv.url, { method: 'POST', path: opts.path ?? '/', headers, body, http2: opts.http2 });
}

function errorOf(res: RawResponse): { code: string; description: string } {
  return (JSON.parse(res.body) as { errors: { code: string; description: string }[] }).errors[0];
}

/**
 * Runs `heavy` and pings the server one ping after another until it answers; resolves with its
 * response and the number of pings answered meanwhile. A server that held its event loop for the
 * whole of `heavy` would answer at most the ping already in flight.
 */
async function whilePinging(srv: FloraProcess, heavy: Promise<RawResponse>): Promise<{ res: RawResponse; pings: number }> {
  let done = false;
  let pings = 0;
  const pinger = (async () => {
    while (!done) {
      const p = await httpRequest(srv.url, { path: '/ping' });
      assert.equal(p.status, 200);
      if (!done) pings++;
    }
  })();
  const res = await heavy.finally(() => (done = true));
  await pinger;
  return { res, pings };
}

const flat = (n: number) => '{"add":[' + Array(n).fill('1').join(',') + ']}';

describe('hostile input, default limits', () => {
  const server = serverForFile();

  test('a 4 MB body without a secret, or with a wrong one, is refused before it is parsed', async () => {
    const body = flat(2_000_001);
    for (const secret of [null, 'wrong-secret', 'fnAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA']) {
      for (const http2 of [false, true]) {
        const res = await post(server.flora, body, { secret, http2 });
        assert.equal(res.status, 401, `${secret} ${http2}`);
        assert.deepEqual(errorOf(res), { code: 'unauthorized', description: 'Unauthorized' });
      }
    }
  });

  test('a body over the size limit with a wrong secret is a 401, not a 413: nothing is read first', async () => {
    const res = await post(server.flora, Buffer.alloc(9 * 1024 * 1024, 0x20), { secret: 'wrong' });
    assert.equal(res.status, 401);
    const ok = await post(server.flora, Buffer.alloc(9 * 1024 * 1024, 0x20));
    assert.equal(ok.status, 413);
    assert.deepEqual(errorOf(ok), { code: 'request too large', description: 'Request entity is too large' });
  });

  test('the same 4 MB body with the root secret is answered, and /ping answers meanwhile', async () => {
    const { res, pings } = await whilePinging(server.flora, post(server.flora, flat(2_000_001)));
    assert.equal(res.status, 200, res.body);
    assert.equal(res.body, '{"resource":2000001}');
    assert.ok(pings >= 2, `pings answered meanwhile: ${pings}`);
  });

  test('a large result is rendered a slice at a time, and /ping answers meanwhile', async () => {
    // 600,000 strings: a 6 MB body and a 6 MB answer.
    const items = Array.from({ length: 600_000 }, (_, i) => `s${i % 1000}`.padEnd(7, 'x'));
    const { res, pings } = await whilePinging(server.flora, post(server.flora, JSON.stringify({ to_array: items })));
    assert.equal(res.status, 200, res.body.slice(0, 200));
    assert.ok(res.body === JSON.stringify({ resource: items }), `${res.body.length} characters: ${res.body.slice(0, 100)}`);
    assert.ok(pings >= 2, `pings answered meanwhile: ${pings}`);
  });

  test('a large GraphQL request body is parsed a slice at a time and answered', async () => {
    const imported = await post(server.flora, 'type Widget { name: String }', { path: '/import' });
    assert.equal(imported.status, 200, imported.body);
    // 200,000 unused variable values: a body of ~1.3 MB, parsed in many steps.
    const body = JSON.stringify({ query: '{ __typename }', variables: { pad: Array.from({ length: 200_000 }, (_, i) => i) } });
    const res = await post(server.flora, body, { path: '/graphql', headers: { 'content-type': 'application/json' } });
    assert.equal(res.status, 200, res.body.slice(0, 200));
    assert.deepEqual(JSON.parse(res.body), { data: { __typename: 'Query' } });
  });

  test('a query that computes for a long time shares the event loop', async () => {
    // 300,000 lambda applications: well within the compute limit, several hundred ms of work.
    const body = JSON.stringify({
      reduce: { lambda: ['a', 'x'], expr: { add: [{ var: 'a' }, { var: 'x' }] } },
      initial: 0,
      collection: Array.from({ length: 290_000 }, () => 1),
    });
    const { res, pings } = await whilePinging(server.flora, post(server.flora, body));
    assert.equal(res.status, 200, res.body);
    assert.equal(res.body, '{"resource":290000}');
    assert.ok(pings >= 3, `pings answered meanwhile: ${pings}`);
  });

  test("Fauna's compute limit: 12,000 ops of 50 calls", async () => {
    const body = JSON.stringify({
      reduce: { lambda: ['a', 'x'], expr: { add: [{ var: 'a' }, { var: 'x' }] } },
      initial: 0,
      collection: Array.from({ length: 400_000 }, () => 1),
    });
    const res = await post(server.flora, body);
    assert.equal(res.status, 400, res.body);
    const e = errorOf(res);
    assert.equal(e.code, 'bad request');
    assert.match(e.description, /^Transaction does too much compute: got 12001, limit: 12000$/);
    // A fold is charged per element, as in Fauna: Sum over 700,000 elements is over the limit too.
    const sum = await post(server.flora, JSON.stringify({ sum: Array.from({ length: 700_000 }, () => 1) }));
    assert.equal(sum.status, 400);
    assert.match(errorOf(sum).description, /^Transaction does too much compute: got 14001, limit: 12000$/);
  });

  test('an array doubled in a Reduce stops at the value size limit instead of killing the process', async () => {
    const body = JSON.stringify({
      reduce: { lambda: ['a', 'x'], expr: { append: { var: 'a' }, collection: { var: 'a' } } },
      initial: [1, 2, 3, 4],
      collection: Array.from({ length: 26 }, (_, i) => i),
    });
    const res = await post(server.flora, body);
    assert.equal(res.status, 400, res.body);
    assert.deepEqual(errorOf(res), {
      code: 'bad request',
      // 4·2^21 ones, as JSON.
      description: 'Value exceeds the size limit: got 75497474 bytes, limit 67108864 bytes',
    });
    assert.equal((await httpRequest(server.flora.url, { path: '/ping' })).status, 200);
  });

  test('a value whose parts are shared is measured as its JSON would be: [a, a] doubled stops at the limit', async () => {
    // Forty small arrays in memory, but 2^40 elements to render, store, compare or hash.
    for (const expr of [[{ var: 'a' }, { var: 'a' }], { object: { l: { var: 'a' }, r: { var: 'a' } } }]) {
      const body = JSON.stringify({ reduce: { lambda: ['a', 'x'], expr }, initial: 'leaf', collection: Array.from({ length: 40 }, (_, i) => i) });
      const res = await post(server.flora, body);
      assert.equal(res.status, 400, res.body.slice(0, 200));
      assert.match(errorOf(res).description, /^Value exceeds the size limit: got \d+ bytes, limit 67108864 bytes$/);
    }
    // The same doubling stored, compared and hashed stays within it.
    const ok = JSON.stringify({
      let: [{ v: { reduce: { lambda: ['a', 'x'], expr: [{ var: 'a' }, { var: 'a' }] }, initial: 1, collection: [1, 2, 3, 4, 5, 6, 7, 8, 9, 10] } }],
      in: [{ equals: [{ var: 'v' }, { var: 'v' }] }, { count: { distinct: [{ var: 'v' }, { var: 'v' }] } }],
    });
    assert.equal((await post(server.flora, ok)).body, '{"resource":[true,1]}');
  });

  test('Distinct and Union of many arrays or objects of one shape take linear time', async () => {
    // 100,000 two-element arrays (and objects with two fields): one bucket each, not one for all.
    const body = JSON.stringify({
      let: { xs: { map: { lambda: 'i', expr: [{ var: 'i' }, { modulo: [{ var: 'i' }, 7] }] }, collection: Array.from({ length: 100_000 }, (_, i) => i) } },
      in: [{ count: { distinct: { var: 'xs' } } }, { count: { union: [{ var: 'xs' }, { var: 'xs' }] } }],
    });
    const res = await post(server.flora, body);
    assert.equal(res.body, '{"resource":[100000,100000]}');
  });

  test('a value nested deeper than a request may be is refused when it is built', async () => {
    const body = JSON.stringify({ reduce: { lambda: ['a', 'x'], expr: [{ var: 'a' }] }, initial: 1, collection: Array.from({ length: 1500 }, (_, i) => i) });
    const res = await post(server.flora, body);
    assert.equal(res.status, 400, res.body.slice(0, 200));
    assert.deepEqual(errorOf(res), { code: 'bad request', description: 'Value nesting exceeds the limit: got 1001 levels, limit 1000' });
  });

  test('an object whose fields double each round stops at a limit', async () => {
    // Merge(a, {k + round: 1 for each field k of a}): twice the fields every round.
    const body = JSON.stringify({
      reduce: {
        lambda: ['a', 'x'],
        expr: {
          merge: { var: 'a' },
          with: {
            to_object: {
              map: { lambda: 'p', expr: [{ concat: [{ select: [0], from: { var: 'p' } }, { to_string: { var: 'x' } }] }, 1] },
              collection: { to_array: { var: 'a' } },
            },
          },
        },
      },
      initial: { object: { a: 1, b: 2 } },
      collection: Array.from({ length: 40 }, (_, i) => i),
    });
    const res = await post(server.flora, body);
    assert.equal(res.status, 400, res.body.slice(0, 200));
    const e = errorOf(res);
    assert.equal(e.code, 'bad request');
    assert.match(e.description, /^(Value exceeds the size limit|Query uses too much memory|Transaction does too much compute)/);
  });

  test('a document version over 8 MiB, and a transaction writing over 16 MiB, are refused (fql-v4.md §9)', async () => {
    const create = await post(server.flora, JSON.stringify({ create_collection: { object: { name: 'blobs' } } }));
    assert.equal(create.status, 201, create.body);
    // A 1 MiB string sent, a 3 MiB one built from it, three of those in one document: 9 MiB.
    const seed = 'x'.repeat(1024 * 1024);
    const big = { concat: [{ var: 's' }, { var: 's' }, { var: 's' }] };
    const doc = JSON.stringify({
      let: [{ s: seed }, { b: big }],
      in: { create: { collection: 'blobs' }, params: { object: { data: { object: { a: { var: 'b' }, b: { var: 'b' }, c: { var: 'b' } } } } } },
    });
    const res = await post(server.flora, doc);
    assert.equal(res.status, 400, res.body.slice(0, 300));
    assert.equal(errorOf(res).code, 'bad request');
    assert.match(errorOf(res).description, /^Version bytes \(\d+\) exceeds threshold \(8388608\)$/);
    // Six documents of 3 MiB: each fits, together they do not.
    const many = JSON.stringify({
      foreach: { lambda: 'i', expr: { create: { collection: 'blobs' }, params: { object: { data: { object: { a: { var: 's' } } } } } } },
      collection: [1, 2, 3, 4, 5, 6],
    });
    const txn = await post(server.flora, JSON.stringify({ let: [{ seed }, { s: { concat: [{ var: 'seed' }, { var: 'seed' }, { var: 'seed' }] } }], in: JSON.parse(many) }));
    assert.equal(txn.status, 400, txn.body.slice(0, 300));
    assert.match(errorOf(txn).description, /^Transaction exceeded limit: got \d+ bytes, limit 16777216 bytes$/);
    const count = await post(server.flora, JSON.stringify({ count: { documents: { collection: 'blobs' } } }));
    assert.equal(count.body, '{"resource":0}');
  });
});

describe('authentication comes before the body on every route', () => {
  const server = serverForFile();

  const broken = '{'.repeat(100_000);

  test('POST /stream', async () => {
    const res = await post(server.flora, broken, { secret: 'wrong', path: '/stream' });
    assert.equal(res.status, 401);
    assert.deepEqual(errorOf(res), { code: 'unauthorized', description: 'Unauthorized' });
  });

  test('POST /graphql: a wrong secret is a GraphQL error before the query is read', async () => {
    const res = await post(server.flora, broken, { secret: 'wrong', path: '/graphql', headers: { 'content-type': 'application/json' } });
    assert.equal(res.status, 200);
    assert.deepEqual(JSON.parse(res.body), { errors: [{ message: 'Invalid database secret.' }] });
    const none = await post(server.flora, broken, { secret: null, path: '/graphql' });
    assert.equal(none.status, 401);
    assert.deepEqual(JSON.parse(none.body), { errors: [{ message: 'Missing authorization header.' }] });
  });

  test('POST /import: a broken schema with a wrong secret is a 401, not its parse errors', async () => {
    const res = await post(server.flora, 'type { nope', { secret: 'wrong', path: '/import' });
    assert.equal(res.status, 401);
    assert.equal(res.body, 'Invalid database secret.');
    const malformed = await httpRequest(server.flora.url, { method: 'POST', path: '/import', headers: { authorization: 'Nonsense' }, body: 'type { nope' });
    assert.equal(malformed.status, 401);
    assert.equal(malformed.body, 'Invalid authorization header.');
    // With the root secret the same schema gets its parse error.
    const ok = await post(server.flora, 'type { nope', { path: '/import' });
    assert.equal(ok.status, 400);
  });

  test('POST /api/v1/logs: a body over its limit with a wrong secret is a 401, not a 413', async () => {
    const big = Buffer.alloc(200 * 1024, 0x20);
    const res = await post(server.flora, big, { secret: 'wrong', path: '/api/v1/logs?type=query' });
    assert.equal(res.status, 401);
    assert.deepEqual(JSON.parse(res.body), { message: 'Unauthorized: the secret is invalid.' });
    const root = await post(server.flora, big, { path: '/api/v1/logs?type=query' });
    assert.equal(root.status, 413);
  });
});

describe('limits set by configuration', () => {
  const server = serverForFile({
      env: { FLORA_MAX_VALUE_MB: '1', FLORA_MAX_RESPONSE_MB: '1', FLORA_QUERY_MEMORY_MB: '4', FLORA_COMPUTE_OPS_LIMIT: '100' },
    });

  test('compute limit', async () => {
    const res = await post(server.flora, JSON.stringify({ sum: Array.from({ length: 6_000 }, () => 1) }));
    assert.equal(res.status, 400);
    assert.equal(errorOf(res).description, 'Transaction does too much compute: got 121, limit: 100');
    assert.equal((await post(server.flora, JSON.stringify({ sum: [1, 2] }))).body, '{"resource":3}');
  });

  /** An array of 100·2^n elements, doubled by the query itself. */
  const doubled = (n: number) => ({
    reduce: { lambda: ['a', 'x'], expr: { append: { var: 'a' }, collection: { var: 'a' } } },
    initial: Array.from({ length: 100 }, () => 1),
    collection: Array.from({ length: n }, (_, i) => i),
  });

  test('value size limit', async () => {
    // 100·2^11 elements of 8 bytes: over 1 MiB.
    const res = await post(server.flora, JSON.stringify(doubled(11)));
    assert.equal(res.status, 400);
    assert.equal(errorOf(res).description, 'Value exceeds the size limit: got 1638400 bytes, limit 1048576 bytes');
    assert.equal((await post(server.flora, JSON.stringify({ is_nonempty: doubled(10) }))).body, '{"resource":true}');
  });

  test('response size limit', async () => {
    // A 600,000-character string fits the value limit; five copies of it do not fit one response.
    const s = 'y'.repeat(600_000);
    const res = await post(server.flora, JSON.stringify([s, s]));
    assert.equal(res.status, 400, res.body.slice(0, 200));
    assert.match(errorOf(res).description, /^Response exceeds the size limit: got \d+ bytes or more, limit 1048576 bytes$/);
  });

  test('response size limit, for a wide result rendered a slice at a time', async () => {
    // 300 strings of 4,000 characters: sent as a constant (no value is built), 1.2 MB to answer.
    const items = Array.from({ length: 300 }, (_, i) => String(i).padEnd(4000, 'z'));
    const res = await post(server.flora, JSON.stringify({ to_array: items }));
    assert.equal(res.status, 400, res.body.slice(0, 200));
    assert.match(errorOf(res).description, /^Response exceeds the size limit: got \d+ bytes or more, limit 1048576 bytes$/);
  });

  test('a fold over a set keeps none of what it reads: Count(Documents) of 8 MB of documents fits 4 MB of query memory', async () => {
    // Each read is charged to the query's memory (4× its bytes); a fold gives that back after each
    // element, so it ends at the compute limit Fauna documents, not at the memory limit (issue 17).
    assert.equal((await post(server.flora, JSON.stringify({ create_collection: { object: { name: 'fat' } } }))).status, 201);
    const filler = 'x'.repeat(1000);
    for (let batch = 0; batch < 20; batch++) {
      const creates = Array.from({ length: 100 }, () => ({ create: { collection: 'fat' }, params: { object: { data: { object: { s: filler } } } } }));
      const res = await post(server.flora, JSON.stringify({ do: creates }));
      assert.equal(res.status, 201, res.body.slice(0, 200));
    }
    const docs = { documents: { collection: 'fat' } };
    assert.equal((await post(server.flora, JSON.stringify({ count: docs }))).body, '{"resource":2000}');
    assert.equal((await post(server.flora, JSON.stringify({ contains_value: 'nope', in: docs }))).body, '{"resource":false}');
    // A query that keeps what it reads still meets the limit.
    const kept = await post(server.flora, JSON.stringify({ map: { lambda: 'r', expr: { get: { var: 'r' } } }, collection: { paginate: docs, size: 2000 } }));
    assert.equal(kept.status, 400, kept.body.slice(0, 200));
    assert.match(errorOf(kept).description, /^Query uses too much memory/);
  });

  test('query memory limit: a large body, or values built one after another', async () => {
    const res = await post(server.flora, flat(500_000));
    assert.equal(res.status, 400);
    assert.match(errorOf(res).description, /^Query uses too much memory: got \d+ bytes, limit 4194304 bytes$/);
    // Each copy of a 100·2^10-element array fits the value limit; ten of them kept do not fit the query.
    const many = await post(
      server.flora,
      JSON.stringify({
        let: { big: doubled(10) },
        in: { map: { lambda: 'x', expr: { append: { var: 'big' }, collection: [] } }, collection: [1, 2, 3, 4, 5, 6, 7, 8, 9, 10] },
      }),
    );
    assert.equal(many.status, 400);
    assert.match(errorOf(many).description, /^Query uses too much memory/);
  });
});

describe('bodies are charged to the shared memory as they arrive', () => {
  const server = serverForFile({ env: { FLORA_MEMORY_MB: '1' } });

  test('a body larger than the memory left gets 429 on every route, each in its own shape', async () => {
    const big = Buffer.alloc(2 * 1024 * 1024, 0x20);
    const fql = await post(server.flora, big);
    assert.equal(fql.status, 429);
    assert.deepEqual(errorOf(fql), { code: 'too many requests', description: 'Too many pending requests' });
    const gql = await post(server.flora, big, { path: '/graphql', headers: { 'content-type': 'application/json' } });
    assert.equal(gql.status, 429);
    assert.deepEqual(JSON.parse(gql.body), { errors: [{ message: 'Too many pending requests.' }] });
    const sdl = await post(server.flora, big, { path: '/import' });
    assert.equal(sdl.status, 429);
    assert.equal(sdl.body, 'Too many pending requests.');
    await smallOnesPass(server.flora);
  });
});

describe('the memory all requests share', () => {
  const server = serverForFile({ env: { FLORA_MEMORY_MB: '8', FLORA_QUERY_MEMORY_MB: '64' } });

  test('a request that does not fit in what is left gets 429, and small ones still pass', async () => {
    const res = await post(server.flora, flat(400_000));
    assert.equal(res.status, 429, res.body.slice(0, 200));
    assert.deepEqual(errorOf(res), { code: 'too many requests', description: 'Too many pending requests' });
    await smallOnesPass(server.flora);
  });
});

/**
 * A small request passes once the refused ones are garbage: at once, or after the collection the
 * pool forces under pressure (at most one a second), so it is tried until then, for at most 5 s.
 */
async function smallOnesPass(flora: FloraProcess): Promise<void> {
  const deadline = Date.now() + 5000;
  for (;;) {
    const res = await post(flora, '{"add":[1,2]}');
    if (res.status !== 429 || Date.now() > deadline) return assert.equal(res.body, '{"resource":3}');
    await new Promise((r) => setTimeout(r, 50));
  }
}

describe("a fault of the server's own", () => {
  const server = serverForFile({ env: { FLORA_FAILPOINTS: 'query.evaluate,graphql.execute,graphql.import' } });

  test('answers 500 with a request id that the server log carries with the stack', async () => {
    for (const http2 of [false, true]) {
      const res = await post(server.flora, '{"add":[1,2]}', { http2 });
      assert.equal(res.status, 500);
      const id = res.headers['x-request-id'];
      assert.match(id, /^[0-9a-f]{16}$/);
      assert.deepEqual(errorOf(res), {
        code: 'internal server error',
        description: `Internal server error. The server's log has the details under request id ${id}.`,
      });
      assert.doesNotMatch(res.body, /fauna\.com|failpoint/);
      await until(() => server.flora.stderr().includes(`[request ${id}]`));
      const logged = server.flora.stderr().slice(server.flora.stderr().indexOf(`[request ${id}]`));
      assert.match(logged, /failpoint query\.evaluate\n\s+at /);
    }
  });

  test('on /import, as text', async () => {
    const res = await post(server.flora, 'type Thing { name: String }', { path: '/import' });
    assert.equal(res.status, 500);
    const id = res.headers['x-request-id'];
    assert.match(id, /^[0-9a-f]{16}$/);
    assert.match(res.headers['content-type'], /^text\/plain/);
    assert.equal(res.body, `Internal server error. The server's log has the details under request id ${id}.`);
    await until(() => server.flora.stderr().includes(`[request ${id}]`));
  });

  test('on /graphql too, in the GraphQL shape', async () => {
    const res = await post(server.flora, JSON.stringify({ query: '{ __typename }' }), { path: '/graphql', headers: { 'content-type': 'application/json' } });
    assert.equal(res.status, 500);
    const id = res.headers['x-request-id'];
    assert.match(res.headers['content-type'], /^application\/json/);
    assert.deepEqual(JSON.parse(res.body), { errors: [{ message: `Internal server error. The server's log has the details under request id ${id}.` }] });
    await until(() => server.flora.stderr().includes(`[request ${id}]`));
  });
});

/** Resolves once `cond` holds (checked every 10 ms). */
async function until(cond: () => boolean): Promise<void> {
  while (!cond()) await new Promise((r) => setTimeout(r, 10));
}
