// Grammar-aware FQL v4 inputs for the fuzz part: every form of src/wire/builders.ts FORMS called with
// missing and extra keys and with a wrong type in each argument; numbers at and past the edges of
// 64-bit integers and doubles; bad escapes (@bytes, @date, @ts, @ref, @set, @query, @obj); deep
// trees; giant strings; Lets that refer to themselves or to later bindings; Map/Repeat that run away
// until the query's budget stops them; page sizes at the limits; and mutations of valid queries.
// Most inputs are small, so many go through per second; the heavy kinds are drawn rarely.

import { FORMS } from '../src/wire/builders';
import { randomExpr } from './fqlFuzz';
import { CORPUS } from './fqlCorpus';
import { Raw } from './wireText';

export type Rand = () => number;

const pick = <T>(rand: Rand, xs: readonly T[]): T => xs[Math.floor(rand() * xs.length)];
const int = (rand: Rand, lo: number, hi: number): number => lo + Math.floor(rand() * (hi - lo + 1));

const HEADS = [...FORMS.keys()];
const ARG_KEYS = [...new Set([...FORMS.values()].flatMap((s) => [...s.required, ...s.optional]))];

const COLL = { collection: 'fuzz' };
const DOC = { ref: COLL, id: '1' };
const LAMBDA = { lambda: 'x', expr: { var: 'x' } };

/** Numbers past the edges: JSON tokens, some of which no double or 64-bit integer holds exactly. */
export const NUMBER_TOKENS: readonly Raw[] = [
  '1e308', '-1e308', '1e309', '-1e309', '1E400', '-0', '-0.0', '0.0', '0e0', '9223372036854775807', '9223372036854775808',
  '-9223372036854775808', '-9223372036854775809', '18446744073709551616', '123456789012345678901234567890',
  '4.9e-324', '1e-400', '2.2250738585072014e-308', '1.7976931348623157e308', '0.30000000000000004', '1.0',
  '-1', '2147483648', '-2147483649', '9007199254740993', '1e-7', '100000', '100001', '1024', '1025',
].map((t) => new Raw(t));

const NUMBER_STRINGS = ['NaN', 'Infinity', '-Infinity', '1e999', '0x10', '1_000', ' 1', '1 ', '', '+1', '-', '.5', '5.', '1e', '٣'];

/** A value of some type, for an argument of another. */
export const WRONG_TYPES: readonly unknown[] = [
  null, true, false, 0, -1, 1.5, '', 'x', 'fuzz', [], [1, 'a'], [[]], { object: {} }, { object: { a: 1 } },
  { '@ref': { id: 'fuzz', collection: { '@ref': { id: 'collections' } } } }, { '@ts': '2020-01-01T00:00:00Z' },
  { '@date': '2020-01-01' }, { '@bytes': 'AQID' }, { '@query': LAMBDA }, LAMBDA, { var: 'unbound' }, { now: null },
  COLL, { documents: COLL }, { match: { index: 'fuzz_by_n' }, terms: 1 }, DOC, { new_id: null }, { index: 'fuzz_by_n' },
  { function: 'fuzz_echo' }, { database: 'nope' }, { '@set': { documents: COLL } }, { '@uuid': '00000000-0000-0000-0000-000000000000' },
  { object: { data: { object: { n: 1 } } } }, new Raw('1e309'), new Raw('-0'), new Raw('9223372036854775808'),
];

/** Escapes that must be refused with `Invalid …` (or decoded). */
export const BAD_ESCAPES: readonly unknown[] = [
  ...['', '!!!', 'AQI', 'A', '====', 'AQID====', 'é', 'A Q I D', '-_-_', 'AQID\n'].map((b) => ({ '@bytes': b })),
  ...['2020-13-01', '2020-02-30', '2021-02-29', '0000-01-01', '-0001-01-01', '+10000-01-01', '99999-01-01', '2020-1-1', '', 'x', '2020-01-01T00:00:00Z'].map((d) => ({ '@date': d })),
  ...[
    '2020-01-01T25:00:00Z', '2020-01-01T00:00:00', '2020-01-01T00:00:60Z', '+275760-09-13T00:00:00.000Z', '-271821-04-20T00:00:00Z',
    '1970-01-01T00:00:00.0000000001Z', '9999-12-31T23:59:59.999999999Z', '0001-01-01T00:00:00Z', '0000-01-01T00:00:00Z',
    '2020-01-01T00:00:00+25:00', '2020-01-01t00:00:00z', '', 'now', '2020-01-01',
  ].map((t) => ({ '@ts': t })),
  ...[
    '', '/', 'collections', 'collections/', 'collections//1', 'databases/self', 'keys/self', 'a/b/c/d/e/f', `collections/fuzz/${'9'.repeat(30)}`,
    'classes/fuzz/-1', 'indexes/fuzz_by_n/x', 'credentials/self', 'tokens/self',
  ].map((r) => ({ '@ref': r })),
  ...[
    { id: null }, { id: 'x' }, { collection: 'x' }, { id: '1', collection: { '@ref': { id: 'nope', collection: { '@ref': { id: 'collections' } } } } },
    { id: '1', collection: { '@ref': { id: 'collections' } }, database: { '@ref': { id: 'nope', collection: { '@ref': { id: 'databases' } } } } },
    { id: 1 }, { id: '' }, { id: 'fuzz', collection: { '@ref': { id: 'fuzz' } } }, { id: 'x', collection: 'collections' },
  ].map((r) => ({ '@ref': r })),
  { '@ref': 1 }, { '@ref': [] }, { '@ref': null }, { '@ref': { '@ref': 'collections/fuzz' } },
  ...[null, 1, 'x', {}, { documents: 1 }, { match: 'x' }, { union: [] }, { a: 1 }, { documents: { '@ref': 'collections/nope' } }, { singleton: null }].map((s) => ({ '@set': s })),
  ...[null, 1, {}, { lambda: 1 }, { lambda: 'x' }, { lambda: 'x', expr: { var: 'y' } }, { lambda: [], expr: 1 }, { lambda: ['x', 'x'], expr: 1 }, { expr: 1 }].map((q) => ({ '@query': q })),
  ...[null, 1, [], 'x', { a: { '@ts': 'bad' } }].map((o) => ({ '@obj': o })),
  ...['x', 1, '00000000-0000-0000-0000-00000000000g'].map((u) => ({ '@uuid': u })),
  { '@ts': '2020-01-01T00:00:00Z', '@date': '2020-01-01' }, { '@ref': 'collections/fuzz', id: 1 }, { '@foo': 1 }, { '@': null },
];

/** A plausible value for an argument named `key`, so a wrong one elsewhere is what the server sees. */
function validFor(rand: Rand, head: string, key: string): unknown {
  const spec = FORMS.get(head);
  if (spec?.lambdaArg === key) return head === 'reduce' || head === 'merge' ? { lambda: ['a', 'b'], expr: { var: 'b' } } : LAMBDA;
  switch (key) {
    case 'collection': return head === 'collection' || head === 'is_collection' ? 'fuzz' : [1, 2, 3];
    case 'index': return 'fuzz_by_n';
    case 'function': return 'fuzz_echo';
    case 'terms': return 1;
    case 'params': return { object: { data: { object: { n: int(rand, 0, 9) } } } };
    case 'ts': return { '@ts': '2020-01-01T00:00:00Z' };
    case 'unit': return pick(rand, ['second', 'day', 'millisecond', 'nanoseconds']);
    case 'pattern': return 'a+';
    case 'size': return 10;
    case 'from': return head === 'range' ? [1] : { object: { a: 1 } };
    case 'to': return [5];
    case 'in': return head === 'let' ? { var: 'x' } : { object: { a: 1 } };
    case 'id': return '1';
    case 'expr': return 1;
    case 'action': return 'create';
    case 'with': return head === 'join' ? { index: 'fuzz_by_n' } : { object: { b: 2 } };
    case 'arguments': return [1];
    case 'number': return 3;
    case 'values': return [1];
    case 'then': return 1;
    case 'else': return 2;
    case 'let': return { x: 1 };
    case 'object': return { a: 1 };
    case 'var': return 'x';
  }
  if (key === head) {
    if (/^(add|subtract|multiply|divide|modulo|max|min|bit\w+|lt|lte|gt|gte|hypot|pow|equals|and|or)$/.test(head)) return [1, 2];
    if (/^(do|union|intersection|difference|sum|mean|count|any|all|distinct|reverse|first|last|is_empty|is_nonempty|concat|to_object)$/.test(head)) return [1, 2];
    if (/^(time|to_time|to_date|date|epoch|time_\w+|to_\w+|day_\w+|hour|minute|second|month|year)$/.test(head)) return { now: null };
    if (/^(get|exists|delete|update|replace|create|insert|remove|singleton|events)$/.test(head)) return DOC;
    if (/^create_/.test(head)) return { object: { name: `fuzz_${int(rand, 0, 99)}` } };
    if (/^(documents|paginate|select|select_all|take|drop|append|prepend)$/.test(head)) return COLL;
    if (/^(abs|ceil|floor|round|trunc|sign|sqrt|acos|asin|atan|cos|cosh|degrees|exp|ln|log|radians|sin|sinh|tan|tanh|bitnot|space)$/.test(head)) return 0.5;
    return 'fuzz';
  }
  return pick(rand, WRONG_TYPES);
}

/** A call of `head` with its required keys (and some optional ones) holding plausible values. */
function wellFormed(rand: Rand, head: string): Record<string, unknown> {
  const spec = FORMS.get(head)!;
  const out: Record<string, unknown> = {};
  for (const key of [head, ...spec.required, ...spec.optional.filter(() => rand() < 0.3)]) {
    if (spec.exclusive?.includes(key) && spec.exclusive.some((k) => k in out)) continue;
    out[key] = validFor(rand, head, key);
  }
  return out;
}

/** Missing, extra or foreign keys: every key set a form does not accept. */
function wrongArity(rand: Rand): unknown {
  const head = pick(rand, HEADS);
  const call = wellFormed(rand, head);
  const spec = FORMS.get(head)!;
  switch (int(rand, 0, 4)) {
    case 0: // a required key missing (or the head itself)
      delete call[pick(rand, spec.required.length ? spec.required : [head])];
      break;
    case 1: // a key no form of this head takes
      call[pick(rand, ARG_KEYS.filter((k) => !spec.allowed.has(k)))] = pick(rand, WRONG_TYPES);
      break;
    case 2: // two heads
      call[pick(rand, HEADS)] = validFor(rand, head, head);
      break;
    case 3: // every optional key at once, exclusive ones too
      for (const k of spec.optional) call[k] = validFor(rand, head, k);
      break;
    default: // the arguments as a list, or the call as a string
      return rand() < 0.5 ? { [head]: Object.values(call) } : { [head]: head };
  }
  return call;
}

/** Every key present, one argument of the wrong type. */
function wrongType(rand: Rand): unknown {
  const head = pick(rand, HEADS);
  const call = wellFormed(rand, head);
  const key = pick(rand, Object.keys(call));
  const pool = rand() < 0.2 ? BAD_ESCAPES : rand() < 0.2 ? NUMBER_TOKENS : WRONG_TYPES;
  call[key] = rand() < 0.1 ? randomExpr(rand, 2) : pick(rand, pool);
  return call;
}

const NUMERIC_HEADS = [
  'add', 'subtract', 'multiply', 'divide', 'modulo', 'pow', 'abs', 'sqrt', 'bitand', 'bitor', 'bitxor', 'bitnot', 'max', 'min',
  'ceil', 'floor', 'sign', 'exp', 'ln', 'log', 'hypot', 'to_integer', 'to_double', 'to_string', 'sum', 'mean', 'lt', 'gte', 'equals',
];

/** Arithmetic and counts on numbers past the edges, and numeric strings that are not numbers. */
function edgeNumbers(rand: Rand): unknown {
  const n = () => (rand() < 0.8 ? pick(rand, NUMBER_TOKENS) : pick(rand, [0, 1, -1, 2, 0.5]));
  const forms: (() => unknown)[] = [
    () => ({ [pick(rand, NUMERIC_HEADS)]: rand() < 0.6 ? [n(), n()] : n() }),
    () => ({ round: n(), precision: n() }),
    () => ({ trunc: n(), precision: n() }),
    () => ({ pow: n(), exp: n() }),
    () => ({ to_number: pick(rand, NUMBER_STRINGS) }),
    () => ({ to_integer: pick(rand, NUMBER_STRINGS) }),
    () => ({ to_double: pick(rand, NUMBER_STRINGS) }),
    () => ({ take: n(), collection: [1, 2, 3] }),
    () => ({ drop: n(), collection: [1, 2, 3] }),
    () => ({ repeat: 'ab', number: n() }),
    () => ({ space: n() }),
    () => ({ substring: 'abcdef', start: n(), length: n() }),
    () => ({ findstr: 'abcabc', find: 'c', start: n() }),
    () => ({ ngram: 'abcdef', min: n(), max: n() }),
    () => ({ format: pick(rand, ['%d', '%x', '%f', '%.3e', '%s', '%,d', '%o', '%b']), values: [n()] }),
    () => ({ epoch: n(), unit: pick(rand, ['second', 'millisecond', 'microsecond', 'nanosecond', 'day']) }),
    () => ({ time_add: { now: null }, offset: n(), unit: pick(rand, ['day', 'hours', 'nanoseconds', 'minute']) }),
    () => ({ time_diff: { epoch: n(), unit: 'second' }, other: { now: null }, unit: 'nanoseconds' }),
    () => ({ select: [n()], from: [1, 2, 3] }),
    () => ({ range: { match: { index: 'fuzz_by_n_value' } }, from: [n()], to: [n()] }),
    () => ({ create: COLL, params: { object: { data: { object: { n: n() } } } } }),
    () => ({ get: { ref: COLL, id: pick(rand, ['-1', '0', '9223372036854775807', '9223372036854775808', '1e3', 'x', '00001', '']) } }),
    () => ({ paginate: { documents: COLL }, ts: n() }),
    () => ({ at: n(), expr: { count: { documents: COLL } } }),
    () => ({ to_time: n() }),
    () => ({ to_string: n() }),
    () => n(),
    () => [n(), n(), n()],
    () => ({ object: { a: n() } }),
  ];
  return pick(rand, forms)();
}

/** A bad escape where a value goes: alone, in an argument, inside an object or array. */
function badEscape(rand: Rand): unknown {
  const bad = pick(rand, BAD_ESCAPES);
  switch (int(rand, 0, 5)) {
    case 0: return bad;
    case 1: return [1, bad];
    case 2: return { object: { a: bad } };
    case 3: return { get: bad };
    case 4: return { let: { x: bad }, in: { var: 'x' } };
    default: {
      const call = wellFormed(rand, pick(rand, HEADS));
      call[pick(rand, Object.keys(call))] = bad;
      return call;
    }
  }
}

/** Depth at, just past and far past the 1000-level nesting limit. */
const DEPTHS = [10, 200, 500, 998, 999, 1000, 1001, 1002, 1500, 5000, 30_000];

function nest(depth: number, f: (e: unknown) => unknown, leaf: unknown): unknown {
  let e = leaf;
  for (let i = 0; i < depth; i++) e = f(e);
  return e;
}

function deepTree(rand: Rand): unknown {
  const depth = pick(rand, DEPTHS);
  const shapes: ((e: unknown) => unknown)[] = [
    (e) => [e],
    (e) => ({ object: { a: e } }),
    (e) => ({ add: [e, 1] }),
    (e) => ({ let: { x: e }, in: { var: 'x' } }),
    (e) => ({ if: true, then: e, else: 0 }),
    (e) => ({ do: [e] }),
    (e) => ({ select: ['a'], from: { object: { a: e } } }),
    (e) => ({ map: { lambda: 'x', expr: e }, collection: [1] }),
    (e) => ({ call: { query: { lambda: 'x', expr: e } }, arguments: 1 }),
    (e) => ({ '@obj': { a: e } }),
    (e) => ({ concat: [e] }),
    (e) => ({ to_string: e }),
    (e) => ({ at: { now: null }, expr: e }),
  ];
  const leaf = pick(rand, [1, 'x', { var: 'x' }, null, { now: null }]);
  return nest(depth, pick(rand, shapes), leaf);
}

/** Strings from 100 KB to a few MB (the body limit is 8 MiB), where strings go. */
function giantString(rand: Rand): unknown {
  const n = Math.floor(10 ** (5 + rand() * 1.6));
  const s = pick(rand, ['a', 'é', '\u{1F600}', ' ', '\u0000', '\\', '"', 'ab\u0301'])
    .repeat(Math.ceil(n / 2))
    .slice(0, n);
  const forms: (() => unknown)[] = [
    () => s,
    () => ({ length: s }),
    () => ({ uppercase: s }),
    () => ({ casefold: s, normalizer: pick(rand, ['NFKCCaseFold', 'NFD', s.slice(0, 100)]) }),
    () => ({ concat: [s, s], separator: s }),
    () => ({ object: { [s.slice(0, 200_000)]: 1 } }),
    () => ({ var: s.slice(0, 100_000) }),
    () => ({ create_collection: { object: { name: s.slice(0, 100_000) } } }),
    () => ({ collection: s.slice(0, 100_000) }),
    () => ({ containsstrregex: s, pattern: s.slice(0, 1000) }),
    () => ({ findstr: s, find: s }),
    () => ({ replacestr: s, find: s.slice(0, 3), replace: s.slice(0, 1000) }),
    () => ({ create: COLL, params: { object: { data: { object: { s } } } } }),
    () => ({ abort: s }),
    () => ({ '@bytes': 'A'.repeat(n) }),
    () => ({ to_number: '9'.repeat(n) }),
    () => ({ time: '2020-01-01T00:00:00' + '.' + '9'.repeat(n) + 'Z' }),
    () => ({ ngram: s.slice(0, 100_000) }),
  ];
  return pick(rand, forms)();
}

/** Lets whose bindings refer to themselves, to later bindings, or to scopes they cannot see. */
function cyclicLet(rand: Rand): unknown {
  const forms: (() => unknown)[] = [
    () => ({ let: { x: { var: 'x' } }, in: { var: 'x' } }),
    () => ({ let: [{ x: { var: 'y' } }, { y: 1 }], in: { var: 'x' } }),
    () => ({ let: [{ x: { var: 'x' } }], in: 1 }),
    () => ({ let: [{ x: 1 }, { x: { add: [{ var: 'x' }, 1] } }], in: { var: 'x' } }),
    () => ({ let: { a: { var: 'b' }, b: { var: 'a' } }, in: { var: 'a' } }),
    () => ({ let: { f: { query: { lambda: 'n', expr: { call: { var: 'f' }, arguments: { var: 'n' } } } } }, in: { call: { var: 'f' }, arguments: 1 } }),
    () => ({ let: { f: { lambda: 'n', expr: { var: 'f' } } }, in: { var: 'f' } }),
    () => ({ let: { f: { query: { lambda: 'x', expr: { var: 'x' } } } }, in: { call: { var: 'f' }, arguments: { var: 'f' } } }),
    () => ({ let: {}, in: 1 }),
    () => ({ let: [], in: 1 }),
    () => ({ let: [{}], in: 1 }),
    () => ({ let: [{ a: 1, b: 2 }], in: { var: 'b' } }),
    () => ({ let: pick(rand, ['x', null, 1, [[1]], [null]]), in: 1 }),
    () => ({ let: { x: { let: { y: 1 }, in: { var: 'y' } } }, in: { var: 'y' } }),
    () => ({ let: { [pick(rand, ['', ' ', '1', 'a-b', 'é', '__proto__', 'constructor', 'toString', 'hasOwnProperty'])]: 1 }, in: { var: pick(rand, ['', '__proto__', 'constructor', 'toString', 'valueOf']) } }),
    () => ({ var: pick(rand, ['__proto__', 'constructor', 'toString', '', 1, null, ['x'], { var: 'x' }]) }),
    () => {
      // A chain of bindings, each the pair of the previous: doubling until the value limit stops it.
      const n = int(rand, 10, 40);
      return { let: Array.from({ length: n }, (_, i) => ({ [`v${i}`]: i === 0 ? 'ab' : [{ var: `v${i - 1}` }, { var: `v${i - 1}` }] })), in: { count: { var: `v${n - 1}` } } };
    },
    () => ({ let: Array.from({ length: int(rand, 100, 5000) }, (_, i) => ({ [`v${i}`]: i })), in: { var: 'v0' } }),
    () => ({ lambda: 'x', expr: { var: 'x' } }),
    () => ({ call: { query: { lambda: ['x', 'x'], expr: { var: 'x' } } }, arguments: [1, 2] }),
    () => ({ call: { query: { lambda: '_', expr: 1 } }, arguments: [] }),
    () => ({ map: { lambda: ['a', 'b'], expr: { var: 'a' } }, collection: [[1], [1, 2, 3], 1] }),
  ];
  return pick(rand, forms)();
}

/** Map, Repeat, Reduce and UDF recursion that would run away but for the query's budget. */
function runaway(rand: Rand): unknown {
  const big = (n: number) => ({ repeat: 'x', number: n });
  const arr = (n: number) => Array.from({ length: n }, (_, i) => i);
  const forms: (() => unknown)[] = [
    () => ({ map: { lambda: 'x', expr: { map: { lambda: 'y', expr: { map: { lambda: 'z', expr: { var: 'z' } }, collection: { var: 'a' } } }, collection: { var: 'a' } } }, collection: { var: 'a' } }),
    () => ({ repeat: { repeat: { repeat: 'abc', number: 1024 }, number: 1024 }, number: 1024 }),
    () => ({ repeat: big(1024), number: pick(rand, [1024, 100000, -1, 0]) }),
    () => ({ count: { map: { lambda: 'x', expr: big(1024) }, collection: { var: 'a' } } }),
    () => ({ reduce: { lambda: ['acc', 'x'], expr: { concat: [{ var: 'acc' }, { var: 'acc' }] } }, initial: 'ab', collection: arr(int(rand, 20, 60)) }),
    () => ({ foreach: { lambda: 'x', expr: { call: { function: 'fuzz_echo' }, arguments: [{ var: 'x' }] } }, collection: { var: 'a' } }),
    () => ({ call: { function: 'fuzz_recurse' }, arguments: pick(rand, [10, 199, 200, 201, 5000]) }),
    () => ({ filter: { lambda: 'x', expr: { containsstrregex: big(1024), pattern: '(x+x+)+y' } }, collection: { var: 'a' } }),
    () => ({ map: { lambda: 'd', expr: { get: { var: 'd' } } }, collection: { paginate: { documents: COLL }, size: 100000 } }),
    () => ({ ngram: big(1024), min: 1, max: 1024 }),
    () => ({ format: '%s'.repeat(int(rand, 1, 50)), values: Array.from({ length: 50 }, () => big(1024)) }),
    () => ({ union: Array.from({ length: int(rand, 2, 50) }, () => ({ var: 'a' })) }),
    () => ({ to_object: { map: { lambda: 'x', expr: [{ to_string: { var: 'x' } }, big(1024)] }, collection: { var: 'a' } } }),
  ];
  return { let: { a: arr(pick(rand, [100, 1000, 10000])) }, in: pick(rand, forms)() };
}

/** Page sizes 0, 1, 100000, 100001, negative, fractional, huge, and cursors of every wrong shape. */
const PAGE_SIZES: readonly unknown[] = [0, 1, 2, 64, 100000, 100001, -1, -100000, 1.5, 0.0001, '10', null, true, [10], { object: {} }, new Raw('1e308'), new Raw('9223372036854775808'), new Raw('-0')];
const CURSORS: readonly unknown[] = [
  [], [1], [null], ['x', 'y', 'z'], DOC, { object: {} }, { object: { before: 1 } }, { object: { after: [] } }, { object: { x: 1 } }, 'x', 0, null, -1,
  [{ '@ref': { id: '1', collection: { '@ref': { id: 'fuzz', collection: { '@ref': { id: 'collections' } } } } } }], [new Raw('1e309')], [{ '@ts': '2020-01-01T00:00:00Z' }],
];

function pagination(rand: Rand): unknown {
  const set = pick(rand, [
    { documents: COLL }, { match: { index: 'fuzz_by_n' }, terms: int(rand, 0, 9) }, { match: { index: 'fuzz_by_n_value' } }, { collections: null },
    { indexes: null }, { union: [{ documents: COLL }, { match: { index: 'fuzz_by_n' }, terms: 1 }] }, { events: DOC }, { singleton: DOC },
    { range: { match: { index: 'fuzz_by_n_value' } }, from: [2], to: [5] }, { distinct: { match: { index: 'fuzz_by_n_value' } } }, [1, 2, 3], 'x', null,
    { join: { match: { index: 'fuzz_by_n' }, terms: 1 }, with: { index: 'fuzz_by_n' } }, { keys: null }, { documents: { collection: 'nope' } },
  ]);
  const call: Record<string, unknown> = { paginate: set, size: pick(rand, PAGE_SIZES) };
  if (rand() < 0.5) call[pick(rand, ['after', 'before', 'cursor'])] = pick(rand, CURSORS);
  if (rand() < 0.2) call.ts = pick(rand, [{ now: null }, 0, -1, new Raw('9223372036854775807'), { '@ts': '2099-01-01T00:00:00Z' }, 'x']);
  if (rand() < 0.2) call.events = pick(rand, [true, false, 'x', null]);
  if (rand() < 0.1) call.sources = pick(rand, [true, 1]);
  return rand() < 0.2 ? { [pick(rand, ['take', 'drop'])]: pick(rand, PAGE_SIZES), collection: call } : call;
}

// ---- mutations of valid queries

type Path = (string | number)[];

function nodePaths(v: unknown, at: Path = [], out: Path[] = []): Path[] {
  out.push(at);
  if (Array.isArray(v)) v.forEach((x, i) => nodePaths(x, [...at, i], out));
  else if (isPlain(v)) for (const [k, x] of Object.entries(v)) nodePaths(x, [...at, k], out);
  return out;
}

function isPlain(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v) && !(v instanceof Raw);
}

const getAt = (v: unknown, path: Path): unknown => path.reduce((x: any, k) => x[k], v);

function setAt(v: unknown, path: Path, x: unknown): unknown {
  if (path.length === 0) return x;
  const [k, ...rest] = path;
  const copy: any = Array.isArray(v) ? [...v] : { ...(v as object) };
  copy[k] = setAt(copy[k], rest, x);
  return copy;
}

/** One mutation of `q`: a subtree replaced, a key dropped, added or renamed, subtrees swapped or retyped. */
export function mutate(rand: Rand, q: unknown): unknown {
  const paths = nodePaths(q);
  const path = pick(rand, paths);
  const node = getAt(q, path);
  switch (int(rand, 0, 8)) {
    case 0:
      return setAt(q, path, rand() < 0.5 ? pick(rand, WRONG_TYPES) : randomExpr(rand, 2));
    case 1: {
      if (!isPlain(node) || Object.keys(node).length === 0) return setAt(q, path, null);
      const copy = { ...node };
      delete copy[pick(rand, Object.keys(copy))];
      return setAt(q, path, copy);
    }
    case 2:
      return isPlain(node) ? setAt(q, path, { ...node, [pick(rand, rand() < 0.5 ? ARG_KEYS : HEADS)]: pick(rand, WRONG_TYPES) }) : setAt(q, path, [node]);
    case 3: {
      if (!isPlain(node) || Object.keys(node).length === 0) return setAt(q, path, { object: { a: node } });
      const keys = Object.keys(node);
      const from = pick(rand, keys);
      const copy: Record<string, unknown> = {};
      const to = pick(rand, [...ARG_KEYS, ...HEADS]);
      for (const k of keys) copy[k === from ? to : k] = node[k];
      return setAt(q, path, copy);
    }
    case 4: {
      const other = pick(rand, paths);
      // Swapping a node with its own ancestor or descendant is a replacement; either way, a new tree.
      if (isPrefix(path, other) || isPrefix(other, path)) return setAt(q, path, getAt(q, other));
      return setAt(setAt(q, path, getAt(q, other)), other, node);
    }
    case 5:
      return setAt(q, path, retype(rand, node));
    case 6:
      return setAt(q, path, pick(rand, [[node, node], { do: [node, node] }, { let: { x: node }, in: [{ var: 'x' }, { var: 'x' }] }]));
    case 7: {
      // A subtree of another valid query grafted here.
      const donor = pick(rand, CORPUS);
      return setAt(q, path, getAt(donor, pick(rand, nodePaths(donor))));
    }
    default:
      return setAt(q, path, pick(rand, rand() < 0.5 ? BAD_ESCAPES : NUMBER_TOKENS));
  }
}

const isPrefix = (a: Path, b: Path) => a.length <= b.length && a.every((k, i) => b[i] === k);

function retype(rand: Rand, v: unknown): unknown {
  if (typeof v === 'number') return pick(rand, [String(v), [v], { object: { v } }, v > 0 ? -v : v + 0.5, new Raw(`${v}e400`)]);
  if (typeof v === 'string') return pick(rand, [Number(v) || 0, [v], { '@ref': v }, { '@ts': v }, { var: v }, v.toUpperCase(), '']);
  if (Array.isArray(v)) return pick(rand, [{ object: Object.fromEntries(v.map((x, i) => [`k${i}`, x])) }, v[0] ?? null, v.length, [...v, ...v]]);
  if (isPlain(v)) return pick(rand, [Object.values(v), Object.keys(v), { object: v }, { '@obj': v }, { quote: v }]);
  return pick(rand, WRONG_TYPES);
}

function mutated(rand: Rand): unknown {
  let q = pick(rand, CORPUS);
  for (let i = int(rand, 1, 3); i > 0; i--) q = mutate(rand, q);
  return q;
}

export interface FqlInput {
  kind: string;
  fql: unknown;
}

/** The kinds of FQL input, with how often each is drawn: the heavy ones rarely. */
const KINDS: readonly [kind: string, weight: number, draw: (rand: Rand) => unknown][] = [
  ['fql-arity', 18, wrongArity],
  ['fql-type', 20, wrongType],
  ['fql-number', 10, edgeNumbers],
  ['fql-escape', 8, badEscape],
  ['fql-let', 6, cyclicLet],
  ['fql-page', 8, pagination],
  ['fql-mutant', 22, mutated],
  ['fql-random', 4, (rand) => randomExpr(rand, int(rand, 1, 5), ['fuzz', 'fuzz_by_n', COLL, DOC])],
  ['fql-deep', 1, deepTree],
  ['fql-runaway', 0.5, runaway],
  ['fql-giant', 0.2, giantString],
];
const TOTAL = KINDS.reduce((s, k) => s + k[1], 0);

export function drawFql(rand: Rand): FqlInput {
  let roll = rand() * TOTAL;
  for (const [kind, weight, draw] of KINDS) {
    roll -= weight;
    if (roll < 0) return { kind, fql: draw(rand) };
  }
  return { kind: 'fql-mutant', fql: mutated(rand) };
}

/** The schema and data the inputs refer to. */
export const FQL_SETUP: readonly unknown[] = [
  { create_collection: { object: { name: 'fuzz', history_days: 30 } } },
  { create_index: { object: { name: 'fuzz_by_n', source: COLL, terms: [{ object: { field: ['data', 'n'] } }] } } },
  { create_index: { object: { name: 'fuzz_by_n_value', source: COLL, values: [{ object: { field: ['data', 'n'] } }, { object: { field: ['ref'] } }] } } },
  { create_index: { object: { name: 'fuzz_unique_u', source: COLL, terms: [{ object: { field: ['data', 'u'] } }], unique: true } } },
  { create_function: { object: { name: 'fuzz_echo', body: { '@query': { lambda: 'x', expr: { var: 'x' } } } } } },
  {
    create_function: {
      object: {
        name: 'fuzz_recurse',
        body: { '@query': { lambda: 'n', expr: { if: { lte: [{ var: 'n' }, 0] }, then: 0, else: { call: { function: 'fuzz_recurse' }, arguments: { subtract: [{ var: 'n' }, 1] } } } } },
      },
    },
  },
  { create_role: { object: { name: 'fuzz_reader', privileges: [{ object: { resource: COLL, actions: { object: { read: true } } } }] } } },
  { create: DOC, params: { object: { data: { object: { n: 1, u: 'one' } } } } },
  { foreach: { lambda: 'i', expr: { create: COLL, params: { object: { data: { object: { n: { modulo: [{ var: 'i' }, 10] }, s: { to_string: { var: 'i' } } } } } } } }, collection: Array.from({ length: 200 }, (_, i) => i) },
];
