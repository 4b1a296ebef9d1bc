// The HTTP layer against a real Flora process: both protocols on one port, routes, protocol errors,
// request/response headers, limits, CORS and graceful shutdown (wire.md §1, fql-v4.md §1).

import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { once } from 'node:events';
import * as http from 'node:http';
import * as http2 from 'node:http2';
import * as net from 'node:net';
import { setTimeout as delay } from 'node:timers/promises';
import { Client, query as q, type RequestResult } from 'faunadb';
import { clients, httpRequest, startFlora, type DriverClients, type FloraProcess, type RawResponse } from '../helpers/server';

let srv: FloraProcess;
let drivers: DriverClients;

before(async () => {
  srv = await startFlora();
  drivers = clients(srv.url, srv.secret);
});
after(async () => {
  await drivers?.close();
  assert.equal(await srv?.stop(), 0, 'graceful exit code');
});

const PROTOCOLS = [
  { name: 'HTTP/1.1', http2: false },
  { name: 'HTTP/2', http2: true },
] as const;

const METRICS = [
  'x-compute-ops', 'x-byte-read-ops', 'x-byte-write-ops', 'x-query-time', 'x-query-bytes-in',
  'x-query-bytes-out', 'x-storage-bytes-read', 'x-storage-bytes-write', 'x-txn-retries',
];
const LIMIT = 8 * 1024 * 1024;
const TOO_LARGE = '{"errors":[{"code":"request too large","description":"Request entity is too large"}]}';
const JSON_TYPE = 'application/json;charset=utf-8';

const auth = () => ({ authorization: `Bearer ${srv.secret}` });
const query = (body: string, headers: Record<string, string> = {}, http2 = false) =>
  httpRequest(srv.url, { method: 'POST', path: '/', headers: { ...auth(), ...headers }, body, http2 });

function assertTxnTime(res: RawResponse): void {
  assert.match(res.headers['x-txn-time'] ?? '', /^\d+$/, 'x-txn-time is an integer');
}

function badHeader(res: RawResponse, description: string): void {
  assert.equal(res.status, 400);
  assert.equal(res.body, JSON.stringify({ errors: [{ code: 'bad request', description }] }));
}

describe('transport', () => {
  for (const { name, http2: h2 } of PROTOCOLS) {
    test(`/ping over ${name}: no auth, exact body, scope aliases`, async () => {
      const cases: [string, string][] = [
        ['/ping', 'write'], ['/ping?scope=write', 'write'], ['/ping?scope=global', 'write'],
        ['/ping?scope=read', 'read'], ['/ping?scope=local', 'read'], ['/ping?scope=all', 'all'],
        ['/ping?scope=node', 'node'], ['/ping?scope=whatever', 'node'], ['/ping?scope=node&timeout=5', 'node'],
      ];
      for (const [path, scope] of cases) {
        const res = await httpRequest(srv.url, { path, http2: h2 });
        assert.equal(res.status, 200, path);
        assert.equal(res.body, `{"resource":"Scope ${scope} is OK"}`, path);
        assert.equal(res.headers['content-type'], JSON_TYPE);
        assertTxnTime(res);
      }
    });

    test(`HEAD /ping over ${name}`, async () => {
      const res = await httpRequest(srv.url, { method: 'HEAD', path: '/ping', http2: h2 });
      assert.equal(res.status, 200);
      assert.equal(res.body, '');
    });
  }

  test('one port serves HTTP/1.1 and HTTP/2', async () => {
    const [a, b] = await Promise.all([
      new Promise<string>((resolve, reject) => {
        http.get(new URL('/ping', srv.url), { agent: false }, (res) => resolve(res.httpVersion)).on('error', reject);
      }),
      new Promise<number>((resolve, reject) => {
        const session = http2.connect(srv.url);
        session.on('error', reject);
        const s = session.request({ ':path': '/ping' });
        s.on('response', (h) => {
          resolve(Number(h[':status']));
          session.destroy();
        });
        s.end();
      }),
    ]);
    assert.equal(a, '1.1');
    assert.equal(b, 200);
  });

  test('the driver pings over HTTP/2 and HTTP/1.1', async () => {
    assert.equal(await drivers.h2.ping(), 'Scope write is OK');
    assert.equal(await drivers.h1.ping(), 'Scope write is OK');
    assert.equal(await drivers.h2.ping('node'), 'Scope node is OK');
    // Pinging needs no secret (the driver's "endpoint normalization" test).
    const anonymous = new Client({ endpoint: srv.url } as ConstructorParameters<typeof Client>[0]);
    try {
      assert.equal(await anonymous.ping('all'), 'Scope all is OK');
    } finally {
      await anonymous.close({ force: true });
    }
  });

  test('HTTP/1.1 keep-alive reuses the connection', async () => {
    const agent = new http.Agent({ keepAlive: true, maxSockets: 1 });
    try {
      const reused: boolean[] = [];
      for (let i = 0; i < 3; i++) {
        await new Promise<void>((resolve, reject) => {
          const req = http.get(new URL('/ping', srv.url), { agent }, (res) => {
            reused.push(req.reusedSocket);
            res.resume();
            res.on('end', resolve);
          });
          req.on('error', reject);
        });
      }
      assert.deepEqual(reused, [false, true, true]);
    } finally {
      agent.destroy();
    }
  });

  test('HTTP/2 serves many streams on one session', async () => {
    const session = http2.connect(srv.url);
    try {
      const statuses = await Promise.all(
        Array.from({ length: 20 }, () =>
          new Promise<number>((resolve, reject) => {
            const s = session.request({ ':path': '/ping' });
            s.on('response', (h) => resolve(Number(h[':status'])));
            s.on('error', reject);
            s.resume();
            s.end();
          }),
        ),
      );
      assert.deepEqual(new Set(statuses), new Set([200]));
    } finally {
      session.close();
    }
  });

  for (const { name, http2: h2 } of PROTOCOLS) {
    test(`a first packet split in two still selects ${name}`, async () => {
      const proxy = await splittingProxy(srv.port, 5);
      try {
        const res = await httpRequest(proxy.url, { path: '/ping?scope=read', http2: h2 });
        assert.equal(res.body, '{"resource":"Scope read is OK"}');
      } finally {
        await proxy.close();
      }
    });
  }

  test('connections that close early or send garbage do not hurt the server', async () => {
    // Closed before sending anything.
    const silent = net.connect(srv.port, '127.0.0.1');
    await once(silent, 'connect');
    silent.end();
    await once(silent, 'close');
    // Half an HTTP/2 preface, then gone.
    const partial = net.connect(srv.port, '127.0.0.1');
    await once(partial, 'connect');
    partial.end('PRI * HTTP/2');
    await once(partial, 'close');
    // Not HTTP at all: a JSON 400, then the connection is closed.
    const garbage = net.connect(srv.port, '127.0.0.1');
    await once(garbage, 'connect');
    garbage.write('\x00\x01\x02 nonsense\r\n\r\n');
    let answer = '';
    garbage.setEncoding('utf8');
    garbage.on('data', (c: string) => (answer += c));
    await once(garbage, 'close');
    assert.match(answer, /^HTTP\/1\.1 400 /);
    assert.ok(answer.endsWith('{"error":"bad request"}'), answer);
    // Still serving.
    assert.equal((await httpRequest(srv.url, { path: '/ping' })).status, 200);
  });

  for (const { name, http2: h2 } of PROTOCOLS) {
    test(`no compression over ${name}, even when asked for`, async () => {
      const res = await httpRequest(srv.url, { path: '/ping', headers: { 'accept-encoding': 'gzip, deflate, br' }, http2: h2 });
      assert.equal(res.headers['content-encoding'], undefined);
      assert.equal(res.body, '{"resource":"Scope write is OK"}');
    });
  }
});

describe('routes and protocol errors', () => {
  for (const { name, http2: h2 } of PROTOCOLS) {
    test(`unknown paths are 404 over ${name}`, async () => {
      for (const [method, path] of [['GET', '/nope'], ['POST', '/ping/x'], ['GET', '/pingx'], ['DELETE', '/a/b']]) {
        const res = await httpRequest(srv.url, { method, path, http2: h2, headers: auth() });
        assert.equal(res.status, 404, `${method} ${path}`);
        assert.equal(res.body, '{"errors":[{"code":"not found","description":"Not Found"}]}');
        assertTxnTime(res);
        assert.ok(METRICS.every((h) => h in res.headers), 'metrics headers on 404');
      }
    });

    test(`other methods on / are 405 with Allow over ${name}`, async () => {
      for (const method of ['PUT', 'DELETE', 'PATCH', 'OPTIONS']) {
        const res = await httpRequest(srv.url, { method, path: '/', http2: h2 });
        assert.equal(res.status, 405, method);
        assert.equal(res.headers.allow, 'GET, POST');
        assert.equal(res.body, '{"errors":[{"code":"method not allowed","description":"Allowed methods are GET, POST."}]}');
        assertTxnTime(res);
      }
    });

    test(`POST / without a secret is 401 without metrics headers over ${name}`, async () => {
      const res = await httpRequest(srv.url, { method: 'POST', path: '/', body: '{"add":[1,2]}', http2: h2 });
      assert.equal(res.status, 401);
      assert.equal(res.body, '{"errors":[{"code":"unauthorized","description":"Unauthorized"}]}');
      assert.equal(res.headers['www-authenticate'], 'Basic realm="Unauthorized"');
      assert.equal(res.headers['content-type'], JSON_TYPE);
      assertTxnTime(res);
      for (const h of METRICS) assert.equal(res.headers[h], undefined, h);
    });

    test(`malformed JSON is 400 invalid expression over ${name}`, async () => {
      const res = await query('{"add":[1,', {}, h2);
      assert.equal(res.status, 400);
      assert.deepEqual(JSON.parse(res.body), {
        errors: [{ position: [], code: 'invalid expression', description: 'Request body is not valid JSON.' }],
      });
      assertTxnTime(res);
    });

    test(`an empty body is 400 No query provided over ${name}`, async () => {
      for (const body of ['', '  \n']) {
        const res = await query(body, {}, h2);
        assert.equal(res.status, 400);
        assert.equal(res.body, '{"errors":[{"position":[],"code":"invalid expression","description":"No query provided."}]}');
      }
      // Credentials are checked before the body is looked at.
      const anonymous = await httpRequest(srv.url, { method: 'POST', path: '/', body: '', http2: h2 });
      assert.equal(anonymous.status, 401);
    });
  }

  test('GET / without q is 400 No query provided; GET /?q= runs a read', async () => {
    const none = await httpRequest(srv.url, { path: '/', headers: auth() });
    assert.equal(none.status, 400);
    assert.equal(none.body, '{"errors":[{"position":[],"code":"invalid expression","description":"No query provided."}]}');
    const sum = await httpRequest(srv.url, { path: `/?q=${encodeURIComponent('{"add":[1,2]}')}`, headers: auth() });
    assert.equal(sum.status, 200);
    assert.equal(sum.body, '{"resource":3}');
    const write = await httpRequest(srv.url, { path: `/?q=${encodeURIComponent('{"new_id":null}')}`, headers: auth() });
    assert.equal(write.status, 400);
    assert.equal(write.body, '{"errors":[{"position":[],"code":"invalid expression","description":"Call performs a write, which is not allowed in get requests."}]}');
  });

  test('a simple query works through the driver on both protocols, with metrics', async () => {
    assert.equal(await drivers.h2.query(q.Add(1, 2)), 3);
    assert.equal(await drivers.h1.query(q.Add(1, 2)), 3);
    const { value, metrics } = await drivers.h2.queryWithMetrics(q.Add(2, 3));
    assert.equal(value, 5);
    for (const key of ['x-compute-ops', 'x-byte-read-ops', 'x-byte-write-ops', 'x-query-time', 'x-txn-retries'] as const) {
      assert.equal(typeof metrics[key], 'number', key);
    }
  });

  test('error responses report reset metrics; Abort keeps what it read (fql-v4.md §1.5)', async () => {
    await drivers.h2.query(q.CreateCollection({ name: 'metrics_on_errors' }));
    await drivers.h2.query(q.Create(q.Ref(q.Collection('metrics_on_errors'), '1'), { data: { big: 'x'.repeat(20_000) } }));
    const read = q.Get(q.Ref(q.Collection('metrics_on_errors'), '1'));
    const metricsOf = async (expr: unknown) => {
      const res = await httpRequest(srv.url, { method: 'POST', headers: auth(), body: JSON.stringify(expr) });
      assert.ok(res.status >= 400, res.body);
      const n = (h: string) => Number(res.headers[h]);
      return { compute: n('x-compute-ops'), read: n('x-byte-read-ops'), write: n('x-byte-write-ops'), bytesRead: n('x-storage-bytes-read') };
    };
    const wire = (e: unknown) => JSON.parse(JSON.stringify(e)) as unknown;
    // Reads and writes, then a failure: nothing is reported.
    const failed = await metricsOf(wire(q.Do(read, q.Create(q.Collection('metrics_on_errors'), { data: {} }), q.Divide(1, 0))));
    assert.deepEqual(failed, { compute: 1, read: 0, write: 0, bytesRead: 0 });
    // Abort after the same reads keeps the read metrics (and no writes).
    const aborted = await metricsOf(wire(q.Do(read, q.Create(q.Collection('metrics_on_errors'), { data: {} }), q.Abort('stop'))));
    assert.ok(aborted.read >= 5 && aborted.bytesRead > 20_000, JSON.stringify(aborted));
    assert.equal(aborted.write, 0);
  });

  for (const { name, http2: h2 } of PROTOCOLS) {
    test(`a Content-Length over 8 MiB is refused at once over ${name}`, async () => {
      const res = await declaredTooLarge(h2);
      assert.equal(res.status, 413);
      assert.equal(res.body, TOO_LARGE);
      assertTxnTime(res);
    });

    test(`a streamed body over 8 MiB is refused over ${name}`, async () => {
      const res = await streamedTooLarge(h2);
      assert.equal(res.status, 413);
      assert.equal(res.body, TOO_LARGE);
    });
  }

  test('a body of exactly 8 MiB is read (and then judged by the evaluator)', async () => {
    // A JSON string literal padded to the limit: within it, so not a 413.
    const pad = LIMIT - 2;
    const res = await query(`"${'x'.repeat(pad)}"`);
    assert.notEqual(res.status, 413);
    assert.equal(res.headers['x-query-bytes-in'], String(LIMIT));
  });
});

describe('request and response headers', () => {
  test('x-txn-time, build and content type on every response', async () => {
    const responses = await Promise.all([
      httpRequest(srv.url, { path: '/ping' }),
      httpRequest(srv.url, { path: '/nope', http2: true }),
      httpRequest(srv.url, { method: 'PUT', path: '/' }),
      query('{"add":[1,2]}'),
      query('{"add":[1,2]}', { 'x-query-timeout': 'soon' }),
      httpRequest(srv.url, { method: 'POST', path: '/', body: '{}' }),
    ]);
    for (const res of responses) {
      assertTxnTime(res);
      assert.ok(res.headers['x-faunadb-build'], 'x-faunadb-build');
      assert.equal(res.headers['content-type'], JSON_TYPE);
    }
  });

  test('metrics headers on a successful query', async () => {
    const body = '{"add":[1,2]}';
    for (const h2 of [false, true]) {
      const res = await query(body, {}, h2);
      assert.equal(res.status, 200);
      for (const h of METRICS) assert.match(res.headers[h] ?? '', /^\d+$/, h);
      assert.equal(res.headers['x-query-bytes-in'], String(Buffer.byteLength(body)));
      assert.equal(res.headers['x-query-bytes-out'], String(Buffer.byteLength(res.body)));
    }
  });

  test('invalid headers are 400 bad request with Fauna texts', async () => {
    const cases: [Record<string, string>, string][] = [
      [{ 'x-faunadb-api-version': '3.5' }, "Invalid header 'x-faunadb-api-version': Unsupported or invalid API version '3.5'."],
      [{ 'x-faunadb-api-version': 'unstable' }, "Invalid header 'x-faunadb-api-version': Unsupported or invalid API version 'unstable'."],
      [{ 'x-last-seen-txn': 'yesterday' }, "Invalid header 'x-last-seen-txn': Invalid timestamp 'yesterday'."],
      [{ 'x-last-seen-txn': '1.5' }, "Invalid header 'x-last-seen-txn': Invalid timestamp '1.5'."],
      [{ 'x-query-timeout': 'soon' }, "Invalid header 'x-query-timeout': Invalid number 'soon'."],
      [{ 'x-query-timeout': '0' }, "Invalid header 'x-query-timeout': Must be greater than 0."],
      [{ 'x-query-timeout': '-5' }, "Invalid header 'x-query-timeout': Must be greater than 0."],
      [{ 'x-query-timeout': '600001' }, "Invalid header 'x-query-timeout': Must be less than or equal to 600000."],
      [{ 'x-max-retries-on-contention': '8' }, "Invalid header 'x-max-retries-on-contention': Must be between 0 and 7."],
      [{ 'x-max-retries-on-contention': 'x' }, "Invalid header 'x-max-retries-on-contention': Invalid number 'x'."],
    ];
    for (const [headers, description] of cases) {
      for (const h2 of [false, true]) {
        const res = await query('{"add":[1,2]}', headers, h2);
        badHeader(res, description);
        assertTxnTime(res);
      }
    }
  });

  test('valid header values are accepted', async () => {
    const cases: Record<string, string>[] = [
      { 'x-faunadb-api-version': '4' }, { 'x-faunadb-api-version': '2.12' }, { 'x-faunadb-api-version': 'UNSTABLE' },
      { 'x-last-seen-txn': '1' }, { 'x-query-timeout': '1000' }, { 'x-query-timeout': '600000' },
      { 'x-max-retries-on-contention': '0' }, { 'x-max-retries-on-contention': '7' },
    ];
    for (const headers of cases) {
      const res = await query('{"add":[1,2]}', headers);
      assert.equal(res.status, 200, JSON.stringify(headers));
      assert.equal(res.body, '{"resource":3}');
    }
  });

  test('traceparent: a valid one is echoed, otherwise a fresh one is sent', async () => {
    const valid = '00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01';
    for (const h2 of [false, true]) {
      assert.equal((await query('{"add":[1,2]}', { traceparent: valid }, h2)).headers.traceparent, valid);
    }
    const W3C = /^00-(?!0{32})[\da-f]{32}-(?!0{16})[\da-f]{16}-[\da-f]{2}$/;
    const invalid: Record<string, string>[] = [
      {}, { traceparent: 'garbage' }, { traceparent: '00-00000000000000000000000000000000-b7ad6b7169203331-01' },
    ];
    for (const headers of invalid) {
      const res = await query('{"add":[1,2]}', headers);
      assert.match(res.headers.traceparent ?? '', W3C);
    }
    // Also on responses that ran no query.
    assert.equal((await httpRequest(srv.url, { path: '/nope', headers: { traceparent: valid } })).headers.traceparent, valid);
  });

  test('x-fauna-tags are echoed sorted by key, and only when sent', async () => {
    for (const h2 of [false, true]) {
      const res = await query('{"add":[1,2]}', { 'x-fauna-tags': 'zeta=1,alpha=two,mid_3=x' }, h2);
      assert.equal(res.status, 200);
      assert.equal(res.headers['x-fauna-tags'], 'alpha=two,mid_3=x,zeta=1');
      assert.equal((await query('{"add":[1,2]}', {}, h2)).headers['x-fauna-tags'], undefined);
      assert.equal((await query('{"add":[1,2]}', { 'x-fauna-tags': '' }, h2)).headers['x-fauna-tags'], undefined);
    }
  });

  test('the driver sends tags and reads them back', async () => {
    const seen: RequestResult[] = [];
    const value = await drivers.h2.query(q.Add(1, 1), {
      tags: { foo: 'Foo1', bar: 'Bar2' },
      observer: (r: RequestResult) => seen.push(r),
    });
    assert.equal(value, 2);
    assert.equal((seen[0].responseHeaders as Record<string, string>)['x-fauna-tags'], 'bar=Bar2,foo=Foo1');
  });

  for (const proto of ['h2', 'h1'] as const) {
    test(`tags the driver sends that are not [A-Za-z0-9_]+ pairs are 400 invalid tags (${proto})`, async () => {
      const bad: Record<string, string>[] = [{ 'bad-key': 'x' }, { ok: 'two words' }, { ok: '' }, { clé: 'v' }];
      for (const tags of bad) {
        let caught: unknown;
        try {
          await drivers[proto].query(q.Add(1, 1), { tags });
        } catch (e) {
          caught = e;
        }
        const res = (caught as { requestResult?: { statusCode: number; responseContent: { errors: { code: string; description: string }[] } } })
          .requestResult;
        assert.ok(res, `not a Fauna error for ${JSON.stringify(tags)}: ${String(caught)}`);
        assert.equal(res.statusCode, 400);
        assert.deepEqual(res.responseContent.errors, [{ code: 'bad request', description: "Invalid header 'x-fauna-tags': invalid tags" }]);
      }
    });
  }

  test('bad x-fauna-tags are 400', async () => {
    const longValue = 'v'.repeat(80);
    // Fauna's order and texts (trace/QueryLogContext.scala, QueryLogTagsSpec): length, syntax, count,
    // then each pair from the last one back.
    const cases: [string, string][] = [
      ['a=1,,b=2', 'invalid tags'],
      ['novalue', 'invalid tags'],
      ['a=b=c', 'invalid tags'],
      ['a==c', 'invalid tags'],
      ['a,b=c', 'invalid tags'],
      [',', 'invalid tags'],
      [',,', 'invalid tags'],
      ['foo,,', 'invalid tags'],
      ['bad-key=1', 'invalid tags'],
      ['?=2', 'invalid tags'],
      ['a #=2', 'invalid tags'],
      ['a=#', 'invalid tags'],
      ['key=bad value', 'invalid tags'],
      ['a=1, b=2', 'invalid tags'],
      ['clé=1', 'invalid tags'],
      [`${'k'.repeat(41)}=1`, 'invalid key'],
      [`key=${longValue}x`, 'invalid value'],
      ['a=1,a=2', 'duplicate key'],
      [Array.from({ length: 26 }, (_, i) => `k${i}=v`).join(','), 'too many tags'],
      [Array.from({ length: 25 }, (_, i) => `k${i}=${longValue}${longValue}`.slice(0, 120)).join(','), 'header is too long'],
      // Syntax before count; count before lengths; the last pair is checked first.
      [[...Array.from({ length: 26 }, (_, i) => `k${i}=v`), 'bad-'].join(','), 'invalid tags'],
      [[...Array.from({ length: 25 }, (_, i) => `k${i}=v`), `${'k'.repeat(41)}=1`].join(','), 'too many tags'],
      [`${'k'.repeat(41)}=1,b=${longValue}x`, 'invalid value'],
      [`a=${longValue}x,${'k'.repeat(41)}=1`, 'invalid key'],
      [`a=1,a=${longValue}x`, 'invalid value'],
    ];
    for (const [tags, message] of cases) {
      badHeader(await query('{"add":[1,2]}', { 'x-fauna-tags': tags }), `Invalid header 'x-fauna-tags': ${message}`);
    }
    // At the limits: fine.
    const ok = await query('{"add":[1,2]}', { 'x-fauna-tags': `${'k'.repeat(40)}=${longValue}` });
    assert.equal(ok.status, 200);
  });

  for (const { name, http2: h2 } of PROTOCOLS) {
    test(`CORS preflight and CORS headers over ${name}`, async () => {
      const origin = 'https://app.example';
      for (const path of ['/', '/anything']) {
        const pre = await httpRequest(srv.url, { method: 'OPTIONS', path, headers: { origin }, http2: h2 });
        assert.equal(pre.status, 200);
        assert.equal(pre.body, '');
        assert.equal(pre.headers['access-control-allow-origin'], origin);
        // No credentials mode (issue 30): the drivers send Authorization themselves.
        assert.equal(pre.headers['access-control-allow-credentials'], undefined);
        assert.equal(pre.headers['access-control-max-age'], '86400');
        assert.equal(pre.headers['access-control-allow-methods'], 'GET, POST, PUT, PATCH, DELETE');
        assert.match(pre.headers['access-control-allow-headers'] ?? '', /^accept-encoding, authorization, content-type, x-driver-env, .*, traceparent, x-typecheck, x-performance-hints$/);
      }
      const res = await query('{"add":[1,2]}', { origin }, h2);
      assert.equal(res.status, 200);
      assert.equal(res.headers['access-control-allow-origin'], origin);
      assert.equal(res.headers['access-control-allow-credentials'], undefined);
      const exposed = (res.headers['access-control-expose-headers'] ?? '').split(', ');
      for (const h of ['x-txn-time', 'x-compute-ops', 'x-query-time', 'x-faunadb-build']) assert.ok(exposed.includes(h), h);
      assert.ok(exposed.every((h) => h.startsWith('x-')));
      // No Origin, no CORS headers.
      assert.equal((await query('{"add":[1,2]}', {}, h2)).headers['access-control-allow-origin'], undefined);
    });
  }

  test('X-Query-Timeout is passed through and bounded', async () => {
    // ~4 million lambda applications: seconds of work, far past a 50 ms timeout.
    const grams = '{"ngram":{"repeat":"ab","number":1024},"min":1,"max":2}';
    const slow = `{"count":{"map":{"lambda":"x","expr":{"count":{"map":{"lambda":"y","expr":{"var":"y"}},"collection":${grams}}}},"collection":${grams}}}`;
    const timedOut = await query(slow, { 'x-query-timeout': '50' });
    assert.equal(timedOut.status, 503);
    assert.equal(timedOut.body, '{"errors":[{"code":"time out","description":"Read timed out"}]}');
    const res = await query('{"add":[1,2]}', { 'x-query-timeout': '5000' });
    assert.equal(res.status, 200);
    const client = new Client({ secret: srv.secret, endpoint: srv.url, queryTimeout: 3000 });
    try {
      assert.equal(await client.query(q.Add(1, 2)), 3);
    } finally {
      await client.close({ force: true });
    }
  });
});

describe('graceful shutdown', () => {
  for (const { name, http2: h2 } of PROTOCOLS) {
    test(`SIGTERM lets an in-flight ${name} request finish, then exits 0`, async () => {
      const own = await startFlora();
      let stopping: Promise<number> | undefined;
      try {
        const body = '{"add":[40,2]}';
        const { res, toldToClose } = await inFlight(own, h2, body, () => {
          stopping = own.stop('SIGTERM');
          return waitForStderr(own, /Flora stopping/);
        });
        assert.equal(res.status, 200);
        assert.equal(res.body, '{"resource":42}');
        // Proof that shutdown had begun: HTTP/1.1 gets Connection: close, HTTP/2 a GOAWAY.
        assert.ok(toldToClose, 'the client was told the connection is closing');
        assert.equal(await stopping, 0);
        // The port is closed now.
        await assert.rejects(httpRequest(own.url, { path: '/ping' }), /ECONNREFUSED/);
      } finally {
        await own.stop('SIGKILL');
      }
    });
  }
});

// ---------------------------------------------------------------------------------------------------------

/** A TCP proxy that forwards the client's first chunk in two writes, so the server's first read is partial. */
async function splittingProxy(targetPort: number, splitAt: number): Promise<{ url: string; close(): Promise<void> }> {
  const sockets = new Set<net.Socket>();
  const server = net.createServer((client) => {
    const upstream = net.connect({ port: targetPort, host: '127.0.0.1', noDelay: true });
    sockets.add(client).add(upstream);
    let first = true;
    client.on('data', (chunk: Buffer) => {
      if (!first) {
        upstream.write(chunk);
        return;
      }
      first = false;
      client.pause();
      upstream.write(chunk.subarray(0, splitAt));
      // A pause is the only way to make the server see two reads; there is no event to wait for.
      void delay(30).then(() => {
        upstream.write(chunk.subarray(splitAt));
        client.resume();
      });
    });
    upstream.pipe(client);
    const closeBoth = () => {
      client.destroy();
      upstream.destroy();
    };
    client.on('error', closeBoth).on('close', closeBoth);
    upstream.on('error', closeBoth).on('close', closeBoth);
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const { port } = server.address() as net.AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    close: () =>
      new Promise<void>((resolve) => {
        for (const s of sockets) s.destroy();
        server.close(() => resolve());
      }),
  };
}

/** Declares a body over the limit and sends none of it: the 413 must come at once. */
function declaredTooLarge(useHttp2: boolean): Promise<RawResponse> {
  const headers = { ...auth(), 'content-length': String(LIMIT + 1) };
  if (!useHttp2) {
    return new Promise((resolve, reject) => {
      const req = http.request(new URL('/', srv.url), { method: 'POST', headers, agent: false }, (res) => {
        collect(res).then((body) => {
          resolve({ status: res.statusCode ?? 0, headers: res.headers as Record<string, string>, body });
          req.destroy();
        }, reject);
      });
      req.on('error', reject);
      req.flushHeaders();
    });
  }
  return new Promise((resolve, reject) => {
    const session = http2.connect(srv.url);
    session.on('error', reject);
    const stream = session.request({ ':method': 'POST', ':path': '/', ...headers }, { endStream: false });
    stream.on('error', () => undefined); // the server resets the stream (NO_ERROR) after answering
    stream.on('response', (h) => {
      collect(stream).then((body) => {
        resolve({ status: Number(h[':status']), headers: h as Record<string, string>, body });
        session.destroy();
      }, reject);
    });
  });
}

/** Streams 1 MiB chunks (chunked on HTTP/1.1, DATA frames on HTTP/2) until the server answers. */
function streamedTooLarge(useHttp2: boolean): Promise<RawResponse> {
  const chunk = Buffer.alloc(1024 * 1024, 0x20);
  return new Promise((resolve, reject) => {
    let answered = false;
    const pump = async (w: NodeJS.WritableStream & { destroyed: boolean }) => {
      for (let sent = 0; !answered && sent < 4 * LIMIT; sent += chunk.length) {
        if (w.destroyed) return;
        if (!w.write(chunk)) await drainedOrClosed(w);
      }
    };
    if (!useHttp2) {
      const req = http.request(new URL('/', srv.url), { method: 'POST', headers: auth(), agent: false }, (res) => {
        answered = true;
        collect(res).then((body) => {
          resolve({ status: res.statusCode ?? 0, headers: res.headers as Record<string, string>, body });
          req.destroy();
        }, reject);
      });
      req.on('error', (err) => (answered ? undefined : reject(err)));
      void pump(req);
      return;
    }
    const session = http2.connect(srv.url);
    session.on('error', reject);
    const stream = session.request({ ':method': 'POST', ':path': '/', ...auth() }, { endStream: false });
    stream.on('error', () => undefined);
    stream.on('response', (h) => {
      answered = true;
      collect(stream).then((body) => {
        resolve({ status: Number(h[':status']), headers: h as Record<string, string>, body });
        session.destroy();
      }, reject);
    });
    void pump(stream);
  });
}

/**
 * Starts a POST whose body is held back until `whileOpen` resolves. `expect: 100-continue` makes the
 * server confirm it has the request before anything else happens.
 */
function inFlight(
  server: FloraProcess,
  useHttp2: boolean,
  body: string,
  whileOpen: () => Promise<void>,
): Promise<{ res: RawResponse; toldToClose: boolean }> {
  const headers = { authorization: `Bearer ${server.secret}`, expect: '100-continue' };
  return new Promise((resolve, reject) => {
    if (!useHttp2) {
      const req = http.request(new URL('/', server.url), { method: 'POST', headers, agent: false }, (res) =>
        collect(res).then((text) => {
          const raw = { status: res.statusCode ?? 0, headers: res.headers as Record<string, string>, body: text };
          resolve({ res: raw, toldToClose: res.headers.connection === 'close' });
        }, reject),
      );
      req.on('error', reject);
      req.on('continue', () => whileOpen().then(() => req.end(body), reject));
      req.flushHeaders();
      return;
    }
    const session = http2.connect(server.url);
    let goaway = false;
    session.on('goaway', () => (goaway = true));
    session.on('error', reject);
    const stream = session.request({ ':method': 'POST', ':path': '/', ...headers }, { endStream: false });
    stream.on('error', reject);
    stream.on('continue', () => whileOpen().then(() => stream.end(body), reject));
    stream.on('response', (h) =>
      collect(stream).then((text) => {
        resolve({ res: { status: Number(h[':status']), headers: h as Record<string, string>, body: text }, toldToClose: goaway });
        session.close();
      }, reject),
    );
  });
}

/** Resolves on 'drain', 'close' or 'error', leaving no listener behind. */
function drainedOrClosed(w: NodeJS.WritableStream): Promise<void> {
  return new Promise((resolve) => {
    const done = () => {
      w.off('drain', done);
      w.off('close', done);
      w.off('error', done);
      resolve();
    };
    w.on('drain', done);
    w.on('close', done);
    w.on('error', done);
  });
}

function waitForStderr(server: FloraProcess, pattern: RegExp): Promise<void> {
  return new Promise((resolve, reject) => {
    if (pattern.test(server.stderr())) return resolve();
    const stream = server.proc.stderr!;
    const onData = () => {
      if (pattern.test(server.stderr())) {
        stream.off('data', onData);
        resolve();
      }
    };
    stream.on('data', onData);
    server.proc.once('exit', () => reject(new Error(`exited before ${pattern}: ${server.stderr()}`)));
  });
}

function collect(stream: NodeJS.ReadableStream): Promise<string> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    stream.on('data', (c: Buffer) => chunks.push(c));
    stream.on('end', () => resolve(Buffer.concat(chunks).toString('utf8')));
    stream.on('error', reject);
  });
}
