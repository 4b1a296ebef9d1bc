// Small builders for FQL expression trees (src/wire/expr.ts). Resolvers build trees whose leaves are
// literal values (refs, objects, …), so nothing is encoded to JSON and decoded again, and every read
// or write still goes through the evaluator (ABAC, index maintenance, history).

import type { CallExpr, Expr, LambdaExpr } from '../wire/expr';
import { Lambda, Ref, type LambdaParams, type Value } from '../values/types';
import { parseJson } from '../wire/json';

const NO_POS: (string | number)[] = [];

export function lit(v: Value): Expr {
  return { t: 'lit', v, pos: NO_POS };
}

export function v(name: string): Expr {
  return { t: 'var', name, pos: NO_POS };
}

/** A call: `head` is the canonical wire key, `args` the other keys of the form. */
export function call(head: string, main: Expr, args: Record<string, Expr> = {}): CallExpr {
  const map = new Map<string, Expr>([[head, main]]);
  for (const [k, e] of Object.entries(args)) map.set(k, e);
  return { t: 'call', fn: head, args: map, pos: NO_POS };
}

export function lambda(params: LambdaParams, body: Expr): LambdaExpr {
  // `raw` is only used to render the lambda as a value; these lambdas are applied, never returned.
  return { t: 'lambda', params, body, raw: null, pos: NO_POS };
}

export function letIn(bindings: [string, Expr][], body: Expr): Expr {
  return { t: 'let', bindings, body, pos: NO_POS };
}

export function objExpr(entries: [string, Expr][]): Expr {
  return { t: 'object', entries, pos: NO_POS };
}

export const get = (ref: Expr) => call('get', ref);
export const exists = (ref: Expr) => call('exists', ref);
export const del = (ref: Expr) => call('delete', ref);
export const create = (coll: Expr, params: Expr) => call('create', coll, { params });
export const update = (ref: Expr, params: Expr) => call('update', ref, { params });
export const replace = (ref: Expr, params: Expr) => call('replace', ref, { params });
export const match = (index: Expr, terms?: Expr) => call('match', index, terms === undefined ? {} : { terms });
export const mapExpr = (fn: LambdaExpr, coll: Expr) => call('map', fn, { collection: coll });

export function paginate(set: Expr, size: number, cursor?: { after?: Value; before?: Value }): Expr {
  const args: Record<string, Expr> = { size: lit(BigInt(size)) };
  if (cursor?.before !== undefined) args.before = lit(cursor.before);
  else if (cursor?.after !== undefined) args.after = lit(cursor.after);
  return call('paginate', set, args);
}

export const collectionRef = (name: string) => Ref.collection(name);
export const indexRef = (name: string) => Ref.schema('indexes', name);
export const functionRef = (name: string) => Ref.schema('functions', name);

/**
 * A lambda value from the driver's wire JSON of its body (plain JS: objects are forms), as a stored
 * function body. Same shape as what `Query(Lambda(…))` evaluates to.
 */
export function lambdaValue(params: LambdaParams, body: unknown): Lambda {
  return new Lambda(params, parseJson(JSON.stringify(body)), '4');
}

/** Plain JS data (objects, arrays, strings, booleans, numbers as Long when integral) → FQL value. */
export function toValue(js: unknown): Value {
  if (js === null || js === undefined) return null;
  if (Array.isArray(js)) return js.map(toValue);
  switch (typeof js) {
    case 'string':
    case 'boolean':
    case 'bigint':
      return js;
    case 'number':
      return Number.isInteger(js) ? BigInt(js) : js;
  }
  if (js instanceof Map) return js as Value;
  if (typeof js === 'object' && isValueObject(js)) return js as Value;
  const out = new Map<string, Value>();
  for (const [k, x] of Object.entries(js as Record<string, unknown>)) if (x !== undefined) out.set(k, toValue(x));
  return out;
}

function isValueObject(o: object): boolean {
  // Refs, times, dates, … are passed through as they are.
  return Object.getPrototypeOf(o) !== Object.prototype && Object.getPrototypeOf(o) !== null;
}

/** FQL value → plain JS (Maps to objects), for metadata read back from the database. */
export function fromValue(val: Value): unknown {
  if (val instanceof Map) {
    const out: Record<string, unknown> = {};
    for (const [k, x] of val) out[k] = fromValue(x);
    return out;
  }
  if (Array.isArray(val)) return val.map(fromValue);
  return val;
}
