// Objects and selection (fql-v4.md §3.2): select, select_all, contains_path, contains_field,
// contains_value, merge; plus concat (§3.8), which belongs with no other family yet.
// Documents are plain Objs (ref, ts, data, …), so everything that works on objects works on them.

import type { CallExpr } from '../../wire/expr';
import { errors } from '../../values/errors';
import { Page, Ref, SetV, type Obj, type Value } from '../../values/types';
import { valuesEqual } from '../../values/order';
import type { EvalContext } from '../context';
import type { Env } from '../env';
import { applyLambdaExpr } from '../evaluator';
import {
  argPos,
  asBoolean,
  asObj,
  asString,
  elemPos,
  evalArg,
  evalList,
  evalOptional,
  lambdaArg,
  mismatch,
} from '../args';
import { define } from '../registry';
import { setContainsValue } from '../setAggregates';

type PathElem = string | bigint;

/** A path is a String, an Integer, or an array of those. */
async function evalPath(call: CallExpr, key: string, env: Env, ctx: EvalContext): Promise<PathElem[]> {
  const v = await evalArg(call, key, env, ctx);
  const elems = Array.isArray(v) ? v : [v];
  return elems.map((p, i) => {
    if (typeof p !== 'string' && typeof p !== 'bigint')
      mismatch('Integer or String', p, Array.isArray(v) ? elemPos(call, key, i) : argPos(call, key));
    return p;
  });
}

/** A ref's database: on the ref itself, or (user documents) on its collection ref. */
function refDatabase(r: Ref): Ref | undefined {
  return r.database ?? (r.isUserDocument ? r.collection!.database : undefined);
}

/** One step of a path; `undefined` = not found. */
function step(v: Value, p: PathElem): Value | undefined {
  if (typeof p === 'bigint') {
    let arr: Value[] | undefined;
    if (Array.isArray(v)) arr = v;
    else if (v instanceof Page) arr = v.data;
    if (!arr || p < 0n || p >= BigInt(arr.length)) return undefined;
    return arr[Number(p)];
  }
  if (v instanceof Map) return v.get(p);
  if (v instanceof Page) {
    if (p === 'data') return v.data;
    if (p === 'before') return v.before;
    if (p === 'after') return v.after;
    return undefined;
  }
  if (v instanceof Ref) {
    switch (p) {
      case 'id':
        return v.id;
      case 'collection':
      case 'class': {
        const c = v.collection;
        // A scoped schema/key ref carries the scope itself; its native collection lives there too.
        if (c && v.database && !c.database && c.isNativeCollection) return new Ref(c.id, undefined, v.database);
        return c;
      }
      case 'database':
        return refDatabase(v);
    }
  }
  return undefined;
}

function selectOne(from: Value, path: PathElem[]): Value | undefined {
  let v: Value | undefined = from;
  for (const p of path) {
    v = step(v, p);
    if (v === undefined) return undefined;
  }
  return v;
}

/**
 * select_all: string steps pass through arrays (applied to every element, at any depth) and
 * the values found are flattened into one array.
 */
function selectAll(from: Value, path: PathElem[]): Value[] {
  const out: Value[] = [];
  const flatten = (v: Value) => {
    if (Array.isArray(v)) v.forEach(flatten);
    else out.push(v);
  };
  const walk = (v: Value, i: number) => {
    if (i === path.length) return flatten(v);
    const p = path[i];
    if (Array.isArray(v) && typeof p === 'string') {
      for (const x of v) walk(x, i);
      return;
    }
    const next = step(v, p);
    if (next !== undefined) walk(next, i + 1);
  };
  walk(from, 0);
  return out;
}

/**
 * Select evaluates its `default` only when the path is not found (Fauna's SelectE: an Abort there
 * aborts only then); SelectAll is an ordinary function, its arguments all evaluated first.
 */
async function select(call: CallExpr, env: Env, ctx: EvalContext, head: string, all: boolean): Promise<Value> {
  const lazyDefault = !all;
  const path = await evalPath(call, head, env, ctx);
  const from = await evalArg(call, 'from', env, ctx);
  // `default` is present even when null (the driver sends `"default": null` explicitly).
  const eager = lazyDefault ? undefined : await evalOptional(call, 'default', env, ctx);
  const dflt = () => (lazyDefault ? evalOptional(call, 'default', env, ctx) : Promise.resolve(eager));
  if (!all && call.args.has('all')) all = asBoolean(await evalArg(call, 'all', env, ctx), argPos(call, 'all'));
  if (all) {
    const found = selectAll(from, path);
    ctx.budget.array(found.length);
    if (found.length > 0 || !call.args.has('default')) return found;
    return (await dflt()) ?? found;
  }
  const found = selectOne(from, path);
  if (found !== undefined) return found;
  const d = await dflt();
  if (d !== undefined) return d;
  throw errors.valueNotFound(path.map(String), argPos(call, 'from'));
}

define('select', (call, env, ctx) => select(call, env, ctx, 'select', false));
// `select_as_index` is dispatched here too; positions must name the key actually sent.
define('select_all', (call, env, ctx) =>
  select(call, env, ctx, call.args.has('select_all') ? 'select_all' : 'select_as_index', true),
);

define('contains_path', async (call, env, ctx) => {
  // `contains` is the deprecated alias of this form.
  const path = await evalPath(call, call.args.has('contains_path') ? 'contains_path' : 'contains', env, ctx);
  const from = await evalArg(call, 'in', env, ctx);
  return selectOne(from, path) !== undefined;
});

define('contains_field', async (call, env, ctx) => {
  const field = asString(await evalArg(call, 'contains_field', env, ctx), argPos(call, 'contains_field'));
  const obj = asObj(await evalArg(call, 'in', env, ctx), argPos(call, 'in'));
  return obj.has(field);
});

define('contains_value', async (call, env, ctx) => {
  const x = await evalArg(call, 'contains_value', env, ctx);
  const inV = await evalArg(call, 'in', env, ctx);
  const some = (vs: Iterable<Value | undefined>) => {
    for (const v of vs) if (v !== undefined && valuesEqual(v, x)) return true;
    return false;
  };
  if (inV instanceof Map) return some(inV.values());
  if (Array.isArray(inV)) return some(inV);
  if (inV instanceof Page) return some(inV.data) || some([inV.before, inV.after]);
  if (inV instanceof Ref) return some([inV.id, inV.collection, refDatabase(inV)]);
  if (inV instanceof SetV) return setContainsValue(ctx, inV, argPos(call, 'in'), x);
  mismatch('Object, Array, Page, Set, or Ref', inV, argPos(call, 'in'));
});

define('merge', async (call, env, ctx) => {
  const base = asObj(await evalArg(call, 'merge', env, ctx), argPos(call, 'merge'));
  const withV = await evalArg(call, 'with', env, ctx);
  const others: Obj[] = Array.isArray(withV)
    ? withV.map((o, i) => asObj(o, elemPos(call, 'with', i)))
    : [asObj(withV, argPos(call, 'with'))];
  const resolver = call.args.has('lambda') ? lambdaArg(call, 'lambda') : undefined;
  ctx.budget.object(others.reduce((n, o) => n + o.size, base.size));
  const out: Obj = new Map(base);
  let n = 0;
  for (const o of others) {
    for (const [k, right] of o) {
      const p = ctx.budget.stride(n++);
      if (p) await p;
      // The resolver sees every key of `with`; `left` is null when the key is new.
      const v = resolver ? await applyLambdaExpr(resolver, [k, out.get(k) ?? null, right], env, ctx) : right;
      if (v === null) out.delete(k);
      else out.set(k, v);
    }
  }
  return ctx.built(out);
});

define('concat', async (call, env, ctx) => {
  const parts = await evalList(call, 'concat', env, ctx, false);
  const strs = parts.map((p, i) => asString(p, elemPos(call, 'concat', i)));
  const sepV = await evalOptional(call, 'separator', env, ctx);
  const sep = sepV === undefined ? '' : asString(sepV, argPos(call, 'separator'));
  let length = strs.length > 0 ? sep.length * (strs.length - 1) : 0;
  for (const x of strs) length += x.length;
  ctx.budget.string(length); // the value cap, before the string exists (V8 would throw past ~512 MB)
  return strs.join(sep);
});

// Exported for other families (e.g. sets/documents) that need the same path semantics.
export { selectOne, selectAll, type PathElem };
