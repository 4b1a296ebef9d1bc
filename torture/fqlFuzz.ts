// Random FQL v4 expressions over every form the driver can send, with odd arguments. Shared by the
// fuzz test (test/integration/fuzz.test.ts) and the torture suite's hostile part.

import { FORMS } from '../src/wire/builders';

const HEADS = [...FORMS.keys()];

/** Literals that exercise every decoder branch: scalars, escapes, refs, sets, lambdas, bad forms. */
export const LITERALS: unknown[] = [
  null, true, 0, -1, 9223372036854775807n, 1.5, -0.0, '', 'x', 'collections/widgets/1', 'fuzz', [],
  [1, 'a', null], { object: {} }, { object: { data: { object: { a: 1 } } } }, { '@ref': 'collections/fuzz/1' },
  { '@ref': { id: 'fuzz', collection: { '@ref': { id: 'collections' } } } }, { '@ts': '2020-01-01T00:00:00Z' },
  { '@date': '2020-01-01' }, { '@bytes': 'AQID' }, { '@query': { lambda: 'x', expr: { var: 'x' } } },
  { '@set': { documents: { '@ref': { id: 'fuzz', collection: { '@ref': { id: 'collections' } } } } } },
  { lambda: 'x', expr: { var: 'x' } }, { var: 'nope' }, { collection: 'fuzz' }, { databases: null },
  { '@ref': 'keys/123' }, { unknown_form: 1 }, { '@ts': 'not a time' }, 'secret',
];

/** A random expression tree of at most `depth` levels; `extra` literals join the pool. */
export function randomExpr(rand: () => number, depth: number, extra: readonly unknown[] = []): unknown {
  if (depth <= 0 || rand() < 0.45) {
    const pool = extra.length && rand() < 0.3 ? extra : LITERALS;
    return pool[Math.floor(rand() * pool.length)];
  }
  const head = HEADS[Math.floor(rand() * HEADS.length)];
  const spec = FORMS.get(head)!;
  const out: Record<string, unknown> = {};
  for (const key of [head, ...spec.required, ...spec.optional.filter(() => rand() < 0.3)]) {
    if (spec.exclusive?.includes(key) && spec.exclusive.some((k) => k in out)) continue;
    out[key] = randomExpr(rand, depth - 1, extra);
  }
  return out;
}

/** JSON text of an expression, with bigints written as exact integers. */
export function toJson(v: unknown): string {
  return JSON.stringify(v, (_k, x) => (typeof x === 'bigint' ? `__big${x}` : x)).replace(/"__big(-?\d+)"/g, '$1');
}
