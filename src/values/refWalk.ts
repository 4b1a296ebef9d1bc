// Walks over the refs inside a value (objects, arrays, sets, pages, lambda closures), copying
// only the containers on the way to a ref that changes.

import { Lambda, Page, Ref, SetV, type Obj, type Value } from './types';

export function mapRefs(v: Value, fn: (r: Ref) => Ref): Value {
  if (v === null || typeof v !== 'object') return v;
  if (v instanceof Ref) return fn(v);
  if (Array.isArray(v)) return mapArray(v, fn);
  if (v instanceof Map) return mapObj(v, fn);
  if (v instanceof SetV) {
    const expr = mapObj(v.expr, fn);
    return expr === v.expr ? v : new SetV(expr);
  }
  if (v instanceof Page) {
    const data = mapArray(v.data, fn);
    const before = v.before === undefined ? undefined : mapRefs(v.before, fn);
    const after = v.after === undefined ? undefined : mapRefs(v.after, fn);
    return data === v.data && before === v.before && after === v.after ? v : new Page(data, before, after);
  }
  if (v instanceof Lambda && v.closure) {
    const closure = mapObj(v.closure as Obj, fn);
    return closure === v.closure ? v : new Lambda(v.params, v.body, v.apiVersion, closure);
  }
  return v;
}

function mapArray(v: Value[], fn: (r: Ref) => Ref): Value[] {
  let out: Value[] | undefined;
  for (let i = 0; i < v.length; i++) {
    const x = mapRefs(v[i], fn);
    if (x !== v[i]) (out ??= v.slice())[i] = x;
  }
  return out ?? v;
}

function mapObj(v: Obj, fn: (r: Ref) => Ref): Obj {
  let out: Obj | undefined;
  for (const [k, x] of v) {
    const y = mapRefs(x, fn);
    if (y !== x) (out ??= new Map(v)).set(k, y);
  }
  return out ?? v;
}

/** Every ref inside `v`, in walk order. */
export function refsIn(v: Value, out: Ref[] = []): Ref[] {
  mapRefs(v, (r) => {
    out.push(r);
    return r;
  });
  return out;
}
