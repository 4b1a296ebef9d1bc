// Array (stdlib/Arrays.scala) and the `Array` companion.

import { Failures } from '../runtime/failure';
import { ArraySet, compareKeys, sortKeys } from '../runtime/sets';
import { hashKey, valueEquals } from '../runtime/cmp';
import { frameSpan, type CallCtx } from '../runtime/table';
import { p, tt, typeName } from '../runtime/types';
import { arityAccepts, NullV, type Func, type RtValue } from '../runtime/values';
import { companion, prototype } from './base';
import { MAX_ARRAY_SIZE } from './limits';
import { collectOrderings, orderingParam } from './orderings';

type Arr = readonly RtValue[];

const t = prototype('Array<Any>');
export const ArrayPrototype = t;

function checkArity(ctx: CallCtx, name: string, n: number, fn: Func): void {
  if (!arityAccepts(fn.arity, n)) throw Failures.invalidFuncParamArity(name, n, fn.arity, ctx.trace);
}

function checkIndex(ctx: CallCtx, self: Arr, idx: bigint): number {
  if (idx < 0n || idx >= BigInt(self.length)) throw Failures.indexOutOfBounds(idx, self.length, ctx.trace);
  return Number(idx);
}

/** A predicate's verdict: true, false (false or null), else a type error naming `blame`. */
async function test(ctx: CallCtx, pred: Func, v: RtValue, blame?: RtValue): Promise<boolean> {
  const r = await ctx.apply(pred, [v]);
  if (r === true) return true;
  if (r === false || r instanceof NullV) return false;
  throw Failures.invalidType('Boolean', typeName(blame ?? r), ctx.trace);
}

async function where(ctx: CallCtx, self: Arr, pred: Func): Promise<RtValue[]> {
  checkArity(ctx, 'pred', 1, pred);
  const out: RtValue[] = [];
  for (const v of self) if (await test(ctx, pred, v)) out.push(v);
  return out;
}

const noElement = (ctx: CallCtx, reason = 'no element found') => NullV.noSuchElement(reason, frameSpan(ctx));
const predicate = [p('predicate', tt.Function)];

t.field('length', (_c, self: Arr) => BigInt(self.length));
t.access(p('index', tt.Int), (ctx, self: Arr, idx: bigint) => self[checkIndex(ctx, self, idx)]);
t.method('at', [p('index', tt.Int)], (ctx, self: Arr, [idx]: bigint[]) => self[checkIndex(ctx, self, idx)]);
t.method('aggregate', [p('seed'), p('combiner', tt.Function)], async (ctx, self: Arr, [seed, fn]: [RtValue, Func]) => {
  checkArity(ctx, 'combiner', 2, fn);
  if (self.length === 0) return seed;
  let vals: RtValue[] = [...self];
  while (vals.length > 1) {
    const next: RtValue[] = [];
    for (let i = 0; i < vals.length; i += 2) next.push(i + 1 < vals.length ? await ctx.apply(fn, [vals[i], vals[i + 1]]) : vals[i]);
    vals = next;
  }
  return ctx.apply(fn, [vals[0], seed]);
});
async function anyEvery(ctx: CallCtx, self: Arr, pred: Func, dflt: boolean): Promise<boolean> {
  checkArity(ctx, 'predicate', 1, pred);
  for (const v of self) {
    const r = await ctx.apply(pred, [v]);
    const b = typeof r === 'boolean' ? r : r instanceof NullV ? false : undefined;
    if (b === undefined) throw Failures.invalidType('Boolean', typeName(r), ctx.trace);
    if (b !== dflt) return b;
  }
  return dflt;
}
t.method('any', predicate, (ctx, self: Arr, [f]: Func[]) => anyEvery(ctx, self, f, false));
t.method('every', predicate, (ctx, self: Arr, [f]: Func[]) => anyEvery(ctx, self, f, true));
t.method('append', [p('element')], (_c, self: Arr, [e]) => [...self, e]);
t.method('prepend', [p('element')], (_c, self: Arr, [e]) => [e, ...self]);
t.method('concat', [p('other', tt.Array)], (_c, self: Arr, [o]: Arr[]) => [...self, ...o]);
t.method('distinct', [], (_c, self: Arr) => {
  const seen = new Set<string>();
  const out: RtValue[] = [];
  for (const v of self) {
    const k = hashKey(v);
    if (!seen.has(k)) {
      seen.add(k);
      out.push(v);
    }
  }
  return out;
});
t.method('drop', [p('amount', tt.Int)], (_c, self: Arr, [n]: bigint[]) => self.slice(Math.max(0, Number(n))));
t.method('take', [p('limit', tt.Int)], (_c, self: Arr, [n]: bigint[]) => (n < BigInt(self.length) ? self.slice(0, Math.max(0, Number(n))) : self));
t.method('entries', [], (_c, self: Arr) => self.map((v, i) => [BigInt(i), v]));
t.method('filter', predicate, async (ctx, self: Arr, [f]: Func[]) => {
  checkArity(ctx, 'predicate', 1, f);
  const out: RtValue[] = [];
  // The core blames the element, not the predicate's answer (Arrays.scala `filter`).
  for (const v of self) if (await test(ctx, f, v, v)) out.push(v);
  return out;
});
t.method('where', predicate, (ctx, self: Arr, [f]: Func[]) => where(ctx, self, f));
t.method('first', [], (ctx, self: Arr) => (self.length > 0 ? self[0] : noElement(ctx, 'empty array')));
t.method('last', [], (ctx, self: Arr) => (self.length > 0 ? self[self.length - 1] : noElement(ctx, 'empty array')));
t.method('firstWhere', predicate, async (ctx, self: Arr, [f]: Func[]) => {
  const r = await where(ctx, self, f);
  return r.length > 0 ? r[0] : noElement(ctx);
});
t.method('lastWhere', predicate, async (ctx, self: Arr, [f]: Func[]) => {
  const r = await where(ctx, self, f);
  return r.length > 0 ? r[r.length - 1] : noElement(ctx);
});
t.method('flatten', [], (ctx, self: Arr) => {
  const out: RtValue[] = [];
  for (const v of self) {
    if (!Array.isArray(v)) throw Failures.invalidType('Array<Any>', typeName(v), ctx.trace);
    for (const x of v) out.push(x);
  }
  return out;
});
t.method('flatMap', [p('mapper', tt.Function)], async (ctx, self: Arr, [f]: Func[]) => {
  checkArity(ctx, 'mapper', 1, f);
  const out: RtValue[] = [];
  for (const v of self) {
    const r = await ctx.apply(f, [v]);
    if (!Array.isArray(r)) throw Failures.invalidType('Array<Any>', typeName(r), ctx.trace);
    for (const x of r) out.push(x);
  }
  return out;
});
t.method('fold', [p('seed'), p('reducer', tt.Function)], async (ctx, self: Arr, [seed, f]: [RtValue, Func]) => {
  checkArity(ctx, 'reducer', 2, f);
  let acc = seed;
  for (const v of self) acc = await ctx.apply(f, [acc, v]);
  return acc;
});
t.method('foldRight', [p('seed'), p('reducer', tt.Function)], async (ctx, self: Arr, [seed, f]: [RtValue, Func]) => {
  checkArity(ctx, 'reducer', 2, f);
  let acc = seed;
  for (let i = self.length - 1; i >= 0; i--) acc = await ctx.apply(f, [acc, self[i]]);
  return acc;
});
t.method('forEach', [p('callback', tt.Function)], async (ctx, self: Arr, [f]: Func[]) => {
  checkArity(ctx, 'fn', 1, f);
  for (const v of self) await ctx.apply(f, [v]);
  return NullV.lit(frameSpan(ctx));
});
function indexOf(self: Arr, e: RtValue, from: number): number {
  for (let i = from; i < self.length; i++) if (valueEquals(self[i], e)) return i;
  return -1;
}
function lastIndexOf(self: Arr, e: RtValue, end: number): number {
  for (let i = Math.min(end, self.length - 1); i >= 0; i--) if (valueEquals(self[i], e)) return i;
  return -1;
}
const found = (ctx: CallCtx, i: number) => (i >= 0 ? BigInt(i) : noElement(ctx));
t.method('indexOf', [p('element')], (ctx, self: Arr, [e]) => found(ctx, indexOf(self, e, 0)));
t.method('indexOf', [p('element'), p('start', tt.Int)], (ctx, self: Arr, [e, s]: [RtValue, bigint]) => found(ctx, indexOf(self, e, checkIndex(ctx, self, s))));
t.method('lastIndexOf', [p('element')], (ctx, self: Arr, [e]) => found(ctx, lastIndexOf(self, e, self.length - 1)));
t.method('lastIndexOf', [p('element'), p('end', tt.Int)], (ctx, self: Arr, [e, s]: [RtValue, bigint]) =>
  found(ctx, lastIndexOf(self, e, checkIndex(ctx, self, s))),
);
async function indexWhere(ctx: CallCtx, self: Arr, f: Func, from: number, to: number, step: 1 | -1): Promise<RtValue> {
  checkArity(ctx, 'predicate', 1, f);
  for (let i = from; step > 0 ? i < to : i >= to; i += step) if (await test(ctx, f, self[i])) return BigInt(i);
  return noElement(ctx);
}
t.method('indexWhere', predicate, (ctx, self: Arr, [f]: Func[]) => indexWhere(ctx, self, f, 0, self.length, 1));
t.method('indexWhere', [p('predicate', tt.Function), p('start', tt.Int)], (ctx, self: Arr, [f, s]: [Func, bigint]) =>
  indexWhere(ctx, self, f, checkIndex(ctx, self, s), self.length, 1),
);
t.method('lastIndexWhere', predicate, (ctx, self: Arr, [f]: Func[]) => indexWhere(ctx, self, f, self.length - 1, 0, -1));
t.method('lastIndexWhere', [p('predicate', tt.Function), p('end', tt.Int)], (ctx, self: Arr, [f, s]: [Func, bigint]) =>
  indexWhere(ctx, self, f, checkIndex(ctx, self, s), 0, -1),
);
t.method('includes', [p('element')], (_c, self: Arr, [e]) => self.some((v) => valueEquals(v, e)));
t.method('isEmpty', [], (_c, self: Arr) => self.length === 0);
t.method('nonEmpty', [], (_c, self: Arr) => self.length > 0);
t.method('map', [p('mapper', tt.Function)], async (ctx, self: Arr, [f]: Func[]) => {
  checkArity(ctx, 'mapper', 1, f);
  const out = new Array<RtValue>(self.length);
  for (let i = 0; i < self.length; i++) out[i] = await ctx.apply(f, [self[i]]);
  return out;
});
t.varargMethod('order', orderingParam, async (ctx, self: Arr, ords: RtValue[]) => {
  const os = collectOrderings(ctx, ords);
  const keyed: { v: RtValue; k: { v: RtValue; asc: boolean }[] }[] = [];
  for (const v of self) keyed.push({ v, k: await sortKeys(ctx, os, v) });
  // Array.prototype.sort is stable, as Scala's sortBy.
  keyed.sort((a, b) => compareKeys(a.k, b.k));
  return keyed.map((x) => x.v);
});
async function reduce(ctx: CallCtx, self: Arr, f: Func, right: boolean): Promise<RtValue> {
  checkArity(ctx, 'reducer', 2, f);
  if (self.length === 0) return noElement(ctx, 'empty array');
  const xs = right ? [...self].reverse() : self;
  let acc = xs[0];
  for (let i = 1; i < xs.length; i++) acc = await ctx.apply(f, [acc, xs[i]]);
  return acc;
}
t.method('reduce', [p('reducer', tt.Function)], (ctx, self: Arr, [f]: Func[]) => reduce(ctx, self, f, false));
t.method('reduceRight', [p('reducer', tt.Function)], (ctx, self: Arr, [f]: Func[]) => reduce(ctx, self, f, true));
t.method('reverse', [], (_c, self: Arr) => [...self].reverse());
t.method('slice', [p('from', tt.Int)], (_c, self: Arr, [a]: bigint[]) => scalaSlice(self, a, BigInt(self.length)));
t.method('slice', [p('from', tt.Int), p('until', tt.Int)], (_c, self: Arr, [a, b]: bigint[]) => scalaSlice(self, a, b));
t.method('toSet', [], (_c, self: Arr) => new ArraySet(self));

function scalaSlice(self: Arr, from: bigint, until: bigint): RtValue[] {
  const lo = Math.max(0, Number(from));
  const hi = Math.min(self.length, Number(until));
  return lo >= hi ? [] : self.slice(lo, hi);
}

export const ArrayCompanion = companion('Array', (v) => Array.isArray(v));
ArrayCompanion.table.method('sequence', [p('from', tt.Int), p('until', tt.Int)], (ctx, _m, [from, until]: bigint[]) => {
  const n = until > from ? Number(until - from) : 0;
  if (n > MAX_ARRAY_SIZE) throw Failures.valueTooLarge(`range size ${n} exceeds limit ${MAX_ARRAY_SIZE}`, ctx.trace);
  const out = new Array<RtValue>(n);
  for (let i = 0; i < n; i++) out[i] = from + BigInt(i);
  return out;
});
