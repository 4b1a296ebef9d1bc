// The expression tree the decoder builds from a request body and the evaluator runs.

import type { Position } from '../values/errors';
import type { LambdaParams, Value } from '../values/types';

/**
 * A parsed JSON document. Integers (no '.', no exponent) are `bigint` (exact 64-bit);
 * other numbers are `number`. Objects are Maps in document order; on duplicate keys the first
 * occurrence wins (as Fauna does).
 */
export type JsonValue = null | boolean | string | bigint | number | JsonValue[] | JsonObject;
export type JsonObject = Map<string, JsonValue>;

export type Expr = LitExpr | ArrayExpr | ObjectExpr | CallExpr | VarExpr | LambdaExpr | LetExpr;

/** A constant: JSON scalars and the @ref/@ts/@date/@bytes/@set/@query literals. */
export interface LitExpr {
  t: 'lit';
  v: Value;
  pos: Position;
}

export interface ArrayExpr {
  t: 'array';
  items: Expr[];
  pos: Position;
}

/** `{"object": {k: expr}}` (or `@obj` in expression position): values evaluated, keys literal. */
export interface ObjectExpr {
  t: 'object';
  entries: [string, Expr][];
  pos: Position;
}

/**
 * A function call, recognised by its whole key set. `fn` is the canonical head key
 * (deprecated aliases such as `create_class` are mapped to `create_collection`);
 * `args` holds every key present, including the head key itself.
 * The position of argument `k` is `[...pos, k]`.
 */
export interface CallExpr {
  t: 'call';
  fn: string;
  args: Map<string, Expr>;
  pos: Position;
}

export interface VarExpr {
  t: 'var';
  name: string;
  pos: Position;
}

/** `{"lambda": params, "expr": body}`; `raw` is the body's JSON, kept for rendering as @query. */
export interface LambdaExpr {
  t: 'lambda';
  params: LambdaParams;
  body: Expr;
  raw: JsonValue;
  pos: Position;
}

/** `{"let": bindings, "in": body}`; bindings in order, each visible to the later ones. */
export interface LetExpr {
  t: 'let';
  bindings: [string, Expr][];
  body: Expr;
  pos: Position;
}
