// Lazy sets (ValueSet.scala). A set yields pages: `paginateImpl(ctx, count, cont)` answers at most
// about `count` elements from position `cont` (null: the start) and, when more remain, the token
// to continue from. Combinators (`where`, `map`, `take`, `concat`…) wrap their inner set and page
// through it on demand; eager operations (`count`, `fold`, `toArray`…) walk the pages. Storage
// adds sources (collections, indexes) by extending ValueSet; a cursor is a PageTok, made opaque by
// the context's CursorCodec.

import { Failures, type Trace } from './failure';
import { prepareCompare, sortCompare, valueEquals, hashKey } from './cmp';
import type { CallCtx } from './table';
import { frameSpan } from './table';
import { arityAccepts, NullV, type Func, type RtValue } from './values';
import type { Time } from '../../values/types';
import { typeName as typeNameOf } from './types';

/** The default page size a set materializes with. */
export const DEFAULT_PAGE_SIZE = 16;
/** Most elements eager operations hold at once; also the page size of full iterations. */
export const MAXIMUM_ELEMENTS = 16_000;
const MINIMUM_ELEMENTS_FOR_FILTERING = 16;
/** A take() of fewer elements bounds a full read well enough to need no hint (IndexSetHintLimit). */
const HINTED_TAKE = 100;
const SCALE_FACTOR = 4;

/** Where to continue a set: the set to page (possibly rewritten) and its position. */
export interface PageTok {
  readonly set: ValueSet;
  /** Position values (an index for in-memory sets); null for the start. */
  readonly cont: RtValue[] | null;
}

export interface PageElem {
  readonly value: RtValue;
  /** The position just at this element (to resume after it). */
  readonly tok: () => PageTok;
}

export interface Page {
  readonly elems: PageElem[];
  readonly after: PageTok | undefined;
}

const EMPTY_PAGE: Page = { elems: [], after: undefined };

function mapTok(t: PageTok, f: (s: ValueSet) => ValueSet): PageTok {
  return { set: f(t.set), cont: t.cont };
}

function mapPage(p: Page, f: (s: ValueSet) => ValueSet): Page {
  return {
    elems: p.elems.map((e) => ({ value: e.value, tok: () => mapTok(e.tok(), f) })),
    after: p.after === undefined ? undefined : mapTok(p.after, f),
  };
}

export abstract class ValueSet {
  /** Elements in a first page when none is asked for. */
  initialPageSize(): number {
    return DEFAULT_PAGE_SIZE;
  }

  abstract paginateImpl(ctx: CallCtx, count: number, cont: RtValue[] | null): Promise<Page>;

  /** Why `eventSource()` is refused on this set, or undefined if it streams (storage sets). */
  abstract readonly streamRefusal: string | undefined;

  /** Whether reading all of it reads a storage set without bound, so a method doing so earns a
   *  full_set_read hint (ValueSet.shouldIncludePerformanceHints). Storage sets answer true. */
  readsFullStorageSet(): boolean {
    return false;
  }

  reverse(): ValueSet {
    return new ReverseSet(this);
  }

  paginate(ctx: CallCtx, count: number, cont: RtValue[] | null = null): Promise<Page> {
    return this.paginateImpl(ctx, count, cont);
  }

  async first(ctx: CallCtx): Promise<RtValue> {
    const page = await this.paginate(ctx, 1);
    return page.elems.length > 0 ? page.elems[0].value : NullV.noSuchElement('empty set', frameSpan(ctx));
  }

  async isEmpty(ctx: CallCtx): Promise<boolean> {
    return (await this.paginate(ctx, 1)).elems.length === 0;
  }

  /** Calls `f` on every element, page by page, until it answers false. */
  async forEachElem(ctx: CallCtx, f: (v: RtValue) => Promise<boolean> | boolean): Promise<void> {
    let tok: PageTok | undefined = { set: this, cont: null };
    while (tok !== undefined) {
      const page: Page = await tok.set.paginateImpl(ctx, MAXIMUM_ELEMENTS, tok.cont);
      for (const e of page.elems) if (!(await f(e.value))) return;
      tok = page.after;
    }
  }

  async includes(ctx: CallCtx, value: RtValue): Promise<boolean> {
    let found = false;
    await this.forEachElem(ctx, (v) => !(found = valueEquals(v, value)));
    return found;
  }

  async anyEvery(ctx: CallCtx, pred: Func, dflt: boolean): Promise<boolean> {
    if (!arityAccepts(pred.arity, 1)) throw Failures.invalidFuncParamArity('predicate', 1, pred.arity, ctx.trace);
    let res = dflt;
    await this.forEachElem(ctx, async (v) => {
      const r = await ctx.apply(pred, [v]);
      if (typeof r === 'boolean') res = r;
      else if (r instanceof NullV) res = false;
      else throw Failures.invalidType('Boolean', typeNameOf(r), ctx.trace);
      return res === dflt;
    });
    return res;
  }

  async foldLeft(ctx: CallCtx, seed: RtValue, f: (acc: RtValue, v: RtValue) => Promise<RtValue>): Promise<RtValue> {
    let acc = seed;
    await this.forEachElem(ctx, async (v) => {
      acc = await f(acc, v);
      return true;
    });
    return acc;
  }

  async reduceLeft(ctx: CallCtx, fn: Func): Promise<RtValue> {
    let acc: RtValue | undefined;
    await this.forEachElem(ctx, async (v) => {
      acc = acc === undefined ? v : await ctx.apply(fn, [acc, v]);
      return true;
    });
    return acc === undefined ? NullV.noSuchElement('empty set', frameSpan(ctx)) : acc;
  }

  /** Set.aggregate: combines pairs, halving each round (O(log n) depth), then with the seed. */
  aggregate(ctx: CallCtx, seed: RtValue, fn: Func): Promise<RtValue> {
    return aggregateFrom(ctx, fn, seed, { set: this, cont: null });
  }

  /** Every element, failing beyond `limit` (ValueSet.materialize). */
  async materialize(ctx: CallCtx, limit = MAXIMUM_ELEMENTS): Promise<PageElem[]> {
    const acc: PageElem[] = [];
    let tok: PageTok | undefined = { set: this, cont: null };
    let remaining = limit + 1;
    while (tok !== undefined) {
      const page: Page = await tok.set.paginateImpl(ctx, Math.min(remaining, MAXIMUM_ELEMENTS), tok.cont);
      for (const e of page.elems) acc.push(e);
      if (acc.length > limit) throw Failures.valueTooLarge(`exceeded maximum number of elements (limit=${limit})`, ctx.trace);
      remaining = limit + 1 - acc.length;
      tok = page.after;
    }
    return acc;
  }
}

async function aggregateFrom(ctx: CallCtx, fn: Func, agg: RtValue, tok: PageTok): Promise<RtValue> {
  const page = await tok.set.paginateImpl(ctx, MAXIMUM_ELEMENTS, tok.cont);
  if (page.elems.length === 0) return agg;
  let vals = page.elems.map((e) => e.value);
  while (vals.length > 1) vals = await combinePairs(ctx, fn, vals);
  const r = page.after === undefined ? vals[0] : await aggregateFrom(ctx, fn, vals[0], page.after);
  return ctx.apply(fn, [r, agg]);
}

async function combinePairs(ctx: CallCtx, fn: Func, vals: RtValue[]): Promise<RtValue[]> {
  const out: RtValue[] = [];
  for (let i = 0; i < vals.length; i += 2) out.push(i + 1 < vals.length ? await ctx.apply(fn, [vals[i], vals[i + 1]]) : vals[i]);
  return out;
}

// ---- in-memory sources ----

/**
 * Before a source builds a page: a walk over a huge sequence (`drop`, `includes`) calls no function,
 * so the clock (deadline, slice) is looked at here.
 */
function breathe(ctx: CallCtx): Promise<void> | undefined {
  return ctx.hooks.breathe?.(true);
}

const tokAt = (set: ValueSet, i: number): PageTok => ({ set, cont: [BigInt(i)] });

function contIndex(cont: RtValue[] | null): number {
  if (cont === null) return 0;
  const i = cont[0];
  return typeof i === 'bigint' ? Number(i) : 0;
}

/** `array.toSet()` */
export class ArraySet extends ValueSet {
  readonly streamRefusal = 'streaming is not supported on array sets.';
  constructor(readonly array: readonly RtValue[]) {
    super();
  }
  override reverse(): ValueSet {
    return new ArraySet([...this.array].reverse());
  }
  async paginateImpl(ctx: CallCtx, count: number, cont: RtValue[] | null): Promise<Page> {
    await breathe(ctx);
    const from = contIndex(cont);
    const a = this.array;
    const end = Math.min(a.length, from + count);
    const elems: PageElem[] = [];
    for (let i = from; i < end; i++) elems.push({ value: a[i], tok: () => tokAt(this, i) });
    return { elems, after: end < a.length ? tokAt(this, end) : undefined };
  }
}

/** `Set.sequence(from, until)`: from (inclusive) to until (exclusive). */
export class SequenceSet extends ValueSet {
  readonly streamRefusal = 'streaming is not supported on sets created from `Set.sequence()`.';
  constructor(
    readonly from: number,
    readonly until: number,
    readonly reversed = false,
  ) {
    super();
  }
  override reverse(): ValueSet {
    return new SequenceSet(this.from, this.until, !this.reversed);
  }
  async paginateImpl(ctx: CallCtx, count: number, cont: RtValue[] | null): Promise<Page> {
    await breathe(ctx);
    const size = Math.max(0, this.until - this.from);
    const offset = Math.min(contIndex(cont), size);
    const n = Math.min(count, size - offset);
    const elems: PageElem[] = new Array(n);
    for (let i = 0; i < n; i++) {
      const k = offset + i;
      const v = this.reversed ? this.until - 1 - k : this.from + k;
      elems[i] = { value: BigInt(v), tok: () => tokAt(this, k) };
    }
    return { elems, after: size - offset > count ? tokAt(this, offset + n) : undefined };
  }
}

/** `Set.single(value)` */
export class SingletonSet extends ValueSet {
  readonly streamRefusal = undefined; // a document streams; any other value is refused by the event source's maker
  constructor(readonly value: RtValue) {
    super();
  }
  async paginateImpl(_ctx: CallCtx, _count: number, cont: RtValue[] | null): Promise<Page> {
    if (cont !== null) return EMPTY_PAGE;
    return { elems: [{ value: this.value, tok: () => ({ set: this, cont: [] }) }], after: undefined };
  }
}

// ---- combinators ----

export class ConcatSet extends ValueSet {
  readonly streamRefusal = 'streaming is not supported on concatenated sets.';
  constructor(
    readonly left: ValueSet,
    readonly right: ValueSet,
  ) {
    super();
  }

  override readsFullStorageSet(): boolean {
    return this.left.readsFullStorageSet() || this.right.readsFullStorageSet();
  }

  override reverse(): ValueSet {
    return new ConcatSet(this.right.reverse(), this.left.reverse());
  }
  async paginateImpl(ctx: CallCtx, count: number, cont: RtValue[] | null): Promise<Page> {
    const right = this.right;
    const wrap = (s: ValueSet) => new ConcatSet(s, right);
    const page = await this.left.paginateImpl(ctx, count, cont);
    if (page.after !== undefined) return mapPage(page, wrap);
    const size = count - page.elems.length;
    const mapped = mapPage(page, wrap);
    if (size > 0) {
      const rest = await right.paginateImpl(ctx, size, null);
      return { elems: [...mapped.elems, ...rest.elems], after: rest.after };
    }
    return { elems: mapped.elems, after: { set: right, cont: null } };
  }
}

/** `set.reverse()` where the set cannot page backwards: materializes it. */
export class ReverseSet extends ValueSet {
  readonly streamRefusal = 'streaming is not supported on sets that have been reversed.';
  constructor(readonly inner: ValueSet) {
    super();
  }

  override readsFullStorageSet(): boolean {
    return this.inner.readsFullStorageSet();
  }

  override reverse(): ValueSet {
    return this.inner;
  }
  override initialPageSize(): number {
    return this.inner.initialPageSize();
  }
  async paginateImpl(ctx: CallCtx, count: number, cont: RtValue[] | null): Promise<Page> {
    const all = (await this.inner.materialize(ctx)).reverse();
    const from = cont === null ? 0 : contIndex(cont) + 1;
    const elems: PageElem[] = [];
    const end = Math.min(all.length, from + count);
    for (let i = from; i < end; i++) elems.push({ value: all[i].value, tok: () => tokAt(this, i) });
    return { elems, after: end < all.length && elems.length > 0 ? tokAt(this, end - 1) : undefined };
  }
}

export class DistinctSet extends ValueSet {
  readonly streamRefusal = 'streaming is not supported on distinct sets.';
  constructor(readonly inner: ValueSet) {
    super();
  }

  override readsFullStorageSet(): boolean {
    return this.inner.readsFullStorageSet();
  }

  override reverse(): ValueSet {
    return new DistinctSet(this.inner.reverse());
  }
  override initialPageSize(): number {
    return this.inner.initialPageSize();
  }
  async paginateImpl(ctx: CallCtx, count: number, cont: RtValue[] | null): Promise<Page> {
    const vals = (await this.inner.materialize(ctx)).map((e) => e.value);
    await prepareCompare(ctx, vals);
    vals.sort(sortCompare);
    const seen = new Set<string>();
    const uniq: RtValue[] = [];
    for (const v of vals) {
      const k = hashKey(v);
      if (!seen.has(k)) {
        seen.add(k);
        uniq.push(v);
      }
    }
    return new ArraySet(uniq).paginateImpl(ctx, count, cont);
  }
}

export class DropSet extends ValueSet {
  readonly streamRefusal = 'streaming is not supported on sets returned from `.drop()`.';
  constructor(
    readonly inner: ValueSet,
    readonly elements: number,
  ) {
    super();
  }

  override readsFullStorageSet(): boolean {
    return this.inner.readsFullStorageSet();
  }

  override initialPageSize(): number {
    return this.inner.initialPageSize();
  }
  async paginateImpl(ctx: CallCtx, count: number, cont: RtValue[] | null): Promise<Page> {
    let set = this.inner;
    let remaining = this.elements;
    let acc: PageElem[] = [];
    for (;;) {
      const size = Math.min(remaining + count, MAXIMUM_ELEMENTS);
      const page = await set.paginateImpl(ctx, size, cont);
      const kept = page.elems.slice(Math.max(0, remaining));
      if (page.after !== undefined && remaining + count > MAXIMUM_ELEMENTS) {
        acc = acc.concat(kept);
        remaining -= page.elems.length;
        set = page.after.set;
        cont = page.after.cont;
        continue;
      }
      return { elems: acc.concat(kept), after: page.after };
    }
  }
}

export class TakeSet extends ValueSet {
  readonly streamRefusal = 'streaming is not supported on sets returned from `.take()`.';
  constructor(
    readonly inner: ValueSet,
    readonly limit: number,
  ) {
    super();
  }

  override readsFullStorageSet(): boolean {
    return this.limit >= HINTED_TAKE && this.inner.readsFullStorageSet();
  }

  override initialPageSize(): number {
    return this.inner.initialPageSize();
  }
  async paginateImpl(ctx: CallCtx, count: number, cont: RtValue[] | null): Promise<Page> {
    const needed = Math.min(count, this.limit);
    if (needed === 0) return EMPTY_PAGE;
    const page = await this.inner.paginateImpl(ctx, needed, cont);
    const limit = this.limit;
    const elems: PageElem[] = page.elems.slice(0, limit).map((e, i) => ({ value: e.value, tok: () => mapTok(e.tok(), (s) => new TakeSet(s, limit - 1 - i)) }));
    const nextLimit = Math.max(limit - page.elems.length, 0);
    if (nextLimit > 0) return { elems, after: page.after === undefined ? undefined : mapTok(page.after, (s) => new TakeSet(s, nextLimit)) };
    return { elems: elems.slice(0, needed), after: undefined };
  }
}

/** A predicate's answer: true keeps, false or null drops, anything else fails. */
async function keeps(ctx: CallCtx, pred: Func, v: RtValue, trace: Trace | null): Promise<boolean> {
  const r = await ctx.apply(pred, [v]);
  if (r === true) return true;
  if (r === false || r instanceof NullV) return false;
  throw Failures.invalidType('Boolean', typeNameOf(r), trace);
}

/** The context a set's lambdas run in: the valid time and trace of where the set was built,
 *  reads only. */
function lambdaCtx(ctx: CallCtx, validTime: Time | undefined, trace: Trace | null): CallCtx {
  return ctx.atValidTime(validTime).readOnly('set functions').withTrace(trace);
}

export class WhereFilterSet extends ValueSet {
  readonly streamRefusal: string | undefined;
  constructor(
    readonly inner: ValueSet,
    readonly pred: Func,
    readonly validTime: Time | undefined,
    readonly trace: Trace | null,
  ) {
    super();
    this.streamRefusal = inner.streamRefusal;
  }

  override readsFullStorageSet(): boolean {
    return this.inner.readsFullStorageSet();
  }

  override reverse(): ValueSet {
    return new WhereFilterSet(this.inner.reverse(), this.pred, this.validTime, this.trace);
  }
  override initialPageSize(): number {
    return this.inner.initialPageSize();
  }
  async paginateImpl(ctx: CallCtx, count: number, cont: RtValue[] | null): Promise<Page> {
    const wrap = (s: ValueSet) => new WhereFilterSet(s, this.pred, this.validTime, this.trace);
    const lctx = lambdaCtx(ctx, this.validTime, this.trace);
    let set = this.inner;
    let pageSize = Math.max(count, MINIMUM_ELEMENTS_FOR_FILTERING);
    const acc: PageElem[] = [];
    for (;;) {
      const page = await set.paginateImpl(ctx, pageSize, cont);
      if (page.elems.length === 0 && page.after === undefined) return acc.length === 0 ? EMPTY_PAGE : mapPage({ elems: acc, after: undefined }, wrap);
      for (const e of page.elems) if (await keeps(lctx, this.pred, e.value, this.trace)) acc.push(e);
      if (acc.length < count && page.after !== undefined) {
        pageSize = Math.min(pageSize * SCALE_FACTOR, MAXIMUM_ELEMENTS);
        set = page.after.set;
        cont = page.after.cont;
        continue;
      }
      const p: Page = acc.length > count ? { elems: acc.slice(0, count), after: acc[count].tok() } : { elems: acc, after: page.after };
      // The token of the first element left out resumes *at* it: the core's quirk, kept.
      return mapPage(p, wrap);
    }
  }
}

export class ProjectedSet extends ValueSet {
  readonly streamRefusal: string | undefined;
  constructor(
    readonly inner: ValueSet,
    readonly fn: Func,
    readonly validTime: Time | undefined,
    readonly trace: Trace | null,
  ) {
    super();
    this.streamRefusal = inner.streamRefusal;
  }

  override readsFullStorageSet(): boolean {
    return this.inner.readsFullStorageSet();
  }

  override reverse(): ValueSet {
    return new ProjectedSet(this.inner.reverse(), this.fn, this.validTime, this.trace);
  }
  override initialPageSize(): number {
    return this.inner.initialPageSize();
  }
  async paginateImpl(ctx: CallCtx, count: number, cont: RtValue[] | null): Promise<Page> {
    const page = await this.inner.paginateImpl(ctx, count, cont);
    const lctx = lambdaCtx(ctx, this.validTime, this.trace);
    const elems: PageElem[] = new Array(page.elems.length);
    for (let i = 0; i < page.elems.length; i++) {
      const e = page.elems[i];
      elems[i] = { value: await lctx.apply(this.fn, [e.value]), tok: e.tok };
    }
    return mapPage({ elems, after: page.after }, (s) => new ProjectedSet(s, this.fn, this.validTime, this.trace));
  }
}

export class FlatMapSet extends ValueSet {
  readonly streamRefusal = 'streaming is not supported on sets returned from `.flatMap()`.';
  constructor(
    readonly spline: ValueSet,
    readonly splineCont: RtValue[] | null,
    readonly fn: Func,
    readonly validTime: Time | undefined,
    readonly reversed: boolean,
    readonly trace: Trace | null,
  ) {
    super();
  }

  override readsFullStorageSet(): boolean {
    return this.spline.readsFullStorageSet();
  }

  override reverse(): ValueSet {
    return new FlatMapSet(this.spline.reverse(), this.splineCont, this.fn, this.validTime, true, this.trace);
  }
  override initialPageSize(): number {
    return this.spline.initialPageSize();
  }
  async paginateImpl(ctx: CallCtx, count: number): Promise<Page> {
    const page = await this.spline.paginateImpl(ctx, 1, this.splineCont);
    if (page.elems.length === 0) return EMPTY_PAGE;
    const lctx = lambdaCtx(ctx, this.validTime, this.trace);
    const v = await lctx.apply(this.fn, [page.elems[0].value]);
    if (!(v instanceof ValueSet)) throw Failures.invalidType('Set<Any>', typeNameOf(v), this.trace);
    const leaf = this.reversed ? v.reverse() : v;
    const set =
      page.after === undefined ? leaf : new ConcatSet(leaf, new FlatMapSet(page.after.set, page.after.cont, this.fn, this.validTime, this.reversed, this.trace));
    return set.paginateImpl(ctx, count, null);
  }
}

/** One `order()` key: an accessor and a direction. */
export interface Ordering {
  readonly accessor: Func;
  readonly ascending: boolean;
}

/** The sort keys of one value (OrderedSet.sortElems): the value itself when there are no orderings. */
export async function sortKeys(ctx: CallCtx, ords: readonly Ordering[], v: RtValue): Promise<{ v: RtValue; asc: boolean }[]> {
  const keys: { v: RtValue; asc: boolean }[] = [];
  if (ords.length === 0) keys.push({ v, asc: true });
  const rctx = ctx.readOnly('set functions');
  for (const o of ords) keys.push({ v: await rctx.apply(o.accessor, [v]), asc: o.ascending });
  await prepareCompare(ctx, keys.map((k) => k.v));
  return keys;
}

export function compareKeys(a: readonly { v: RtValue; asc: boolean }[], b: readonly { v: RtValue; asc: boolean }[]): number {
  const n = Math.min(a.length, b.length);
  for (let i = 0; i < n; i++) {
    const c = a[i].asc ? sortCompare(a[i].v, b[i].v) : sortCompare(b[i].v, a[i].v);
    if (c !== 0) return c;
  }
  return a.length - b.length;
}

export class OrderedSet extends ValueSet {
  readonly streamRefusal = 'streaming is not supported on sets returned from `.order()`.';
  constructor(
    readonly inner: ValueSet,
    readonly ords: readonly Ordering[],
    readonly trace: Trace | null,
  ) {
    super();
  }

  override readsFullStorageSet(): boolean {
    return this.inner.readsFullStorageSet();
  }

  override reverse(): ValueSet {
    return new OrderedSet(
      this.inner,
      this.ords.map((o) => ({ accessor: o.accessor, ascending: !o.ascending })),
      this.trace,
    );
  }
  override initialPageSize(): number {
    return this.inner.initialPageSize();
  }
  async paginateImpl(ctx: CallCtx, count: number, cont: RtValue[] | null): Promise<Page> {
    const elems = await this.inner.materialize(ctx);
    const sctx = ctx.withTrace(this.trace);
    const keyed: { v: RtValue; k: { v: RtValue; asc: boolean }[] }[] = [];
    for (let i = 0; i < elems.length; i++) {
      const k = await sortKeys(sctx, this.ords, elems[i].value);
      k.push({ v: BigInt(i), asc: true });
      keyed.push({ v: elems[i].value, k });
    }
    keyed.sort((a, b) => compareKeys(a.k, b.k));
    return new ArraySet(keyed.map((x) => x.v)).paginateImpl(ctx, count, cont);
  }
}

/** `set.pageSize(n)`: the same elements, first page of `n`. */
export class PagedSet extends ValueSet {
  readonly streamRefusal: string | undefined;
  constructor(
    readonly inner: ValueSet,
    readonly count: number,
  ) {
    super();
    this.streamRefusal = inner.streamRefusal;
  }

  override readsFullStorageSet(): boolean {
    return this.inner.readsFullStorageSet();
  }

  override initialPageSize(): number {
    return this.count;
  }
  override reverse(): ValueSet {
    return new PagedSet(this.inner.reverse(), this.count);
  }
  paginateImpl(ctx: CallCtx, count: number, cont: RtValue[] | null): Promise<Page> {
    return this.inner.paginateImpl(ctx, count, cont);
  }
}
