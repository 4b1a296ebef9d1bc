// Issue 30, first row: request bodies are charged to the shared memory as their bytes arrive, within
// a share per connection, secret and client address, and a body that trickles below the minimum rate
// is cut off with 408. The attack itself (torture/targeted/h2Reserve.ts) runs at its test size; the
// exact answers are asserted on a server with a short grace and a small connection share.

import { before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import * as http2 from 'node:http2';
import * as net from 'node:net';
import { once } from 'node:events';
import { h2Reserve, fullBody, DECLARED } from '../../torture/targeted/h2Reserve';
import { whilePinging } from '../../torture/targeted/pingWatch';
import { BODY_RATE_CHECK_MS } from '../../src/server/bodyRate';
import { h2Answer, makeKey, serverForFile, timedPost, waitFor, type RawResponse } from '../helpers/server';

const LIMIT = { timeout: 120_000 };
const TIMED_OUT = '{"error":"request timeout: Client timed out."}';
const BUSY = { errors: [{ code: 'too many requests', description: 'Too many pending requests' }] };
const GRACE_MS = 2_000;
/** A trickle is cut after the grace and within one check more, give or take a noisy machine. */
const CUT_BY_MS = GRACE_MS + BODY_RATE_CHECK_MS + 3_000;
const MB = 1024 * 1024;

test('the h2-reserve attack: other clients are never refused, /ping stays prompt, every trickle is cut with 408', LIMIT, async () => {
  const result = await h2Reserve.run({ size: 'test', log: () => undefined });
  assert.equal(result.violations, 0, `${JSON.stringify(result.figures)}\n${result.details.join('\n')}`);
  assert.equal(result.figures['others refused'], '0');
  assert.equal(result.figures['slow pings'], '0');
});

describe('the answers', () => {
  const server = serverForFile({
    env: {
      FLORA_BODY_RATE_GRACE_MS: String(GRACE_MS),
      FLORA_BODY_MEMORY_CONNECTION_MB: '16',
      FLORA_BODY_MEMORY_SECRET_MB: '24',
      FLORA_LOG_QUERIES: 'false',
    },
  });
  let clientKey = '';
  before(async () => {
    clientKey = await makeKey(server.flora, 'client');
  });

  test('HTTP/2: a body below the minimum rate is cut with 408 on its stream, on / and /graphql alike; the session goes on and /ping stays prompt', LIMIT, async () => {
    const session = http2.connect(server.flora.url);
    session.on('error', () => undefined);
    try {
      let took = 0;
      const { value: answers, ping } = await whilePinging(server.flora.url, async () => {
        const started = Date.now();
        const answers = await Promise.all(['/', '/graphql'].map((path) => h2Trickle(session, path, clientKey)));
        took = Date.now() - started;
        return answers;
      }, 'test');
      for (const a of answers) {
        assert.equal(a.status, 408);
        assert.equal(a.body, TIMED_OUT);
        assert.equal(a.headers['content-type'], 'application/json;charset=utf-8');
      }
      assert.ok(took >= GRACE_MS - 100 && took <= CUT_BY_MS, `cut after ${took} ms`);
      assert.equal(ping.slow, 0, `ping max ${ping.maxMs.toFixed(0)} ms`);
      const next = await h2Post(session, '/', clientKey, '{"add":[1,2]}');
      assert.equal(next.status, 200);
      assert.equal(next.body, '{"resource":3}');
    } finally {
      session.destroy();
    }
  });

  test('HTTP/1.1: a body below the minimum rate is cut with 408, then the connection is closed', LIMIT, async () => {
    const socket = net.connect(server.flora.port, '127.0.0.1');
    let text = '';
    socket.setEncoding('utf8');
    socket.on('data', (d: string) => (text += d));
    socket.on('error', () => undefined);
    const started = Date.now();
    socket.write(`POST / HTTP/1.1\r\nhost: flora\r\nauthorization: Bearer ${clientKey}\r\ncontent-length: 100000\r\n\r\n{`);
    // A byte a second: the average falls below 240 B/s at once.
    const drip = setInterval(() => socket.destroyed || socket.write(' '), 1_000);
    try {
      await once(socket, 'close');
    } finally {
      clearInterval(drip);
    }
    const took = Date.now() - started;
    assert.match(text, /^HTTP\/1\.1 408 Request Timeout\r\n/);
    assert.match(text, /\r\nconnection: close\r\n/i);
    assert.ok(text.endsWith(`\r\n\r\n${TIMED_OUT}`), text);
    assert.ok(took >= GRACE_MS - 100 && took <= CUT_BY_MS, `cut after ${took} ms`);
  });

  test('a connection past its share gets 429 with Retry-After for its own bodies only; root and the same key elsewhere are served', LIMIT, async () => {
    const session = http2.connect(server.flora.url, { maxSessionMemory: 1 << 20 });
    session.on('error', () => undefined);
    try {
      // Three bodies of all but one byte of 8 MiB on one connection: a 16 MiB share holds two.
      const streams = [0, 1, 2].map(() => {
        const stream = session.request(postHeaders(clientKey, { 'content-length': String(DECLARED) }), { endStream: false });
        stream.write(Buffer.alloc(DECLARED - 1, 0x20));
        return { stream, answer: h2Answer(stream) };
      });
      const refused = await Promise.race(streams.map((s) => s.answer));
      assert.equal(refused.status, 429);
      assert.equal(refused.headers['retry-after'], '1');
      assert.deepEqual(JSON.parse(refused.body), BUSY);
      // The two held bodies hold only their connection's share: others are served, a full body too.
      for (const overH2 of [true, false]) {
        const root = await timedPost(server.flora.url, server.flora.secret, { http2: overH2 });
        assert.equal(root.status, 200, root.body);
        const sameKey = await timedPost(server.flora.url, clientKey, { body: fullBody(), http2: overH2 });
        assert.equal(sameKey.status, 200, sameKey.body);
        assert.equal(sameKey.body, '{"resource":3}');
      }
      // The client resets its held streams: what they held is given back, and the connection's share is whole again.
      for (const s of streams) if (!s.stream.closed) s.stream.close(http2.constants.NGHTTP2_CANCEL);
      await waitFor('a full body served on the same connection', async () => (await h2Post(session, '/', clientKey, fullBody())).status === 200, 10_000);
      const two = await Promise.all([h2Post(session, '/', clientKey, fullBody()), h2Post(session, '/', clientKey, fullBody())]);
      assert.deepEqual(two.map((a) => a.status), [200, 200]);
    } finally {
      session.destroy();
    }
  });

  test('a full 8 MiB body is served over HTTP/1.1 and HTTP/2', LIMIT, async () => {
    for (const overH2 of [false, true]) {
      const a = await timedPost(server.flora.url, clientKey, { body: fullBody(), http2: overH2 });
      assert.equal(a.status, 200, a.body);
      assert.equal(a.body, '{"resource":3}');
    }
  });

  test('a body over 8 MiB is still 413, declared or not (its size is checked before its share)', LIMIT, async () => {
    const a = await timedPost(server.flora.url, clientKey, { body: Buffer.alloc(DECLARED + MB, 0x20), http2: true });
    assert.equal(a.status, 413);
    const session = http2.connect(server.flora.url, { maxSessionMemory: 1 << 20 });
    session.on('error', () => undefined);
    try {
      const stream = session.request(postHeaders(clientKey), { endStream: false });
      stream.write(Buffer.alloc(DECLARED + MB, 0x20));
      assert.equal((await h2Answer(stream)).status, 413);
    } finally {
      session.destroy();
    }
  });

  test('nothing is left charged: after the trickles, refusals, resets and 413s above, the key holds exactly its 24 MiB share', LIMIT, async () => {
    const sessions = [0, 1, 2, 3].map(() => {
      const session = http2.connect(server.flora.url, { maxSessionMemory: 1 << 20 });
      session.on('error', () => undefined);
      return session;
    });
    try {
      // Three bodies of exactly 8 MiB, undeclared and never ended, one per connection: 24 MiB held.
      let answered = 0;
      for (const session of sessions.slice(0, 3)) {
        const stream = session.request(postHeaders(clientKey), { endStream: false });
        stream.write(Buffer.alloc(DECLARED, 0x20));
        void h2Answer(stream).then(() => answered++, () => answered++);
      }
      // Once the server holds all three, one byte more of the key is past its share.
      await waitFor('the share full', async () => (await h2Post(sessions[3], '/', clientKey, '1')).status === 429, 30_000);
      // A byte left charged by any earlier body would have refused one of the three instead.
      assert.equal(answered, 0);
    } finally {
      for (const session of sessions) session.destroy();
    }
  });
});

function postHeaders(secret: string, extra: Record<string, string> = {}): http2.OutgoingHttpHeaders {
  return { ':method': 'POST', ':path': '/', authorization: `Bearer ${secret}`, 'content-type': 'application/json', ...extra };
}

/** A body that declares 100,000 bytes and sends one. */
function h2Trickle(session: http2.ClientHttp2Session, path: string, secret: string): Promise<RawResponse> {
  const stream = session.request({ ...postHeaders(secret, { 'content-length': '100000' }), ':path': path }, { endStream: false });
  stream.write('{');
  return h2Answer(stream);
}

function h2Post(session: http2.ClientHttp2Session, path: string, secret: string, body: string | Buffer): Promise<RawResponse> {
  const stream = session.request({ ...postHeaders(secret), ':path': path });
  stream.end(body);
  return h2Answer(stream);
}
