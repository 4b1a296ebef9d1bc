// Hostile requests for the torture suite: each category is a way a request once froze, crashed or
// bloated a server (this one, or others in the field), with sizes drawn at random. Every request
// must get an answer below 500 in time; none may take the server down or hold its memory.

import { randomExpr } from './fqlFuzz';

export interface HttpAttack {
  method: string;
  path: string;
  headers: Record<string, string>;
  body?: string | Buffer;
  http2?: boolean;
}

export interface Attack {
  /** Category, for the report. */
  kind: string;
  /** A request over HTTP/1.1 or HTTP/2 … */
  http?: HttpAttack;
  /** … or bytes on a fresh TCP connection (malformed HTTP); the connection is held `holdMs` at most. */
  raw?: { bytes: Buffer; holdMs: number };
  /** The FQL expression of an FQL body, for shrinking a failure to its shortest form. */
  fql?: unknown;
}

type Rand = () => number;

const pick = <T>(rand: Rand, xs: readonly T[]): T => xs[Math.floor(rand() * xs.length)];
const int = (rand: Rand, lo: number, hi: number): number => lo + Math.floor(rand() * (hi - lo + 1));
/** Sizes spread over orders of magnitude: 10^lo … 10^hi. */
const size = (rand: Rand, lo: number, hi: number): number => Math.floor(10 ** (lo + rand() * (hi - lo)));

export interface Target {
  secret: string;
  /** Query timeout sent with every FQL request (ms): the server must answer by then. */
  queryTimeoutMs: number;
}

export function fqlAttack(kind: string, t: Target, fql: unknown, opts: { secret?: string | null; http2?: boolean; path?: string } = {}): Attack {
  const headers: Record<string, string> = { 'content-type': 'application/json', 'x-query-timeout': String(t.queryTimeoutMs) };
  const secret = opts.secret === undefined ? t.secret : opts.secret;
  if (secret !== null) headers.authorization = `Bearer ${secret}`;
  return { kind, fql, http: { method: 'POST', path: opts.path ?? '/', headers, body: jsonText(fql), http2: opts.http2 } };
}

export function jsonText(v: unknown): string {
  return JSON.stringify(v, (_k, x) => (typeof x === 'bigint' ? `__big${x}` : x)).replace(/"__big(-?\d+)"/g, '$1');
}

const EVIL_PATTERNS = ['(a+)+$', '(a|aa)+$', '(a|a?)+$', '(.*a){12}', '^(\\w+\\s?)*$', '(x+x+)+y', '((a+)*)*b', '(a*)*$', '(?:a+)+!'];

const doubling = (rand: Rand, expr: (v: unknown) => unknown, initial: unknown): unknown => ({
  reduce: { lambda: ['a', 'x'], expr: expr({ var: 'a' }) },
  initial,
  collection: Array.from({ length: int(rand, 10, 45) }, (_, i) => i),
});

/** FQL that once hurt: regexes, doubling values, huge widths, big strings, deep and wide trees. */
export const FQL_ATTACKS: ((rand: Rand) => unknown)[] = [
  // Catastrophic backtracking (now RE2).
  (r) => ({ containsstrregex: 'a'.repeat(size(r, 1, 4)) + '!', pattern: pick(r, EVIL_PATTERNS) }),
  (r) => ({ findstrregex: 'a'.repeat(size(r, 1, 4)) + 'b', pattern: pick(r, EVIL_PATTERNS) }),
  (r) => ({ replacestrregex: 'ab'.repeat(size(r, 1, 4)), pattern: pick(r, EVIL_PATTERNS), replace: '$0$0' }),
  // Values that double each round.
  (r) => doubling(r, (a) => ({ concat: [a, a] }), 'ab'),
  (r) => doubling(r, (a) => ({ append: a, collection: a }), [1, 2, 3, 4]),
  (r) => doubling(r, (a) => ({ format: '%s%s', values: [a, a] }), 'xy'),
  (r) => doubling(r, (a) => ({ repeat: a, number: 2 }), 'q'),
  (r) => doubling(r, (a) => [a, a], 1),
  (r) => doubling(r, (a) => ({ object: { l: a, r: a } }), 1),
  (r) => doubling(r, (a) => ({ merge: a, with: { to_object: { map: { lambda: 'p', expr: [{ concat: [{ select: [0], from: { var: 'p' } }, { to_string: { var: 'x' } }] }, 1] }, collection: { to_array: a } } } }), { object: { a: 1 } }),
  (r) => doubling(r, (a) => ({ union: [a, { map: { lambda: 'y', expr: [{ var: 'y' }, { var: 'x' }] }, collection: a }] }), [0]),
  // Widths, precisions and multipliers far beyond any value.
  (r) => ({ format: `%${pick(r, ['', '-', '0', ','])}${size(r, 2, 12)}${pick(r, ['d', 's', 'x', 'f', 'e', 'b', 'o', 'S'])}`, values: [pick(r, [1, 'x', 1.5, true, null])] }),
  (r) => ({ format: `%.${size(r, 2, 11)}f`, values: [1.5] }),
  (r) => ({ format: `%${size(r, 1, 4)}$s %<s %n %%`, values: [1] }),
  (r) => ({ repeat: 'x'.repeat(size(r, 0, 5)), number: size(r, 0, 10) }),
  (r) => ({ space: size(r, 0, 12) }),
  (r) => ({ ngram: 'abcdefghij'.repeat(size(r, 1, 4)), min: size(r, 0, 6), max: size(r, 0, 6) }),
  // String functions on large inputs (a super-linear one would take minutes).
  (r) => ({ [pick(r, ['titlecase', 'lowercase', 'uppercase', 'trim', 'ltrim', 'rtrim', 'length', 'casefold'])]: pick(r, ['word ', ' ', 'é ', 'a\u0301 ', 'ǆ ', '\t\n']).repeat(size(r, 2, 5.3)) + 'x' }),
  (r) => ({ replacestr: 'a'.repeat(size(r, 1, 5)), find: pick(r, ['a', '', 'aa']), replace: 'b'.repeat(size(r, 0, 4)) }),
  (r) => ({ findstr: 'a'.repeat(size(r, 1, 6)) + 'b', find: 'a'.repeat(size(r, 0, 3)) + 'b' }),
  (r) => ({ substring: 'x'.repeat(size(r, 1, 6)), start: int(r, -5, 5), length: size(r, 0, 12) }),
  (r) => ({ concat: Array.from({ length: size(r, 1, 4) }, () => 'y'.repeat(size(r, 0, 4))), separator: 'z'.repeat(size(r, 0, 4)) }),
  // Collections: long folds, merges, selections.
  (r) => ({ [pick(r, ['sum', 'count', 'mean', 'max', 'min', 'any', 'all', 'distinct', 'reverse'])]: Array.from({ length: size(r, 2, 6) }, (_, i) => (pick(r, ['any', 'all']) ? i % 2 === 0 : i)) }),
  (r) => ({ union: [Array.from({ length: size(r, 2, 5.5) }, (_, i) => i), Array.from({ length: size(r, 2, 5.5) }, (_, i) => -i)] }),
  (r) => ({ take: size(r, 0, 12), collection: Array.from({ length: size(r, 1, 5) }, (_, i) => i) }),
  (r) => ({ select_all: ['a'], from: Array.from({ length: size(r, 1, 5) }, () => ({ object: { a: 1 } })) }),
  (r) => ({ map: { lambda: 'x', expr: { map: { lambda: 'y', expr: [{ var: 'x' }, { var: 'y' }] }, collection: { var: 'big' } } }, collection: { var: 'big' } }),
  // Reads: pages at the limit and beyond it, events, native sets.
  (r) => ({ paginate: { documents: { collection: 'torture' } }, size: pick(r, [1, 64, 1000, 100000, 100001, -1, 0]) }),
  (r) => ({ paginate: { match: { index: 'torture_by_n' } }, size: pick(r, [10, 100000]), events: r() < 0.5 }),
  (r) => ({ map: { lambda: 'r', expr: { get: { var: 'r' } } }, collection: { paginate: { documents: { collection: 'torture' } }, size: size(r, 1, 5) } }),
  () => ({ count: { documents: { collection: 'torture' } } }),
  // Calls: recursion to the stack limit, lambdas applied many times.
  (r) => ({ call: { function: 'torture_recurse' }, arguments: size(r, 1, 4) }),
  (r) => ({ foreach: { lambda: 'x', expr: { add: [{ var: 'x' }, 1] } }, collection: Array.from({ length: size(r, 2, 5.9) }, () => 1) }),
  // Trees: deep, wide, and deep through lets and lambdas.
  (r) => nest(int(r, 10, 1200), (e) => ({ add: [e, 1] }), 1),
  (r) => nest(int(r, 10, 1200), (e) => [e], 1),
  (r) => nest(int(r, 10, 1200), (e) => ({ let: { x: e }, in: { var: 'x' } }), 1),
  (r) => nest(int(r, 10, 300), (e) => ({ call: { query: { lambda: 'x', expr: e } }, arguments: 1 }), { var: 'x' }),
  (r) => ({ do: Array.from({ length: size(r, 2, 5) }, () => ({ add: [1, 2] })) }),
  (r) => Array.from({ length: size(r, 3, 6) }, () => pick(r, [1, 'x', null, 1.5, { object: { a: 1 } }, { '@ts': '2020-01-01T00:00:00Z' }])),
  // Writes: versions and transactions over Fauna's limits.
  (r) => ({ create: { collection: 'torture' }, params: { object: { data: { object: { n: int(r, 0, 9), s: { repeat: 'x'.repeat(size(r, 0, 4)), number: size(r, 0, 3) } } } } } }),
  (r) => ({ foreach: { lambda: 'i', expr: { create: { collection: 'torture' }, params: { object: { data: { object: { n: { var: 'i' } } } } } } }, collection: Array.from({ length: size(r, 0, 3.5) }, (_, i) => i % 10) }),
];

/** `f` applied `depth` times around `leaf`. */
function nest(depth: number, f: (e: unknown) => unknown, leaf: unknown): unknown {
  let e = leaf;
  for (let i = 0; i < depth; i++) e = f(e);
  return e;
}

const GRAPHQL_QUERIES: ((rand: Rand) => string)[] = [
  (r) => `{ ${'a '.repeat(size(r, 1, 4.5))} }`,
  (r) => `{ ${'x: a '.repeat(size(r, 1, 3.5))} }`,
  (r) => '{ a'.repeat(int(r, 10, 3000)) + ' }'.repeat(int(r, 10, 3000)),
  (r) => `query { findThingByID(id: "${'1'.repeat(size(r, 0, 5))}") { _id } }`,
  (r) => `fragment F on Query { ...F } { ...F ${'...F '.repeat(size(r, 0, 3))}}`,
  (r) => `{ __schema { types { fields { type { ofType { ofType { ofType { name } } } } } } } ${'__typename '.repeat(size(r, 0, 4))}}`,
  (r) => `mutation { ${Array.from({ length: size(r, 0, 2.5) }, (_, i) => `m${i}: createThing(data: { name: "${'n'.repeat(size(r, 0, 4))}" }) { _id }`).join(' ')} }`,
  (r) => String.fromCharCode(...Array.from({ length: size(r, 1, 4) }, () => int(r, 0, 0x2fff))),
];

/** One hostile request, drawn with `rand`. */
export function drawAttack(rand: Rand, t: Target): Attack {
  const roll = rand();
  if (roll < 0.45) {
    const fql = pick(rand, FQL_ATTACKS)(rand);
    const wrapped = JSON.stringify(fql).includes('"big"') ? { let: { big: Array.from({ length: size(rand, 1, 3.3) }, (_, i) => i) }, in: fql } : fql;
    return fqlAttack('fql-hostile', t, wrapped, { http2: rand() < 0.5 });
  }
  if (roll < 0.6) return fqlAttack('fql-random', t, randomExpr(rand, int(rand, 1, 6), ['torture', 'torture_by_n', { collection: 'torture' }]), { http2: rand() < 0.5 });
  if (roll < 0.68) {
    // Large bodies, without a secret or with a wrong one: refused before they are read.
    const n = size(rand, 3, 6.3);
    const secret = pick(rand, [null, 'wrong', 'fnAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA']);
    return fqlAttack('unauthenticated', t, { add: Array.from({ length: n }, () => 1) }, { secret, http2: rand() < 0.5, path: pick(rand, ['/', '/stream']) });
  }
  if (roll < 0.8) {
    const query = pick(rand, GRAPHQL_QUERIES)(rand);
    const secret = pick(rand, [t.secret, t.secret, 'wrong', null]);
    const headers: Record<string, string> = { 'content-type': 'application/json' };
    if (secret !== null) headers.authorization = `Bearer ${secret}`;
    const body = rand() < 0.9 ? JSON.stringify({ query }) : query.slice(0, Math.floor(query.length / 2));
    return { kind: 'graphql', http: { method: 'POST', path: '/graphql', headers, body, http2: rand() < 0.3 } };
  }
  if (roll < 0.83) {
    const sdl = rand() < 0.5 ? 'type T { a: ' + 'String '.repeat(size(rand, 0, 4)) : `type Thing { name: String ${'x: Int '.repeat(size(rand, 0, 2))}}`;
    return { kind: 'import', http: { method: 'POST', path: '/import', headers: { authorization: `Bearer ${pick(rand, ['wrong', 'wrong', t.secret])}` }, body: sdl } };
  }
  if (roll < 0.86) {
    const body = pick(rand, ['{', '[]', '{"time_start": 1}', JSON.stringify({ region_group: 'us-std', time_start: 'x'.repeat(size(rand, 0, 5)) })]);
    return { kind: 'log-export', http: { method: 'POST', path: pick(rand, ['/api/v1/logs?type=query', '/api/v1/logs/_list?type=query']), headers: { authorization: `Bearer ${pick(rand, [t.secret, 'wrong'])}` }, body } };
  }
  return { kind: 'malformed-http', raw: { bytes: malformedHttp(rand), holdMs: rand() < 0.2 ? int(rand, 100, 2000) : 0 } };
}

/** Requests that break HTTP/1.1 in ways parsers disagree about. */
function malformedHttp(rand: Rand): Buffer {
  const head = (extra: string) => `POST / HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer secret\r\n${extra}`;
  const forms: (() => string | Buffer)[] = [
    () => head('Transfer-Encoding: chunked\r\n\r\nzz\r\n{}\r\n0\r\n\r\n'),
    () => head('Transfer-Encoding: chunked\r\n\r\nffffffffffffffffff\r\n{}\r\n0\r\n\r\n'),
    () => head('Transfer-Encoding: chunked\r\n\r\n2\r\n{}0\r\n\r\n'),
    () => head('Content-Length: 10\r\nContent-Length: 20\r\n\r\n0123456789'),
    () => head('Content-Length: 5\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\r\n'),
    () => head('Content-Length: abc\r\n\r\n'),
    () => head(`X-Big: ${'h'.repeat(size(rand, 3, 5.3))}\r\n\r\n`),
    () => head('Content-Length: 100\r\n\r\n{"add":'),
    () => 'GET /ping HTTP/1.1\r\n' + 'X: y\r\n'.repeat(size(rand, 1, 4)) + '\r\n',
    () => 'PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n' + 'garbage'.repeat(size(rand, 0, 3)),
    () => Buffer.from(Array.from({ length: size(rand, 0, 4) }, () => int(rand, 0, 255))),
    () => `${'A'.repeat(size(rand, 0, 5))} / HTTP/1.1\r\n\r\n`,
    () => 'GET / HTTP/9.9\r\n\r\n',
    () => 'GET /\r\n\r\n',
  ];
  const out = pick(rand, forms)();
  return typeof out === 'string' ? Buffer.from(out, 'latin1') : out;
}

/** Setup the FQL attacks expect: a collection with documents, an index, a recursive function. */
export const SETUP: unknown[] = [
  { create_collection: { object: { name: 'torture' } } },
  { create_index: { object: { name: 'torture_by_n', source: { collection: 'torture' }, terms: [{ object: { field: ['data', 'n'] } }], values: [{ object: { field: ['ref'] } }] } } },
  {
    create_function: {
      object: {
        name: 'torture_recurse',
        body: { '@query': { lambda: 'n', expr: { if: { lte: [{ var: 'n' }, 0] }, then: 0, else: { call: { function: 'torture_recurse' }, arguments: { subtract: [{ var: 'n' }, 1] } } } } },
      },
    },
  },
  { foreach: { lambda: 'i', expr: { create: { collection: 'torture' }, params: { object: { data: { object: { n: { modulo: [{ var: 'i' }, 10] } } } } } } }, collection: Array.from({ length: 2000 }, (_, i) => i) },
];
