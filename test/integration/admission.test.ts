// Admission control (src/model/admission.ts): a process evaluates --max-concurrent-queries queries at
// once and keeps --max-queued-queries waiting; one more is refused at once with 429 `too many
// requests` and a Retry-After, in the shape of the API it came to — and the faunadb driver reports it
// as TooManyRequests. Below the bound nothing is ever refused. (These servers have no client share,
// --client-query-share 1, so that one client fills the turns; the share is security-fairness's.)

import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { query as q, type Client } from 'faunadb';
import * as http from 'node:http';
import * as net from 'node:net';
import { clients, httpRequest, startFlora, waitFor, type FloraProcess, type RawResponse } from '../helpers/server';

const HEADERS = { authorization: 'Bearer secret', 'x-faunadb-api-version': '4' };

/** A query that evaluates for a long while (hundreds of ms at least): Distinct of 150,000 numbers. */
const HEAVY = JSON.stringify({ distinct: Array.from({ length: 150_000 }, (_, i) => i) });

function post(srv: FloraProcess, body: string, opts: { path?: string; http2?: boolean } = {}): Promise<RawResponse> {
  return httpRequest(srv.url, { method: 'POST', path: opts.path ?? '/', headers: HEADERS, body, http2: opts.http2 });
}

/**
 * Keeps one heavy query in flight and sends `probe` one after another until a probe is refused
 * (429); resolves with that refusal. A probe sent while the heavy query holds the only turn is
 * refused, whatever the machine's speed: it is only a matter of trying while it runs.
 */
async function refusedWhileBusy<T>(srv: FloraProcess, probe: () => Promise<T>, refused: (answer: T) => boolean): Promise<T> {
  for (let attempt = 0; attempt < 20; attempt++) {
    let heavyDone = false;
    const heavy = post(srv, HEAVY).finally(() => (heavyDone = true));
    while (!heavyDone) {
      const answer = await probe();
      if (refused(answer)) {
        await heavy;
        return answer;
      }
    }
    await heavy;
  }
  throw new Error('no probe was refused while a heavy query held the only turn');
}

function assertFaunaRefusal(res: RawResponse): void {
  assert.equal(res.status, 429, res.body.slice(0, 200));
  assert.deepEqual(JSON.parse(res.body), { errors: [{ code: 'too many requests', description: 'Too many pending requests' }] });
  assert.equal(res.headers['retry-after'], '1');
  assert.match(res.headers['content-type'], /^application\/json/);
}

describe('a process with one turn and no line', () => {
  let srv: FloraProcess;

  test('starts', async () => {
    srv = await startFlora({ args: ['--max-concurrent-queries', '1', '--max-queued-queries', '0', '--client-query-share', '1'], env: { FLORA_LOG_QUERIES: 'false' } });
  });

  test('refuses a query while another runs: 429 too many requests, Retry-After, over HTTP/1.1 and HTTP/2', async () => {
    for (const http2 of [false, true]) {
      const res = await refusedWhileBusy(srv, () => post(srv, '{"add":[1,2]}', { http2 }), (r) => r.status === 429);
      assertFaunaRefusal(res);
    }
    // GET /?q= waits for a turn too.
    const get = await refusedWhileBusy(srv, () => httpRequest(srv.url, { path: '/?q=' + encodeURIComponent('{"add":[1,2]}'), headers: HEADERS }), (r) => r.status === 429);
    assertFaunaRefusal(get);
  });

  test('the faunadb driver reports the refusal as TooManyRequests', async () => {
    const drivers = clients(srv.url, srv.secret);
    try {
      for (const client of [drivers.h2, drivers.h1] as Client[]) {
        const error = await refusedWhileBusy(
          srv,
          () => client.query(q.Add(1, 2)).then(() => undefined, (e: unknown) => e as Error),
          (e) => e !== undefined,
        );
        assert.equal(error?.name, 'TooManyRequests', String(error));
        assert.equal((error as unknown as { requestResult: { statusCode: number } }).requestResult.statusCode, 429);
      }
    } finally {
      await drivers.close();
    }
  });

  test('GraphQL is refused in its own shape, with Retry-After', async () => {
    const res = await refusedWhileBusy(srv, () => post(srv, JSON.stringify({ query: '{ __typename }' }), { path: '/graphql' }), (r) => r.status === 429);
    assert.deepEqual(JSON.parse(res.body), { errors: [{ message: 'Too many pending requests.' }] });
    assert.equal(res.headers['retry-after'], '1');
  });

  test('once the heavy query is done, queries run again', async () => {
    const res = await post(srv, '{"add":[1,2]}');
    assert.equal(res.body, '{"resource":3}');
    assert.equal((await httpRequest(srv.url, { path: '/ping' })).status, 200); // never behind the gate
    await srv.stop();
  });
});

describe('below the bound', () => {
  test('as many clients as turns and places in line are never refused', async () => {
    // Two turns, four places, a line that may stand still for a minute: six clients always fit.
    const srv = await startFlora({
      args: ['--max-concurrent-queries', '2', '--max-queued-queries', '4', '--max-queue-ms', '60000', '--client-query-share', '1'],
      env: { FLORA_LOG_QUERIES: 'false' },
    });
    const drivers = clients(srv.url, srv.secret);
    try {
      await drivers.h2.query(q.CreateCollection({ name: 'things' }));
      const statuses = new Map<number, number>();
      const medium = JSON.stringify({ distinct: Array.from({ length: 10_000 }, (_, k) => k) });
      const client = async (id: number) => {
        for (let i = 0; i < 16; i++) {
          // Longer and shorter queries mixed, so that turns are held while others wait.
          const body = (i + id) % 4 === 0 ? medium : JSON.stringify(q.Create(q.Collection('things'), { data: { id, i } }));
          const res = await post(srv, body, { http2: id % 2 === 1 });
          statuses.set(res.status, (statuses.get(res.status) ?? 0) + 1);
        }
      };
      await Promise.all(Array.from({ length: 6 }, (_, id) => client(id)));
      assert.deepEqual([...statuses.keys()].filter((s) => s >= 300), [], JSON.stringify([...statuses]));
    } finally {
      await drivers.close();
      await srv.stop();
    }
  });
});

describe('a line of large bodies', () => {
  test('past --memory-mb the next body gets 429, not a place in line: waiting bodies are held in the pool', async () => {
    const srv = await startFlora({
      args: ['--max-concurrent-queries', '1', '--max-queued-queries', '100', '--max-queue-ms', '60000', '--memory-mb', '24', '--client-query-share', '1'],
      env: { FLORA_LOG_QUERIES: 'false' },
    });
    // A cheap query in a 4 MiB body: six of them waiting would hold 24 MiB.
    const big = '{"add":[1,2]}' + ' '.repeat(4 * 1024 * 1024);
    try {
      const answers = await refusedWhileBusy(
        srv,
        async () => {
          // One after another, each sent whole before the next starts: only the line holds them together.
          const pending: Promise<number>[] = [];
          for (let i = 0; i < 6; i++) pending.push((await sentWhole(srv, big)).answered);
          return Promise.all(pending);
        },
        (statuses) => statuses.includes(429),
      );
      assert.ok(answers.every((s) => s === 200 || s === 429), String(answers));
      // The pool refuses while the bodies' garbage is still on the heap (memoryPool.ts), then serves.
      await waitFor('a query served after the line', async () => (await post(srv, '{"add":[1,2]}')).body === '{"resource":3}');
    } finally {
      await srv.stop();
    }
  });
});

/** POSTs `body`; resolves once it is sent whole, with the promise of the answer's status. */
function sentWhole(srv: FloraProcess, body: string): Promise<{ answered: Promise<number> }> {
  return new Promise((sent, failed) => {
    let status: (s: number) => void = () => undefined;
    const answered = new Promise<number>((resolve) => (status = resolve));
    const req = http.request(new URL('/', srv.url), { method: 'POST', headers: HEADERS, agent: false }, (res) => {
      res.resume();
      res.on('end', () => status(res.statusCode ?? 0));
    });
    req.on('error', failed);
    req.end(body, () => sent({ answered }));
  });
}

describe('a connection storm', () => {
  test('thousands of clients connecting at once are all taken without a dropped handshake (a retry would take 1 s)', async () => {
    const srv = await startFlora({ env: { FLORA_LOG_QUERIES: 'false' } });
    const sockets: net.Socket[] = [];
    try {
      const { port } = srv;
      const started = performance.now();
      // Past the listen backlog, the kernel drops handshakes and the client retries after 1 s.
      const connectMs = await Promise.all(
        Array.from({ length: 2000 }, () => new Promise<number>((resolve, reject) => {
          const socket = net.connect(port, '127.0.0.1', () => resolve(performance.now() - started));
          socket.on('error', reject);
          sockets.push(socket);
        })),
      );
      assert.ok(Math.max(...connectMs) < 1000, `slowest connection took ${Math.max(...connectMs).toFixed(0)} ms`);
      assert.equal((await post(srv, '{"add":[1,2]}')).body, '{"resource":3}');
    } finally {
      for (const s of sockets) s.destroy();
      await srv.stop();
    }
  });
});
