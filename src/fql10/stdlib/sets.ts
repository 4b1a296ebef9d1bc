// Set (stdlib/Sets.scala): the prototype over any ValueSet, and the `Set` companion with its
// in-memory sources and `Set.paginate(cursor)`.

import { Failures } from '../runtime/failure';
import {
  ArraySet,
  ConcatSet,
  DistinctSet,
  DropSet,
  FlatMapSet,
  MAXIMUM_ELEMENTS,
  OrderedSet,
  PagedSet,
  ProjectedSet,
  SequenceSet,
  SingletonSet,
  TakeSet,
  ValueSet,
  WhereFilterSet,
  type Page,
} from '../runtime/sets';
import { fullSetRead } from '../runtime/hints';
import { frameSpan, type CallCtx } from '../runtime/table';
import { toDebugString } from '../runtime/toString';
import { p, tt } from '../runtime/types';
import { arityAccepts, NullV, SetCursorV, type Func, type RtValue } from '../runtime/values';
import { companion, prototype } from './base';
import { collectOrderings, orderingParam } from './orderings';

function checkArity(ctx: CallCtx, name: string, n: number, fn: Func): void {
  if (!arityAccepts(fn.arity, n)) throw Failures.invalidFuncParamArity(name, n, fn.arity, ctx.trace);
}

function checkSize(ctx: CallCtx, arg: string, size: bigint): number {
  if (size <= 0n || size > BigInt(MAXIMUM_ELEMENTS)) throw Failures.invalidBounds(arg, `between 1 and ${MAXIMUM_ELEMENTS} (inclusive)`, toDebugString(size), ctx.trace);
  return Number(size);
}

/** A page as `paginate()` answers it: `{ data, after? }`, `after` a cursor (Page.toValue). */
function pageValue(ctx: CallCtx, page: Page): Map<string, RtValue> {
  const m = new Map<string, RtValue>([['data', page.elems.map((e) => e.value)]]);
  if (page.after !== undefined) m.set('after', new SetCursorV(ctx.hooks.cursors.encode(page.after, page.elems.length)));
  return m;
}

const t = prototype('Set<Any>');
export const SetPrototype = t;
const predicate = [p('predicate', tt.Function)];

t.method('aggregate', [p('seed'), p('combiner', tt.Function)], (ctx, self: ValueSet, [seed, f]: [RtValue, Func]) => {
  fullSetRead(ctx, self, 'aggregate');
  checkArity(ctx, 'combiner', 2, f);
  return self.aggregate(ctx, seed, f);
});
t.method('where', predicate, (ctx, self: ValueSet, [f]: Func[]) => {
  checkArity(ctx, 'pred', 1, f);
  return new WhereFilterSet(self, f, ctx.validTime, ctx.trace);
});
t.method('distinct', [], (ctx, self: ValueSet) => {
  fullSetRead(ctx, self, 'distinct');
  return new DistinctSet(self);
});
t.method('drop', [p('amount', tt.Int)], (_c, self: ValueSet, [n]: bigint[]) => new DropSet(self, Number(n)));
t.method('firstWhere', predicate, (ctx, self: ValueSet, [f]: Func[]) => {
  checkArity(ctx, 'pred', 1, f);
  return new WhereFilterSet(self, f, ctx.validTime, ctx.trace).first(ctx);
});
t.method('lastWhere', predicate, (ctx, self: ValueSet, [f]: Func[]) => {
  checkArity(ctx, 'pred', 1, f);
  return new WhereFilterSet(self.reverse(), f, ctx.validTime, ctx.trace).first(ctx);
});
t.method('flatMap', [p('mapper', tt.Function)], (ctx, self: ValueSet, [f]: Func[]) => {
  checkArity(ctx, 'mapper', 1, f);
  return new FlatMapSet(self, null, f, ctx.validTime, false, ctx.trace);
});
t.method('map', [p('mapper', tt.Function)], (ctx, self: ValueSet, [f]: Func[]) => {
  checkArity(ctx, 'mapper', 1, f);
  return new ProjectedSet(self, f, ctx.validTime, ctx.trace);
});
t.varargMethod('order', orderingParam, (ctx, self: ValueSet, ords: RtValue[]) => {
  fullSetRead(ctx, self, 'order');
  return new OrderedSet(self, collectOrderings(ctx, ords), ctx.trace);
});
t.method('reverse', [], (_c, self: ValueSet) => self.reverse());
t.method('paginate', [], async (ctx, self: ValueSet) => pageValue(ctx, await self.paginate(ctx, self.initialPageSize())));
t.method('paginate', [p('size', tt.Int)], async (ctx, self: ValueSet, [n]: bigint[]) => pageValue(ctx, await self.paginate(ctx, checkSize(ctx, 'size', n))));
t.method('pageSize', [p('size', tt.Int)], (ctx, self: ValueSet, [n]: bigint[]) => new PagedSet(self, checkSize(ctx, 'size', n)));
t.method('any', predicate, (ctx, self: ValueSet, [f]: Func[]) => self.anyEvery(ctx, f, false));
t.method('every', predicate, (ctx, self: ValueSet, [f]: Func[]) => {
  fullSetRead(ctx, self, 'every');
  return self.anyEvery(ctx, f, true);
});
t.method('first', [], (ctx, self: ValueSet) => self.first(ctx));
t.method('last', [], (ctx, self: ValueSet) => self.reverse().first(ctx));
t.method('isEmpty', [], (ctx, self: ValueSet) => self.isEmpty(ctx));
t.method('nonEmpty', [], async (ctx, self: ValueSet) => !(await self.isEmpty(ctx)));
t.method('includes', [p('element')], (ctx, self: ValueSet, [v]) => {
  fullSetRead(ctx, self, 'includes');
  return self.includes(ctx, v);
});
t.method('take', [p('limit', tt.Int)], (ctx, self: ValueSet, [n]: bigint[]) => {
  if (n < 0n) throw Failures.invalidBounds('limit', 'greater than 0', toDebugString(n), ctx.trace);
  return n === 0n ? new ArraySet([]) : new TakeSet(self, Number(n));
});
t.method('toArray', [], async (ctx, self: ValueSet) => {
  fullSetRead(ctx, self, 'toArray');
  return (await self.materialize(ctx)).map((e) => e.value);
});
t.method('toSet', [], (_c, self: ValueSet) => self);
t.method('concat', [p('other', tt.Set)], (_c, self: ValueSet, [o]: ValueSet[]) => new ConcatSet(self, o));
t.method('fold', [p('seed'), p('reducer', tt.Function)], (ctx, self: ValueSet, [seed, f]: [RtValue, Func]) => {
  fullSetRead(ctx, self, 'fold');
  checkArity(ctx, 'reducer', 2, f);
  return self.foldLeft(ctx, seed, (acc, v) => ctx.apply(f, [acc, v]));
});
t.method('foldRight', [p('seed'), p('reducer', tt.Function)], (ctx, self: ValueSet, [seed, f]: [RtValue, Func]) => {
  fullSetRead(ctx, self, 'foldRight');
  checkArity(ctx, 'reducer', 2, f);
  return self.reverse().foldLeft(ctx, seed, (acc, v) => ctx.apply(f, [acc, v]));
});
t.method('forEach', [p('callback', tt.Function)], async (ctx, self: ValueSet, [f]: Func[]) => {
  fullSetRead(ctx, self, 'forEach');
  checkArity(ctx, 'func', 1, f);
  await self.forEachElem(ctx, async (v) => {
    await ctx.apply(f, [v]);
    return true;
  });
  return NullV.lit(frameSpan(ctx));
});
t.method('reduce', [p('reducer', tt.Function)], (ctx, self: ValueSet, [f]: Func[]) => {
  fullSetRead(ctx, self, 'reduce');
  checkArity(ctx, 'reducer', 2, f);
  return self.reduceLeft(ctx, f);
});
t.method('reduceRight', [p('reducer', tt.Function)], (ctx, self: ValueSet, [f]: Func[]) => {
  fullSetRead(ctx, self, 'reduceRight');
  checkArity(ctx, 'reducer', 2, f);
  return self.reverse().reduceLeft(ctx, f);
});
t.method('count', [], async (ctx, self: ValueSet) => {
  fullSetRead(ctx, self, 'count');
  // The core charges the count as compute after counting; charging each page as it goes ends a
  // count of a huge set when the budget runs out instead of after it.
  let n = 0n;
  let tok: { set: ValueSet; cont: RtValue[] | null } | undefined = { set: self, cont: null };
  while (tok !== undefined) {
    const page: Page = await tok.set.paginateImpl(ctx, MAXIMUM_ELEMENTS, tok.cont);
    ctx.hooks.compute(page.elems.length);
    n += BigInt(page.elems.length);
    tok = page.after;
  }
  return n;
});
// Storage sets stream (the host's hook makes their event source); the others say why not.
const toEventSource = (ctx: CallCtx, self: ValueSet, fields: readonly Func[], method: string) => {
  if (self.streamRefusal !== undefined || ctx.hooks.eventSource === undefined)
    throw Failures.invalidReceiver(method, self.streamRefusal ?? 'streaming is not supported on this set.', ctx.trace);
  return ctx.hooks.eventSource(ctx, self, fields, method);
};
t.method('toStream', [], (ctx, self: ValueSet) => toEventSource(ctx, self, [], '.toStream()'));
t.method('eventSource', [], (ctx, self: ValueSet) => toEventSource(ctx, self, [], '.eventSource()'));
t.varargMethod('changesOn', p('fields', tt.Function), (ctx, self: ValueSet, fs: Func[]) => toEventSource(ctx, self, fs, '.changesOn()'));
t.varargMethod('eventsOn', p('fields', tt.Function), (ctx, self: ValueSet, fs: Func[]) => toEventSource(ctx, self, fs, '.eventsOn()'));

export const SetCompanion = companion('Set', (v) => v instanceof ValueSet);
const st = SetCompanion.table;
st.method('single', [p('element')], (_c, _m, [v]) => new SingletonSet(v));
st.method('sequence', [p('from', tt.Int), p('until', tt.Int)], (_c, _m, [a, b]: bigint[]) => new SequenceSet(Number(a), Number(b)));

const cursorTag = { display: 'String | SetCursor', cast: (v: RtValue) => (typeof v === 'string' || v instanceof SetCursorV ? v : undefined) };

async function paginateCursor(ctx: CallCtx, cur: string | SetCursorV, size: number | undefined): Promise<RtValue> {
  const token = typeof cur === 'string' ? cur : cur.token;
  const d = ctx.hooks.cursors.decode(token);
  if (d === undefined) throw Failures.invalidCursor(ctx.trace);
  const page = await d.tok.set.paginate(ctx, size ?? d.pageSize, d.tok.cont);
  return pageValue(ctx, page);
}
st.method('paginate', [p('cursor', cursorTag)], (ctx, _m, [c]: (string | SetCursorV)[]) => paginateCursor(ctx, c, undefined));
st.method('paginate', [p('cursor', cursorTag), p('size', tt.Int)], (ctx, _m, [c, n]: [string | SetCursorV, bigint]) =>
  paginateCursor(ctx, c, checkSize(ctx, 'size', n)),
);
