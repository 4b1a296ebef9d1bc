// The JavaScript values an FQL-JS program computes, as the driver would see them: plain literals,
// arrays and objects (wrapped only when handed to a builder), functions (which become Lambdas),
// and built expressions (the driver's `Expr`), which already hold their wire JSON.

import type { JsonValue } from '../wire/expr';

/** A built expression: the driver's `Expr` (or `Bytes`), carrying the JSON it serialises to. */
export class ExprValue {
  constructor(readonly wire: JsonValue) {}
}

/** A plain object literal, its keys in JavaScript's own order (see orderedKeys). */
export class JsObject {
  constructor(readonly entries: ReadonlyMap<string, JsValue>) {}
}

/** An arrow or function expression: its parameter names, and its body run on argument values. */
export class JsFunction {
  constructor(
    readonly params: readonly string[],
    readonly invoke: (args: readonly JsValue[]) => JsValue,
  ) {}
}

/** The driver's module (`import * as fauna from 'faunadb'`) or its `query` object (`q`). */
export class Namespace {
  constructor(readonly kind: 'faunadb' | 'query') {}
}

export const FAUNADB = new Namespace('faunadb');
export const QUERY = new Namespace('query');

/** Numbers are JavaScript numbers, or bigints from `123n` literals. */
export type JsValue = null | boolean | string | number | bigint | JsValue[] | JsObject | JsFunction | ExprValue | Namespace;

/** A mistake the builders find (arity, argument types); the interpreter adds the position. */
export class BuildError extends Error {}

const ARRAY_INDEX = /^(?:0|[1-9][0-9]*)$/;

/**
 * JavaScript's property order, which `Object.keys` (and so the driver) follows: array-index keys
 * ascending first, then the others in insertion order.
 */
export function orderedKeys(keys: Iterable<string>): string[] {
  const indexes: string[] = [];
  const others: string[] = [];
  for (const k of keys) (ARRAY_INDEX.test(k) && Number(k) < 2 ** 32 - 1 ? indexes : others).push(k);
  indexes.sort((a, b) => Number(a) - Number(b));
  return [...indexes, ...others];
}
