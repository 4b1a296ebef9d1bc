// HTTP-level inputs for the fuzz part: bad headers, bad encodings (gzip that is not, charsets, bytes
// that are not UTF-8), bodies cut short, odd methods and paths, and malformed HTTP/1.1 on a raw
// socket. Each is one quick request; slow clients and idle connections live in connections.ts.

import { gzipSync } from 'node:zlib';
import type { Attack } from './attacks';
import type { Rand } from './fuzzFql';

const pick = <T>(rand: Rand, xs: readonly T[]): T => xs[Math.floor(rand() * xs.length)];
const int = (rand: Rand, lo: number, hi: number): number => lo + Math.floor(rand() * (hi - lo + 1));

const QUERY = '{"add":[1,2]}';

const BAD_HEADERS: readonly [string, string][] = [
  ['x-query-timeout', '-1'], ['x-query-timeout', 'abc'], ['x-query-timeout', '1e20'], ['x-query-timeout', '0'], ['x-query-timeout', '99999999999999999999'],
  ['x-last-seen-txn', 'x'], ['x-last-seen-txn', '-1'], ['x-last-seen-txn', '99999999999999999999999'], ['x-last-seen-txn', '1.5'],
  ['x-faunadb-api-version', '1'], ['x-faunadb-api-version', 'abc'], ['x-faunadb-api-version', '99'], ['x-faunadb-api-version', '2.1'], ['x-faunadb-api-version', ''],
  ['x-fauna-tags', 'a=b,c'], ['x-fauna-tags', '=' .repeat(100)], ['x-fauna-tags', 'k=v'.repeat(200)], ['x-fauna-source', '\u00ff'],
  ['x-fauna-driver', 'x'], ['x-format', 'simple'], ['x-typecheck', 'true'], ['x-linearized', 'maybe'], ['x-max-contention-retries', '-5'],
  ['accept-encoding', 'gzip;q=bogus'], ['accept', 'application/x-nope'], ['content-type', 'text/plain; charset=utf-16'],
  ['content-type', 'application/json; charset=nope'], ['content-type', ';;;'], ['traceparent', 'zz'], ['x-request-id', '\t'],
  ['cookie', 'a'.repeat(4000)], ['expect', '100-continue'], ['expect', 'x-nope'], ['connection', 'upgrade'], ['upgrade', 'websocket'],
];

const AUTHS: readonly (string | null)[] = [
  null, '', 'Bearer', 'Bearer ', 'Bearer secret extra', 'Basic', 'Basic !!!', `Basic ${Buffer.from('secret').toString('base64')}`,
  `Basic ${Buffer.from(':').toString('base64')}`, `Basic ${Buffer.from('secret:').toString('base64')}`, 'Bearer fnAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA',
  `Bearer ${'x'.repeat(3000)}`, 'Bearer secret:nodb:admin', 'Bearer secret:fuzz:nope', 'Bearer ey.ey.ey', 'Digest x', 'bearer secret',
  'Bearer secret:@role/nope', 'Bearer secret:@doc/fuzz/1', 'Bearer secret:fuzzdb:server-readonly',
];

const PATHS = [
  '/', '/ping', '/graphql', '/import', '/stream', '/api/v1/logs', '/api/v1/logs/_list', '/tokens/self', '/linearized', '/nope', '/./',
  '/%00', '/..%2f..%2fetc/passwd', `/${'a'.repeat(4000)}`, '/?q=', '/?q=%7B', '/?q=%7B%22add%22%3A%5B1%2C2%5D%7D', '/ping?scope=all', '/ping?scope=%FF',
  '/graphql?query=%7B__typename%7D', '/import?mode=nope', '/api/v1/logs?type=nope', '/collections/fuzz', '/keys/self', '/?q=' + '%5B'.repeat(2000),
];
const METHODS = ['GET', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS', 'HEAD', 'TRACE', 'PROPFIND', 'CONNECTX'];

/** Bodies in encodings the server must refuse or decode cleanly. */
function encoded(rand: Rand): { body: Buffer; headers: Record<string, string> } {
  const json = Buffer.from(QUERY);
  switch (int(rand, 0, 9)) {
    case 0: return { body: Buffer.from('not gzip at all'), headers: { 'content-encoding': 'gzip' } };
    case 1: return { body: gzipSync(json), headers: { 'content-encoding': 'gzip' } };
    case 2: return { body: gzipSync(json).subarray(0, 12), headers: { 'content-encoding': 'gzip' } };
    case 3: return { body: json, headers: { 'content-encoding': pick(rand, ['deflate', 'br', 'zstd', 'identity, gzip', 'x-nope', 'gzip, gzip']) } };
    case 4: return { body: Buffer.from([0xff, 0xfe, 0x7b, 0x00, 0x7d, 0x00]), headers: { 'content-type': 'application/json; charset=utf-16' } };
    case 5: return { body: Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), json]), headers: {} };
    case 6: return { body: Buffer.from('{"concat":["\xe9\xff\xfe", "a"]}', 'latin1'), headers: { 'content-type': 'application/json; charset=latin1' } };
    case 7: return { body: Buffer.from([0x7b, 0x22, 0xc3, 0x28, 0x22, 0x3a, 0x31, 0x7d]), headers: {} };
    case 8: return { body: Buffer.from('{"concat":["\\ud800", "\\udfff\\u0000"]}'), headers: {} };
    default: return { body: gzipBomb(), headers: { 'content-encoding': 'gzip' } };
  }
}

let bomb: Buffer | undefined;
/** 64 MiB of spaces in 64 KiB of gzip, made once. */
function gzipBomb(): Buffer {
  return (bomb ??= gzipSync(Buffer.alloc(64 * 1024 * 1024, 0x20), { level: 9 }));
}

/** Bytes a raw socket sends: HTTP/1.1 that parsers disagree about, or that is not HTTP. */
function malformed(rand: Rand): Buffer {
  const head = (extra: string) => `POST / HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer secret\r\n${extra}`;
  const forms: (() => string | Buffer)[] = [
    () => head('Transfer-Encoding: chunked\r\n\r\nzz\r\n{}\r\n0\r\n\r\n'),
    () => head('Transfer-Encoding: chunked, identity\r\n\r\n2\r\n{}\r\n0\r\n\r\n'),
    () => head('Content-Length: 10\r\nContent-Length: 20\r\n\r\n0123456789'),
    () => head('Content-Length: -1\r\n\r\n'),
    () => head('Content-Length: 1e3\r\n\r\n'),
    () => head(' Content-Length: 2\r\n\r\n{}'),
    () => head('Content-Length : 2\r\n\r\n{}'),
    () => head('X: a\rb\r\nContent-Length: 2\r\n\r\n{}'),
    () => head('X: \u0000\r\nContent-Length: 2\r\n\r\n{}'),
    () => `POST / HTTP/1.1\nHost: x\nContent-Length: 2\n\n{}`,
    () => 'GET /ping HTTP/1.0\r\n\r\n',
    () => 'GET /ping?x=\u00ff HTTP/1.1\r\nHost: x\r\n\r\n',
    () => 'GET http://evil/ping HTTP/1.1\r\nHost: x\r\n\r\n',
    () => 'GET * HTTP/1.1\r\nHost: x\r\n\r\n',
    () => 'GET /ping HTTP/1.1\r\nHost: x\r\n\r\nGET /ping HTTP/1.1\r\nHost: x\r\n\r\nGARBAGE\r\n\r\n',
    () => Buffer.from(Array.from({ length: int(rand, 1, 200) }, () => int(rand, 0, 255))),
    () => '\r\n\r\n\r\n',
  ];
  const out = pick(rand, forms)();
  return typeof out === 'string' ? Buffer.from(out, 'latin1') : out;
}

export function drawHttp(rand: Rand, secret: string): Attack {
  const headers: Record<string, string> = { authorization: `Bearer ${secret}`, 'content-type': 'application/json' };
  const http2 = rand() < 0.4;
  switch (int(rand, 0, 5)) {
    case 0: {
      for (let i = int(rand, 1, 3); i > 0; i--) {
        const [name, value] = pick(rand, BAD_HEADERS);
        headers[name] = value;
      }
      return { kind: 'http-header', http: { method: 'POST', path: '/', headers, body: QUERY, http2 } };
    }
    case 1: {
      const auth = pick(rand, AUTHS);
      if (auth === null) delete headers.authorization;
      else headers.authorization = auth;
      return { kind: 'http-auth', http: { method: pick(rand, ['POST', 'GET']), path: pick(rand, ['/', '/graphql', '/stream', '/api/v1/logs', '/import']), headers, body: QUERY, http2 } };
    }
    case 2: {
      const e = encoded(rand);
      return { kind: 'http-encoding', http: { method: 'POST', path: pick(rand, ['/', '/graphql', '/import']), headers: { ...headers, ...e.headers }, body: e.body, http2 } };
    }
    case 3: {
      // A valid body cut short (its Content-Length says so: the body is complete, its JSON is not).
      const text = pick(rand, ['{"paginate":{"documents":{"collection":"fuzz"}},"size":3}', '{"query":"{ allBooks { data { title } } }"}', QUERY]);
      return { kind: 'http-truncated', http: { method: 'POST', path: text.includes('query') ? '/graphql' : '/', headers, body: text.slice(0, int(rand, 0, text.length - 1)), http2 } };
    }
    case 4: {
      const method = pick(rand, METHODS);
      const withBody = method !== 'GET' && method !== 'HEAD';
      return { kind: 'http-method', http: { method, path: pick(rand, PATHS), headers, body: withBody ? QUERY : undefined, http2 } };
    }
    default:
      return { kind: 'http-raw', raw: { bytes: malformed(rand), holdMs: 0 } };
  }
}
