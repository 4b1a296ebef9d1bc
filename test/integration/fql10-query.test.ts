// POST /query/1 through the official `fauna` driver (FQL v10), over its two transports (HTTP/2
// cleartext, its default in Node, and its fetch client: HTTP/1.1), and as plain HTTP: templates and
// arguments, every wire type round-tripping, the core's errors as the driver's error classes, stats,
// txn_ts, query tags and summaries, timeouts. Nothing here depends on which worker of a tier answers.

import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import {
  type QueryArgument,
  AbortError,
  AuthenticationError,
  Client,
  DateStub,
  FetchClient,
  fql,
  InvalidRequestError,
  QueryCheckError,
  QueryRuntimeError,
  QueryTimeoutError,
  TimeStub,
} from 'fauna';
import { httpRequest, startFlora, type FloraProcess, type RawResponse } from '../helpers/server';

let flora: FloraProcess;
const clients: { name: string; client: Client }[] = [];
const opened: Client[] = [];

function v10Client(secret: string, transport: 'h2' | 'h1', extra: Record<string, unknown> = {}): Client {
  const endpoint = new URL(flora.url);
  const config = { secret, endpoint, max_attempts: 1, ...extra };
  const c = transport === 'h2' ? new Client(config) : new Client(config, new FetchClient({ url: endpoint.toString(), http2_session_idle_ms: 500, http2_max_streams: 100, fetch_keepalive: false }));
  opened.push(c);
  return c;
}

before(async () => {
  flora = await startFlora();
  clients.push({ name: 'HTTP/2', client: v10Client(flora.secret, 'h2') }, { name: 'HTTP/1.1', client: v10Client(flora.secret, 'h1') });
});

after(async () => {
  for (const c of opened) c.close();
  await flora?.stop();
});

function post(body: unknown, headers: Record<string, string> = {}, http2 = false): Promise<RawResponse> {
  return httpRequest(flora.url, {
    method: 'POST',
    path: '/query/1',
    headers: { authorization: `Bearer ${flora.secret}`, 'content-type': 'application/json', ...headers },
    body: typeof body === 'string' ? body : JSON.stringify(body),
    http2,
  });
}

async function failure<E extends Error>(work: Promise<unknown>, cls: new (...a: never[]) => E): Promise<E> {
  try {
    await work;
  } catch (e) {
    assert.ok(e instanceof cls, `expected ${cls.name}, got ${String(e)}`);
    return e;
  }
  assert.fail(`expected ${cls.name}, the query succeeded`);
}

for (const transport of ['HTTP/2', 'HTTP/1.1']) {
  describe(`the fauna driver over ${transport}`, () => {
    const client = () => clients.find((c) => c.name === transport)!.client;

    test('fql templates with values', async () => {
      const x = 1;
      assert.equal((await client().query(fql`${x} + 1`)).data, 2);
      const inner = fql`${'b'}.concat(${'c'})`;
      assert.equal((await client().query(fql`${'a'} + ${inner}`)).data, 'abc');
      assert.deepEqual((await client().query(fql`[${1}, ${[2, 3]}, { k: ${{ v: 4 }} }]`)).data, [1, [2, 3], { k: { v: 4 } }]);
    });

    test('every wire type round-trips', async () => {
      const values: QueryArgument[] = [
        0,
        -2147483648,
        2147483647,
        2 ** 40,
        -(2 ** 53 - 1),
        1.5,
        -0.25,
        'text with "quotes" and ünïcödé 😍',
        true,
        false,
        null,
        TimeStub.from('2023-03-09T12:34:56.789012345Z'),
        DateStub.from('2020-02-29'),
        new Uint8Array([0, 1, 2, 250, 255]),
        // '@' keys travel in @object (not tag names: the driver's decoder reads those inside @object too).
        { '@weird': 'not a tag', '@n': 1, plain: [1, 'two', { '@x': null }] },
        [[[]], {}, [{ a: [1.5] }]],
      ];
      for (const v of values) {
        const res = await client().query(fql`${v}`);
        assert.deepEqual(res.data, v, `round trip of ${JSON.stringify(v)}`);
      }
      const long = await client().query<bigint>(fql`${2n ** 62n} + 1`, { long_type: 'bigint' });
      assert.equal(long.data, 2n ** 62n + 1n);
    });

    test('tagged and simple formats', async () => {
      const tagged = await client().query(fql`{ int: 1, double: 1.0, time: Time("2020-01-01T00:00:00Z") }`);
      assert.deepEqual(tagged.data, { int: 1, double: 1, time: TimeStub.from('2020-01-01T00:00:00Z') });
      const simple = await client().query(fql`{ int: 1, double: 1.5, time: Time("2020-01-01T00:00:00Z"), date: Date("2020-01-01") }`, { format: 'simple' });
      assert.deepEqual(simple.data, { int: 1, double: 1.5, time: '2020-01-01T00:00:00Z', date: '2020-01-01' });
      const args = await client().query(fql`x + y`, { arguments: { x: 1, y: 2 } });
      assert.equal(args.data, 3);
    });

    test('abort() is the driver AbortError with its value', async () => {
      const e = await failure(client().query(fql`abort({ reason: "no", at: ${[1, 2]} })`), AbortError);
      assert.equal(e.code, 'abort');
      assert.equal(e.httpStatus, 400);
      assert.deepEqual(e.abort, { reason: 'no', at: [1, 2] });
      assert.equal(e.message, 'Query aborted.');
    });

    test('a parse error is a QueryCheckError with the summary', async () => {
      const e = await failure(client().query(fql`{ x `), QueryCheckError);
      assert.equal(e.code, 'invalid_query');
      assert.equal(e.httpStatus, 400);
      assert.equal(e.message, 'The query failed 1 validation check');
      assert.match(e.queryInfo?.summary ?? '', /^error: .*\nat \*query\*:1:\d+\n {2}\|\n1 \| \{ x\n/);
    });

    test('a bad template value is an invalid_query at its placeholder', async () => {
      const res = await post({ query: { fql: ['1 + ', { value: 2 }] } });
      assert.equal(res.status, 400);
      const body = JSON.parse(res.body);
      assert.equal(body.error.code, 'invalid_query');
      assert.match(body.summary, /^error: numbers must be tagged\nat \*query\*:1:5\n/);
    });

    test('runtime errors are QueryRuntimeErrors with the core messages and carets (FQL2BasicSpec)', async () => {
      const unbound = await failure(client().query(fql`{ x }`), QueryRuntimeError);
      assert.equal(unbound.code, 'unbound_variable');
      assert.equal(unbound.message, 'Unbound variable `x`');
      assert.equal(unbound.queryInfo?.summary, 'error: Unbound variable `x`\nat *query*:1:3\n  |\n1 | { x }\n  |   ^\n  |');
      const q = '{\n  let x = (y) => {\n    if (y) {\n      "z"\n    } else {\n      "?"\n    }\n  }\n  x(3)\n}';
      const mismatch = await failure(client().query(fql([q])), QueryRuntimeError);
      assert.equal(mismatch.code, 'type_mismatch');
      assert.equal(mismatch.message, 'expected type: Boolean, received Int');
      assert.equal(
        mismatch.queryInfo?.summary,
        'error: expected type: Boolean, received Int\nat *query*:3:9\n  |\n3 |     if (y) {\n  |         ^\n  |\nat *query*:9:4\n  |\n9 |   x(3)\n  |    ^^^\n  |',
      );
    });

    test('stats, txn_ts, query tags and the summary (logs after errors)', async () => {
      const res = await client().query(fql`log("hello", 1 + 1); [1, 2].map(x => x * 2)`, { query_tags: { app: 'tests', run: 'one' } });
      assert.deepEqual(res.data, [2, 4]);
      assert.deepEqual(res.query_tags, { app: 'tests', run: 'one' });
      assert.equal(res.summary, 'info at *query*:1: hello 2');
      assert.ok(typeof res.txn_ts === 'number' && res.txn_ts > 1_600_000_000_000_000);
      const s = res.stats!;
      assert.equal(s.compute_ops, 1);
      assert.equal(s.read_ops, 0);
      assert.equal(s.write_ops, 0);
      assert.equal(s.contention_retries, 0);
      assert.ok(s.query_time_ms >= 0);
      assert.equal(typeof res.schema_version, 'number');
      const failed = await failure(client().query(fql`log("first"); abort(0)`), AbortError);
      assert.equal(failed.queryInfo?.summary, 'error: Query aborted.\nat *query*:1:20\n  |\n1 | log("first"); abort(0)\n  |                    ^^^\n  |\n\ninfo at *query*:1: first');
    });

    test('compute ops are the units spent over 50, as the core bills them', async () => {
      // Each element: one lambda application and one `*` call; 10,000 elements = 20,000 units = 400 ops.
      const res = await client().query(fql`Set.sequence(0, 10000).map(x => x * 2).count()`);
      assert.equal(res.data, 10000);
      assert.ok(res.stats!.compute_ops >= 400 && res.stats!.compute_ops < 700, String(res.stats!.compute_ops));
    });

    test('the driver keeps the latest txn_ts and sends it back', async () => {
      const c = v10Client(flora.secret, transport === 'HTTP/2' ? 'h2' : 'h1');
      assert.equal(c.lastTxnTs, undefined);
      const first = await c.query(fql`1`);
      assert.equal(c.lastTxnTs, first.txn_ts);
      const second = await c.query(fql`2`);
      assert.ok(second.txn_ts! >= first.txn_ts!);
      assert.equal(c.lastTxnTs, second.txn_ts);
    });

    test('a wrong secret is the driver AuthenticationError', async () => {
      const bad = v10Client('not-a-secret', transport === 'HTTP/2' ? 'h2' : 'h1');
      const e = await failure(bad.query(fql`1`), AuthenticationError);
      assert.equal(e.code, 'unauthorized');
      assert.equal(e.httpStatus, 401);
      assert.equal(e.message, 'Access token required');
      assert.equal(e.queryInfo?.summary, undefined);
    });

    test('a query past its timeout is a QueryTimeoutError, never a hang', async () => {
      const started = Date.now();
      const e = await failure(client().query(fql`Set.sequence(0, 2000000000).drop(1999999999).first()`, { query_timeout_ms: 300 }), QueryTimeoutError);
      assert.equal(e.code, 'time_out');
      // The core's two answers: 440 for a query that ran less than a second, else 503 (a loaded machine).
      if (e.httpStatus === 440) assert.match(e.message, /^Client set aggressive deadline: query needs 1000, timed out within \d+$/);
      else assert.deepEqual([e.httpStatus, e.message], [503, 'Read timed out']);
      assert.ok(Date.now() - started < 5000);
    });

    test('over the compute limit: the core invalid_request', async () => {
      const e = await failure(client().query(fql`Set.sequence(0, 100000000).map(x => x + 1).count()`, { query_timeout_ms: 120_000 }), InvalidRequestError);
      assert.equal(e.code, 'invalid_request');
      assert.equal(e.message, 'Transaction does too much compute: got 12001, limit: 12000');
    });
  });
}

describe('plain HTTP', () => {
  test('any method reaches the endpoint; a request without a body is the core invalid_request', async () => {
    for (const method of ['GET', 'POST', 'PUT']) {
      const res = await httpRequest(flora.url, { method, path: '/query/1', headers: { authorization: `Bearer ${flora.secret}` } });
      assert.equal(res.status, 400, method);
      assert.deepEqual(JSON.parse(res.body), { error: { code: 'invalid_request', message: 'No request body provided' } });
    }
  });

  test('the secret is checked before the body: a bad secret with a bad body is 401', async () => {
    const res = await httpRequest(flora.url, { method: 'POST', path: '/query/1', headers: { authorization: 'Bearer nope' }, body: '{not json' });
    assert.equal(res.status, 401);
    assert.equal(res.headers['www-authenticate'], 'Bearer');
    assert.deepEqual(JSON.parse(res.body), { error: { code: 'unauthorized', message: 'Access token required' } });
    const none = await httpRequest(flora.url, { method: 'POST', path: '/query/1', body: '{"query":"1"}' });
    assert.equal(none.status, 401);
  });

  test('bad bodies and headers (FQL2BasicSpec, RequestParams)', async () => {
    const unknownField = await post({ foo: 'bar' });
    assert.equal(unknownField.status, 400);
    assert.deepEqual(JSON.parse(unknownField.body), { error: { code: 'invalid_request', message: 'Invalid request body' } });
    const timeout = await post({ query: '1' }, { 'x-query-timeout-ms': '0' });
    assert.equal(timeout.status, 400);
    assert.equal(JSON.parse(timeout.body).error.message, "Invalid header 'x-query-timeout-ms': Must be greater than 0.");
    const arg = await post({ query: 'x', arguments: { x: { '@int': 'nope' } } }, { 'x-format': 'tagged' });
    assert.equal(arg.status, 400);
    assert.deepEqual(JSON.parse(arg.body).error, { code: 'invalid_request', message: "Invalid argument 'x': invalid integer" });
  });

  test('a body over the size limit is 413 in the v10 shape', async () => {
    const res = await post({ query: `'${'x'.repeat(9 * 1024 * 1024)}'` });
    assert.equal(res.status, 413);
    assert.deepEqual(JSON.parse(res.body), { error: { code: 'request_size_exceeded', message: 'Request entity is too large' } });
  });

  test('h2c and HTTP/1.1 answer the same body shape', async () => {
    for (const http2 of [false, true]) {
      const res = await post({ query: '[1, 2.5, "s"]' }, { 'x-query-tags': 'k=v' }, http2);
      assert.equal(res.status, 200);
      const body = JSON.parse(res.body);
      assert.deepEqual(Object.keys(body), ['data', 'summary', 'txn_ts', 'stats', 'query_tags', 'schema_version']);
      assert.deepEqual(body.data, [1, 2.5, 's']);
      assert.equal(body.query_tags, 'k=v');
      assert.deepEqual(Object.keys(body.stats), [
        'compute_ops', 'read_ops', 'write_ops', 'query_time_ms', 'contention_retries', 'storage_bytes_read', 'storage_bytes_write', 'rate_limits_hit',
      ]);
      assert.match(res.headers.traceparent, /^00-[0-9a-f]{32}-[0-9a-f]{16}-0[01]$/);
    }
  });

  test('x-last-txn-ts: a read sees at least that time', async () => {
    const first = JSON.parse((await post({ query: '1' })).body);
    const next = JSON.parse((await post({ query: '1' }, { 'x-last-txn-ts': String(first.txn_ts) })).body);
    assert.ok(next.txn_ts >= first.txn_ts);
    // A time from the future (never issued) does not move the clock.
    const future = await post({ query: '1' }, { 'x-last-txn-ts': String(BigInt(first.txn_ts) + 3_600_000_000n) });
    assert.equal(future.status, 200);
  });
});
