// Aggregates over arrays, pages and sets (fql-v4.md §3.3): count, sum, mean, any, all, max, min,
// first, last; plus the set cases of is_empty/is_nonempty and reduce (routed here from
// functions/arrays.ts). Sets are streamed entry by entry, never collected.

import { define } from './registry';
import { argPos, evalArg, mismatch } from './args';
import { isSetLike, sourceOf, type SetSource } from './sets';
import type { EvalContext } from './context';
import { errors, type Position } from '../values/errors';
import { compareValues, valuesEqual } from '../values/order';
import { Page, Ref, SetV, typeName, wrapLong, type Value } from '../values/types';

/** Streams the element values of a set, at the context's read time. */
async function* setValues(ctx: EvalContext, set: SetV | Ref, pos: Position): AsyncGenerator<Value> {
  const source: SetSource = await sourceOf(ctx, set, pos);
  for await (const e of source.scan(ctx, { reverse: false, at: ctx.readAt })) {
    ctx.tick();
    const pause = ctx.budget.breathe();
    if (pause) await pause;
    yield e.value;
  }
}

/** The first element of a set in either direction, or undefined when it is empty. */
async function edgeOfSet(ctx: EvalContext, set: SetV | Ref, pos: Position, reverse: boolean): Promise<{ value: Value } | undefined> {
  const source = await sourceOf(ctx, set, pos);
  for await (const e of source.scan(ctx, { reverse, at: ctx.readAt })) return { value: e.value };
  return undefined;
}

/** IsEmpty/IsNonEmpty of a set: reads at most one entry. */
export async function setIsEmpty(ctx: EvalContext, set: SetV | Ref, pos: Position): Promise<boolean> {
  return (await edgeOfSet(ctx, set, pos, false)) === undefined;
}

/** Reduce over a set: a fold over the streamed elements. */
export async function reduceSet(
  ctx: EvalContext,
  set: SetV | Ref,
  pos: Position,
  initial: Value,
  step: (acc: Value, v: Value) => Promise<Value>,
): Promise<Value> {
  let acc = initial;
  for await (const v of setValues(ctx, set, pos)) acc = await step(acc, v);
  return acc;
}

/** ContainsValue on a set: streams until an element equals `x` (for functions/objects.ts to route to). */
export async function setContainsValue(ctx: EvalContext, set: SetV | Ref, pos: Position, x: Value): Promise<boolean> {
  const mark = ctx.budget.memory; // nothing read is kept (see aggregate)
  for await (const v of setValues(ctx, set, pos)) {
    if (valuesEqual(v, x)) return true;
    ctx.budget.rewind(mark);
  }
  return false;
}

/** A fold that sees each element once, then produces the result. */
interface Fold {
  step(v: Value): void;
  result(): Value;
}

type FoldFactory = (pos: Position) => Fold;

/**
 * Registers an aggregate. Arrays give the result; a Page gives a Page {data:[result]} with the
 * input's cursors (like Reduce); sets are scanned in full.
 */
function aggregate(head: string, make: FoldFactory, unwrapSingle = false) {
  define(head, async (call, env, ctx) => {
    let v = await evalArg(call, head, env, ctx);
    const pos = argPos(call, head);
    // Max/Min are variadic in the driver: Max(x) sends x itself, Max([[1,2]]) means Max([1,2]).
    if (unwrapSingle) {
      if (Array.isArray(v) && v.length === 1 && isIterable(v[0])) v = v[0];
      else if (!isIterable(v)) v = [v];
    }
    const fold = make(pos);
    if (Array.isArray(v)) {
      ctx.budget.charge(v.length); // Fauna charges a fold one unit per element
      for (const x of v) fold.step(x);
      return fold.result();
    }
    if (v instanceof Page) {
      ctx.budget.charge(v.data.length);
      for (const x of v.data) fold.step(x);
      return v.withData([fold.result()]);
    }
    if (isSetLike(v)) {
      // A fold keeps one value at most: what each element's read cost is given back after its step.
      const mark = ctx.budget.memory;
      for await (const x of setValues(ctx, v, pos)) {
        fold.step(x);
        ctx.budget.rewind(mark);
      }
      return fold.result();
    }
    mismatch('Array, Set, or Page', v, pos);
  });
}

function isIterable(v: Value): boolean {
  return Array.isArray(v) || v instanceof Page || isSetLike(v);
}

function number(v: Value, pos: Position): bigint | number {
  if (typeof v !== 'bigint' && typeof v !== 'number') throw errors.typeMismatch('Number', typeName(v), pos);
  return v;
}

function boolean(v: Value, pos: Position): boolean {
  if (typeof v !== 'boolean') throw errors.typeMismatch('Boolean', typeName(v), pos);
  return v;
}

const nonEmpty = (pos: Position) => errors.invalidArgument('Non-empty array expected.', pos);

aggregate('count', () => {
  let n = 0n;
  return { step: () => void n++, result: () => n };
});

/** Sum: Integer arithmetic (wrapping) until a Double appears, Double from then on. */
aggregate('sum', (pos) => {
  let acc: bigint | number = 0n;
  return {
    step(v) {
      const x = number(v, pos);
      acc = typeof acc === 'bigint' && typeof x === 'bigint' ? wrapLong(acc + x) : Number(acc) + Number(x);
    },
    result: () => acc,
  };
});

aggregate('mean', (pos) => {
  let sum = 0;
  let n = 0;
  return {
    step(v) {
      sum += Number(number(v, pos));
      n++;
    },
    result() {
      if (n === 0) throw nonEmpty(pos);
      return sum / n;
    },
  };
});

// Any/All type-check every element (no short cut), so a non-Boolean anywhere is an error.
aggregate('any', (pos) => {
  let any = false;
  return { step: (v) => void (any = boolean(v, pos) || any), result: () => any };
});

aggregate('all', (pos) => {
  let all = true;
  return { step: (v) => void (all = boolean(v, pos) && all), result: () => all };
});

function extreme(head: 'max' | 'min', sign: 1 | -1) {
  aggregate(
    head,
    (pos) => {
      let best: { v: Value } | undefined;
      return {
        step(v) {
          if (!best || sign * compareValues(v, best.v) > 0) best = { v };
        },
        result() {
          if (!best) throw nonEmpty(pos);
          return best.v;
        },
      };
    },
    true,
  );
}
extreme('max', 1);
extreme('min', -1);

/** First/Last: arrays (and pages) by index; sets by a one-entry scan from either end. */
function edge(head: 'first' | 'last') {
  define(head, async (call, env, ctx) => {
    const v = await evalArg(call, head, env, ctx);
    const pos = argPos(call, head);
    const items = Array.isArray(v) ? v : v instanceof Page ? v.data : undefined;
    if (items) {
      if (!items.length) throw nonEmpty(pos);
      return head === 'first' ? items[0] : items[items.length - 1];
    }
    if (isSetLike(v)) {
      const found = await edgeOfSet(ctx, v, pos, head === 'last');
      if (!found) throw errors.invalidArgument('Non-empty set expected.', pos);
      return found.value;
    }
    mismatch('Array or Set', v, pos);
  });
}
edge('first');
edge('last');
