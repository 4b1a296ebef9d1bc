// Issue 30, third row: a query whose client is gone is cancelled at its next budget check (HTTP/1.1
// and HTTP/2; POST /, GET /?q=, GraphQL), even while it waits in line; its transaction commits
// nothing and the query log records it as 499; and a secret that does not act as admin gets at most
// --max-non-admin-query-timeout-ms, whatever X-Query-Timeout it sends (lowered, not refused).
//
// The servers run with --max-queued-queries 0, so that a query that finds every turn taken gets 429
// at once: a 429 to root is how the test knows the long queries hold every turn, and a 200 that
// the turns are free again.

import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import * as http from 'node:http';
import * as http2 from 'node:http2';
import { httpRequest, makeKey, startFlora, timedPost, waitFor, type FloraProcess } from '../helpers/server';
import { startLogged, storedLog } from '../helpers/logs';
import { abandonedQueries, LONG_QUERY_FLAGS, longQuery } from '../../torture/targeted/abandoned';
import { longExpr } from '../../torture/targeted/fqlSession';
import { whilePinging } from '../../torture/targeted/pingWatch';

/** Root must get a turn within this of the disconnect (generous: the machine is shared). */
const PROMPT_MS = 3_000;

interface Sent {
  /** Drops the requests the way a client that gave up does (sockets closed / session destroyed). */
  drop(): void;
  /** The status of the first request's answer, if it comes. */
  status: Promise<number>;
}

interface LongRequest {
  method?: 'GET' | 'POST';
  path?: string;
  secret: string;
  body?: string;
  tags?: string;
  timeoutMs?: number;
}

/** Sends `reqs` without waiting for answers: on HTTP/1.1 each on its own connection, on HTTP/2 all on one session. */
function send(url: string, proto: 'h1' | 'h2', reqs: LongRequest[]): Sent {
  const headersOf = (r: LongRequest) => ({
    authorization: `Bearer ${r.secret}`,
    'x-query-timeout': String(r.timeoutMs ?? 600_000),
    'content-type': 'application/json',
    ...(r.tags ? { 'x-fauna-tags': r.tags } : {}),
  });
  if (proto === 'h2') {
    const session = http2.connect(url);
    session.on('error', () => undefined);
    const streams = reqs.map((r) => {
      const stream = session.request({ ':method': r.method ?? 'POST', ':path': r.path ?? '/', ...headersOf(r) });
      stream.on('error', () => undefined);
      stream.end(r.body);
      return stream;
    });
    const status = new Promise<number>((resolve) => streams[0].on('response', (h) => resolve(Number(h[':status']))));
    return { drop: () => session.destroy(), status };
  }
  let first: (status: number) => void = () => undefined;
  const status = new Promise<number>((resolve) => (first = resolve));
  const sent = reqs.map((r, i) => {
    const req = http.request(new URL(r.path ?? '/', url), { method: r.method ?? 'POST', headers: headersOf(r), agent: false });
    req.on('error', () => undefined);
    if (i === 0) req.on('response', (res) => first(res.statusCode ?? 0));
    req.end(r.body);
    return req;
  });
  return { drop: () => sent.forEach((r) => r.destroy()), status };
}

/** Resolves once root's queries are refused 429: every turn is taken (--max-queued-queries 0). */
async function turnsTaken(flora: FloraProcess): Promise<void> {
  await waitFor('the long queries to hold every turn', async () => (await timedPost(flora.url, flora.secret)).status === 429, 20_000);
}

/** Milliseconds until root's query is answered 200 (fails past PROMPT_MS). */
async function rootGetsTurn(flora: FloraProcess): Promise<number> {
  const started = performance.now();
  for (;;) {
    const r = await timedPost(flora.url, flora.secret);
    const ms = performance.now() - started;
    if (r.status === 200) return ms;
    assert.equal(r.status, 429, r.body);
    assert.ok(ms < PROMPT_MS, `root still refused ${ms.toFixed(0)} ms after the clients left: the abandoned queries still run`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

/** The query-log records tagged case=`tag`, once `n` are there. */
async function logged(flora: FloraProcess, tag: string, n: number): Promise<Record<string, unknown>[]> {
  let found: Record<string, unknown>[] = [];
  await waitFor(`${n} log records tagged ${tag}`, async () => {
    const lines = (await storedLog(flora)).flatMap((f) => f.text.split('\n')).filter((l) => l.startsWith('{'));
    found = lines.map((l) => JSON.parse(l) as Record<string, unknown>).filter((r) => (r.TAGS as Record<string, string>).case === tag);
    return found.length >= n;
  });
  return found;
}

describe('abandoned queries are cancelled', () => {
  let flora: FloraProcess;
  let client: string;
  let server: string;

  before(async () => {
    flora = await startLogged({ args: [...LONG_QUERY_FLAGS, '--max-concurrent-queries', '2', '--max-queued-queries', '0'] });
    client = await makeKey(flora, 'client');
    server = await makeKey(flora, 'server');
    const root = (body: unknown) =>
      httpRequest(flora.url, { method: 'POST', headers: { authorization: `Bearer ${flora.secret}` }, body: JSON.stringify(body) });
    assert.equal((await root({ create_collection: { object: { name: 'things' } } })).status, 201);
    // A GraphQL field whose resolver runs the long loop.
    const fn = { create_function: { object: { name: 'long', body: { query: { lambda: '_', expr: longExpr() } } } } };
    assert.equal((await root(fn)).status, 201);
    const imported = await httpRequest(flora.url, {
      method: 'POST',
      path: '/import',
      headers: { authorization: `Bearer ${flora.secret}` },
      body: 'type Query { long: Int @resolver(name: "long") }',
    });
    assert.equal(imported.status, 200, imported.body);
  });
  after(async () => {
    // Graceful: a query still running would hold the shutdown.
    assert.equal(await flora?.stop(), 0, 'graceful exit code');
  });

  for (const proto of ['h1', 'h2'] as const) {
    test(`${proto}: POST / and GET /?q= whose client left stop at once, and the query log says 499`, { timeout: 60_000 }, async () => {
      const get = encodeURIComponent(JSON.stringify(longExpr(100, 4, 1)));
      const sent = send(flora.url, proto, [
        { secret: client, body: longQuery(), tags: `case=${proto}_post` },
        { secret: client, method: 'GET', path: `/?q=${get}`, tags: `case=${proto}_get` },
      ]);
      await turnsTaken(flora);
      sent.drop();
      await rootGetsTurn(flora);
      for (const tag of [`${proto}_post`, `${proto}_get`]) {
        const [record] = await logged(flora, tag, 1);
        assert.equal(record.RESPONSE_CODE, '499', JSON.stringify(record));
        assert.equal(record.BYTES_OUT, 0);
        assert.ok((record.COMPUTE_OPS as number) > 1, 'the record says what it spent');
      }
    });

    test(`${proto}: a write cancelled mid-way commits nothing`, { timeout: 60_000 }, async () => {
      const id = proto === 'h1' ? '1' : '2';
      const ref = { ref: { collection: 'things' }, id };
      const write = { do: [{ create: ref, params: { object: { data: { object: { half: true } } } } }, longExpr()] };
      const sent = send(flora.url, proto, [
        { secret: server, body: JSON.stringify(write), tags: `case=${proto}_write` },
        { secret: client, body: longQuery() },
      ]);
      await turnsTaken(flora);
      sent.drop();
      await rootGetsTurn(flora); // both turns free again: the write is over
      const exists = await httpRequest(flora.url, {
        method: 'POST',
        headers: { authorization: `Bearer ${flora.secret}` },
        body: JSON.stringify({ exists: ref }),
      });
      assert.equal(exists.body, '{"resource":false}');
      const [record] = await logged(flora, `${proto}_write`, 1);
      assert.equal(record.RESPONSE_CODE, '499');
      assert.equal(record.BYTE_WRITE_OPS, 0, 'nothing written');
    });

    test(`${proto}: GraphQL whose client left stops at once`, { timeout: 60_000 }, async () => {
      const body = JSON.stringify({ query: '{ long }' });
      const sent = send(flora.url, proto, [
        { secret: server, path: '/graphql', body },
        { secret: server, path: '/graphql', body },
      ]);
      await turnsTaken(flora);
      sent.drop();
      await rootGetsTurn(flora);
    });
  }

  test('a query waiting in line whose client left never runs', { timeout: 60_000 }, async () => {
    // Room for one in line: two long queries run, a write waits for a turn; a probe finding the line
    // full gets 429, one finding it empty waits (and is dropped in turn).
    const lined = await startFlora({ args: [...LONG_QUERY_FLAGS, '--max-concurrent-queries', '2', '--max-queued-queries', '1', '--max-queue-ms', '60000'] });
    try {
      const root = (body: unknown) =>
        httpRequest(lined.url, { method: 'POST', headers: { authorization: `Bearer ${lined.secret}` }, body: JSON.stringify(body) });
      assert.equal((await root({ create_collection: { object: { name: 'things' } } })).status, 201);
      // A probe: 429 (the line is full), its answer, or 'waiting' (in line: every turn is taken), then dropped.
      const probe = async (waitMs: number) => {
        const p = send(lined.url, 'h1', [{ secret: lined.secret, body: '{"add":[1,2]}' }]);
        const status = await Promise.race([p.status, new Promise<'waiting'>((r) => setTimeout(() => r('waiting'), waitMs))]);
        p.drop();
        return status;
      };
      const runners = send(lined.url, 'h1', [{ secret: lined.secret, body: longQuery() }, { secret: lined.secret, body: longQuery() }]);
      await waitFor('both turns taken', async () => (await probe(1_000)) === 'waiting', 20_000);
      const ref = { ref: { collection: 'things' }, id: '1' };
      const waiting = send(lined.url, 'h1', [{ secret: lined.secret, body: JSON.stringify({ create: ref, params: { object: {} } }) }]);
      await waitFor('the write to wait in line', async () => (await probe(300)) === 429);
      waiting.drop();
      await waitFor('the write to leave the line', async () => (await probe(300)) !== 429);
      runners.drop();
      await waitFor('the turns to be free', async () => (await timedPost(lined.url, lined.secret)).status === 200);
      assert.equal((await root({ exists: ref })).body, '{"resource":false}', 'the query that left the line did not run');
    } finally {
      await lined.stop('SIGKILL');
    }
  });

  test('/ping stays prompt while long queries run and are dropped', { timeout: 60_000 }, async () => {
    const { ping } = await whilePinging(flora.url, async () => {
      const sent = send(flora.url, 'h2', [{ secret: client, body: longQuery() }, { secret: client, body: longQuery() }]);
      await turnsTaken(flora);
      sent.drop();
      await rootGetsTurn(flora);
    }, 'test');
    assert.equal(ping.slow, 0, `slowest ping ${ping.maxMs.toFixed(0)} ms (failed or over ${ping.limitMs} ms)`);
  });
});

describe('X-Query-Timeout of non-admin secrets', () => {
  let flora: FloraProcess;
  const CAP_MS = 2_000;

  before(async () => {
    flora = await startFlora({ args: [...LONG_QUERY_FLAGS, '--max-non-admin-query-timeout-ms', String(CAP_MS)] });
  });
  after(async () => {
    await flora?.stop('SIGKILL');
  });

  /** A long query with `secret` and X-Query-Timeout `timeoutMs`: its answer and how long it took. */
  async function timed(secret: string, timeoutMs: number | undefined, proto: 'h1' | 'h2' = 'h1') {
    const started = performance.now();
    const headers: Record<string, string> = { authorization: `Bearer ${secret}` };
    if (timeoutMs !== undefined) headers['x-query-timeout'] = String(timeoutMs);
    const res = await httpRequest(flora.url, { method: 'POST', headers, body: longQuery(), http2: proto === 'h2' });
    return { res, ms: performance.now() - started };
  }

  const TIMED_OUT = '{"errors":[{"code":"time out","description":"Read timed out"}]}';

  for (const role of ['client', 'server'] as const) {
    test(`a ${role} key asking for 600000 ms is cut at the cap: 503 time out`, { timeout: 60_000 }, async () => {
      const key = await makeKey(flora, role);
      for (const proto of ['h1', 'h2'] as const) {
        const { res, ms } = await timed(key, 600_000, proto);
        assert.equal(res.status, 503);
        assert.equal(res.body, TIMED_OUT);
        assert.ok(ms >= CAP_MS * 0.9 && ms < CAP_MS + 10_000, `answered after ${ms.toFixed(0)} ms (cap ${CAP_MS})`);
      }
      // The default timeout (no header, 120 s) is lowered too.
      const { res, ms } = await timed(key, undefined);
      assert.equal(res.status, 503);
      assert.ok(ms < CAP_MS + 10_000, `answered after ${ms.toFixed(0)} ms`);
    });
  }

  test('a timeout below the cap is kept', { timeout: 60_000 }, async () => {
    const key = await makeKey(flora, 'client');
    const { res, ms } = await timed(key, 500);
    assert.equal(res.status, 503);
    assert.ok(ms < CAP_MS, `answered after ${ms.toFixed(0)} ms`);
  });

  test('a non-admin write re-run after a conflict keeps the time it was allowed (the cap is taken once, not per attempt)', { timeout: 60_000 }, async () => {
    const root = { authorization: `Bearer ${flora.secret}` };
    await httpRequest(flora.url, { method: 'POST', headers: root, body: '{"create_collection":{"object":{"name":"counters"}}}' });
    const made = await httpRequest(flora.url, { method: 'POST', headers: root, body: '{"create":{"collection":"counters"},"params":{"object":{"data":{"object":{"n":0}}}}}' });
    const ref = JSON.parse(made.body).resource.ref;
    const key = await makeKey(flora, 'server');
    // Read, then a loop of a few slices (others interleave), then write what was read: they conflict.
    const increment = JSON.stringify({
      let: { d: { get: ref } },
      in: { do: [longExpr(200, 2, 2), { update: ref, params: { object: { data: { object: { n: { add: [{ select: ['data', 'n'], from: { var: 'd' } }, 1] } } } } } }] },
    });
    const headers = { authorization: `Bearer ${key}`, 'x-query-timeout': '600000' };
    const answers = await Promise.all(Array.from({ length: 8 }, () => httpRequest(flora.url, { method: 'POST', headers, body: increment, http2: true })));
    assert.deepEqual(answers.filter((a) => a.status !== 200 && a.status !== 409).map((a) => `${a.status} ${a.body}`), []);
    assert.ok(answers.some((a) => Number(a.headers['x-txn-retries']) > 0), 'no write was re-run: the test did not make a conflict');
  });

  test('an admin key and the root secret keep their longer timeout', { timeout: 60_000 }, async () => {
    const admin = await makeKey(flora, 'admin');
    for (const secret of [admin, flora.secret]) {
      const { res, ms } = await timed(secret, CAP_MS * 2.5);
      assert.equal(res.status, 503);
      assert.equal(res.body, TIMED_OUT);
      assert.ok(ms >= CAP_MS * 2.5 * 0.9, `answered after ${ms.toFixed(0)} ms: cut at the non-admin cap`);
    }
  });
});

test('targeted attack abandoned-queries at test size: 0 violations', { timeout: 120_000 }, async () => {
  const result = await abandonedQueries.run({ size: 'test', log: () => undefined });
  assert.equal(result.violations, 0, [JSON.stringify(result.figures), ...result.details].join('\n'));
});
