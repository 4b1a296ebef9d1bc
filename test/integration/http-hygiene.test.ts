// One request must never freeze, crash or bloat the server: malformed HTTP/1.1 always gets an answer
// (Fauna's Netty-level `{"error":…}` bodies, fql-v4.md §1.7), bodies and heads that never finish
// arriving time out with a 408, idle connections and sessions are closed, and a thousand idle
// connections do not slow the others. Short timeouts (FLORA_BODY_TIMEOUT_MS / FLORA_IDLE_TIMEOUT_MS)
// keep the waits short; every wait is on an event (a response, a close, a GOAWAY), never a clock.

import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { once } from 'node:events';
import * as http2 from 'node:http2';
import * as net from 'node:net';
import { setTimeout as delay } from 'node:timers/promises';
import { query as q } from 'faunadb';
import { clients, httpRequest, serverForFile, startFlora } from '../helpers/server';

const TIMEOUT_MS = 1500;
const file = serverForFile({
  env: { FLORA_BODY_TIMEOUT_MS: String(TIMEOUT_MS), FLORA_IDLE_TIMEOUT_MS: String(TIMEOUT_MS) },
});

const JSON_TYPE = 'application/json;charset=utf-8';
const BAD_REQUEST = '{"error":"bad request"}';
const TIMED_OUT = '{"error":"request timeout: Client timed out."}';
const HEAD_TOO_LARGE = '{"error":"request header fields too large"}';
const PING = '{"resource":"Scope write is OK"}';
/** Generous bound on each test, so that a regression fails instead of hanging the suite. */
const LIMIT = { timeout: 30_000 };

interface Answer {
  status: number;
  headers: Record<string, string>;
  body: string;
}

/** A raw HTTP/1.1 connection: what was written, everything received, and whether the server closed it. */
class Conn {
  text = '';
  closedByServer = false;
  readonly closed: Promise<void>;
  private waiters: (() => void)[] = [];

  private constructor(readonly socket: net.Socket) {
    socket.setEncoding('latin1');
    socket.on('data', (chunk: string) => {
      this.text += chunk;
      for (const wake of this.waiters.splice(0)) wake();
    });
    socket.on('error', () => undefined); // a reset shows as a close without an answer
    socket.on('end', () => (this.closedByServer = true));
    this.closed = new Promise((resolve) => {
      socket.once('close', () => {
        for (const wake of this.waiters.splice(0)) wake();
        resolve();
      });
    });
  }

  static async open(port: number): Promise<Conn> {
    const socket = net.connect({ port, host: '127.0.0.1', noDelay: true });
    await once(socket, 'connect');
    return new Conn(socket);
  }

  write(data: string | Buffer): this {
    this.socket.write(data);
    return this;
  }

  /** Resolves once the received text contains `what`; rejects if the connection closes first. */
  async until(what: string): Promise<void> {
    while (!this.text.includes(what)) {
      if (this.socket.destroyed) throw new Error(`closed before ${JSON.stringify(what)}; got ${JSON.stringify(this.text)}`);
      await new Promise<void>((resolve) => this.waiters.push(resolve));
    }
  }

  /** Final (non-1xx) responses received so far. */
  answers(): Answer[] {
    return parseResponses(this.text).filter((a) => a.status >= 200);
  }
}

function parseResponses(text: string): Answer[] {
  const out: Answer[] = [];
  let rest = text;
  while (rest.length > 0) {
    const end = rest.indexOf('\r\n\r\n');
    if (end < 0) throw new Error(`incomplete response head: ${JSON.stringify(rest)}`);
    const [statusLine, ...lines] = rest.slice(0, end).split('\r\n');
    const m = /^HTTP\/1\.1 (\d{3}) /.exec(statusLine);
    if (!m) throw new Error(`not a status line: ${JSON.stringify(statusLine)}`);
    const headers: Record<string, string> = {};
    for (const line of lines) {
      const colon = line.indexOf(':');
      headers[line.slice(0, colon).toLowerCase()] = line.slice(colon + 1).trim();
    }
    const length = Number(headers['content-length'] ?? 0);
    const bodyStart = end + 4;
    out.push({ status: Number(m[1]), headers, body: Buffer.from(rest.slice(bodyStart, bodyStart + length), 'latin1').toString('utf8') });
    rest = rest.slice(bodyStart + length);
  }
  return out;
}

/** Sends `data` on a fresh connection and waits for the server to close it; returns the one answer. */
async function answerTo(data: string | Buffer): Promise<Answer> {
  const conn = await Conn.open(file.flora.port);
  conn.write(data);
  await conn.closed;
  return onlyAnswer(conn);
}

function onlyAnswer(conn: Conn): Answer {
  assert.ok(conn.closedByServer, `the server closes the connection; got ${JSON.stringify(conn.text)}`);
  const answers = conn.answers();
  assert.equal(answers.length, 1, `exactly one response: ${JSON.stringify(conn.text)}`);
  return answers[0];
}

function assertFailure(answer: Answer, status: number, body: string, what = ''): void {
  assert.equal(answer.status, status, `${what} ${answer.body}`);
  assert.equal(answer.body, body, what);
  assert.equal(answer.headers['content-type'], JSON_TYPE, what);
  assert.equal(answer.headers.connection?.toLowerCase(), 'close', what);
}

const auth = () => `authorization: Bearer ${file.flora.secret}\r\n`;
const head = (method: string, path: string, extra = '') => `${method} ${path} HTTP/1.1\r\nhost: flora\r\n${auth()}${extra}\r\n`;

async function pingStillWorks(): Promise<void> {
  for (const http2 of [false, true]) {
    const res = await httpRequest(file.flora.url, { path: '/ping', http2 });
    assert.equal(res.status, 200);
    assert.equal(res.body, PING);
  }
}

/** An HTTP/2 request whose body is `parts` (no end of stream if `end` is false). */
function h2Exchange(
  session: http2.ClientHttp2Session,
  headers: http2.OutgoingHttpHeaders,
  parts: string[],
  end: boolean,
): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const stream = session.request(headers, { endStream: false });
    let status = 0;
    let hdrs: Record<string, string> = {};
    let body = '';
    stream.setEncoding('utf8');
    stream.on('response', (h) => {
      status = Number(h[':status']);
      hdrs = Object.fromEntries(Object.entries(h).map(([k, v]) => [k, String(v)]));
    });
    stream.on('data', (c: string) => (body += c));
    // The server declines an unread body with RST_STREAM(NO_ERROR) once it has answered.
    stream.on('error', (err) => (status ? undefined : reject(err)));
    stream.on('close', () => (status ? resolve({ status, headers: hdrs, body }) : reject(new Error(`stream closed, code ${stream.rstCode}`))));
    for (const part of parts) stream.write(part);
    if (end) stream.end();
  });
}

// ---------------------------------------------------------------------------------------------------------

describe('malformed chunked bodies are answered 400, then the connection is closed', () => {
  const BAD_CHUNKS: [string, string][] = [
    ['a chunk-size line that is not hex', 'zz\r\n{"add":[1,2]}\r\n0\r\n\r\n'],
    ['a chunk size too large to represent', 'fffffffffffffffffffff\r\n{"add":[1,2]}\r\n0\r\n\r\n'],
    ['no CRLF after the chunk data', '3\r\n{"aXX0\r\n\r\n'],
  ];
  for (const path of ['/', '/graphql']) {
    for (const [what, chunks] of BAD_CHUNKS) {
      test(`POST ${path}: ${what}, sent with the head`, LIMIT, async () => {
        const answer = await answerTo(head('POST', path, 'transfer-encoding: chunked\r\n') + chunks);
        assertFailure(answer, 400, BAD_REQUEST, what);
      });

      test(`POST ${path}: ${what}, while the route already waits for the body`, LIMIT, async () => {
        const conn = await Conn.open(file.flora.port);
        // 100 Continue: the request has been handed to its route, which is reading the body.
        conn.write(head('POST', path, 'transfer-encoding: chunked\r\nexpect: 100-continue\r\n'));
        await conn.until('100 Continue');
        conn.write('2\r\n{"\r\n'); // a good chunk first
        conn.write(chunks);
        await conn.closed;
        assertFailure(onlyAnswer(conn), 400, BAD_REQUEST, what);
      });
    }
  }

  test('a route that does not read the body: one answer, the 400, when the bad chunk comes with the head', LIMIT, async () => {
    const answer = await answerTo(head('GET', '/ping', 'transfer-encoding: chunked\r\n') + 'zz\r\n');
    assertFailure(answer, 400, BAD_REQUEST);
  });

  test('a route that does not read the body: its answer stands, and the bad chunk after it ends the connection', LIMIT, async () => {
    const conn = await Conn.open(file.flora.port);
    conn.write(head('GET', '/ping', 'transfer-encoding: chunked\r\n'));
    await conn.until(PING);
    conn.write('zz\r\n');
    await conn.closed;
    assert.deepEqual(conn.answers().map((a) => [a.status, a.body]), [[200, PING]]);
  });

  test('the server is still serving', LIMIT, pingStillWorks);
});

describe('malformed heads are answered 400 (431 when too large), then the connection is closed', () => {
  const BAD_HEADS: [string, string][] = [
    ['a bad request line', 'GET / / HTTP/1.1\r\nhost: flora\r\n\r\n'],
    ['an unknown method', 'BREW / HTTP/1.1\r\nhost: flora\r\n\r\n'],
    ['an unsupported HTTP version', 'GET /ping HTTP/1.2\r\nhost: flora\r\n\r\n'],
    ['a header line without a colon', 'GET /ping HTTP/1.1\r\nhost flora\r\n\r\n'],
    ['a space before the colon', 'GET /ping HTTP/1.1\r\nhost : flora\r\n\r\n'],
    ['bare LF line ends', 'GET /ping HTTP/1.1\nhost: flora\n\n'],
    ['conflicting Content-Lengths', 'POST / HTTP/1.1\r\nhost: flora\r\ncontent-length: 2\r\ncontent-length: 3\r\n\r\n{}'],
    ['a repeated Content-Length', 'POST / HTTP/1.1\r\nhost: flora\r\ncontent-length: 2\r\ncontent-length: 2\r\n\r\n{}'],
    ['Content-Length with Transfer-Encoding', 'POST / HTTP/1.1\r\nhost: flora\r\ncontent-length: 5\r\ntransfer-encoding: chunked\r\n\r\n0\r\n\r\n'],
    ['a non-numeric Content-Length', 'POST / HTTP/1.1\r\nhost: flora\r\ncontent-length: 12abc\r\n\r\n'],
    ['a negative Content-Length', 'POST / HTTP/1.1\r\nhost: flora\r\ncontent-length: -1\r\n\r\n'],
    ['an unknown Transfer-Encoding', 'POST / HTTP/1.1\r\nhost: flora\r\ntransfer-encoding: gzip\r\n\r\n'],
    ['an HTTP/0.9 request line', 'GET /\r\n'],
    ['an HTTP/0.9 request line with headers', 'GET /ping\r\nhost: flora\r\n\r\n'],
    ['binary garbage', '\x00\x01\x02\xff nonsense\r\n\r\n'],
    ['an HTTP/2 preface that goes wrong half-way', 'PRI * HTTP/2.0\r\n\r\nXX\r\n\r\n'],
    ['TLS instead of cleartext', '\x16\x03\x01\x02\x00\x01\x00\x01\xfc\x03\x03'],
    ['CONNECT', 'CONNECT example.com:443 HTTP/1.1\r\nhost: example.com:443\r\n\r\n'],
  ];
  for (const [what, data] of BAD_HEADS) {
    test(what, LIMIT, async () => {
      assertFailure(await answerTo(Buffer.from(data, 'latin1')), 400, BAD_REQUEST, what);
    });
  }

  test('a head over 16 KiB is 431; one just under is served', LIMIT, async () => {
    const big = (n: number) => `GET /ping HTTP/1.1\r\nhost: flora\r\nx-pad: ${'a'.repeat(n)}\r\n\r\n`;
    assertFailure(await answerTo(big(17 * 1024)), 431, HEAD_TOO_LARGE);
    // Many small headers add up the same way.
    const many = 'GET /ping HTTP/1.1\r\nhost: flora\r\n' + Array.from({ length: 600 }, (_, i) => `x-h${i}: ${'b'.repeat(24)}\r\n`).join('') + '\r\n';
    assertFailure(await answerTo(many), 431, HEAD_TOO_LARGE);
    const conn = await Conn.open(file.flora.port);
    conn.write(big(15 * 1024));
    await conn.until(PING);
    assert.equal(conn.answers()[0].status, 200);
    conn.socket.destroy();
  });

  test('a request without Host is served, as Fauna does (Node alone would send an empty 400)', LIMIT, async () => {
    const conn = await Conn.open(file.flora.port);
    conn.write('GET /ping HTTP/1.1\r\n\r\n');
    await conn.until(PING);
    assert.equal(conn.answers()[0].status, 200);
    conn.socket.destroy();
  });

  test('garbage after a good request is answered after it, in order', LIMIT, async () => {
    const conn = await Conn.open(file.flora.port);
    conn.write('GET /ping HTTP/1.1\r\nhost: flora\r\n\r\nGET /ping HTTP/1.1\r\nhost: flora\r\n\r\nNOT HTTP\x01\r\n\r\n');
    await conn.closed;
    const answers = conn.answers();
    assert.deepEqual(answers.map((a) => [a.status, a.body]), [[200, PING], [200, PING], [400, BAD_REQUEST]]);
  });

  test('the server is still serving', LIMIT, pingStillWorks);
});

// The tests of the next two suites mostly wait for the server's timeouts: they wait side by side.
describe('bodies and heads that never finish arriving', { concurrency: true }, () => {
  test('HTTP/1.1: a body shorter than its Content-Length is 408 after the body timeout', LIMIT, async () => {
    const conn = await Conn.open(file.flora.port);
    conn.write(head('POST', '/', 'content-length: 20\r\n') + '{"add":');
    await conn.closed;
    assertFailure(onlyAnswer(conn), 408, TIMED_OUT);
  });

  test('HTTP/1.1: a chunked body that stops is 408; so is one on /graphql', LIMIT, async () => {
    await Promise.all(
      ['/', '/graphql'].map(async (path) => {
        const conn = await Conn.open(file.flora.port);
        conn.write(head('POST', path, 'transfer-encoding: chunked\r\n') + '2\r\n{"\r\n');
        await conn.closed;
        assertFailure(onlyAnswer(conn), 408, TIMED_OUT, path);
      }),
    );
  });

  test('HTTP/1.1: a body that keeps trickling past the timeout is 408 all the same', LIMIT, async () => {
    const conn = await Conn.open(file.flora.port);
    conn.write(head('POST', '/', 'content-length: 100000\r\n'));
    // One byte every 50 ms would take 83 minutes: the timeout counts from the start of the request.
    while (!conn.socket.destroyed && conn.text === '') {
      conn.write(' ');
      await delay(50);
    }
    await conn.closed;
    assertFailure(onlyAnswer(conn), 408, TIMED_OUT);
  });

  test('HTTP/1.1: a head that stops half-way is 408, so is a request line that stops', LIMIT, async () => {
    await Promise.all(
      ['POST / HTTP/1.1\r\nhost: flora\r\ncontent-', 'GET /pi'].map(async (partial) => {
        const conn = await Conn.open(file.flora.port);
        conn.write(partial);
        await conn.closed;
        assertFailure(onlyAnswer(conn), 408, TIMED_OUT, partial);
      }),
    );
  });

  test('a slow but steady upload that finishes in time is served', LIMIT, async () => {
    const body = JSON.stringify({ add: Array.from({ length: 20_000 }, () => 1) });
    const conn = await Conn.open(file.flora.port);
    conn.write(head('POST', '/', `content-length: ${body.length}\r\n`));
    const piece = Math.ceil(body.length / 10);
    for (let i = 0; i < body.length; i += piece) {
      conn.write(body.slice(i, i + piece));
      await delay(20);
    }
    await conn.until('{"resource":20000}');
    assert.equal(conn.answers()[0].status, 200);
    conn.socket.destroy();
  });

  test('HTTP/1.1: a client that cuts its body off', LIMIT, async () => {
    // Gone for good (reset): nobody to answer, nothing must break.
    const gone = await Conn.open(file.flora.port);
    gone.write(head('POST', '/', 'content-length: 100\r\n') + '{"add":');
    gone.socket.resetAndDestroy();
    await gone.closed;
    // Half-closed: it can still read, and is told its request was incomplete.
    const half = await Conn.open(file.flora.port);
    half.write(head('POST', '/', 'content-length: 100\r\n') + '{"add":');
    half.socket.end();
    await half.closed;
    assertFailure(onlyAnswer(half), 400, BAD_REQUEST);
    await pingStillWorks();
  });

  test('HTTP/2: a stream whose body stops is answered 408 on the stream; the session goes on', LIMIT, async () => {
    const session = http2.connect(file.flora.url);
    try {
      const headers = { ':method': 'POST', ':path': '/', authorization: `Bearer ${file.flora.secret}` };
      const [late, gql] = await Promise.all([
        h2Exchange(session, headers, ['{"add":'], false),
        h2Exchange(session, { ...headers, ':path': '/graphql' }, ['{"query":'], false),
      ]);
      for (const answer of [late, gql]) {
        assert.equal(answer.status, 408);
        assert.equal(answer.body, TIMED_OUT);
        assert.equal(answer.headers['content-type'], JSON_TYPE);
      }
      const next = await h2Exchange(session, headers, ['{"add":[1,2]}'], true);
      assert.equal(next.status, 200);
      assert.equal(next.body, '{"resource":3}');
    } finally {
      session.destroy();
    }
  });

  test('HTTP/2: a stream reset mid-body hurts nothing', LIMIT, async () => {
    const session = http2.connect(file.flora.url);
    const stream = session.request({ ':method': 'POST', ':path': '/', authorization: `Bearer ${file.flora.secret}` }, { endStream: false });
    stream.on('error', () => undefined);
    stream.write('{"add":');
    stream.close(http2.constants.NGHTTP2_CANCEL);
    await once(stream, 'close');
    session.destroy();
    await pingStillWorks();
  });

  test('HTTP/2: a header list over 16 KiB is 431 on its stream; past twice that the stream is refused', LIMIT, async () => {
    const session = http2.connect(file.flora.url);
    try {
      const [settings] = (await once(session, 'remoteSettings')) as [http2.Settings];
      assert.equal(settings.maxHeaderListSize, 32 * 1024);
      assert.equal(settings.maxConcurrentStreams, 250);
      const get = (pad: number) => ({ ':method': 'GET', ':path': '/ping', 'x-pad': 'a'.repeat(pad) });
      const big = await h2Exchange(session, get(17 * 1024), [], true);
      assert.equal(big.status, 431);
      assert.equal(big.body, HEAD_TOO_LARGE);
      assert.equal(big.headers['content-type'], JSON_TYPE);
      await assert.rejects(h2Exchange(session, get(40 * 1024), [], true), /ENHANCE_YOUR_CALM|REFUSED_STREAM/);
      const fine = await h2Exchange(session, get(15 * 1024), [], true);
      assert.equal(fine.status, 200);
      assert.equal(fine.body, PING);
    } finally {
      session.destroy();
    }
  });
});

describe('idle connections are bounded', { concurrency: true }, () => {
  test('a connection that never sends a byte is closed', LIMIT, async () => {
    const conn = await Conn.open(file.flora.port);
    await conn.closed;
    assert.ok(conn.closedByServer);
    assert.equal(conn.text, '');
  });

  test('an idle HTTP/1.1 keep-alive connection is closed after the idle timeout', LIMIT, async () => {
    const conn = await Conn.open(file.flora.port);
    conn.write('GET /ping HTTP/1.1\r\nhost: flora\r\n\r\n');
    await conn.until(PING);
    assert.equal(conn.answers()[0].headers.connection, 'keep-alive');
    await conn.closed;
    assert.ok(conn.closedByServer);
    assert.equal(conn.answers().length, 1);
  });

  test('an idle HTTP/2 session gets a GOAWAY', LIMIT, async () => {
    const session = http2.connect(file.flora.url);
    session.on('error', () => undefined);
    const res = await h2Exchange(session, { ':method': 'GET', ':path': '/ping' }, [], true);
    assert.equal(res.body, PING);
    const [code] = (await once(session, 'goaway')) as [number];
    assert.equal(code, http2.constants.NGHTTP2_NO_ERROR);
    if (!session.closed) await once(session, 'close');
  });

  test('HTTP/2: a burst of 1,000 requests on one session is queued by the client, not refused', LIMIT, async () => {
    const session = http2.connect(file.flora.url);
    try {
      const headers = { ':method': 'POST', ':path': '/', authorization: `Bearer ${file.flora.secret}` };
      const all = await Promise.all(Array.from({ length: 1000 }, (_, i) => h2Exchange(session, headers, [`{"add":[${i},1]}`], true)));
      all.forEach((res, i) => assert.equal(res.body, `{"resource":${i + 1}}`));
    } finally {
      session.destroy();
    }
  });

  test('1,000 idle connections do not slow the others, and are all closed by the server', { timeout: 60_000 }, async (t) => {
    const limit = Number(execFileSync('sh', ['-c', 'ulimit -n'], { encoding: 'utf8' }).trim());
    if (Number.isFinite(limit) && limit < 1200) {
      t.skip(`needs ~1,100 file descriptors; ulimit -n is ${limit}`);
      return;
    }
    const conns: { kind: string; conn: Conn }[] = [];
    for (let batch = 0; batch < 10; batch++) {
      const opened = await Promise.all(Array.from({ length: 100 }, () => Conn.open(file.flora.port)));
      opened.forEach((conn, i) => {
        const kind = ['silent', 'silent', 'silent', 'request line', 'head', 'head', 'head', 'keep-alive', 'keep-alive', 'keep-alive'][i % 10];
        if (kind === 'request line') conn.write('GET /pi');
        if (kind === 'head') conn.write('POST / HTTP/1.1\r\nhost: flora\r\ncontent-');
        if (kind === 'keep-alive') conn.write('GET /ping HTTP/1.1\r\nhost: flora\r\n\r\n');
        conns.push({ kind, conn });
      });
    }
    await Promise.all(conns.filter((c) => c.kind === 'keep-alive').map((c) => c.conn.until(PING)));

    // Ordinary traffic, on both protocols, while all of them are held open.
    const drivers = clients(file.flora.url, file.flora.secret);
    try {
      const work: Promise<void>[] = [];
      for (let i = 0; i < 25; i++) {
        work.push(drivers.h2.query(q.Add(i, 1)).then((v) => assert.equal(v, i + 1)));
        work.push(drivers.h1.query(q.Add(i, 2)).then((v) => assert.equal(v, i + 2)));
        work.push(httpRequest(file.flora.url, { path: '/ping', http2: i % 2 === 0 }).then((r) => assert.equal(r.body, PING)));
      }
      work.push(drivers.h2.ping().then((r) => assert.equal(r, 'Scope write is OK')));
      await Promise.all(work);
    } finally {
      await drivers.close();
    }

    // Then the server closes every idle one: silent ones without a word, unfinished heads with a 408.
    await Promise.all(conns.map((c) => c.conn.closed));
    for (const { kind, conn } of conns) {
      assert.ok(conn.closedByServer, kind);
      if (kind === 'silent') assert.equal(conn.text, '');
      if (kind === 'request line' || kind === 'head') assertFailure(onlyAnswer(conn), 408, TIMED_OUT, kind);
      if (kind === 'keep-alive') assert.deepEqual(conn.answers().map((a) => a.body), [PING]);
    }
    await pingStillWorks();
  });
});

describe('configuration', () => {
  test('--max-header-kb and the GraphQL port take the same limits', LIMIT, async () => {
    const graphqlPort = await freePort();
    const own = await startFlora({
      env: { FLORA_GRAPHQL_PORT: String(graphqlPort), FLORA_BODY_TIMEOUT_MS: String(TIMEOUT_MS) },
      args: ['--max-header-kb', '2'],
    });
    try {
      await Promise.all(
        [own.port, graphqlPort].map(async (port) => {
          const tooLarge = await Conn.open(port);
          tooLarge.write(`GET /ping HTTP/1.1\r\nhost: flora\r\nx-pad: ${'a'.repeat(3 * 1024)}\r\n\r\n`);
          await tooLarge.closed;
          assertFailure(onlyAnswer(tooLarge), 431, HEAD_TOO_LARGE, `port ${port}`);
          const late = await Conn.open(port);
          late.write(`POST /graphql HTTP/1.1\r\nhost: flora\r\nauthorization: Bearer ${own.secret}\r\ncontent-length: 50\r\n\r\n{"query":`);
          await late.closed;
          assertFailure(onlyAnswer(late), 408, TIMED_OUT, `port ${port}`);
        }),
      );
    } finally {
      await own.stop();
    }
  });
});

async function freePort(): Promise<number> {
  const server = net.createServer();
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const { port } = server.address() as net.AddressInfo;
  await new Promise((resolve) => server.close(resolve));
  return port;
}
