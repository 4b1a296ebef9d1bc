// Set constructors and their lazy sources (fql-v4.md §3.3, §3.4, §5.4): Union, Intersection,
// Difference, Distinct, Singleton, Range, Reverse, Filter (on sets) and Join. Each constructor
// returns a SetV in its rendered shape (§2.5); `defineSetShape` turns that shape back into a
// source that streams entries and merges its operands' streams, never loading a whole set.
// Union/Intersection/Difference/Distinct/Reverse also accept arrays (and pages) with the
// array semantics of §3.3.

import { define } from './registry';
import { argPos, elemPos, evalArg, evalList, mismatch } from './args';
import { applyLambda, makeLambda } from './evaluator';
import {
  compareCursors,
  defineSetShape,
  isSetLike,
  sourceOf,
  type ScanBounds,
  type SetEntry,
  type SetSource,
} from './sets';
import type { EvalContext } from './context';
import type { Budget } from '../model/budget';
import type { Env } from './env';
import type { LambdaExpr } from '../wire/expr';
import { errors, type Position } from '../values/errors';
import { valuesEqual, compareValues } from '../values/order';
import { hashValue } from '../values/hash';
import { Lambda, Page, Ref, SetV, typeName, type Obj, type Value } from '../values/types';
import { resolveRef } from '../model/resolve';
import { checkAccess } from '../model/permissions';
import { readLive } from '../model/documents';

// ---- bounds ------------------------------------------------------------------------------------

/**
 * A scan bound in a set's own order: the cursor prefix `c`, taken either as the point `c`
 * itself (`top: false`: below every entry that extends `c`) or as the point just above every
 * entry that `c` prefixes (`top: true`). With both kinds, `lo <= entry < hi` expresses every
 * bound that Paginate, Range and Reverse need: Reverse swaps lower/upper and flips `top`,
 * which a plain ScanBounds (inclusive lower, exclusive-or-inclusive upper) cannot express.
 */
interface Bound {
  c: Value[];
  top: boolean;
}

interface XBounds {
  lo?: Bound;
  hi?: Bound;
  reverse: boolean;
  at?: bigint;
}

/** Our sources scan with full bounds; foreign ones (documents, match, …) go through `xscan`. */
interface XSource extends SetSource {
  xscan(ctx: EvalContext, b: XBounds): AsyncIterable<SetEntry>;
}

function isXSource(s: SetSource): s is XSource {
  return typeof (s as Partial<XSource>).xscan === 'function';
}

/** Compares the first min(len) cursor positions in the source's order (its per-position reverse flags). */
function comparePrefix(src: SetSource, a: Value[], b: Value[]): number {
  const k = Math.min(a.length, b.length);
  if (k === 0) return 0;
  return src.compare({ cursor: a.length === k ? a : a.slice(0, k), value: null }, { cursor: b.length === k ? b : b.slice(0, k), value: null });
}

/** Where an entry's cursor lies relative to a bound: < 0 below, 0 at it, > 0 above. */
function compareToBound(src: SetSource, cursor: Value[], b: Bound): number {
  const r = comparePrefix(src, cursor, b.c);
  if (r !== 0) return r;
  if (cursor.length < b.c.length) return -1;
  if (b.top) return -1;
  return cursor.length === b.c.length ? 0 : 1;
}

function compareBounds(src: SetSource, a: Bound, b: Bound): number {
  const r = comparePrefix(src, a.c, b.c);
  if (r !== 0) return r;
  if (a.c.length === b.c.length) return Number(a.top) - Number(b.top);
  if (a.c.length < b.c.length) return a.top ? 1 : -1;
  return b.top ? -1 : 1;
}

function tighterLo(src: SetSource, a?: Bound, b?: Bound): Bound | undefined {
  if (!a) return b;
  if (!b) return a;
  return compareBounds(src, a, b) >= 0 ? a : b;
}

function tighterHi(src: SetSource, a?: Bound, b?: Bound): Bound | undefined {
  if (!a) return b;
  if (!b) return a;
  return compareBounds(src, a, b) <= 0 ? a : b;
}

/** Paginate/Get bounds as full bounds; an empty prefix bounds nothing. */
function fromScanBounds(b: ScanBounds): XBounds {
  return {
    lo: b.from && b.from.length ? { c: b.from, top: false } : undefined,
    hi: b.to && b.to.length ? { c: b.to, top: !!b.toInclusive } : undefined,
    reverse: b.reverse,
    at: b.at,
  };
}

/**
 * Scans any source within full bounds. A foreign source takes an inclusive lower bound only, so a
 * `top` lower bound (everything after a prefix) is met by skipping the entries under that prefix.
 */
async function* xscan(src: SetSource, ctx: EvalContext, b: XBounds): AsyncGenerator<SetEntry> {
  if (isXSource(src)) {
    yield* src.xscan(ctx, b);
    return;
  }
  const { lo, hi } = b;
  const bounds: ScanBounds = { from: lo?.c, to: hi?.c, toInclusive: hi?.top, reverse: b.reverse, at: b.at };
  for await (const e of src.scan(ctx, bounds)) {
    // Re-checked here: native sources bound on the first cursor position only.
    if (lo && compareToBound(src, e.cursor, lo) < 0) {
      if (b.reverse) return;
      continue;
    }
    if (hi && compareToBound(src, e.cursor, hi) >= 0) {
      if (!b.reverse) return;
      continue;
    }
    yield e;
  }
}

/** Makes a source out of a full-bounds scan; its plain `scan` is the Paginate/Get entry point. */
function xsource(set: SetV, compare: (a: SetEntry, b: SetEntry) => number, scan: XSource['xscan']): XSource {
  return { set, compare, xscan: scan, scan: (ctx, b) => scan(ctx, fromScanBounds(b)) };
}

/** Entry order for a scan direction. */
function directed(cmp: (a: SetEntry, b: SetEntry) => number, reverse: boolean) {
  return reverse ? (a: SetEntry, b: SetEntry) => cmp(b, a) : cmp;
}

/** A cursor bound argument (Range from/to): `[]`/null = unbounded, a non-array = one position. */
function boundArg(v: Value | undefined): Value[] | undefined {
  if (v === undefined || v === null) return undefined;
  const c = Array.isArray(v) ? v : [v];
  return c.length ? c : undefined;
}

// ---- streaming helpers ---------------------------------------------------------------------------

/** The current entry of one open scan. */
interface Head {
  entry: SetEntry;
  it: AsyncIterator<SetEntry>;
  rank: number;
}

/** A binary min-heap of scan heads (k-way merges). */
class HeadHeap {
  private readonly items: Head[] = [];
  constructor(private readonly cmp: (a: SetEntry, b: SetEntry) => number) {}

  get size(): number {
    return this.items.length;
  }

  peek(): Head {
    return this.items[0];
  }

  private less(i: number, j: number): boolean {
    const a = this.items[i];
    const b = this.items[j];
    // Equal entries come out in operand order, so a merge keeps the first operand's entry.
    const c = this.cmp(a.entry, b.entry);
    return c < 0 || (c === 0 && a.rank < b.rank);
  }

  push(h: Head): void {
    const items = this.items;
    items.push(h);
    let i = items.length - 1;
    while (i > 0) {
      const p = (i - 1) >> 1;
      if (!this.less(i, p)) break;
      [items[i], items[p]] = [items[p], items[i]];
      i = p;
    }
  }

  pop(): Head | undefined {
    const items = this.items;
    const top = items[0];
    const last = items.pop();
    if (items.length && last) {
      items[0] = last;
      let i = 0;
      for (;;) {
        const l = 2 * i + 1;
        const r = l + 1;
        let m = i;
        if (l < items.length && this.less(l, m)) m = l;
        if (r < items.length && this.less(r, m)) m = r;
        if (m === i) break;
        [items[i], items[m]] = [items[m], items[i]];
        i = m;
      }
    }
    return top;
  }
}

/** Opened scans, closed together when the consumer stops early (a full page, an error). */
class OpenScans {
  private readonly its: AsyncIterator<SetEntry>[] = [];

  open(iterable: AsyncIterable<SetEntry>): AsyncIterator<SetEntry> {
    const it = iterable[Symbol.asyncIterator]();
    this.its.push(it);
    return it;
  }

  async close(): Promise<void> {
    await Promise.allSettled(this.its.map((it) => it.return?.()));
  }
}

/** Runs a merge over the scans it opens, and closes every one of them however the merge ends. */
async function* scanning(merge: (scans: OpenScans) => AsyncGenerator<SetEntry>): AsyncGenerator<SetEntry> {
  const scans = new OpenScans();
  try {
    yield* merge(scans);
  } finally {
    await scans.close();
  }
}

/** Advances a head; pushes it back on the heap unless its scan is exhausted. */
async function advance(heap: HeadHeap, h: Head): Promise<void> {
  const r = await h.it.next();
  if (!r.done) heap.push({ entry: r.value, it: h.it, rank: h.rank });
}

/** Merges sorted scans into one sorted stream, each entry once (equal = compare 0). */
async function* mergeDistinct(heap: HeadHeap, cmp: (a: SetEntry, b: SetEntry) => number): AsyncGenerator<SetEntry> {
  while (heap.size) {
    const top = heap.pop()!;
    let entry = top.entry;
    // Equal entries of other operands are the same element: only their sources are kept.
    const equal: Head[] = [];
    while (heap.size && cmp(heap.peek().entry, top.entry) === 0) equal.push(heap.pop()!);
    if (equal.length && entry.sources) entry = { ...entry, sources: combineSources([entry, ...equal.map((h) => h.entry)]) };
    yield entry;
    for (const h of equal) await advance(heap, h);
    await advance(heap, top);
    while (heap.size && cmp(heap.peek().entry, top.entry) === 0) await advance(heap, heap.pop()!);
  }
}

/** The distinct sources of equal entries of several operands, in operand order. */
function combineSources(entries: SetEntry[]): Value[] {
  const out: Value[] = [];
  for (const e of entries) for (const s of e.sources ?? []) if (!out.some((o) => valuesEqual(o, s))) out.push(s);
  return out;
}

/** Marks an operand's entries with the operand (unless nested operations already named theirs). */
async function* withSource(scan: AsyncIterable<SetEntry>, set: Value): AsyncGenerator<SetEntry> {
  for await (const e of scan) yield e.sources ? e : { ...e, sources: [set] };
}

/**
 * Applies a set's lambda while the set is scanned: reads happen at the scan's valid time, and
 * writes are refused (Filter and Join lambdas may not write).
 */
export function applySetLambda(ctx: EvalContext, lambda: Lambda, value: Value, at: bigint | undefined, what: string, pos: Position): Promise<Value> {
  return ctx.within({ readAt: at, refuseWritesIn: what }, () => applyLambda(lambda, [value], ctx, pos));
}

// ---- operands ------------------------------------------------------------------------------------

/** Set operands: set values, native collection refs and (as one-element sets) document refs. */
function isSetOperand(v: Value): v is SetV | Ref {
  return v instanceof SetV || v instanceof Ref;
}

async function operandSource(ctx: EvalContext, v: Value, pos: Position): Promise<SetSource> {
  if (v instanceof Ref && v.collection !== undefined) return singletonSource(ctx, v, pos);
  if (!isSetLike(v)) mismatch('Set', v, pos);
  return sourceOf(ctx, v, pos);
}

// ---- arrays as multisets -------------------------------------------------------------------------

/** Heap bytes a Counts holds per value counted. */
const BYTES_PER_COUNTED = 128;

/** Occurrence counts of values under FQL equality. */
class Counts {
  private readonly buckets = new Map<number, { v: Value; n: number }[]>();

  /** Counts for up to `capacity` values: what they will hold (a slot and a share of the table each) is charged now. */
  constructor(budget: Budget, capacity: number) {
    budget.alloc(capacity * BYTES_PER_COUNTED);
  }

  private slot(v: Value, create: boolean): { v: Value; n: number } | undefined {
    const key = hashValue(v);
    let bucket = this.buckets.get(key);
    let s = bucket?.find((x) => valuesEqual(x.v, v));
    if (!s && create) {
      s = { v, n: 0 };
      if (!bucket) this.buckets.set(key, (bucket = []));
      bucket.push(s);
    }
    return s;
  }

  get(v: Value): number {
    return this.slot(v, false)?.n ?? 0;
  }

  add(v: Value, d: number): void {
    this.slot(v, true)!.n += d;
  }

  static async of(budget: Budget, items: readonly Value[]): Promise<Counts> {
    const c = new Counts(budget, items.length);
    await strided(budget, items, (v) => c.add(v, 1));
    return c;
  }
}

/** Calls `fn` on each item, letting other requests in now and then (Budget.stride). */
async function strided(budget: Budget, items: readonly Value[], fn: (v: Value) => void): Promise<void> {
  for (let i = 0; i < items.length; i++) {
    fn(items[i]);
    const p = budget.stride(i);
    if (p) await p;
  }
}

/** Union: each value max(count) times; left order, then what only the right side adds. */
async function unionArrays(budget: Budget, a: Value[], b: Value[]): Promise<Value[]> {
  const out = [...a];
  const have = await Counts.of(budget, a);
  const seen = new Counts(budget, b.length);
  await strided(budget, b, (v) => {
    seen.add(v, 1);
    if (seen.get(v) > have.get(v)) {
      out.push(v);
      have.add(v, 1);
    }
  });
  return out;
}

/** Intersection: each value min(count) times, in left order. */
async function intersectArrays(budget: Budget, a: Value[], b: Value[]): Promise<Value[]> {
  const avail = await Counts.of(budget, b);
  const out: Value[] = [];
  await strided(budget, a, (v) => {
    if (avail.get(v) <= 0) return;
    avail.add(v, -1);
    out.push(v);
  });
  return out;
}

/** Difference: each right occurrence cancels one left occurrence. */
async function differenceArrays(budget: Budget, a: Value[], b: Value[]): Promise<Value[]> {
  const cancel = await Counts.of(budget, b);
  const out: Value[] = [];
  await strided(budget, a, (v) => {
    if (cancel.get(v) > 0) cancel.add(v, -1);
    else out.push(v);
  });
  return out;
}

async function distinctArray(budget: Budget, items: Value[]): Promise<Value[]> {
  const seen = new Counts(budget, items.length);
  const out: Value[] = [];
  await strided(budget, items, (v) => {
    if (seen.get(v)) return;
    seen.add(v, 1);
    out.push(v);
  });
  return out;
}

// ---- Union / Intersection / Difference -----------------------------------------------------------

type Algebra = 'union' | 'intersection' | 'difference';

const ARRAY_ALGEBRA: Record<Algebra, (budget: Budget, a: Value[], b: Value[]) => Promise<Value[]>> = {
  union: unionArrays,
  intersection: intersectArrays,
  difference: differenceArrays,
};

function algebra(head: Algebra) {
  define(head, async (call, env, ctx) => {
    const args = await evalList(call, head, env, ctx);
    const sets = args.filter(isSetOperand).length;
    const arrays = args.filter((v) => Array.isArray(v)).length;
    if (arrays === args.length) {
      const lists = args as Value[][];
      // The result is no longer than all operands together; hashing each element is linear.
      const total = lists.reduce((n, l) => n + l.length, 0);
      ctx.budget.array(total);
      ctx.budget.elements(total);
      let result = lists[0];
      for (const next of lists.slice(1)) result = await ARRAY_ALGEBRA[head](ctx.budget, result, next);
      return ctx.built(result);
    }
    if (sets === args.length) {
      // One operand renders unwrapped, as Fauna does.
      return new SetV(new Map<string, Value>([[head, args.length === 1 ? args[0] : args]]));
    }
    if (sets > 0 && arrays > 0)
      throw errors.invalidArgument('Arguments cannot be of different types, expected Set or Array.', argPos(call, head));
    const i = args.findIndex((v) => !isSetOperand(v) && !Array.isArray(v));
    mismatch('Set or Array', args[i], elemPos(call, head, i));
  });

  defineSetShape(head, async (ctx, set, pos) => {
    if (set.expr.size !== 1) throw errors.invalidArgument('Invalid set.', pos);
    const arg = set.expr.get(head)!;
    const operands = Array.isArray(arg) ? arg : [arg];
    if (!operands.length) throw errors.invalidArgument('Invalid set.', pos);
    const sources: SetSource[] = [];
    for (const v of operands) sources.push(await operandSource(ctx, v, pos));
    // Entries are compared whole (values + ref) in the first operand's order.
    const first = sources[0];
    const compare = (a: SetEntry, b: SetEntry) => first.compare(a, b);
    const scan = head === 'union' ? unionScan : head === 'intersection' ? intersectionScan : differenceScan;
    return xsource(set, compare, (ctx, b) => scanning((scans) => scan(ctx, scans, sources, directed(compare, b.reverse), b)));
  });
}

async function* unionScan(
  ctx: EvalContext,
  scans: OpenScans,
  sources: SetSource[],
  cmp: (a: SetEntry, b: SetEntry) => number,
  b: XBounds,
): AsyncGenerator<SetEntry> {
  const heap = new HeadHeap(cmp);
  for (let rank = 0; rank < sources.length; rank++) {
    const it = scans.open(withSource(xscan(sources[rank], ctx, b), sources[rank].set));
    const r = await it.next();
    if (!r.done) heap.push({ entry: r.value, it, rank });
  }
  yield* mergeDistinct(heap, cmp);
}

/** Entries present in every operand: each lagging scan catches up with the furthest head. */
async function* intersectionScan(
  ctx: EvalContext,
  scans: OpenScans,
  sources: SetSource[],
  cmp: (a: SetEntry, b: SetEntry) => number,
  b: XBounds,
): AsyncGenerator<SetEntry> {
  const its = sources.map((s) => scans.open(withSource(xscan(s, ctx, b), s.set)));
  const heads: SetEntry[] = [];
  for (const it of its) {
    const r = await it.next();
    if (r.done) return;
    heads.push(r.value);
  }
  for (;;) {
    let max = heads[0];
    for (const h of heads) if (cmp(h, max) > 0) max = h;
    let aligned = true;
    for (let i = 0; i < its.length; i++) {
      while (cmp(heads[i], max) < 0) {
        const r = await its[i].next();
        if (r.done) return;
        heads[i] = r.value;
      }
      if (cmp(heads[i], max) !== 0) aligned = false;
    }
    if (!aligned) continue;
    yield { ...heads[0], sources: combineSources(heads) };
    for (let i = 0; i < its.length; i++) {
      const r = await its[i].next();
      if (r.done) return;
      heads[i] = r.value;
    }
  }
}

/** Entries of the first operand that no other operand has. */
async function* differenceScan(
  ctx: EvalContext,
  scans: OpenScans,
  sources: SetSource[],
  cmp: (a: SetEntry, b: SetEntry) => number,
  b: XBounds,
): AsyncGenerator<SetEntry> {
  const base = scans.open(xscan(sources[0], ctx, b));
  const others = sources.slice(1).map((s) => scans.open(xscan(s, ctx, b)));
  const heads: (SetEntry | undefined)[] = [];
  for (const it of others) heads.push((await it.next()).value as SetEntry | undefined);
  for (;;) {
    const r = await base.next();
    if (r.done) return;
    const e = r.value;
    let removed = false;
    for (let i = 0; i < others.length; i++) {
      while (heads[i] && cmp(heads[i]!, e) < 0) heads[i] = (await others[i].next()).value as SetEntry | undefined;
      if (heads[i] && cmp(heads[i]!, e) === 0) removed = true;
    }
    if (!removed) yield e;
  }
}

algebra('union');
algebra('intersection');
algebra('difference');

// ---- Distinct ------------------------------------------------------------------------------------

define('distinct', async (call, env, ctx) => {
  const v = await evalArg(call, 'distinct', env, ctx);
  const items = Array.isArray(v) ? v : v instanceof Page ? v.data : undefined;
  if (items) {
    ctx.budget.array(items.length);
    ctx.budget.elements(items.length);
  }
  if (Array.isArray(v)) return distinctArray(ctx.budget, v);
  if (v instanceof Page) return v.withData(await distinctArray(ctx.budget, v.data));
  if (isSetOperand(v)) return new SetV(new Map([['distinct', v]]));
  mismatch('Array, Set, or Page', v, argPos(call, 'distinct'));
});

defineSetShape('distinct', async (ctx, set, pos) => {
  const inner = await operandSource(ctx, set.expr.get('distinct') ?? null, pos);
  const sameValue = (a: SetEntry, b: SetEntry) => compareValues(a.value, b.value) === 0;
  return xsource(set, inner.compare, async function* (ctx, b) {
    // Equal values are adjacent in set order. Each run is represented by its first entry in set
    // order in both directions, so cursors from forward and backward pages agree.
    let last: SetEntry | undefined;
    for await (const e of xscan(inner, ctx, b)) {
      if (!b.reverse) {
        if (!last || !sameValue(last, e)) yield e;
        last = e;
      } else {
        if (last && !sameValue(last, e)) yield last;
        last = e;
      }
    }
    if (b.reverse && last) yield last;
  });
});

// ---- Singleton -----------------------------------------------------------------------------------

define('singleton', async (call, env, ctx) => {
  const ref = await evalArg(call, 'singleton', env, ctx);
  if (!(ref instanceof Ref)) mismatch('Ref', ref, argPos(call, 'singleton'));
  return new SetV(new Map([['singleton', ref]]));
});

defineSetShape('singleton', async (ctx, set, pos) => {
  const ref = set.expr.get('singleton');
  if (!(ref instanceof Ref)) throw errors.invalidArgument('Invalid set.', pos);
  return singletonSource(ctx, ref, pos, set);
});

/** The one-element set of a document ref: present while the document exists at the read time. */
async function singletonSource(ctx: EvalContext, ref: Ref, pos: Position, set?: SetV): Promise<SetSource> {
  const t = await resolveRef(ctx, ref, pos);
  await checkAccess(ctx, 'read', t, pos);
  const self = set ?? new SetV(new Map([['singleton', ref]]));
  const byCursor = (a: SetEntry, b: SetEntry) => compareCursors(a.cursor, b.cursor);
  const src: XSource = xsource(self, byCursor, async function* (ctx, b) {
    const cursor = [ref];
    if (b.lo && compareToBound(src, cursor, b.lo) < 0) return;
    if (b.hi && compareToBound(src, cursor, b.hi) >= 0) return;
    if (await readLive(ctx, t, b.at)) yield { cursor, value: ref };
  });
  return src;
}

// ---- Range ---------------------------------------------------------------------------------------

define('range', async (call, env, ctx) => {
  const s = await evalArg(call, 'range', env, ctx);
  if (!isSetOperand(s)) mismatch('Set', s, argPos(call, 'range'));
  const from = await evalArg(call, 'from', env, ctx);
  const to = await evalArg(call, 'to', env, ctx);
  return new SetV(new Map<string, Value>([['range', s], ['from', from], ['to', to]]));
});

defineSetShape('range', async (ctx, set, pos) => {
  const inner = await operandSource(ctx, set.expr.get('range') ?? null, pos);
  // Both ends are inclusive cursor prefixes: `to` admits every entry it prefixes.
  const from = boundArg(set.expr.get('from'));
  const to = boundArg(set.expr.get('to'));
  const lo: Bound | undefined = from && { c: from, top: false };
  const hi: Bound | undefined = to && { c: to, top: true };
  return xsource(set, inner.compare, (ctx, b) =>
    xscan(inner, ctx, { ...b, lo: tighterLo(inner, b.lo, lo), hi: tighterHi(inner, b.hi, hi) }),
  );
});

// ---- Reverse -------------------------------------------------------------------------------------

define('reverse', async (call, env, ctx) => {
  const v = await evalArg(call, 'reverse', env, ctx);
  if (Array.isArray(v)) {
    ctx.budget.array(v.length);
    return [...v].reverse();
  }
  if (v instanceof Page) {
    ctx.budget.array(v.data.length);
    return v.withData([...v.data].reverse());
  }
  if (isSetOperand(v)) return new SetV(new Map([['reverse', v]]));
  mismatch('Array, Set, or Page', v, argPos(call, 'reverse'));
});

defineSetShape('reverse', async (ctx, set, pos) => {
  const inner = await operandSource(ctx, set.expr.get('reverse') ?? null, pos);
  // Bounds keep their prefix meaning in the reversed order: after [5] starts at the last entry
  // prefixed by 5 (inclusive), before [5] stops above the entries prefixed by 5.
  const flip = (x?: Bound): Bound | undefined => x && { c: x.c, top: !x.top };
  return xsource(
    set,
    (a, b) => inner.compare(b, a),
    (ctx, b) => xscan(inner, ctx, { lo: flip(b.hi), hi: flip(b.lo), reverse: !b.reverse, at: b.at }),
  );
});

// ---- Filter (sets; arrays and pages are filtered in functions/arrays.ts) -------------------------

/** Filter(λ, set): a lazy set; the lambda (closed over its scope) runs per element while scanning. */
export function filterSet(fn: LambdaExpr, env: Env, coll: SetV | Ref): SetV {
  return new SetV(new Map<string, Value>([['filter', makeLambda(fn, env)], ['collection', coll]]));
}

defineSetShape('filter', async (ctx, set, pos) => {
  const lambda = set.expr.get('filter');
  if (!(lambda instanceof Lambda)) throw errors.invalidArgument('Invalid set.', pos);
  const inner = await operandSource(ctx, set.expr.get('collection') ?? null, pos);
  return xsource(set, inner.compare, async function* (ctx, b) {
    for await (const e of xscan(inner, ctx, b)) {
      const keep = await applySetLambda(ctx, lambda, e.value, b.at, 'set filters', pos);
      if (typeof keep !== 'boolean') throw errors.typeMismatch('Boolean', typeName(keep), pos);
      if (keep) yield e;
    }
  });
});

// ---- Join ----------------------------------------------------------------------------------------

define('join', async (call, env, ctx) => {
  const source = await evalArg(call, 'join', env, ctx);
  if (!isSetOperand(source)) mismatch('Set', source, argPos(call, 'join'));
  let target = await evalArg(call, 'with', env, ctx);
  if (typeof target === 'string') target = Ref.schema('indexes', target);
  if (!(target instanceof Lambda) && !(target instanceof Ref && target.nativeParent === 'indexes'))
    mismatch('Index Ref or Lambda', target, argPos(call, 'with'));
  return new SetV(new Map<string, Value>([['join', source], ['with', target]]));
});

defineSetShape('join', async (ctx, set, pos) => {
  const source = await operandSource(ctx, set.expr.get('join') ?? null, pos);
  const target = set.expr.get('with');
  if (!(target instanceof Lambda) && !(target instanceof Ref)) throw errors.invalidArgument('Invalid set.', pos);

  /** The set joined to one source element: Match(index, element) or λ(element). */
  const targetOf = async (ctx: EvalContext, value: Value, at: bigint | undefined): Promise<SetSource> => {
    if (target instanceof Ref) {
      const match: Obj = new Map<string, Value>([['match', target], ['terms', value]]);
      return sourceOf(ctx, new SetV(match), pos);
    }
    const s = await applySetLambda(ctx, target, value, at, 'set joins', pos);
    if (!isSetOperand(s)) mismatch('Set', s, pos);
    return operandSource(ctx, s, pos);
  };

  // The result is in the targets' order; it is learnt from the first target opened (targets of one
  // index or one lambda share an order), cursor order until then.
  let targetCompare: ((a: SetEntry, b: SetEntry) => number) | undefined;
  const compare = (a: SetEntry, b: SetEntry) => (targetCompare ? targetCompare(a, b) : compareCursors(a.cursor, b.cursor));

  return xsource(set, compare, (ctx, b) =>
    scanning(async function* (scans) {
      // One open scan per source element (its first entry read), then a lazy k-way merge.
      const cmp = directed(compare, b.reverse);
      const heap = new HeadHeap(cmp);
      let rank = 0;
      for await (const e of xscan(source, ctx, { reverse: false, at: b.at })) {
        const t = await targetOf(ctx, e.value, b.at);
        targetCompare ??= t.compare;
        const it = scans.open(xscan(t, ctx, b));
        const r = await it.next();
        if (r.done) await it.return?.();
        else heap.push({ entry: r.value, it, rank: rank++ });
      }
      yield* mergeDistinct(heap, cmp);
    }),
  );
});
