// Collection functions over arrays and pages (fql-v4.md §3.3): map, foreach, filter, reduce,
// take, drop, prepend, append, is_empty, is_nonempty. Set arguments of filter/reduce/is_empty/is_nonempty
// are routed to setOps.ts and setAggregates.ts.

import { Page, type Value } from '../../values/types';
import { applyLambdaExpr } from '../evaluator';
import { argPos, asArray, asArrayOrPage, asLong, evalArg, expectBoolean, lambdaArg, mismatch } from '../args';
import { define } from '../registry';
import { joined, remember } from '../../values/measure';
import { checkMeasure } from '../../model/valueSize';
// Set arguments are handled by the set modules (sets → setOps/setAggregates).
import { isSetLike } from '../sets';
import { filterSet } from '../setOps';
import { reduceSet, setIsEmpty } from '../setAggregates';

/** A page result keeps the input page's cursors; an array input gives an array. */
function rewrap(page: Page | undefined, data: Value[]): Value {
  return page ? page.withData(data) : data;
}

define('map', async (call, env, ctx) => {
  const fn = lambdaArg(call, 'map');
  const { items, page } = asArrayOrPage(await evalArg(call, 'collection', env, ctx), argPos(call, 'collection'));
  ctx.budget.array(items.length);
  const out: Value[] = new Array(items.length);
  for (let i = 0; i < items.length; i++) out[i] = await applyLambdaExpr(fn, [items[i]], env, ctx);
  return rewrap(page, ctx.built(out));
});

define('foreach', async (call, env, ctx) => {
  const fn = lambdaArg(call, 'foreach');
  const coll = await evalArg(call, 'collection', env, ctx);
  const { items } = asArrayOrPage(coll, argPos(call, 'collection'));
  for (const item of items) await applyLambdaExpr(fn, [item], env, ctx);
  return coll;
});

define('filter', async (call, env, ctx) => {
  const fn = lambdaArg(call, 'filter');
  const coll = await evalArg(call, 'collection', env, ctx);
  if (isSetLike(coll)) return filterSet(fn, env, coll); // sets: a lazy filtered set (setOps.ts)
  const { items, page } = asArrayOrPage(coll, argPos(call, 'collection'));
  ctx.budget.array(items.length);
  const out: Value[] = [];
  for (const item of items) {
    if (expectBoolean(await applyLambdaExpr(fn, [item], env, ctx), argPos(call, 'filter'))) out.push(item);
  }
  return rewrap(page, out);
});

define('reduce', async (call, env, ctx) => {
  const fn = lambdaArg(call, 'reduce');
  let acc = await evalArg(call, 'initial', env, ctx);
  const coll = await evalArg(call, 'collection', env, ctx);
  // sets: a streamed fold (setAggregates.ts)
  if (isSetLike(coll)) return reduceSet(ctx, coll, argPos(call, 'collection'), acc, (a, v) => applyLambdaExpr(fn, [a, v], env, ctx));
  const { items, page } = asArrayOrPage(coll, argPos(call, 'collection'));
  for (const item of items) acc = await applyLambdaExpr(fn, [acc, item], env, ctx);
  // Like the other aggregates, a page reduces to a one-element page.
  return page ? page.withData([acc]) : acc;
});

/**
 * Take/Drop. Pages keep their cursors unchanged: Fauna recomputes `after`/`before` from the
 * boundary element, which needs the index entry (not just the mapped data) to rebuild.
 */
function slice(head: 'take' | 'drop') {
  define(head, async (call, env, ctx) => {
    const n = asLong(await evalArg(call, head, env, ctx), argPos(call, head));
    const { items, page } = asArrayOrPage(await evalArg(call, 'collection', env, ctx), argPos(call, 'collection'));
    // Negative counts: take → nothing, drop → everything kept.
    const k = n <= 0n ? 0 : n >= BigInt(items.length) ? items.length : Number(n);
    ctx.budget.array(head === 'take' ? k : items.length - k);
    return rewrap(page, head === 'take' ? items.slice(0, k) : items.slice(k));
  });
}
slice('take');
slice('drop');

/** Prepend/Append: elems may be one value or an array of values; the collection must be an Array. */
function concatenate(head: 'prepend' | 'append') {
  define(head, async (call, env, ctx) => {
    const elems = await evalArg(call, head, env, ctx);
    const coll = asArray(await evalArg(call, 'collection', env, ctx), argPos(call, 'collection'));
    const extra = Array.isArray(elems) ? elems : [elems];
    ctx.budget.array(extra.length + coll.length);
    // Judged from the parts' sizes before anything is copied; the result then knows its size.
    const parts = head === 'prepend' ? [extra, coll] : [coll, extra];
    const size = joined(parts);
    checkMeasure(size, ctx.budget.limits.maxValueBytes);
    const out = [...parts[0], ...parts[1]];
    remember(out, size);
    return out;
  });
}
concatenate('prepend');
concatenate('append');

function emptiness(head: 'is_empty' | 'is_nonempty') {
  define(head, async (call, env, ctx) => {
    const v = await evalArg(call, head, env, ctx);
    // sets: reads at most one entry (setAggregates.ts)
    if (isSetLike(v)) return (await setIsEmpty(ctx, v, argPos(call, head))) === (head === 'is_empty');
    let n: number;
    if (Array.isArray(v)) n = v.length;
    else if (v instanceof Page) n = v.data.length;
    else mismatch('Array, Set, or Page', v, argPos(call, head));
    return head === 'is_empty' ? n === 0 : n > 0;
  });
}
emptiness('is_empty');
emptiness('is_nonempty');
